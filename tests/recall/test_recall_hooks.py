"""Recall through the real hook processes, on each agent's payload shapes (contract tests)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from recall_support import hook_command

from lessons_core.hot import deliveries

MODULE_ERROR = (
    "tests/test_client.py:2: in <module>\n    import requests\n"
    "E   ModuleNotFoundError: No module named 'requests'\n"
)
PROMPT = "git push was rejected as non-fast-forward again, please sort out the push"


def run_hook(agent: str, payload: dict[str, Any], home: Path) -> dict[str, Any] | None:
    """Run ``lessons-<agent>-hook`` on ``payload``; its parsed stdout (``None`` when empty)."""
    done = subprocess.run(
        [hook_command(agent)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=30,
        check=False,
    )
    assert done.returncode == 0
    assert done.stderr == ""
    return json.loads(done.stdout) if done.stdout.strip() else None


def claude_failure(cwd: Path, session: str) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": str(cwd / "t.jsonl"),
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": "pytest -q", "description": "run the tests"},
        "tool_use_id": "toolu_01",
        "error": "Exit code 2\n" + MODULE_ERROR,
        "is_interrupt": False,
    }


def codex_failure(cwd: Path, session: str) -> dict[str, Any]:
    return {
        "session_id": session,
        "turn_id": "turn-1",
        "transcript_path": None,
        "cwd": str(cwd),
        "hook_event_name": "PostToolUse",
        "model": "gpt-5.5",
        "permission_mode": "bypassPermissions",
        "tool_name": "Bash",
        "tool_input": {"command": "pytest -q"},
        "tool_response": "Exit code: 2\nWall time: 0.4 seconds\nOutput:\n" + MODULE_ERROR,
        "tool_use_id": "call_1",
    }


def gemini_failure(cwd: Path, session: str) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": str(cwd / "chat.jsonl"),
        "cwd": str(cwd),
        "hook_event_name": "AfterTool",
        "timestamp": "2026-11-29T19:28:45.371Z",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "pytest -q", "description": "tests"},
        "tool_response": {
            "llmContent": "<untrusted_context>\nOutput: "
            + MODULE_ERROR
            + "Exit Code: 2\nProcess Group PGID: 4242\n</untrusted_context>",
            "returnDisplay": "failed",
        },
    }


FAILURES = {"claude": claude_failure, "codex": codex_failure, "gemini": gemini_failure}
NATIVE_FAILURE = {"claude": "PostToolUseFailure", "codex": "PostToolUse", "gemini": "AfterTool"}
NATIVE_PROMPT = {"claude": "UserPromptSubmit", "codex": "UserPromptSubmit", "gemini": "BeforeAgent"}


def read_log(home: Path) -> list[dict[str, Any]]:
    path = home / deliveries.LOG_NAME
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_failure_recall_through_the_hook(agent: str, catalogue: Path, tmp_path: Path) -> None:
    """The failing pytest run's output brings the fixing lesson back, in the agent's shape."""
    answer = run_hook(agent, FAILURES[agent](tmp_path, f"{agent}-s1"), catalogue)
    assert answer is not None
    assert list(answer) == ["hookSpecificOutput"]
    specific = answer["hookSpecificOutput"]
    assert specific["hookEventName"] == NATIVE_FAILURE[agent]
    assert set(specific) == {"hookEventName", "additionalContext"}
    assert "Fix: Run the tests with .venv/bin/python -m pytest" in specific["additionalContext"]
    assert "injected=rc-missing-requests" in specific["additionalContext"]
    # the same failure again in the same session: the lesson once more, said to be a repeat;
    # a third time, silence
    again = run_hook(agent, FAILURES[agent](tmp_path, f"{agent}-s1"), catalogue)
    assert again is not None
    assert "(given earlier in this session)" in again["hookSpecificOutput"]["additionalContext"]
    assert run_hook(agent, FAILURES[agent](tmp_path, f"{agent}-s1"), catalogue) is None
    logged = read_log(catalogue)
    assert [(e["id"], e["kind"], e["agent"], e["session"]) for e in logged] == [
        ("rc-missing-requests", "recall", agent, f"{agent}-s1")
    ] * 2
    assert logged[0]["event"] == "post_failure" and logged[0]["call"]


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_prompt_recall_through_the_hook(agent: str, catalogue: Path, tmp_path: Path) -> None:
    """A related prompt gets the lesson as context; an unrelated one gets nothing."""
    payload: dict[str, Any] = {
        "session_id": f"{agent}-p1",
        "cwd": str(tmp_path),
        "hook_event_name": NATIVE_PROMPT[agent],
        "prompt": PROMPT,
    }
    if agent == "codex":
        payload.update({"turn_id": "t", "model": "gpt-5.5", "transcript_path": None})
    answer = run_hook(agent, payload, catalogue)
    assert answer is not None and list(answer) == ["hookSpecificOutput"]
    specific = answer["hookSpecificOutput"]
    assert set(specific) == {"hookEventName", "additionalContext"}
    assert specific["hookEventName"] == NATIVE_PROMPT[agent]
    context = specific["additionalContext"]
    assert "git pull --rebase" in context
    assert len(context.encode("utf-8")) <= 2048 + 100  # budget plus the trailer comment
    payload["prompt"] = "please rename the settings page title to Preferences"
    payload["session_id"] = f"{agent}-p2"
    assert run_hook(agent, payload, catalogue) is None


def test_hook_without_any_store_or_manifest_is_silent(home: Path, tmp_path: Path) -> None:
    """A fresh install (no store, no manifest) answers nothing and exits 0."""
    assert run_hook("claude", claude_failure(tmp_path, "s-empty"), home) is None


def test_binary_and_huge_errors_through_the_hook(catalogue: Path, tmp_path: Path) -> None:
    """A multi-megabyte, NUL-laden error still yields the right lesson, exit 0, no stderr."""
    payload = claude_failure(tmp_path, "s-huge")
    payload["error"] = (
        "Exit code 1\n" + "\x00\x01junk\x7f" * 20_000 + "\nnoise line 7\n" * 50_000 + MODULE_ERROR
    )
    answer = run_hook("claude", payload, catalogue)
    assert answer is not None
    assert "rc-missing-requests" in answer["hookSpecificOutput"]["additionalContext"]
