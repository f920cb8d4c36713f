"""Contract tests: payloads the real GitHub Copilot CLI 1.0.102 sent, fed to the real hook process.

The payloads in ``payloads/`` were captured from ``copilot -p`` runs whose hook command saved its
stdin (paths rewritten): the camelCase dialect (named ``<event>-….json``; the event goes on the
command line, as the installer registers it) and, in ``payloads/pascal/``, the Claude-style
dialect Copilot sends to hooks registered under PascalCase events and to a repository's
``.claude/settings.json``. Copilot reads ``permissionDecision`` and a top-level
``additionalContext``, so every run must exit 0 and print nothing or one such object; a
decision only at ``preToolUse``, context only where Copilot passes it on.
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
from lessons_copilot import hot_copilot
from lessons_core.hot import runner

HOOK = str(hook_support.BIN / "lessons-copilot-hook")
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
        "summary": "Look before you read",
        "mistake": "RECALL-VIEW: the notes file is written by the build",
        "remediation": "Run the build, then read the file.",
        "errorLines": ["Path does not exist"],
        "type": "hint",
        "triggers": {"toolNames": ["Read"], "pathPatterns": ["**/never-this-file"]},
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
    return hook_support.build_lessons_home(tmp_path_factory.mktemp("copilot-home"), LESSONS)


def check_answer(out: str, event: str | None) -> dict[str, Any] | None:
    """The answer printed, checked against what Copilot reads, or ``None`` for none.

    ``event`` is the camelCase name of the event answered.
    """
    out = out.strip()
    if not out:
        return None
    answer = json.loads(out)
    assert isinstance(answer, dict)
    if event == "preToolUse":
        assert set(answer) == {"permissionDecision", "permissionDecisionReason"}
        assert answer["permissionDecision"] == "deny" and answer["permissionDecisionReason"]
    else:
        assert set(answer) == {"additionalContext"}
        assert event in hot_copilot.CONTEXT_EVENTS and answer["additionalContext"]
    return answer


def event_of(name: str, payload: Any) -> str | None:
    """The camelCase event a payload file answers: its name's prefix, or its PascalCase name."""
    if isinstance(payload, dict) and isinstance(payload.get("hook_event_name"), str):
        return hot_copilot.PASCAL_EVENTS.get(payload["hook_event_name"])
    return name.split("-")[0] if name else None


def run_hook(
    payload: Any, lessons_home: Path, state: Path, event: str | None
) -> dict[str, Any] | None:
    """``payload`` through the hook process; ``event`` on its command line when given."""
    argv = [HOOK, event] if event and event in hot_copilot.EVENTS else [HOOK]
    named = isinstance(payload, dict) and "hook_event_name" in payload
    proc = hook_support.run_hook_process(argv, payload, lessons_home, state)
    assert proc.returncode == 0
    assert proc.stderr == ""
    answered = hot_copilot.PASCAL_EVENTS.get(payload["hook_event_name"]) if named else event
    return check_answer(proc.stdout, answered)


def load(name: str, **changes: Any) -> dict[str, Any]:
    payload = json.loads((PAYLOADS / f"{name}.json").read_text())
    payload.update(changes)
    return payload


def send(name: str, lessons_home: Path, state: Path, **changes: Any) -> dict[str, Any] | None:
    payload = load(name, **changes)
    return run_hook(payload, lessons_home, state, event_of(Path(name).name, payload))


ALL = sorted(PAYLOADS.rglob("*.json"))


@pytest.mark.parametrize("path", ALL, ids=lambda p: str(p.relative_to(PAYLOADS)))
def test_every_captured_payload_gets_its_events_answer_or_nothing(path, lessons_home, tmp_path):
    payload = json.loads(path.read_text())
    run_hook(payload, lessons_home, tmp_path / "state", event_of(path.stem, payload))


@pytest.mark.parametrize("name", ["sessionStart", "pascal/SessionStart"])
def test_session_start_carries_the_protocol(name, lessons_home, tmp_path):
    answer = send(name, lessons_home, tmp_path / "state")
    assert answer is not None and "PROTOCOL-START" in answer["additionalContext"]
    assert "#lesson" in answer["additionalContext"]


def test_hint_waits_for_the_result_of_its_call(lessons_home, tmp_path):
    """Copilot reads no context at preToolUse: the hint is given at postToolUse, once."""
    state = tmp_path / "state"
    args = {"command": "ls -la", "description": "List"}
    assert send("preToolUse-bash", lessons_home, state, toolArgs=args) is None
    answer = send("postToolUse-bash", lessons_home, state, toolArgs=args)
    assert answer is not None and "HINT-LS" in answer["additionalContext"]
    assert send("postToolUse-bash", lessons_home, state, toolArgs=args) is None


@pytest.mark.parametrize("name", ["preToolUse-bash", "pascal/PreToolUse-bash"])
def test_guard_denies_every_time(name, lessons_home, tmp_path):
    state = tmp_path / "state"
    key = "tool_input" if name.startswith("pascal/") else "toolArgs"
    for _ in range(2):
        answer = send(name, lessons_home, state, **{key: {"command": "rm -rf data"}})
        assert answer is not None and "GUARD-RM" in answer["permissionDecisionReason"]


def test_nudge_denies_once_then_lets_the_call_run(lessons_home, tmp_path):
    state = tmp_path / "state"
    args = {"toolArgs": {"command": "make release"}}
    answer = send("preToolUse-bash", lessons_home, state, **args)
    assert answer is not None and "NUDGE-REL" in answer["permissionDecisionReason"]
    assert runner.RETRY_NOTE in answer["permissionDecisionReason"]
    assert send("preToolUse-bash", lessons_home, state, **args) is None


def test_toolargs_sent_as_a_json_string_are_read(lessons_home, tmp_path):
    """Copilot has logged ``toolArgs`` as a JSON string: the command in it is still matched."""
    args = json.dumps({"command": "rm -rf data"})
    answer = send("preToolUse-bash", lessons_home, tmp_path / "state", toolArgs=args)
    assert answer is not None and "GUARD-RM" in answer["permissionDecisionReason"]


def test_an_edit_names_its_file_for_path_lessons(lessons_home, tmp_path):
    """Copilot's ``edit`` is Claude's Edit: its ``path`` fires a path lesson after the call."""
    answer = send(
        "postToolUse-bash",
        lessons_home,
        tmp_path / "state",
        toolName="edit",
        toolArgs={"path": "/home/dev/shop/app/models.py", "old_str": "a", "new_str": "b"},
        toolResult={"resultType": "success", "textResultForLlm": "File updated with changes."},
    )
    assert answer is not None and "PATH-PY" in answer["additionalContext"]


def test_a_command_that_exits_non_zero_recalls_the_lesson_about_its_error(lessons_home, tmp_path):
    """Copilot reports it as a success ending in ``exit code 2``: read as a failure, recalled
    after the hint about the call itself."""
    answer = send("postToolUse-bash-exit2", lessons_home, tmp_path / "state")
    assert answer is not None
    context = answer["additionalContext"]
    assert "The folder is made by the build" in context
    assert context.index("HINT-LS") < context.index("The folder is made by the build")


def test_a_failed_tool_recalls_the_lesson_about_its_error(lessons_home, tmp_path):
    answer = send("postToolUseFailure-view", lessons_home, tmp_path / "state")
    assert answer is not None and "Look before you read" in answer["additionalContext"]


def test_the_exit_line_is_read_without_the_output():
    text = "ls: no\n<shellId: 3 completed with exit code 2>"
    assert hot_copilot.shell_failure(text) == ("ls: no", 2)
    assert hot_copilot.shell_failure("ok\n<shellId: 0 completed with exit code 0>") is None
    assert hot_copilot.shell_failure("said <shellId: 0 completed with exit code 1> here") is None
    assert hot_copilot.shell_failure("x\n<shellId: 0 completed with exit code -1>") == ("x", -1)
    assert hot_copilot.shell_failure(None) is None


# -- telling the host from the payload ---------------------------------------------------------

CLAUDE_PRE_TOOL = {
    "session_id": "3346d97c-4b89-4214-8a6a-4f7fcdb284e5",
    "transcript_path": "/home/dev/.claude/projects/-home-dev-shop/3346d97c.jsonl",
    "cwd": "/home/dev/shop",
    "permission_mode": "default",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "rm -rf data"},
    "tool_use_id": "toolu_01",
}


def test_a_claude_code_payload_gets_no_copilot_answer(lessons_home, tmp_path):
    """Claude Code's own payload (no ``timestamp``; its ``transcript_path``, ``permission_mode``
    and ``tool_use_id``) would match the guard, but is not Copilot's: no answer at all."""
    state = tmp_path / "state"
    assert run_hook(CLAUDE_PRE_TOOL, lessons_home, state, "preToolUse") is None
    stamped = dict(CLAUDE_PRE_TOOL, timestamp="2026-12-03T19:04:25.705Z")
    assert run_hook(stamped, lessons_home, state, None) is None  # Qwen Code's shape, say


def test_a_camelcase_payload_without_its_event_gets_no_answer(lessons_home, tmp_path):
    payload = load("preToolUse-bash", toolArgs={"command": "rm -rf data"})
    assert run_hook(payload, lessons_home, tmp_path / "state", None) is None


@pytest.mark.parametrize(
    "stdin",
    ["", "not json", "[1, 2]", '{"hook_event_name": "PreToolUse"}', '{"hook_event_name": 7}'],
)
@pytest.mark.parametrize("event", [None, "preToolUse", "postToolUse"])
def test_fails_open_silently(stdin, event, lessons_home, tmp_path):
    argv = [HOOK, event] if event else [HOOK]
    proc = hook_support.run_hook_process(argv, stdin, lessons_home, tmp_path / "state")
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""


BANNED = {*hook_support.BANNED, "pathlib"}
MODULES_RUN = hook_support.modules_script("lessons_copilot")


@pytest.mark.parametrize(
    "name", ["pascal/PreToolUse-bash", "pascal/PostToolUse-bash", "pascal/SessionStart"]
)
def test_a_real_run_imports_only_the_standard_library(name, lessons_home, tmp_path):
    """A deny, a hint and the session block, each from a process that loaded no heavy module."""
    env = hook_support.hook_env(lessons_home, tmp_path / "state")
    commands = {"pascal/PreToolUse-bash": "rm -rf data", "pascal/PostToolUse-bash": "ls -la"}
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


# -- fuzz: whatever Copilot (or anything else) sends, the call goes ahead -----------------------

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
_args = (
    st.fixed_dictionaries(
        {},
        optional={
            "command": st.sampled_from(["rm -rf data", "make release", "ls"]) | _json_values,
            "path": st.text(max_size=30) | _json_values,
            "paths": _json_values,
            "pattern": _json_values,
            "new_str": _json_values,
        },
    )
    | st.sampled_from(['{"command": "rm -rf data"}', '{"command": ', "[]"])
    | _json_values
)
_camel = st.fixed_dictionaries(
    {},
    optional={
        "sessionId": st.text(max_size=10) | _json_values,
        "timestamp": st.integers() | _json_values,
        "cwd": st.text(max_size=20) | _json_values,
        "toolName": st.sampled_from(["bash", "view", "edit", "create", "glob", "grep"])
        | _json_values,
        "toolArgs": _args,
        "toolResult": st.fixed_dictionaries(
            {},
            optional={
                "resultType": _json_values,
                "textResultForLlm": st.sampled_from(
                    ["x\n<shellId: 0 completed with exit code 2>", "<shellId: 1 completed"]
                )
                | _json_values,
            },
        )
        | _json_values,
        "error": st.text(max_size=80) | _json_values,
        "source": st.sampled_from(["new", "resume", "startup"]) | _json_values,
        "prompt": st.text(max_size=40) | _json_values,
        "transcriptPath": _json_values,
    },
)
_pascal = st.fixed_dictionaries(
    {
        "hook_event_name": st.sampled_from([*hot_copilot.PASCAL_EVENTS, "Notification"])
        | _json_values,
    },
    optional={
        "timestamp": st.text(max_size=24) | _json_values,
        "session_id": st.text(max_size=10) | _json_values,
        "cwd": st.text(max_size=20) | _json_values,
        "tool_name": st.sampled_from(["Bash", "Read", "Edit", "bash"]) | _json_values,
        "tool_input": _args,
        "tool_result": _json_values,
        "transcript_path": _json_values,
        "permission_mode": _json_values,
        "error": st.text(max_size=80) | _json_values,
    },
)
_events = st.sampled_from([*hot_copilot.EVENTS, "notification", "/a/dir"]) | st.none()


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(payload=_camel | _pascal | _json_values, event=_events)
def test_fuzzed_payloads_never_break_the_hook(lessons_home, tmp_path, payload, event):
    """Through the real runner and adapter: exit status 0, and nothing or the event's answer."""
    env = hook_support.hook_env(lessons_home, tmp_path / "fuzz-state")
    out = io.StringIO()
    raw = io.BytesIO(json.dumps(payload).encode())
    assert runner.run(hot_copilot.Bound(event), stdin=raw, stdout=out, environ=env) == 0
    found = hot_copilot.dialect(payload, event)
    check_answer(out.getvalue(), found[0] if found else None)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(payload=_camel | _pascal, event=_events)
def test_fuzzed_payloads_through_the_hook_process_are_allowed(
    lessons_home, tmp_path, payload, event
):
    """The process Copilot starts: a non-zero exit would deny the call, so it always exits 0,
    with nothing on stderr and nothing or the event's answer on stdout."""
    argv = [HOOK, event] if event else [HOOK]
    proc = hook_support.run_hook_process(argv, payload, lessons_home, tmp_path / "proc-state")
    assert proc.returncode == 0 and proc.stderr == ""
    found = hot_copilot.dialect(payload, event)
    check_answer(proc.stdout, found[0] if found else None)


# -- exactly once: racing hook processes of one session ----------------------------------------

RACERS = 16


def race(
    lessons_home: Path, state: Path, payload: dict[str, Any], event: str
) -> list[dict[str, Any] | None]:
    """Start RACERS hook processes at once on one session; return their checked answers."""
    env = hook_support.hook_env(lessons_home, state)
    procs = [
        subprocess.Popen([HOOK, event], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
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
        answers.append(check_answer(out, event))
    return answers


@pytest.mark.parametrize("round_", range(2))
def test_racing_results_deliver_a_hint_exactly_once(lessons_home, tmp_path, round_):
    payload = load("postToolUse-bash", sessionId=f"race-{round_}", toolArgs={"command": "ls"})
    answers = race(lessons_home, tmp_path / "state", payload, "postToolUse")
    delivered = [a for a in answers if a and "HINT-LS" in a["additionalContext"]]
    assert len(delivered) == 1


def test_racing_calls_are_nudged_exactly_once(lessons_home, tmp_path):
    payload = load("preToolUse-bash", sessionId="nudge-race", toolArgs={"command": "make release"})
    answers = race(lessons_home, tmp_path / "state", payload, "preToolUse")
    assert sum(1 for a in answers if a is not None) == 1
    assert os.listdir(tmp_path / "state")  # the claims live in the private state directory
