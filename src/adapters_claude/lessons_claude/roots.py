"""Where Claude Code keeps its transcripts.

Apart from the reader so that finding the files to scan does not import the reader (and the
failure patterns it compiles): a scan in which nothing changed never needs it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path


def transcript_roots(environ: Mapping[str, str]) -> list[Path]:
    """Where Claude Code keeps transcripts: ``$CLAUDE_CONFIG_DIR`` (comma-separated) or the
    defaults ``~/.claude`` and ``$XDG_CONFIG_HOME/claude``, each with ``projects/`` below."""
    explicit = environ.get("CLAUDE_CONFIG_DIR", "")
    home = Path(environ.get("HOME") or str(Path.home()))
    if explicit.strip():
        bases = [Path(p.strip()).expanduser() for p in explicit.split(",") if p.strip()]
    else:
        xdg = environ.get("XDG_CONFIG_HOME") or str(home / ".config")
        bases = [home / ".claude", Path(xdg) / "claude"]
    roots: list[Path] = []
    for base in bases:
        root = base / "projects"
        if root not in roots:
            roots.append(root)
    return roots


# -- what tells a Claude Code transcript ------------------------------------------------------

#: Claude Code writes JSON Lines only.
EXTENSIONS = (".jsonl",)
#: What ``recognize`` looks for, in words (for a file no adapter recognises).
MARKS = "JSON Lines whose records carry sessionId or parentUuid"
_HEAD_MARKS = (b'"sessionId"', b'"parentUuid"', b'"type":"user"')
#: Top-level fields of which every Claude Code record has one: the session, its place in the
#: conversation, or (a snapshot of edited files, a title) the message it belongs to.
_RECORD_MARKS = ("sessionId", "parentUuid", "leafUuid", "messageId")


def is_transcript(path: str) -> bool:
    """Every JSONL file under ``projects/`` but the journal some versions keep beside them."""
    return path.rpartition(os.sep)[2] != "journal.jsonl"


def recognize(path: Path, head: bytes | None) -> int:
    """How sure we are that ``path`` is a Claude Code transcript (0: not at all).

    From the path alone, a file under a ``.claude`` folder; from the first bytes, a first line
    that is a JSON object with one of the top-level fields every record carries (the first
    bytes' marks anywhere, when the first line is longer than they are). The other agents'
    marks are more specific, so they win a tie.
    """
    if head is None:
        return 1 if ".claude" in path.parts else 0
    if path.suffix == ".json":
        return 0  # Claude Code writes JSONL only; a stray JSON file is not a transcript
    first, newline, _ = head.lstrip().partition(b"\n")
    if not newline:  # a first line longer than the head: its marks are all there is to go on
        return 1 if any(mark in head for mark in _HEAD_MARKS) else 0
    try:
        record = json.loads(first)
    except (ValueError, RecursionError):
        return 0  # not JSON Lines (a pretty-printed document opens with a lone brace)
    if not isinstance(record, dict):
        return 0
    # Another agent's event log names a session too, but inside its records (``data``).
    return 1 if any(key in record for key in _RECORD_MARKS) else 0


def session_names(session_id: str) -> tuple[str, ...]:
    """A transcript is named ``<session id>.jsonl``."""
    return (session_id, session_id[:8]) if len(session_id) > 8 else (session_id,)


def skill_roots(environ: Mapping[str, str]) -> list[Path]:
    """Claude Code reads user skills from ``$CLAUDE_CONFIG_DIR/skills`` (``~/.claude/skills``)."""
    home = Path(environ.get("HOME") or str(Path.home())).expanduser()
    explicit = environ.get("CLAUDE_CONFIG_DIR")
    root = Path(explicit).expanduser() if explicit else home / ".claude"
    return [root / "skills"]
