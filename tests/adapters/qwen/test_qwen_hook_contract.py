"""Contract tests: payloads the real Qwen Code 0.24 sent, fed to the real hook process.

The payloads in ``payloads/`` were captured from ``qwen -p`` runs whose hook command saved its
stdin (paths rewritten). Qwen Code parses a hook's stdout as Claude Code's answer shape, so
every run must exit 0 and print nothing or one ``hookSpecificOutput`` object naming the event
it answers; context is only worth giving where Qwen passes it on (after a call, at session
start, on a prompt), a decision only at ``PreToolUse``.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hook_support
from lessons_core.hot import runner
from lessons_qwen import hot_qwen

HOOK = str(hook_support.BIN / "lessons-qwen-hook")
PAYLOADS = Path(__file__).resolve().parent / "payloads"

LESSONS = [
    {
        "summary": "Quiet shell listings",
        "mistake": "HINT-LS: ls of a missing folder hides the real path",
        "remediation": "Check the path with test -d first.",
        "type": "hint",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": ["^ls\\b"]},
    },
    {
        "summary": "Keep the data directory",
        "mistake": "GUARD-RM: rm -rf data wiped the fixtures",
        "remediation": "Move it aside.",
        "type": "guard",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": ["\\brm\\s+-rf\\s+data\\b"]},
    },
    {
        "summary": "Think before a release",
        "mistake": "NUDGE-REL: make release publishes at once",
        "remediation": "Run make release-dry first.",
        "type": "nudge",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": ["\\bmake\\s+release\\b"]},
    },
    {
        "summary": "Python files are generated",
        "mistake": "PATH-PY: the python files here are generated",
        "remediation": "Edit the generator instead.",
        "type": "hint",
        "triggers": {"toolNames": ["Edit", "Write"], "pathPatterns": ["**/*.py"]},
    },
    {
        "summary": "The folder is made by the build",
        "mistake": "RECALL-DIR: the folder exists only after the build",
        "remediation": "Run the build first; it creates the folder.",
        "errorLines": ["ls: cannot access '/nonexistent-dir-xyz': No such file or directory"],
        "type": "hint",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": ["^never-matches-this\\b"]},
    },
    {
        "summary": "Protocol",
        "mistake": "PROTOCOL-START: say the plan first",
        "remediation": "One line of plan.",
        "type": "protocol",
        "triggers": {},
    },
]


@pytest.fixture(scope="module", name="lessons_home")
def fixture_lessons_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One manifest for the module, built by the real ``lessons add``."""
    return hook_support.build_lessons_home(tmp_path_factory.mktemp("qwen-contract-home"), LESSONS)


def check_answer(out: str, event: str) -> dict[str, Any] | None:
    """The answer printed, checked against what Qwen Code reads, or ``None`` for none."""
    out = out.strip()
    if not out:
        return None
    answer = json.loads(out)
    assert set(answer) == {"hookSpecificOutput"}
    specific = answer["hookSpecificOutput"]
    assert specific["hookEventName"] == event
    if event == "PreToolUse":
        assert set(specific) == {"hookEventName", "permissionDecision", "permissionDecisionReason"}
        assert specific["permissionDecision"] == "deny" and specific["permissionDecisionReason"]
    else:
        assert set(specific) == {"hookEventName", "additionalContext"}
        assert event in hot_qwen.CONTEXT_EVENTS and specific["additionalContext"]
    return specific


def run_hook(payload: Any, lessons_home: Path, state: Path) -> dict[str, Any] | None:
    proc = hook_support.run_hook_process([HOOK], payload, lessons_home, state)
    assert proc.returncode == 0
    assert proc.stderr == ""
    event = payload.get("hook_event_name") if isinstance(payload, dict) else None
    return check_answer(proc.stdout, str(event))


def load(name: str, **changes: Any) -> dict[str, Any]:
    payload = json.loads((PAYLOADS / f"{name}.json").read_text())
    payload.update(changes)
    return payload


@pytest.mark.parametrize("path", sorted(PAYLOADS.glob("*.json")), ids=lambda p: p.stem)
def test_every_captured_payload_gets_its_events_answer_or_nothing(path, lessons_home, tmp_path):
    run_hook(json.loads(path.read_text()), lessons_home, tmp_path / "state")


def test_session_start_carries_the_protocol(lessons_home, tmp_path):
    answer = run_hook(load("session_start"), lessons_home, tmp_path / "state")
    assert answer is not None and "PROTOCOL-START" in answer["additionalContext"]
    assert "#lesson" in answer["additionalContext"]


def test_hint_waits_for_the_result_of_its_call(lessons_home, tmp_path):
    """Qwen drops PreToolUse context: the hint is given at PostToolUse, once per session."""
    state = tmp_path / "state"
    assert (
        run_hook(load("pre_tool_shell", tool_input={"command": "ls -la"}), lessons_home, state)
        is None
    )
    post = load("post_tool_shell", tool_input={"command": "ls -la"})
    answer = run_hook(post, lessons_home, state)
    assert answer is not None and "HINT-LS" in answer["additionalContext"]
    assert run_hook(post, lessons_home, state) is None


def test_guard_denies_every_time(lessons_home, tmp_path):
    state = tmp_path / "state"
    payload = load("pre_tool_shell", tool_input={"command": "rm -rf data"})
    for _ in range(2):
        answer = run_hook(payload, lessons_home, state)
        assert answer is not None and "GUARD-RM" in answer["permissionDecisionReason"]


def test_nudge_denies_once_then_lets_the_call_run(lessons_home, tmp_path):
    state = tmp_path / "state"
    payload = load("pre_tool_shell", tool_input={"command": "make release"})
    answer = run_hook(payload, lessons_home, state)
    assert answer is not None and "NUDGE-REL" in answer["permissionDecisionReason"]
    assert runner.RETRY_NOTE in answer["permissionDecisionReason"]
    assert run_hook(payload, lessons_home, state) is None


def test_an_edit_names_its_file_for_path_lessons(lessons_home, tmp_path):
    """Qwen's ``edit`` is Claude's Edit: its file_path fires a path lesson after the call."""
    post = load(
        "post_tool_shell",
        tool_name="edit",
        tool_input={
            "file_path": "/home/dev/shop/app/models.py",
            "old_string": "a",
            "new_string": "b",
        },
        tool_response={"llmContent": "Successfully modified file"},
    )
    answer = run_hook(post, lessons_home, tmp_path / "state")
    assert answer is not None and "PATH-PY" in answer["additionalContext"]


def test_a_failed_command_recalls_the_lesson_about_its_error(lessons_home, tmp_path):
    """The lesson's error line is the command's output, inside Qwen's shell report: recalled,
    after the hint about the call itself."""
    answer = run_hook(load("post_tool_failure_shell"), lessons_home, tmp_path / "state")
    assert answer is not None
    context = answer["additionalContext"]
    assert "The folder is made by the build" in context
    assert context.index("HINT-LS") < context.index("The folder is made by the build")


def test_the_shell_report_is_cut_to_what_the_command_printed():
    report = load("post_tool_failure_shell")["error"]
    assert hot_qwen._error_text(report) == (
        "ls: cannot access '/nonexistent-dir-xyz': No such file or directory"
    )
    assert hot_qwen._error_text("File not found: a.txt") == "File not found: a.txt"
    two = "Command: x\nDirectory: (root)\nOutput: one\ntwo\nError: bad\nExit Code: 1"
    assert hot_qwen._error_text(two) == "one\ntwo\nbad"


def test_an_interrupted_call_recalls_nothing(lessons_home, tmp_path):
    """The user stopped it: no mistake to recall a lesson about (no hint is about the call)."""
    command = {"command": "cat /nonexistent-dir-xyz"}
    payload = load("post_tool_failure_shell", tool_input=command)
    assert run_hook(payload, lessons_home, tmp_path / "state") is not None
    payload["is_interrupt"] = True
    assert run_hook(payload, lessons_home, tmp_path / "other-state") is None


@pytest.mark.parametrize(
    "stdin",
    ["", "not json", "[1, 2]", '{"hook_event_name": "PreToolUse"}', '{"hook_event_name": 7}'],
)
def test_fails_open_silently(stdin, lessons_home, tmp_path):
    proc = hook_support.run_hook_process([HOOK], stdin, lessons_home, tmp_path / "state")
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""


BANNED = {*hook_support.BANNED, "pathlib"}
MODULES_RUN = hook_support.modules_script("lessons_qwen")


@pytest.mark.parametrize("name", ["pre_tool_shell", "post_tool_shell", "session_start"])
def test_a_real_run_imports_only_the_standard_library(name, lessons_home, tmp_path):
    """A deny, a hint and the session block, each from a process that loaded no heavy module."""
    env = hook_support.hook_env(lessons_home, tmp_path / "state")
    commands = {"pre_tool_shell": "rm -rf data", "post_tool_shell": "ls -la"}
    payload = load(name)
    if name in commands:
        payload["tool_input"] = {"command": commands[name]}
    loaded, proc = hook_support.modules_after_run(
        [sys.executable, "-I", "-c", MODULES_RUN],
        json.dumps(payload),
        tmp_path / "modules.txt",
        env=env,
        timeout=30,
    )
    assert proc.stdout.strip()
    assert not BANNED & loaded


# -- fuzz: whatever Qwen (or anything else) sends, the agent goes on ----------------------------

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
_payloads = st.fixed_dictionaries(
    {"hook_event_name": st.sampled_from([*hot_qwen.EVENTS, "Notification", "SessionEnd"])},
    optional={
        "tool_name": st.sampled_from(["run_shell_command", "edit", "write_file", "glob"])
        | _json_values,
        "tool_input": st.fixed_dictionaries(
            {},
            optional={
                "command": st.sampled_from(["rm -rf data", "make release", "ls"]) | _json_values,
                "file_path": st.text(max_size=30) | _json_values,
                "path": _json_values,
                "pattern": _json_values,
            },
        )
        | _json_values,
        "session_id": st.text(max_size=10) | _json_values,
        "cwd": st.text(max_size=20) | _json_values,
        "source": st.sampled_from(["startup", "resume", "clear", "compact"]) | _json_values,
        "prompt": st.text(max_size=40) | _json_values,
        "error": st.text(max_size=80) | _json_values,
        "is_interrupt": _json_values,
        "agent_id": _json_values,
    },
)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(payload=_payloads | _json_values)
def test_fuzzed_payloads_never_break_the_hook(lessons_home, tmp_path, payload):
    """Through the real runner and adapter: exit status 0, and nothing or the event's answer."""
    env = hook_support.hook_env(lessons_home, tmp_path / "fuzz-state")
    out = io.StringIO()
    raw = io.BytesIO(json.dumps(payload).encode())
    assert runner.run(hot_qwen, stdin=raw, stdout=out, environ=env) == 0
    event = payload.get("hook_event_name") if isinstance(payload, dict) else None
    check_answer(out.getvalue(), str(event))


# -- exactly once: racing hook processes of one session ----------------------------------------

RACERS = 16


def race(lessons_home: Path, state: Path, payload: dict[str, Any]) -> list[dict[str, Any] | None]:
    """Start RACERS hook processes at once on one session; return their checked answers."""
    env = hook_support.hook_env(lessons_home, state)
    procs = [
        subprocess.Popen([HOOK], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        for _ in range(RACERS)
    ]
    data = json.dumps(payload).encode()
    for proc in procs:  # written only once every process is started, so they really race
        assert proc.stdin is not None
        proc.stdin.write(data)
        proc.stdin.close()
    answers = []
    for proc in procs:
        assert proc.stdout is not None
        out = proc.stdout.read().decode()
        proc.stdout.close()
        assert proc.wait(timeout=60) == 0
        answers.append(check_answer(out, payload["hook_event_name"]))
    return answers


@pytest.mark.parametrize("round_", range(2))
def test_racing_results_deliver_a_hint_exactly_once(lessons_home, tmp_path, round_):
    payload = load("post_tool_shell", session_id=f"race-{round_}", tool_input={"command": "ls"})
    answers = race(lessons_home, tmp_path / "state", payload)
    delivered = [a for a in answers if a and "HINT-LS" in a["additionalContext"]]
    assert len(delivered) == 1


def test_racing_calls_are_nudged_exactly_once(lessons_home, tmp_path):
    payload = load(
        "pre_tool_shell", session_id="nudge-race", tool_input={"command": "make release"}
    )
    answers = race(lessons_home, tmp_path / "state", payload)
    assert sum(1 for a in answers if a is not None) == 1
    assert os.listdir(tmp_path / "state")  # the claims live in the private state directory
