"""Where Codex CLI keeps its transcripts.

Apart from the reader so that finding the files to scan does not import the reader (and the
failure patterns it compiles): a scan in which nothing changed never needs it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def transcript_roots(environ: Mapping[str, str]) -> list[Path]:
    """``$CODEX_HOME`` (default ``~/.codex``): ``sessions/`` and ``archived_sessions/``."""
    explicit = environ.get("CODEX_HOME", "").strip()
    if explicit:
        base = Path(explicit).expanduser()
    else:
        base = Path(environ.get("HOME") or str(Path.home())) / ".codex"
    return [base / "sessions", base / "archived_sessions"]


# -- what tells a Codex CLI transcript --------------------------------------------------------

#: The spring-2025 TypeScript CLI's single-document ``rollout-*.json`` is not read.
EXTENSIONS = (".jsonl",)
MARKS = "session_meta or payload"
_HEAD_MARKS = (b'"payload"', b"session_meta", b'"record_type"')


def is_transcript(path: str) -> bool:
    """Session files are ``rollout-<time>-<session id>.jsonl``."""
    return path.rpartition(os.sep)[2].startswith("rollout-")


def recognize(path: Path, head: bytes | None) -> int:
    """How sure we are that ``path`` is a Codex CLI transcript (0: not at all); the marks
    are the most specific of the three agents', so they win over the others'."""
    if head is None:
        return 3 if ".codex" in path.parts or path.name.startswith("rollout-") else 0
    return 3 if any(mark in head for mark in _HEAD_MARKS) else 0


def session_names(session_id: str) -> tuple[str, ...]:
    """The session id ends the file name."""
    return (session_id, session_id[:8]) if len(session_id) > 8 else (session_id,)


def skill_roots(environ: Mapping[str, str]) -> list[Path]:
    """Codex reads user skills from the shared ``~/.agents/skills``."""
    home = Path(environ.get("HOME") or str(Path.home())).expanduser()
    return [home / ".agents" / "skills"]
