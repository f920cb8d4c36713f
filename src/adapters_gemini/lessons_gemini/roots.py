"""Where Gemini CLI keeps its transcripts.

Apart from the reader so that finding the files to scan does not import the reader (and the
failure patterns it compiles): a scan in which nothing changed never needs it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def transcript_roots(environ: Mapping[str, str]) -> list[Path]:
    """``$GEMINI_CLI_HOME`` (replaces the home directory) or ``~``, then ``.gemini/tmp``."""
    home = environ.get("GEMINI_CLI_HOME", "").strip() or environ.get("HOME") or "~"
    return [Path(home).expanduser() / ".gemini" / "tmp"]


# -- what tells a Gemini CLI transcript -------------------------------------------------------

EXTENSIONS = (".json", ".jsonl")
MARKS = "projectHash or messages"
#: Legacy sessions are one JSON document rewritten in place; they resume by message count.
DOCUMENT_SUFFIXES = (".json",)


def is_transcript(path: str) -> bool:
    """Files under a ``chats`` folder, but not the logs and checkpoints kept beside them."""
    name = path.rpartition(os.sep)[2]
    return f"{os.sep}chats{os.sep}" in path and not name.startswith(("logs", "checkpoint"))


def recognize(path: Path, head: bytes | None) -> int:
    """How sure we are that ``path`` is a Gemini CLI transcript (0: not at all); between the
    other two agents' marks in how specific they are."""
    if head is None:
        return 2 if ".gemini" in path.parts else 0
    if b'"projectHash"' in head or (path.suffix == ".json" and b'"messages"' in head):
        return 2
    return 0


def session_names(session_id: str) -> tuple[str, ...]:
    """A session file carries the first eight characters of the session id."""
    return (session_id, session_id[:8]) if len(session_id) > 8 else (session_id,)


def skill_roots(environ: Mapping[str, str]) -> list[Path]:
    """Gemini CLI reads user skills from the shared ``~/.agents/skills`` (``~/.gemini/skills``
    is an alias of it)."""
    home = Path(environ.get("HOME") or str(Path.home())).expanduser()
    return [home / ".agents" / "skills"]
