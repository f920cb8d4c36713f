"""Gemini's long session through the real hook process: handoff, reminders, end of turn.

Gemini fires no ``SessionStart`` after compression, so the handoff written at ``PreCompress``
rides with the next ``BeforeAgent`` (or ``AfterTool``). Its ``AfterTool`` reports successes, so
a fixed failure is seen there directly. ``AfterAgent`` (end of turn) answers nothing and arms
the reminder for the next prompt.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_gemini_hook_contract import context_of, fixture_lessons_home, load, run_hook

__all__ = ["fixture_lessons_home"]  # the module-wide store, shared


def shell(kind: str, command: str, session: str, transcript: Path, fail: bool) -> dict[str, Any]:
    payload = load("after_tool_shell_failed")
    payload["session_id"] = session
    payload["transcript_path"] = str(transcript)
    payload["tool_input"] = {"command": command, "description": "d"}
    code = 2 if fail else 0
    payload["tool_response"] = {
        "llmContent": f"Output: {'no rule to make target' if fail else 'built'}\nExit Code: {code}",
        "returnDisplay": "",
    }
    return payload


def lifecycle(name: str, session: str, transcript: Path, **fields: Any) -> dict[str, Any]:
    payload = (
        load(name)
        if name in ("before_agent", "after_agent")
        else {
            "cwd": "/home/dev/demo/project",
            "hook_event_name": name,
            "timestamp": "2026-11-29T19:28:45.371Z",
        }
    )
    payload.update(session_id=session, transcript_path=str(transcript), **fields)
    return payload


def test_fixed_failure_reminds_with_the_successful_result(lessons_home, tmp_path):
    state, transcript = tmp_path / "state", tmp_path / "chat.jsonl"
    transcript.write_text("{}\n")
    failed = shell("AfterTool", "make build", "g1", transcript, fail=True)
    answer = run_hook(failed, lessons_home, state)
    assert answer is None or "failed" not in json.dumps(answer)
    worked = shell("AfterTool", "make build -j2", "g1", transcript, fail=False)
    reminder = context_of(run_hook(worked, lessons_home, state), "AfterTool")
    assert "`make build` failed (no rule to make target)" in reminder  # (not the report)
    assert run_hook(worked, lessons_home, state) is None


NEW_CHAT = '{"$set":{"sessionId":"g2"}}\n'


def test_handoff_after_compression_rides_with_the_next_prompt(lessons_home, tmp_path):
    """PreCompress, then the chat file shows the compressed chat: the next prompt carries it."""
    state, transcript = tmp_path / "state", tmp_path / "chat.jsonl"
    transcript.write_text("{}\n")
    run_hook(shell("AfterTool", "cargo test", "g2", transcript, fail=True), lessons_home, state)
    assert (
        run_hook(lifecycle("PreCompress", "g2", transcript, trigger="auto"), lessons_home, state)
        is None
    )
    with transcript.open("a") as chat:  # what Gemini appends when it starts the compressed chat
        chat.write(NEW_CHAT + '{"$set":{"messages":[]}}\n')
    prompt = lifecycle("before_agent", "g2", transcript, prompt="carry on with the work please")
    context = context_of(run_hook(prompt, lessons_home, state), "BeforeAgent")
    assert "Carried over from before" in context and "still failing: `cargo test`" in context
    answer = run_hook(prompt, lessons_home, state)
    assert answer is None or "Carried over" not in json.dumps(answer)


def test_precompress_without_a_compression_carries_nothing(lessons_home, tmp_path):
    """Gemini fires PreCompress before every turn; with no compressed chat after it, nothing
    is carried over and nothing is re-armed (the hint is not given twice)."""
    state, transcript = tmp_path / "state", tmp_path / "chat.jsonl"
    transcript.write_text(NEW_CHAT)  # the session's own start: before the note, not evidence
    hinted = shell("AfterTool", "sh -c 'make'", "g4", transcript, fail=False)
    assert "HINT-SH" in context_of(run_hook(hinted, lessons_home, state), "AfterTool")
    for turn in range(3):
        pre = lifecycle("PreCompress", "g4", transcript, trigger="auto")
        assert run_hook(pre, lessons_home, state) is None
        with transcript.open("a") as chat:
            chat.write(f'{{"id":"m{turn}","type":"gemini","content":"step"}}\n')
        answer = run_hook(hinted, lessons_home, state)
        assert answer is None or "Carried over" not in json.dumps(answer)
        assert answer is None or "HINT-SH" not in json.dumps(answer)
    assert not list(state.glob("*.handoff"))


def test_resume_drops_a_tentative_handoff(lessons_home, tmp_path):
    """A resumed chat writes the same line as a compressed one: SessionStart drops the note."""
    state, transcript = tmp_path / "state", tmp_path / "chat.jsonl"
    transcript.write_text("{}\n")
    run_hook(shell("AfterTool", "cargo test", "g5", transcript, fail=True), lessons_home, state)
    run_hook(lifecycle("PreCompress", "g5", transcript, trigger="auto"), lessons_home, state)
    assert list(state.glob("*.handoff"))
    with transcript.open("a") as chat:
        chat.write(NEW_CHAT)
    resume = lifecycle("SessionStart", "g5", transcript, source="resume")
    run_hook(resume, lessons_home, state)
    prompt = lifecycle("before_agent", "g5", transcript, prompt="carry on with the work please")
    answer = run_hook(prompt, lessons_home, state)
    assert answer is None or "Carried over" not in json.dumps(answer)


def test_after_agent_arms_the_reminder_for_the_next_prompt(lessons_home, tmp_path):
    state, transcript = tmp_path / "state", tmp_path / "chat.jsonl"
    transcript.write_bytes(b"x" * 200_000)  # past the default stopReminderBytes
    stop = lifecycle("after_agent", "g3", transcript, stop_hook_active=False)
    assert run_hook(stop, lessons_home, state) is None
    prompt = lifecycle("before_agent", "g3", transcript, prompt="next step of the same work")
    context = context_of(run_hook(prompt, lessons_home, state), "BeforeAgent")
    assert "substantial work" in context and "#lesson block" in context
