"""The whole loop on every agent CLI we support: a mistake made once meets its lesson next time.

Session one: the agent runs a command with an option its program does not have, then the
command corrected. ``lessons scan`` reads the session the CLI wrote, the candidate is promoted
as a user accepting it in review would, and the manifest is built. Session two, in the same
project: the agent makes the same mistake. The lesson must reach the model in that session,
with the failing call (a hint found before the call, or recall after it failed, whichever the
agent's hooks allow) — from the lesson the first session taught, with no hand-written lesson
anywhere. A lesson without a trigger, recalled by its error text alone, must come back the same
way though the error names another file and size the next time. A mistake made in two sessions
is told at the start of the third, before any call.
"""

from __future__ import annotations

import json

import pytest
from agent_harness import Scratch, run_lessons
from test_capture_e2e import (
    AGENTS,
    BIG_LOG,
    LITERAL,
    RIGHT,
    SUBSTITUTED,
    WRONG,
    _big_reads,
    _run_script,
    _shell,
    scanned,
)

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("agent", AGENTS)
def test_a_mistake_made_once_meets_its_lesson_the_next_time(scratch: Scratch, agent: str) -> None:
    (scratch.project / "data.json").write_text('{"b": 1}\n', encoding="utf-8")
    _run_script(agent, scratch, [_shell(agent, WRONG), _shell(agent, RIGHT)], install=True)
    (candidate,) = [c for c in scanned(scratch, agent) if c.get("tier") == 2]
    promoted = json.loads(run_lessons(scratch, "promote", candidate["id"], "--json").stdout)
    assert promoted["slug"], promoted

    server = _run_script(agent, scratch, [_shell(agent, WRONG)], install=True)
    # The second session never runs the corrected command: only the lesson can name it.
    sent = json.dumps([r.body for r in server.requests])
    assert RIGHT in sent, sent[-4000:]
    delivered = [
        json.loads(line)
        for line in (scratch.lessons_home / "deliveries.jsonl").read_text().splitlines()
    ]
    assert any(d["id"] == promoted["id"] for d in delivered), delivered


def test_a_lesson_without_trigger_comes_back_by_its_error_on_another_file(
    scratch: Scratch,
) -> None:
    """A lesson with no trigger is recalled at the failure by its error text, and that text
    differs from one time to the next: Claude Code's Read refuses each large file with its own
    size and path. The lesson the first refusal taught must come back at the refusal of another
    file, of another size, in the next session."""
    (scratch.project / "build.log").write_text(BIG_LOG, encoding="utf-8")
    (scratch.project / "trace.log").write_text(BIG_LOG * 2, encoding="utf-8")
    first = _big_reads("claude", str(scratch.project / "build.log"))
    _run_script("claude", scratch, first, install=True)
    (candidate,) = [c for c in scanned(scratch, "claude") if c.get("tier") == 2]
    assert candidate["trigger"] is None, candidate
    promoted = json.loads(run_lessons(scratch, "promote", candidate["id"], "--json").stdout)

    again = _big_reads("claude", str(scratch.project / "trace.log"))[:1]
    server = _run_script("claude", scratch, again, install=True)
    sent = json.dumps([r.body for r in server.requests])
    assert "Read it in parts with offset and limit" in sent, sent[-4000:]
    delivered = [
        json.loads(line)
        for line in (scratch.lessons_home / "deliveries.jsonl").read_text().splitlines()
    ]
    assert any(d["id"] == promoted["id"] for d in delivered), delivered


def test_a_refusal_gemini_logs_as_a_success_brings_its_lesson_back(scratch: Scratch) -> None:
    """Gemini CLI refuses a command holding ``$(…)`` but reports the call as a success: the
    hook must still take it for a failure, so the lesson the first refusal taught comes back
    with the next one."""
    (scratch.project / "VERSION").write_text("1.2.3\n", encoding="utf-8")
    first = [_shell("gemini", c) for c in (SUBSTITUTED, "cat VERSION", LITERAL)]
    _run_script("gemini", scratch, first)
    (candidate,) = [c for c in scanned(scratch, "gemini") if c.get("tier") == 2]
    promoted = json.loads(run_lessons(scratch, "promote", candidate["id"], "--json").stdout)

    again = [_shell("gemini", 'echo "version $(cat VERSION)"')]
    server = _run_script("gemini", scratch, again)
    sent = json.dumps([r.body for r in server.requests])
    assert "Run the inner command first" in sent, sent[-4000:]
    delivered = [
        json.loads(line)
        for line in (scratch.lessons_home / "deliveries.jsonl").read_text().splitlines()
    ]
    assert any(d["id"] == promoted["id"] for d in delivered), delivered


@pytest.mark.parametrize("agent", ("claude", "codex", "gemini"))
def test_a_mistake_of_two_sessions_is_told_at_the_start_of_the_third(
    scratch: Scratch, agent: str
) -> None:
    """Made in two sessions, the mistake's lesson reaches the model at the start of the next,
    before any call could trigger it: the third session runs nothing the lesson is about."""
    (scratch.project / "data.json").write_text('{"b": 1}\n', encoding="utf-8")
    fixed = [_shell(agent, WRONG), _shell(agent, RIGHT)]
    _run_script(agent, scratch, fixed, install=True)
    (candidate,) = [c for c in scanned(scratch, agent) if c.get("tier") == 2]
    promoted = json.loads(run_lessons(scratch, "promote", candidate["id"], "--json").stdout)
    _run_script(agent, scratch, fixed, install=True)
    scanned(scratch, agent)  # the second session's sighting joins the lesson
    lesson = json.loads(run_lessons(scratch, "show", promoted["id"], "--json").stdout)
    assert len(set(lesson["provenance"]["sessions"])) == 2, lesson["provenance"]

    server = _run_script(agent, scratch, [_shell(agent, "ls")], install=True)
    first = json.dumps(server.requests[0].body)
    assert "Mistakes made here in more than one earlier session" in first, first[-4000:]
    assert RIGHT in first, first[-4000:]
