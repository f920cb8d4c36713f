"""A call Claude Code refuses before running it fires no hook; its lesson comes with the next one.

The scripted model reads a file, then edits it with a text to replace that is not in it: Claude
Code refuses the Edit while checking its input (``<tool_use_error>String to replace not
found…``), and neither ``PreToolUse`` nor ``PostToolUseFailure`` runs for it. The model then
reads the file again; that call's ``PreToolUse`` reads the transcript's new lines, finds the
refusal, recalls the stored lesson about it and hands it over with the Read's result. The
delivery log names the refused call, and ``lessons stats`` judges the lesson against it: the
refusal did not come back, so the lesson prevented it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from agent_harness import Scratch, run_lessons
from fake_anthropic import ScriptedCalls, result_text
from test_claude_e2e import add_lesson, hook_events, run_claude, tool_results

pytestmark = pytest.mark.e2e

FIX_MARK = "FIX-E4R"
READ_ID = "toolu_fake_read_1"
EDIT_ID = "toolu_fake_edit_1"
AGAIN_ID = "toolu_fake_read_2"
#: Claude Code appends to the transcript a moment after the result (it batches its writes); a
#: real model takes longer than this to answer, the scripted one answers at once.
THINKING_SECONDS = 1.0


def refused_edit_model(path: str) -> ScriptedCalls:
    """Read, an Edit whose text to replace is not in the file, Read again, then done."""
    edit = {"file_path": path, "old_string": "gamma = 3", "new_string": "gamma = 4"}
    script = [
        (READ_ID, "Read", {"file_path": path}),
        (EDIT_ID, "Edit", edit),
        (AGAIN_ID, "Read", {"file_path": path}),
    ]
    return ScriptedCalls(script, pauses={2: THINKING_SECONDS})


def _context_of(body: dict[str, Any], call_id: str) -> tuple[dict[str, Any], str]:
    """The result of ``call_id`` and the text of the blocks beside it."""
    for result, siblings in tool_results(body):
        if result.get("tool_use_id") == call_id:
            return result, "\n".join(str(b.get("text", "")) for b in siblings)
    raise AssertionError(f"no result for {call_id}: {json.dumps(body['messages'][-1])[:2000]}")


def test_refused_edit_brings_its_lesson_with_the_next_call(scratch: Scratch) -> None:
    run_lessons(scratch, "install", "claude")
    target = scratch.project / "settings.py"
    target.write_text("alpha = 1\nbeta = 2\n", encoding="utf-8")
    lesson_id = add_lesson(
        scratch,
        {
            "summary": "an Edit's text to replace was typed from memory, not copied",
            "mistake": "the Edit was refused: its old_string was not in the file as it is now",
            "remediation": f"Copy the text to replace from the file as it is now ({FIX_MARK}).",
            "errorLines": ["String to replace not found in file."],
        },
    )
    with refused_edit_model(str(target)) as server:
        out = run_claude(scratch, server, extra=("--allowedTools", "Read,Edit"))
    requests = server.main_requests()
    assert len(requests) == 4, [json.dumps(r["messages"][-1])[:300] for r in requests]

    # 1. Claude Code refused the Edit before running it, and no hook saw it
    refused, beside = _context_of(requests[2], EDIT_ID)
    assert refused.get("is_error") is True
    assert "String to replace not found" in result_text(refused)
    assert FIX_MARK not in beside
    fired = [e.get("hook_event") for e in hook_events(out)]
    assert "PostToolUseFailure" not in fired, fired

    # 2. the next call's hook caught up: the lesson rides with the second Read's result
    again, context = _context_of(requests[3], AGAIN_ID)
    assert not again.get("is_error"), result_text(again)
    assert FIX_MARK in context, json.dumps(requests[3]["messages"][-1])[:3000]
    assert f"injected={lesson_id}" in context
    assert "gamma" not in target.read_text(encoding="utf-8")

    # 3. the delivery log names the refused call, as for a failure a hook saw
    log = [
        json.loads(x) for x in (scratch.lessons_home / "deliveries.jsonl").read_text().splitlines()
    ]
    assert [(e["id"], e["kind"], e["callId"]) for e in log] == [(lesson_id, "recall", EDIT_ID)]
    assert log[0]["event"] == "post_failure" and log[0]["transcript"]
    figures: dict[str, Any] = json.loads(run_lessons(scratch, "stats", "--json").stdout)
    mine = figures["outcomes"]["lessons"][lesson_id]
    assert (mine["fired"], mine["prevented"], mine["recurred"]) == (1, 1, 0), figures["outcomes"]
