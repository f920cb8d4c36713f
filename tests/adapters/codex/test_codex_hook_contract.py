"""Contract tests: captured Codex CLI 0.171 payloads fed to the real ``lessons-codex-hook`` process.

Codex validates hook output against strict schemas and silently ignores a hook whose answer has
an unknown key, so every answer here is checked key by key against what Codex documents for
that event. The payloads in ``payloads/`` were captured from the real CLI (paths rewritten);
a few older shapes are built inline.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import hook_support

HOOK = str(hook_support.BIN / "lessons-codex-hook")
PAYLOADS = Path(__file__).resolve().parent / "payloads"

LESSONS = [
    {
        "summary": "Quiet pytest",
        "mistake": "HINT-PYTEST: verbose output floods the context",
        "remediation": "Use pytest -q.",
        "type": "hint",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": ["\\bpytest\\b"]},
    },
    {
        "summary": "Keep the data directory",
        "mistake": "GUARD-RM: rm -rf data wiped the fixtures",
        "remediation": "Move it aside.",
        "type": "guard",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": ["\\brm\\s+-rf\\s+data\\b"]},
    },
    {
        "summary": "Settings are generated",
        "mistake": "PATH-SETTINGS: config/settings.py is generated",
        "remediation": "Edit settings.toml instead.",
        "type": "hint",
        "triggers": {"toolNames": ["Edit", "Write"], "pathPatterns": ["**/config/settings.py"]},
    },
    {
        "summary": "No secrets in code",
        "mistake": "CONTENT-SECRET: a secret was committed",
        "remediation": "Read it from the environment.",
        "type": "hint",
        "triggers": {"toolNames": ["Edit", "Write"], "contentPatterns": ["SECRET\\s*="]},
    },
    {
        "summary": "Protocol",
        "mistake": "PROTOCOL-START: say the plan first",
        "remediation": "One line of plan.",
        "type": "protocol",
        "triggers": {},
    },
]

#: hookSpecificOutput keys Codex accepts, per event (only those we ever emit).
ALLOWED = {
    "PreToolUse": {
        "hookEventName",
        "permissionDecision",
        "permissionDecisionReason",
        "additionalContext",
    },
    "PostToolUse": {"hookEventName", "additionalContext"},
    "SessionStart": {"hookEventName", "additionalContext"},
    "SubagentStart": {"hookEventName", "additionalContext"},
    "UserPromptSubmit": {"hookEventName", "additionalContext"},
}


@pytest.fixture(scope="module", name="lessons_home")
def fixture_lessons_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One manifest for the module, built by the real ``lessons add``."""
    return hook_support.build_lessons_home(tmp_path_factory.mktemp("codex-contract-home"), LESSONS)


def run_hook(payload: Any, lessons_home: Path, state: Path) -> tuple[dict[str, Any] | None, str]:
    """Run the hook process; returns (parsed stdout or None, stderr). Exit status must be 0."""
    proc = hook_support.run_hook_process([HOOK], payload, lessons_home, state)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.strip()
    return (json.loads(out) if out else None), proc.stderr


def check_shape(answer: dict[str, Any] | None, event: str) -> None:
    """Exactly the documented keys for ``event``; a deny always has a non-empty reason."""
    if answer is None:
        return
    assert set(answer) == {"hookSpecificOutput"}
    specific = answer["hookSpecificOutput"]
    assert specific["hookEventName"] == event
    assert set(specific) <= ALLOWED[event], set(specific) - ALLOWED[event]
    if "permissionDecision" in specific:
        assert specific["permissionDecision"] == "deny"
        assert specific["permissionDecisionReason"].strip()
    else:
        assert "permissionDecisionReason" not in specific
        assert specific["additionalContext"].strip()


def load(name: str) -> dict[str, Any]:
    return json.loads((PAYLOADS / f"{name}.json").read_text())


@pytest.mark.parametrize("path", sorted(PAYLOADS.glob("*.json")), ids=lambda p: p.stem)
def test_every_captured_payload_gets_a_valid_answer(path, lessons_home, tmp_path):
    """Whatever the event, the answer is nothing or exactly Codex's schema, exit 0."""
    payload = json.loads(path.read_text())
    answer, _ = run_hook(payload, lessons_home, tmp_path / "state")
    event = payload["hook_event_name"]
    if event in ALLOWED:
        check_shape(answer, event)
    else:
        assert answer is None


def test_session_start_carries_the_protocol(lessons_home, tmp_path):
    """SessionStart answers with the protocol lesson as additionalContext."""
    answer, _ = run_hook(load("session_start"), lessons_home, tmp_path / "state")
    check_shape(answer, "SessionStart")
    assert "PROTOCOL-START" in answer["hookSpecificOutput"]["additionalContext"]


def test_bash_hint_then_seen(lessons_home, tmp_path):
    """A matching hint is context once per session; the second identical call gets nothing."""
    payload = load("pre_tool_use_bash")
    payload["tool_input"] = {"command": "pytest -q tests/"}
    first, _ = run_hook(payload, lessons_home, tmp_path / "state")
    check_shape(first, "PreToolUse")
    assert "HINT-PYTEST" in first["hookSpecificOutput"]["additionalContext"]
    second, _ = run_hook(payload, lessons_home, tmp_path / "state")
    assert second is None


def test_guard_denies_with_the_lesson_as_reason(lessons_home, tmp_path):
    """A guard answers permissionDecision deny, the lesson as permissionDecisionReason."""
    payload = load("pre_tool_use_bash")
    payload["tool_input"] = {"command": "rm -rf data"}
    answer, _ = run_hook(payload, lessons_home, tmp_path / "state")
    check_shape(answer, "PreToolUse")
    specific = answer["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    assert "GUARD-RM" in specific["permissionDecisionReason"]


def test_apply_patch_fires_path_and_content_lessons(lessons_home, tmp_path):
    """The captured apply_patch call (update settings.py, add a file with SECRET) fires both."""
    answer, _ = run_hook(load("pre_tool_use_apply_patch"), lessons_home, tmp_path / "state")
    check_shape(answer, "PreToolUse")
    context = answer["hookSpecificOutput"]["additionalContext"]
    assert "PATH-SETTINGS" in context
    assert "CONTENT-SECRET" in context


def test_older_output_formats_and_other_tools(lessons_home, tmp_path):
    """Freeform "Exit code: N" output, MCP and spawn_agent calls all get valid answers."""
    base = load("pre_tool_use_bash")
    post = {**base, "hook_event_name": "PostToolUse", "transcript_path": None}
    post["tool_response"] = "Exit code: 1\nWall time: 0.3 seconds\nOutput:\nE   assert 0"
    answer, _ = run_hook(post, lessons_home, tmp_path / "state")
    check_shape(answer, "PostToolUse")
    for tool, tool_input in (
        ("mcp__serena__replace_content", {"relative_path": "config/settings.py", "body": "x"}),
        ("spawn_agent", {"message": "look around", "agent_type": "default"}),
    ):
        payload = {**base, "tool_name": tool, "tool_input": tool_input}
        answer, _ = run_hook(payload, lessons_home, tmp_path / "state")
        check_shape(answer, "PreToolUse")


@pytest.mark.parametrize("stdin", ["", "not json", "[1, 2]", '{"hook_event_name": "PreToolUse"}'])
def test_fails_open_on_bad_input(stdin, lessons_home, tmp_path):
    """Garbage in: exit 0, nothing on stdout (Codex then carries on as if no hook ran)."""
    answer, _ = run_hook(stdin, lessons_home, tmp_path / "state")
    assert answer is None


#: The contract adds ``pathlib``: the adapters resolve paths with ``os.path`` only.
BANNED = {*hook_support.BANNED, "pathlib"}
MODULES_RUN = hook_support.modules_script("lessons_codex")


@pytest.mark.parametrize("name", ["pre_tool_use_apply_patch", "session_start"])
def test_a_real_run_imports_only_the_standard_library(name, lessons_home, tmp_path):
    """After answering a real payload the process holds none of the heavy or third-party modules."""
    env = hook_support.hook_env(lessons_home, tmp_path / "state")
    loaded, proc = hook_support.modules_after_run(
        [sys.executable, "-I", "-c", MODULES_RUN],
        (PAYLOADS / f"{name}.json").read_text(),
        tmp_path / "modules.txt",
        env=env,
        timeout=30,
    )
    assert proc.stdout.strip()  # an answer was given, so the whole path ran
    assert not BANNED & loaded
