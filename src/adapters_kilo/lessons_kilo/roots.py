"""Where Kilo CLI keeps its sessions.

Apart from the reader so that finding the files to scan does not import it. Kilo CLI (7.x), an
OpenCode fork, keeps every session of every project in one SQLite database of OpenCode's schema
in its data directory, ``$XDG_DATA_HOME/kilo`` (``~/.local/share/kilo`` by default): ``kilo.db``
for the released channels, ``kilo-<channel>.db`` for the others. ``$KILO_DB`` names another
file (an absolute path, or a name inside the data directory).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from lessons_opencode.roots import SQLITE_MAGIC, database_roots, host_data_dir


def data_dir(environ: Mapping[str, str]) -> Path:
    """Kilo CLI's data directory for this environment."""
    return host_data_dir(environ, "kilo")


def transcript_roots(environ: Mapping[str, str]) -> list[Path]:
    """The data directory, and the folder of a ``$KILO_DB`` kept elsewhere."""
    return database_roots(environ, "kilo", "KILO_DB")


#: Every session is in one SQLite file, not in JSON Lines.
EXTENSIONS = (".db",)
MARKS = "a SQLite database with Kilo CLI's session, message, part and kilo_board tables"
#: A table OpenCode's database does not have.
_KILO_TABLE = b"CREATE TABLE `kilo_board`"


def is_transcript(path: str) -> bool:
    """``kilo.db`` and its channels' ``kilo-<channel>.db`` (not a plugin's own file there)."""
    name = path.rpartition(os.sep)[2]
    return name.startswith("kilo") and name.endswith(".db")


def recognize(path: Path, head: bytes | None) -> int:
    """How sure we are that ``path`` is Kilo CLI's database (0: not at all).

    By name (``kilo*.db``) a little more than OpenCode's adapter is sure of an unnamed file,
    then by the head of a SQLite database: Kilo's own ``kilo_board`` table in its schema beats
    OpenCode's claim on a database with a ``part`` table. (Kilo's session export is OpenCode's
    document; an export is read as OpenCode's.)
    """
    named = path.name.startswith("kilo") and path.suffix == ".db"
    if head is None:
        return 2 if named else 0
    if not head.startswith(SQLITE_MAGIC):
        return 0
    if _KILO_TABLE in head:
        return 4
    return 3 if named else 0
