"""A longer session through the real Claude Code: directives again, reminders to record a lesson.

The scripted model runs a command that fails (nothing in the store recalls it), then a variant
that works, then one more call; the reminder to write a ``#lesson`` block must ride with that
last call's result. Directive re-injection is measured on the real transcript (a threshold of a
few bytes, so the first call passes it). The end-of-turn reminder is armed by ``Stop`` without
making Claude Code continue, and reaches the model with the next prompt of the resumed session.
Compaction and the handoff have their own module (test_compaction_e2e.py), sub-agents too
(test_subagent_e2e.py).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from agent_harness import Scratch, run_lessons
from fake_anthropic import ScriptedCalls
from test_claude_e2e import add_lesson, run_claude, tool_results

pytestmark = pytest.mark.e2e

DIRECTIVE = {
    "summary": "state the result first",
    "mistake": "answers buried the result under detail",
    "remediation": "Lead with the result in one line (DIRECTIVE-E2E-4K).",
    "type": "directive",
    "priority": 8,
}


def configure(scratch: Scratch, config: dict[str, Any]) -> None:
    scratch.lessons_home.mkdir(parents=True, exist_ok=True)
    (scratch.lessons_home / "config.json").write_text(json.dumps(config))
    run_lessons(scratch, "install", "claude")


def sibling_text(body: dict[str, Any], index: int) -> str:
    _, siblings = tool_results(body)[index]
    return "\n".join(str(b.get("text", "")) for b in siblings)


def test_fixed_failure_reminder_and_directives_reach_the_model(scratch: Scratch) -> None:
    configure(scratch, {"directiveReinjectThresholds": [16, 10**9], "stopReminderBytes": 0})
    add_lesson(scratch, DIRECTIVE)
    with ScriptedCalls.bash(["ls no-such-dir-e2e", "ls .", "echo third"]) as server:
        run_claude(scratch, server)
    requests = server.main_requests()
    assert len(requests) == 4, [json.dumps(r["messages"][-1])[:300] for r in requests]
    last = requests[-1]

    # The directive came back once, next to a call's result, once the transcript passed 16
    # bytes (Claude Code writes it asynchronously: the first call may still see it empty).
    carried = [sibling_text(last, i) for i in range(3)]
    assert any("DIRECTIVE-E2E-4K" in text and "Standing directives" in text for text in carried)
    assert json.dumps(last["messages"]).count("Standing directives") == 1

    # The failure recalled nothing; the retry worked; the next call carries the reminder.
    first, _ = tool_results(last)[0]
    assert first.get("is_error") is True
    reminder = sibling_text(last, 2)
    assert "`ls no-such-dir-e2e` failed" in reminder, json.dumps(last["messages"][-1])[:2000]
    assert "#lesson block" in reminder
    assert json.dumps(last["messages"]).count("no stored lesson covered it") == 1


def _session_id(stdout: str) -> str:
    for line in stdout.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and item.get("session_id"):
            return str(item["session_id"])
    raise AssertionError("no session id in the output")


def test_stop_arms_the_reminder_without_continuing_the_turn(scratch: Scratch) -> None:
    configure(scratch, {"stopReminderBytes": 64})
    with ScriptedCalls.bash(["echo work"]) as server:
        out = run_claude(scratch, server)
    # Stop answered nothing: Claude Code did not ask the model again after "done".
    assert len(server.main_requests()) == 2
    assert "substantial work" not in json.dumps(server.main_requests())

    with ScriptedCalls.bash([]) as server:
        run_claude(
            scratch, server, prompt="and now the next step", extra=("--resume", _session_id(out))
        )
    (request,) = server.main_requests()
    text = json.dumps(request["messages"])
    assert text.count("The last turn of this session did substantial work") == 1, text[-3000:]
    assert "UserPromptSubmit hook additional context" in text


def test_generated_skill_is_offered_to_the_model(scratch: Scratch) -> None:
    """Five pnpm lessons, `lessons skills`: Claude Code lists the skill in its first request."""
    configure(scratch, {})
    for i in range(5):
        add_lesson(
            scratch,
            {
                "summary": f"pnpm pitfall {i}",
                "mistake": f"ran pnpm the wrong way ({i})",
                "remediation": f"Run pnpm the right way (PNPM-SKILL-{i}).",
                "triggers": {"toolNames": ["Bash"], "commandPatterns": [rf"^pnpm\s+step{i}\b"]},
            },
        )
    out = run_lessons(scratch, "skills").stdout
    assert "written" in out, out
    skill = scratch.home / ".claude" / "skills" / "lessons-pnpm" / "SKILL.md"
    assert "PNPM-SKILL-4" in skill.read_text()
    with ScriptedCalls.bash([]) as server:
        run_claude(scratch, server)
    (first, *_) = server.main_requests()
    text = json.dumps(first)
    assert "lessons-pnpm" in text, text[:3000]
    assert "What earlier sessions learned about the `pnpm` command" in text
