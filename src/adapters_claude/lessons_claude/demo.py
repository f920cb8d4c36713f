"""What ``lessons demo`` needs of Claude Code: a sample session, and the hook's payloads.

The core's demo drives the real commands and the real hook process; this module says what a
Claude Code transcript and hook call look like, so the core names no agent.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any


def sample_transcripts() -> Path:
    """A folder holding a Claude Code session with a failure, its fix and a ``#lesson`` block."""
    return Path(str(resources.files("lessons_claude") / "data" / "sample-transcripts"))


def pre_tool(session: str, transcript: Path, cwd: Path, command: str) -> dict[str, Any]:
    """The ``PreToolUse`` payload of a Bash call."""
    return {
        "session_id": session,
        "transcript_path": str(transcript),
        "cwd": str(cwd),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_demo",
    }


def session_start(session: str, cwd: Path) -> dict[str, Any]:
    """The ``SessionStart`` payload of a new session."""
    return {
        "session_id": session,
        "cwd": str(cwd),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }


def denial(answer: dict[str, Any] | None) -> str | None:
    """The reason of a denied call, or ``None`` when the hook let it run."""
    specific = (answer or {}).get("hookSpecificOutput", {})
    if specific.get("permissionDecision") == "deny":
        return str(specific.get("permissionDecisionReason", ""))
    return None


def context(answer: dict[str, Any] | None) -> str:
    """The text the hook added for the model ("" when none)."""
    return str((answer or {}).get("hookSpecificOutput", {}).get("additionalContext", ""))
