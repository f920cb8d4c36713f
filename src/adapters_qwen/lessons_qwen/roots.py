"""Where Qwen Code keeps its transcripts, and what tells one.

Apart from the reader so that finding the files to scan does not import the reader: a scan in
which nothing changed never needs it.

Qwen Code records each session as ``<runtime dir>/projects/<sanitized cwd>/chats/<session
id>.jsonl``. The runtime dir is ``$QWEN_RUNTIME_DIR`` when set, else ``$QWEN_HOME``, else
``~/.qwen``; the project folder is the working directory with every character other than a
letter or digit replaced by ``-``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path


def transcript_roots(environ: Mapping[str, str]) -> list[Path]:
    """``projects/`` under Qwen Code's runtime dir (see the module)."""
    for variable in ("QWEN_RUNTIME_DIR", "QWEN_HOME"):
        explicit = environ.get(variable, "").strip()
        if explicit:
            return [Path(explicit).expanduser() / "projects"]
    home = environ.get("HOME") or str(Path.home())
    return [Path(home).expanduser() / ".qwen" / "projects"]


# -- what tells a Qwen Code transcript --------------------------------------------------------

#: Qwen Code writes JSON Lines only.
EXTENSIONS = (".jsonl",)
MARKS = "JSON Lines whose records carry sessionId and message parts"
#: Fields only Qwen Code (and Gemini-style ``parts``) put in a record: Claude Code's records
#: carry ``content``, not ``parts``, and its ``version`` is Claude Code's.
_PARTS = b'"parts"'


def is_transcript(path: str) -> bool:
    """Session files live in a ``chats`` folder under a project's folder."""
    return f"{os.sep}chats{os.sep}" in path


def recognize(path: Path, head: bytes | None) -> int:
    """How sure we are that ``path`` is a Qwen Code transcript (0: not at all).

    From the path alone, a file under a ``.qwen`` folder; from the first bytes, a first record
    with the envelope Qwen Code and Claude Code share (``sessionId``, ``parentUuid``) whose
    message holds Gemini-style ``parts``. That is more specific than Claude Code's marks, so
    a Qwen file wins over them.
    """
    if head is None:
        return 2 if ".qwen" in path.parts else 0
    if path.suffix != ".jsonl":
        return 0
    first, newline, _ = head.lstrip().partition(b"\n")
    if not newline:
        return 2 if b'"sessionId"' in head and _PARTS in head else 0
    try:
        record = json.loads(first)
    except (ValueError, RecursionError):
        return 0
    if not isinstance(record, dict) or "sessionId" not in record or "uuid" not in record:
        return 0
    message = record.get("message")
    if isinstance(message, dict) and "parts" in message:
        return 2
    # A first record without a message (a system record): the rest of the head decides.
    return 2 if _PARTS in head and b'"parentUuid"' in head else 0


def session_names(session_id: str) -> tuple[str, ...]:
    """A transcript is named ``<session id>.jsonl``."""
    return (session_id,)


def skill_roots(environ: Mapping[str, str]) -> list[Path]:
    """Qwen Code reads user skills from ``skills/`` in its home (``~/.qwen/skills``)."""
    explicit = environ.get("QWEN_HOME", "").strip()
    if explicit:
        return [Path(explicit).expanduser() / "skills"]
    home = Path(environ.get("HOME") or str(Path.home())).expanduser()
    return [home / ".qwen" / "skills"]
