"""Sub-agents through the real Claude Code: a hint the parent had reaches the sub-agent once.

The scripted model makes the parent run ``ls`` (a hint rides with the result), then start a
sub-agent with the ``Agent`` tool, then run ``ls`` again. The sub-agent (its own conversation,
recognised by its prompt) runs ``ls`` twice. Claude Code runs our hooks for the sub-agent's calls
with the parent's session id plus ``agent_id``; the sub-agent keeps its own record, so it is given
the hint once although the parent already had it, and neither context gets it twice.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from agent_harness import Recorded, Reply, Scratch, hook_log, run_lessons
from fake_anthropic import FakeAnthropic
from test_claude_e2e import add_lesson, hook_events, run_claude, tool_results

pytestmark = pytest.mark.e2e

TASK = "SUBAGENT-TASK-77: list the project"
MARK = "HINT-LS-SUBAGENT"
HINT = {
    "summary": "listing a directory that is not there",
    "mistake": "ls on a directory that does not exist yet",
    "remediation": f"Check with test -d first ({MARK}).",
    "type": "hint",
    "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"^ls\b"]},
}


class WithSubagent(FakeAnthropic):
    """Parent: ``ls``, an ``Agent`` call, ``ls``, done. Sub-agent: ``ls``, ``ls``, done."""

    PARENT = (
        ("Bash", {"command": "ls .", "description": "list"}),
        (
            "Agent",
            {"description": "look around", "prompt": TASK, "subagent_type": "general-purpose"},
        ),
        ("Bash", {"command": "ls ./.", "description": "list again"}),
    )
    SUB = (
        ("Bash", {"command": "ls .", "description": "list"}),
        ("Bash", {"command": "ls ./.", "description": "list again"}),
    )

    @staticmethod
    def is_sub(body: dict[str, Any]) -> bool:
        messages = body.get("messages") or [{}]
        return TASK in json.dumps(messages[0])

    def answer(self, request: Recorded) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        if request.method != "POST" or not self._is_main(body):
            return super().answer(request)
        model = str(body.get("model") or "claude-fake")
        sub = self.is_sub(body)
        script = self.SUB if sub else self.PARENT
        done = len(tool_results(body))
        if done < len(script):
            name, tool_input = script[done]
            return self._tool(model, f"toolu_{'s' if sub else 'p'}{done}", name, tool_input)
        return self._text(model, "sub done" if sub else "done")

    def split(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        requests = self.main_requests()
        return [b for b in requests if not self.is_sub(b)], [b for b in requests if self.is_sub(b)]


def beside(body: dict[str, Any], index: int) -> str:
    """The text blocks Claude Code put beside the ``index``-th tool result."""
    _, siblings = tool_results(body)[index]
    return "\n".join(str(b.get("text", "")) for b in siblings)


def test_subagent_gets_the_parents_hint_once(scratch: Scratch) -> None:
    run_lessons(scratch, "install", "claude")
    lesson_id = add_lesson(scratch, HINT)
    with WithSubagent("ls .") as server:
        out = run_claude(scratch, server, extra=("--allowedTools", "Bash,Agent"))
    parent, sub = server.split()
    assert len(parent) == 4 and len(sub) == 3, (len(parent), len(sub))
    assert "SubagentStart:general-purpose" in [e.get("hook_name") for e in hook_events(out)]

    # The sub-agent starts with the session block, and gets the hint with its first ls only.
    assert "Lessons from earlier sessions" in json.dumps(sub[0]["messages"])
    last_sub = sub[-1]
    assert MARK in beside(last_sub, 0), json.dumps(last_sub["messages"])[-3000:]
    assert MARK not in beside(last_sub, 1)
    assert json.dumps(last_sub["messages"]).count(MARK) == 1

    # The parent had it with its first ls; neither the sub-agent's calls nor its own second
    # ls gave it again.
    last = parent[-1]
    assert MARK in beside(last, 0)
    assert MARK not in beside(last, 1) and MARK not in beside(last, 2)
    assert json.dumps(last["messages"]).count(MARK) == 1

    delivered = [e for e in hook_log(scratch) if lesson_id in (e.get("injected") or [])]
    assert len(delivered) == 2  # once per context
    # Two records: the session's and the sub-agent's own (keyed by session and agent id).
    assert len(list(scratch.state_dir.glob("*.seen"))) == 2
