"""The real Gemini CLI: a failure nothing recalled, then fixed, brings the lesson reminder.

Gemini's ``AfterTool`` reports successes too, so the reminder rides with the result of the call
that worked (appended as ``<hook_context>``), in the same ``gemini -p`` turn.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from agent_harness import Recorded, Reply
from fake_gemini import FakeGemini
from test_gemini_e2e import run_gemini

pytestmark = pytest.mark.e2e


class ScriptedGemini(FakeGemini):
    """The n-th model turn runs the n-th command; then ``done``."""

    def __init__(self, commands: list[str]) -> None:
        super().__init__("run_shell_command", {})
        self.commands = commands

    def answer(self, request: Recorded) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        if ":streamGenerateContent" not in request.path:
            return super().answer(request)
        done = len(self.responses(body))
        if done < len(self.commands):
            args: dict[str, Any] = {"command": self.commands[done], "description": "run it"}
            return self._sse([{"functionCall": {"name": "run_shell_command", "args": args}}])
        return self._sse([{"text": "done"}])


def test_fixed_failure_reminder_rides_with_the_successful_result(scratch):
    with ScriptedGemini(["ls no-such-dir-gemini", "ls ."]) as server:
        run_gemini(scratch, server, "list the project")
    responses = FakeGemini.responses(server.turns()[-1])
    assert len(responses) == 2, json.dumps(responses)[:2000]
    assert "no stored lesson covered it" not in json.dumps(responses[0])
    second = json.dumps(responses[1])
    assert "`ls no-such-dir-gemini` failed" in second, second[:2000]
    assert "hook_context" in second and "#lesson block" in second
