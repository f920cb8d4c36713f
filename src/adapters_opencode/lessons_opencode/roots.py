"""Where OpenCode keeps its sessions.

Apart from the reader so that finding the files to scan does not import it. OpenCode (1.x)
keeps every session of every project in one SQLite database in its data directory,
``$XDG_DATA_HOME/opencode`` (``~/.local/share/opencode`` by default): ``opencode.db`` for the
released channels, ``opencode-<channel>.db`` for the others. ``$OPENCODE_DB`` names another file
(an absolute path, or a name inside the data directory).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path


def data_dir(environ: Mapping[str, str]) -> Path:
    """OpenCode's data directory for this environment."""
    return host_data_dir(environ, "opencode")


def transcript_roots(environ: Mapping[str, str]) -> list[Path]:
    """The data directory, and the folder of an ``$OPENCODE_DB`` kept elsewhere."""
    return database_roots(environ, "opencode", "OPENCODE_DB")


def host_data_dir(environ: Mapping[str, str], app: str) -> Path:
    """The data directory of ``app`` (OpenCode, or a fork of it under its own name)."""
    xdg = environ.get("XDG_DATA_HOME", "").strip()
    if xdg:
        return Path(xdg).expanduser() / app
    home = environ.get("HOME") or "~"
    return Path(home).expanduser() / ".local" / "share" / app


def database_roots(environ: Mapping[str, str], app: str, variable: str) -> list[Path]:
    """``app``'s data directory, and the folder of a database its ``variable`` names elsewhere
    (an absolute path; a bare name is a file inside the data directory)."""
    roots = [host_data_dir(environ, app)]
    named = environ.get(variable, "").strip()
    if named and named != ":memory:" and Path(named).expanduser().is_absolute():
        parent = Path(named).expanduser().parent
        if parent not in roots:
            roots.append(parent)
    return roots


# -- what tells OpenCode's session database, and an exported session ----------------------------

#: Every session is in one SQLite file, not in JSON Lines. (An exported session is a JSON file,
#: but OpenCode keeps none in its data directory: one is read when named to ``lessons scan`` or
#: listed in ``scanPaths``.)
EXTENSIONS = (".db",)
MARKS = (
    "a SQLite database with OpenCode's session, message and part tables, or an exported"
    ' OpenCode session (a JSON document whose info has an id "ses_…" and a projectID)'
)
#: The first bytes of every SQLite 3 database file.
SQLITE_MAGIC = b"SQLite format 3\x00"
#: An export opens with the session's ``info``: its ``ses_`` id and its ``projectID``.
_EXPORT_OPEN = re.compile(rb'\A\s*\{\s*"info"\s*:\s*\{')
_SESSION_ID = re.compile(rb'"id"\s*:\s*"ses_')


def is_transcript(path: str) -> bool:
    """``opencode.db`` and its channels' ``opencode-<channel>.db`` (the data directory holds no
    other database today, but a plugin's own file there is none of ours)."""
    name = path.rpartition(os.sep)[2]
    return name.startswith("opencode") and name.endswith(".db")


def recognize(path: Path, head: bytes | None) -> int:
    """How sure we are that ``path`` is OpenCode's database (0: not at all).

    The name alone is a guess (``opencode*.db``); the file's head must then be a SQLite
    database's. The tables themselves are checked by the reader, which yields nothing for a
    database that is not OpenCode's. A JSON file is an exported session when its head has the
    marks of one (:func:`is_export`).
    """
    named = path.name.startswith("opencode") and path.suffix == ".db"
    if head is None:
        return 1 if named else 0
    if not head.startswith(SQLITE_MAGIC):
        return 3 if is_export(head) else 0
    return 3 if named or b"CREATE TABLE `part`" in head else 1


def is_export(head: bytes) -> bool:
    """Whether a file's first bytes open an exported OpenCode session: a JSON document whose
    first key is the session's ``info``, with a ``ses_`` id and a ``projectID`` (whatever the
    file is named: checkpoint tools save exports as ``.jsonl``). More certain than the marks of
    a Gemini CLI document, which has ``messages`` too."""
    return (
        _EXPORT_OPEN.match(head) is not None
        and _SESSION_ID.search(head) is not None
        and b'"projectID"' in head
    )
