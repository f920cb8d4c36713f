"""Compaction through the real Claude Code: the handoff written before, delivered after.

Two ways to make Claude Code compact against the fake server:

* automatically, in one ``claude -p`` run: the fake answers a main-loop request with the API's
  ``prompt is too long: N tokens > M maximum`` error, and Claude Code compacts on its own
  (``PreCompact`` with ``trigger: auto``, a summarisation request, ``SessionStart`` with
  ``source: compact``) and sends the request again on the compacted conversation;
* by hand: ``/compact`` as the prompt of a resumed session (``trigger: manual``); the
  ``SessionStart`` context is kept in the session and reaches the model with the next prompt.

Both need a conversation of at least two message groups, which Claude Code tells apart by the
assistant message id (the fake gives every answer its own).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from agent_harness import Recorded, Reply, Scratch, hook_log, run_lessons
from fake_anthropic import FakeAnthropic
from test_claude_e2e import add_lesson, hook_events, run_claude, tool_results

pytestmark = pytest.mark.e2e

HANDOFF = "Carried over from before this session's context was compacted"
SUMMARY = "SUMMARY-OF-EARLIER-WORK-5C2"
#: What Claude Code's summarisation request asks (its last user message).
SUMMARISE = "Respond with TEXT ONLY"
TOO_LONG = "prompt is too long: 250000 tokens > 200000 maximum"

HINT = {
    "summary": "listing a directory that is not there",
    "mistake": "ls on a directory that does not exist yet",
    "remediation": "Check with test -d first (HINT-LS-COMPACT).",
    "type": "hint",
    "priority": 8,
    "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"^ls\b"]},
}


class CompactingClaude(FakeAnthropic):
    """Runs ``commands`` one per request, then (with ``overflow``) says the prompt is too long
    until the conversation has been compacted; summarisation requests get :data:`SUMMARY`."""

    def __init__(self, commands: list[str], *, overflow: bool = False) -> None:
        super().__init__(commands[0] if commands else "true")
        self.commands = commands
        self.overflow = overflow

    @staticmethod
    def is_summary_request(body: dict[str, Any]) -> bool:
        messages = body.get("messages") or []
        return bool(messages) and SUMMARISE in json.dumps(messages[-1])

    def work_requests(self) -> list[dict[str, Any]]:
        """Main-loop requests that are not summarisation requests."""
        return [b for b in self.main_requests() if not self.is_summary_request(b)]

    def answer(self, request: Recorded) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        if request.method != "POST" or not self._is_main(body):
            return super().answer(request)
        model = str(body.get("model") or "claude-fake")
        if self.is_summary_request(body):
            return self._text(model, SUMMARY)
        compacted = SUMMARY in json.dumps(body.get("messages"))
        done = len(tool_results(body))
        if not compacted and done < len(self.commands):
            command = self.commands[done]
            return self._tool(model, f"toolu_c{done}", "Bash", {"command": command})
        if self.overflow and not compacted:
            error = {"type": "invalid_request_error", "message": TOO_LONG}
            return Reply.json({"type": "error", "error": error}, 400)
        return self._text(model, "done")


def stream_items(stdout: str) -> list[dict[str, Any]]:
    items = []
    for line in stdout.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            items.append(item)
    return items


def compact_triggers(stdout: str) -> list[str]:
    return [
        str(item.get("compact_metadata", {}).get("trigger"))
        for item in stream_items(stdout)
        if item.get("subtype") == "compact_boundary"
    ]


def session_id(stdout: str) -> str:
    for item in stream_items(stdout):
        if item.get("session_id"):
            return str(item["session_id"])
    raise AssertionError("no session id in the output")


def setup(scratch: Scratch) -> str:
    run_lessons(scratch, "install", "claude")
    return add_lesson(scratch, HINT)


def test_auto_compaction_carries_the_handoff_into_the_next_request(scratch: Scratch) -> None:
    lesson_id = setup(scratch)
    with CompactingClaude(["ls no-such-dir-e2e", "echo second"], overflow=True) as server:
        out = run_claude(scratch, server)
    assert compact_triggers(out) == ["auto"], out[-3000:]
    assert "SessionStart:compact" in [e.get("hook_name") for e in hook_events(out)]
    (pre_compact,) = [e for e in hook_log(scratch) if e.get("event") == "pre_compact"]
    assert pre_compact.get("handoff") == 2  # the lesson given and the open failure

    *before, after = server.work_requests()
    assert all(HANDOFF not in json.dumps(b) for b in before)
    text = json.dumps(after["messages"])
    assert SUMMARY in text, "the request after compaction holds the summary"
    assert text.count(HANDOFF) == 1, text[-4000:]
    carried = text[text.index(HANDOFF) :][:1500]
    assert "still failing: `ls no-such-dir-e2e`" in carried
    assert f"lesson given ({lesson_id})" in carried and "HINT-LS-COMPACT" in carried
    # The handoff rides in the session-start block, after the protocol.
    assert text.index("Lessons from earlier sessions") < text.index(HANDOFF)


def test_manual_compact_then_the_next_prompt_has_the_handoff(scratch: Scratch) -> None:
    lesson_id = setup(scratch)
    with CompactingClaude(["ls no-such-dir-e2e", "echo second"]) as server:
        first = run_claude(scratch, server)
    sid = session_id(first)
    with CompactingClaude([]) as server:
        out = run_claude(scratch, server, prompt="/compact", extra=("--resume", sid))
    assert compact_triggers(out) == ["manual"], out[-3000:]
    assert "SessionStart:compact" in [e.get("hook_name") for e in hook_events(out)]
    with CompactingClaude([]) as server:
        run_claude(scratch, server, prompt="carry on", extra=("--resume", sid))
    (request,) = server.work_requests()
    text = json.dumps(request["messages"])
    assert SUMMARY in text
    assert text.count(HANDOFF) == 1, text[-4000:]
    carried = text[text.index(HANDOFF) :][:1500]
    assert "still failing: `ls no-such-dir-e2e`" in carried
    assert f"lesson given ({lesson_id})" in carried
