"""Where GitHub Copilot CLI keeps its transcripts, and what tells one.

Apart from the reader so that finding the files to scan does not import the reader: a scan in
which nothing changed never needs it.

Copilot CLI records each session as ``<home>/session-state/<session id>/events.jsonl``, the
home being ``$COPILOT_HOME`` when set, else ``~/.copilot``. Every line is one event
``{type, data, id, timestamp, parentId}``; the first is ``session.start``, whose ``data``
names the session, its folder and the Copilot version.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path


def copilot_home(environ: Mapping[str, str]) -> Path:
    """``$COPILOT_HOME`` when set, else ``~/.copilot``."""
    explicit = environ.get("COPILOT_HOME", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    home = environ.get("HOME") or str(Path.home())
    return Path(home).expanduser() / ".copilot"


def transcript_roots(environ: Mapping[str, str]) -> list[Path]:
    """``session-state/`` under Copilot's home (see the module)."""
    return [copilot_home(environ) / "session-state"]


# -- what tells a Copilot CLI transcript -------------------------------------------------------

#: Copilot writes JSON Lines only.
EXTENSIONS = (".jsonl",)
MARKS = "JSON Lines of {type, data, id, parentId} events starting with session.start"
#: Event types of Copilot's session log a cut-out piece of one may start with.
_TYPES = frozenset(
    {"session.start", "session.resume", "user.message", "assistant.turn_start", "hook.start"}
)


def is_transcript(path: str) -> bool:
    """A session's log is ``events.jsonl`` in its own folder (the folder holds other files)."""
    return os.path.basename(path) == "events.jsonl"  # noqa: PTH119


def recognize(path: Path, head: bytes | None) -> int:
    """How sure we are that ``path`` is a Copilot CLI session log (0: not at all).

    From the path alone, an ``events.jsonl`` under a ``session-state`` folder; from the first
    bytes, a first record ``{type, data, id}`` whose type is ``session.start`` (or, for a log
    cut from the middle of a session, one of Copilot's event types with that envelope).
    """
    if head is None:
        return 2 if path.name == "events.jsonl" and "session-state" in path.parts else 0
    if path.suffix != ".jsonl":
        return 0
    first, newline, _ = head.lstrip().partition(b"\n")
    try:
        record = json.loads(first) if newline else None
    except (ValueError, RecursionError):
        return 0
    if isinstance(record, dict) and {"type", "data", "id"} <= record.keys():
        if record.get("type") == "session.start":
            return 3
        if record.get("type") in _TYPES:
            return 2
    return 0


def skill_roots(environ: Mapping[str, str]) -> list[Path]:
    """Copilot CLI reads user skills from ``skills/`` in its home (``~/.copilot/skills``)."""
    return [copilot_home(environ) / "skills"]
