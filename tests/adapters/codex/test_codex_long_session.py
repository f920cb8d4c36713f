"""Codex's long session through the real hook process: handoff, reminders, end of turn.

Codex fires ``PreCompact`` and, after compaction, ``SessionStart`` with ``source: compact``, so
the handoff works as on Claude Code. Its ``PostToolUse`` runs after every call, so a fixed
failure is seen at the successful call itself. ``Stop`` answers nothing (Codex would treat
plain text as invalid and a continuation would replace the final answer).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from test_codex_hook_contract import check_shape, fixture_lessons_home, load, run_hook

__all__ = ["fixture_lessons_home"]  # the module-wide store, shared


def post(command: str, session: str, transcript: Path, response: str) -> dict[str, Any]:
    payload = load("post_tool_use_bash_failed")
    payload.update(
        session_id=session,
        transcript_path=str(transcript),
        tool_input={"command": command},
        tool_response=response,
    )
    return payload


def event(name: str, session: str, transcript: Path, **fields: Any) -> dict[str, Any]:
    payload = load("stop") if name == "Stop" else load("session_start")
    payload.update(hook_event_name=name, session_id=session, transcript_path=str(transcript))
    payload.update(fields)
    return payload


def context(answer: dict[str, Any] | None, name: str) -> str:
    assert answer is not None
    check_shape(answer, name)
    return str(answer["hookSpecificOutput"]["additionalContext"])


def test_fixed_failure_reminds_at_the_successful_post_tool_use(lessons_home, tmp_path):
    state, transcript = tmp_path / "state", tmp_path / "rollout.jsonl"
    transcript.write_text("{}\n")
    failed = post("docker compose up", "c1", transcript, "Exit code: 1\nno such service: web")
    answer, _ = run_hook(failed, lessons_home, state)
    assert answer is None or "no stored lesson" not in json.dumps(answer)
    worked = post("docker compose up api", "c1", transcript, "Exit code: 0\nstarted")
    answer, _ = run_hook(worked, lessons_home, state)
    assert "`docker compose up` failed (no such service: web)" in context(answer, "PostToolUse")


def test_handoff_across_codex_compaction(lessons_home, tmp_path):
    state, transcript = tmp_path / "state", tmp_path / "rollout.jsonl"
    transcript.write_text("{}\n")
    run_hook(
        post("cargo build", "c2", transcript, "Exit code: 101\nerror[E0425]"), lessons_home, state
    )
    answer, err = run_hook(
        event("PreCompact", "c2", transcript, trigger="auto"), lessons_home, state
    )
    assert answer is None and err == ""
    start = event("SessionStart", "c2", transcript, source="compact")
    answer, _ = run_hook(start, lessons_home, state)
    text = context(answer, "SessionStart")
    assert "Carried over from before" in text and "still failing: `cargo build`" in text


def test_stop_answers_nothing_and_arms_the_next_prompt(lessons_home, tmp_path):
    state, transcript = tmp_path / "state", tmp_path / "rollout.jsonl"
    transcript.write_bytes(b"x" * 200_000)
    answer, err = run_hook(event("Stop", "c3", transcript), lessons_home, state)
    assert answer is None and err == ""
    prompt = load("user_prompt_submit")
    prompt.update(session_id="c3", transcript_path=str(transcript))
    answer, _ = run_hook(prompt, lessons_home, state)
    assert "substantial work" in context(answer, "UserPromptSubmit")
