"""Hook payloads for the adapter contract kit, made from payloads captured from the real CLIs.

Imported as a plain module (``tests/`` is on ``sys.path``); each adapter's contract test hands
one of these to :class:`lessons_core.testing.AdapterContract`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: Where the captured payloads of each agent are kept.
HERE = Path(__file__).resolve().parent / "adapters"


class CapturedPayloads:
    """Payloads from two captured files: a shell call before it runs, and a session start."""

    def __init__(self, pre_tool: dict[str, Any], session_start: dict[str, Any]) -> None:
        self._pre_tool = pre_tool
        self._start = session_start

    @classmethod
    def from_files(cls, pre_tool: Path, session_start: Path) -> CapturedPayloads:
        return cls(*(json.loads(p.read_text(encoding="utf-8")) for p in (pre_tool, session_start)))

    @classmethod
    def from_lines(cls, path: Path, pre_tool_event: str, shell_tool: str) -> CapturedPayloads:
        """The first shell call before it runs and the first session start of a JSONL file."""
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        pre = next(
            r
            for r in rows
            if r.get("hook_event_name") == pre_tool_event and r.get("tool_name") == shell_tool
        )
        start = next(r for r in rows if r.get("hook_event_name") == "SessionStart")
        return cls(pre, start)

    def pre_tool(self, session: str, cwd: Path, command: str) -> dict[str, Any]:
        payload = dict(self._pre_tool, session_id=session, cwd=str(cwd))
        payload["tool_input"] = dict(payload.get("tool_input") or {}, command=command)
        payload.pop("transcript_path", None)
        return payload

    def session_start(self, session: str, cwd: Path) -> dict[str, Any]:
        payload = dict(self._start, session_id=session, cwd=str(cwd))
        payload.pop("transcript_path", None)
        return payload
