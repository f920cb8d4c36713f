"""Recall and the outcome loop end to end: the real Claude Code, our hooks, a scripted model.

The project's test imports a module that only resolves with ``PYTHONPATH=vendor``. The fake
model runs plain pytest first; it fails, Claude Code fires PostToolUseFailure, and our hook
recalls the stored lesson whose error line matches. The scripted model uses the fix only if the
fix reached it next to the failed result — so a passing second run proves delivery. Afterwards
``lessons stats`` reads the delivery log and the session's real transcript and judges the
delivery: the mistake did not happen again, so the lesson prevented it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from agent_harness import Recorded, Reply, Scratch, run_lessons
from fake_anthropic import FakeAnthropic, result_text
from test_claude_e2e import add_lesson, run_claude, tool_results

pytestmark = pytest.mark.e2e

MODULE = "acme_client_sdk_q7"
PLAIN = "python -m pytest -q tests"
FIXED = "PYTHONPATH=vendor python -m pytest -q tests"
FIX_MARK = "FIX-P7"


class ScriptedModel(FakeAnthropic):
    """Runs plain pytest; after a failure, runs the fixed command only if the fix was given."""

    def __init__(self) -> None:
        super().__init__(PLAIN)

    def answer(self, request: Recorded) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        if request.method != "POST" or not self._is_main(body):
            return super().answer(request)
        model = str(body.get("model") or "claude-fake")
        done = tool_results(body)
        if not done:
            self.command = PLAIN
            return self._bash(model, 1)
        if len(done) == 1 and FIX_MARK in json.dumps(body["messages"][-1]):
            self.command = FIXED
            return self._bash(model, 2)
        return self._text(model, "done")


def make_project(scratch: Scratch) -> None:
    tests = scratch.project / "tests"
    tests.mkdir()
    (tests / "test_client.py").write_text(
        f"import {MODULE}\n\n\ndef test_client():\n    assert {MODULE}.ping() == 'pong'\n",
        encoding="utf-8",
    )
    vendor = scratch.project / "vendor"
    vendor.mkdir()
    (vendor / f"{MODULE}.py").write_text(
        "from pathlib import Path\n\n\ndef ping():\n"
        "    Path(__file__).resolve().parents[1].joinpath('fixed.marker').write_text('ok')\n"
        "    return 'pong'\n",
        encoding="utf-8",
    )


def test_failing_pytest_recalls_the_fix_and_the_outcome_is_prevented(scratch: Scratch) -> None:
    """The failure brings back the fix; the model uses it; stats judge the lesson effective."""
    run_lessons(scratch, "install", "claude")
    make_project(scratch)
    lesson_id = add_lesson(
        scratch,
        {
            "summary": "the client SDK is vendored, not installed",
            "mistake": "ran the tests without the vendored SDK on the import path",
            "remediation": f"Run the tests as {FIXED} ({FIX_MARK}).",
            "errorLines": [f"E   ModuleNotFoundError: No module named '{MODULE}'"],
            "tags": ["tool:pytest"],
        },
    )
    with ScriptedModel() as server:
        run_claude(scratch, server)
    requests = server.main_requests()
    assert len(requests) == 3, [json.dumps(r["messages"][-1])[:300] for r in requests]

    # 1. the failed run's result carries the recalled fix, from PostToolUseFailure
    ((failed, siblings),) = tool_results(requests[1])
    assert failed.get("is_error") is True
    assert MODULE in result_text(failed)
    context = "\n".join(str(b.get("text", "")) for b in siblings)
    assert FIX_MARK in context and FIXED in context, json.dumps(requests[1]["messages"][-1])[:2000]
    assert "PostToolUseFailure" in context

    # 2. the model followed it and the suite passed
    assert (scratch.project / "fixed.marker").exists()
    second = tool_results(requests[2])[-1][0]
    assert not second.get("is_error"), result_text(second)

    # 3. the hook logged the delivery; stats judge it against the real transcript
    log = [
        json.loads(x) for x in (scratch.lessons_home / "deliveries.jsonl").read_text().splitlines()
    ]
    recalls = [e for e in log if e["kind"] == "recall"]
    assert [e["id"] for e in recalls] == [lesson_id]
    assert recalls[0]["transcript"] and recalls[0]["callId"] == "toolu_fake_01"
    figures: dict[str, Any] = json.loads(run_lessons(scratch, "stats", "--json").stdout)
    mine = figures["outcomes"]["lessons"][lesson_id]
    assert (mine["fired"], mine["prevented"], mine["recurred"]) == (1, 1, 0), figures["outcomes"]
