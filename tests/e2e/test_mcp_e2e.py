"""The real Claude Code with our MCP server: a scripted model calls ``search`` and ``record``.

``lessons install claude --mcp`` registers the hooks and the server in a scratch HOME; the fake
Anthropic API answers the first turn with a call of ``mcp__lessons__search`` (a failure's
output), the next with ``mcp__lessons__record``, then "done". The checks: Claude Code started
our server and offered its tools to the model, the search result (the stored lesson's fix)
came back in the next request, and the recorded lesson is a pending candidate in the store.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest
from agent_harness import FakeModelServer, Recorded, Reply, Scratch, run_lessons
from fake_anthropic import FakeAnthropic, _tool_results, result_text
from test_claude_e2e import add_lesson, run_claude

pytest.importorskip("lessons_mcp")
pytestmark = pytest.mark.e2e

SEARCH = "mcp__lessons__search"
RECORD = "mcp__lessons__record"
FAILURE = (
    "error: The following untracked working tree files would be overwritten by checkout:\n"
    "\tsrc/app.py\nPlease move or remove them before you switch branches.\nAborting"
)
RECORDED = {
    "mistake": "Ran make release without the changelog entry; the release check refused it",
    "fix": "Add the entry to CHANGELOG.md first (MCP-REC-5Z1), then run make release again.",
    "tool": "Bash",
    "trigger": "make release",
}


class FakeMcpModel(FakeAnthropic):
    """Calls our two MCP tools in turn once Claude Code offers them, then answers "done"."""

    def __init__(self) -> None:
        super().__init__("true")

    def answer(self, request: Recorded) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        if request.method != "POST" or not request.path.startswith("/v1/messages"):
            return super().answer(request)
        if not self._is_main(body):
            return super().answer(request)
        offered = {t.get("name") for t in body.get("tools") or [] if isinstance(t, dict)}
        done = len(_tool_results(body))
        model = str(body.get("model") or "claude-fake")
        if done == 0 and SEARCH in offered:
            return self._call(model, 1, SEARCH, {"error": FAILURE})
        if done == 1 and RECORD in offered:
            return self._call(model, 2, RECORD, RECORDED)
        return self._text(model, "done")

    def _call(self, model: str, n: int, name: str, args: dict[str, Any]) -> Reply:
        block = {"type": "tool_use", "id": f"toolu_mcp_{n:02d}", "name": name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(args)}
        return self._stream(model, block, delta, "tool_use")


def test_claude_calls_search_and_record_through_our_server(scratch: Scratch) -> None:
    out = run_lessons(scratch, "install", "claude", "--mcp", "--no-scan").stdout
    assert "MCP server 'lessons' registered" in out
    lesson_id = add_lesson(
        scratch,
        {
            "summary": "git stash leaves untracked files behind",
            "mistake": "Ran git stash before switching branches; untracked files stayed behind",
            "remediation": "Use git stash -u so untracked files go too (MCP-FIX-8K2).",
            "type": "hint",
            "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"\bgit\s+stash\b"]},
            "errorLines": [
                "error: The following untracked working tree files would be overwritten by "
                "checkout: src/app.py"
            ],
        },
    )
    server: FakeModelServer
    with FakeMcpModel() as server:
        run_claude(
            scratch,
            server,
            prompt="switch to main",
            extra=("--allowedTools", f"{SEARCH},{RECORD}"),
            # Headless Claude Code may start its first request while MCP servers still
            # connect; this makes it wait, so the tools are offered from the first turn.
            env_extra={"MCP_CONNECTION_NONBLOCKING": "0"},
        )
    requests = server.main_requests()
    assert requests, "claude never asked the model"
    offered = {t.get("name") for t in requests[0].get("tools") or []}
    assert {SEARCH, RECORD} <= offered, sorted(n for n in offered if n)
    # The search result is in the next request, as the tool_result of the search call.
    second = requests[1]
    results = _tool_results(second)
    assert results and not results[0].get("is_error"), results
    assert "MCP-FIX-8K2" in result_text(results[0])
    assert lesson_id in json.dumps(second) or "git-stash" in result_text(results[0])
    # The record call became a pending candidate in the store.
    third = requests[2]
    recorded = _tool_results(third)[-1]
    assert not recorded.get("is_error"), result_text(recorded)
    assert "candidate" in result_text(recorded)
    conn = sqlite3.connect(scratch.lessons_home / "lessons.db")
    try:
        rows = conn.execute("SELECT status, fix, tool, detector FROM candidates").fetchall()
    finally:
        conn.close()
    assert [(r[0], r[2], r[3]) for r in rows] == [("pending", "Bash", "mcp")]
    assert "MCP-REC-5Z1" in rows[0][1]
