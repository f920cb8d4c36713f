"""Contract tests: the payloads our plugin sent from inside the real Kilo CLI, fed to the real
hook process.

The payloads in ``payloads/`` were captured from the plugin file running inside Kilo CLI 7.7
(its hook command replaced by one that saved its stdin; paths rewritten). The plugin reads the
answer as JSON and acts on ``deny`` and ``context`` only, so every run must exit 0 and print
nothing or one JSON object with exactly one of those keys.
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
from lessons_kilo import hot_kilo
from lessons_opencode import hot_plugin

HOOK = str(hook_support.BIN / "lessons-kilo-hook")
PAYLOADS = Path(__file__).resolve().parent / "payloads"

LESSONS = [
    {
        "summary": "Say it plainly",
        "mistake": "HINT-ECHO: echo in this repo goes to the build log",
        "remediation": "Use printf.",
        "type": "hint",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": ["^echo\\b"]},
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
        "summary": "Text files are generated",
        "mistake": "PATH-TXT: the text files here are generated",
        "remediation": "Edit the generator instead.",
        "type": "hint",
        "triggers": {"toolNames": ["Read", "Write", "Edit"], "pathPatterns": ["**/*.txt"]},
    },
    {
        "summary": "Generated files appear after make",
        "mistake": "RECALL-TXT: File not found for missing.txt before make had run",
        "remediation": "Run make first; it writes missing.txt.",
        "errorLines": ["File not found: /home/dev/shop/missing.txt"],
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
    return hook_support.build_lessons_home(tmp_path_factory.mktemp("kilo-contract-home"), LESSONS)


def check_answer(out: str) -> dict[str, Any] | None:
    """The answer printed, checked against what the plugin reads, or ``None`` for none."""
    out = out.strip()
    if not out:
        return None
    answer = json.loads(out)
    assert isinstance(answer, dict) and len(answer) == 1
    assert set(answer) <= {"deny", "context"}
    assert all(isinstance(v, str) and v for v in answer.values())
    return answer


def run_hook(payload: Any, lessons_home: Path, state: Path) -> dict[str, Any] | None:
    proc = hook_support.run_hook_process([HOOK], payload, lessons_home, state)
    assert proc.returncode == 0
    assert proc.stderr == ""
    return check_answer(proc.stdout)


def load(name: str, **changes: Any) -> dict[str, Any]:
    payload = json.loads((PAYLOADS / f"{name}.json").read_text())
    payload.update(changes)
    return payload


@pytest.mark.parametrize("path", sorted(PAYLOADS.glob("*.json")), ids=lambda p: p.stem)
def test_every_captured_payload_gets_json_or_nothing(path, lessons_home, tmp_path):
    run_hook(json.loads(path.read_text()), lessons_home, tmp_path / "state")


def test_events_are_kilos_with_canonical_tool_names():
    event = hot_kilo.normalize(load("before_read"))
    assert event is not None
    assert (event["agent"], event["event"], event["tool"]) == ("kilo", "pre_tool", "Read")
    assert event["paths"] == ["/home/dev/shop/missing.txt"]


def test_session_start_carries_the_protocol(lessons_home, tmp_path):
    answer = run_hook(load("session_start"), lessons_home, tmp_path / "state")
    assert answer is not None and "PROTOCOL-START" in answer["context"]
    assert "#lesson" in answer["context"]


def test_hint_is_answered_before_the_call_once(lessons_home, tmp_path):
    """The hint comes back as context at tool.execute.before (the plugin keeps it for the
    result), once per session."""
    state = tmp_path / "state"
    answer = run_hook(load("before_bash"), lessons_home, state)
    assert answer is not None and "HINT-ECHO" in answer["context"]
    assert run_hook(load("before_bash"), lessons_home, state) is None


def test_a_read_names_its_file_for_path_lessons(lessons_home, tmp_path):
    answer = run_hook(load("before_read"), lessons_home, tmp_path / "state")
    assert answer is not None and "PATH-TXT" in answer["context"]


def test_guard_denies_every_time(lessons_home, tmp_path):
    payload = load("before_bash", args={"command": "rm -rf data", "description": "clean"})
    for _ in range(2):
        answer = run_hook(payload, lessons_home, tmp_path / "state")
        assert answer is not None and "GUARD-RM" in answer["deny"]


def test_nudge_denies_once_then_lets_the_call_run(lessons_home, tmp_path):
    payload = load("before_bash", args={"command": "make release", "description": "ship"})
    answer = run_hook(payload, lessons_home, tmp_path / "state")
    assert answer is not None and "NUDGE-REL" in answer["deny"]
    again = run_hook(payload, lessons_home, tmp_path / "state")
    assert again is None or "deny" not in again


def test_a_failed_shell_call_is_a_failure(lessons_home, tmp_path):
    """tool.execute.after with a non-zero exit goes to failure recall (logged as post_failure)."""
    log = tmp_path / "hook.log"
    env = {**hook_support.hook_env(lessons_home, tmp_path / "state"), "LESSONS_HOOK_LOG": str(log)}
    proc = subprocess.run(
        [HOOK],
        input=json.dumps(load("after_bash_failed")),
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0 and proc.stderr == ""
    logged = json.loads(log.read_text().splitlines()[-1])
    assert (logged["event"], logged["agent"]) == ("post_failure", "kilo")


def test_a_thrown_tool_error_recalls_a_lesson_about_it(lessons_home, tmp_path):
    """A read of a missing file throws in Kilo CLI: its error text recalls the lesson."""
    answer = run_hook(load("tool_error_read"), lessons_home, tmp_path / "state")
    assert answer is not None and "Generated files appear after make" in answer["context"]


@pytest.mark.parametrize(
    "stdin", ["", "not json", "[1, 2]", '{"hook_event_name": "tool.execute.before"}']
)
def test_fails_open_silently(stdin, lessons_home, tmp_path):
    assert run_hook(stdin, lessons_home, tmp_path / "state") is None


BANNED = {*hook_support.BANNED, "pathlib"}
MODULES_RUN = hook_support.modules_script("lessons_kilo")


@pytest.mark.parametrize("name", ["before_bash", "session_start"])
def test_a_real_run_imports_only_the_standard_library(name, lessons_home, tmp_path):
    env = hook_support.hook_env(lessons_home, tmp_path / "state")
    loaded, proc = hook_support.modules_after_run(
        [sys.executable, "-I", "-c", MODULES_RUN],
        (PAYLOADS / f"{name}.json").read_text(),
        tmp_path / "modules.txt",
        env=env,
        timeout=30,
    )
    assert proc.stdout.strip()
    assert not BANNED & loaded


# -- fuzz: whatever the plugin (or anything else) sends, the agent goes on ---------------------

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
_payloads = st.fixed_dictionaries(
    {"hook_event_name": st.sampled_from([*hot_plugin.EVENTS, "session.created", "event"])},
    optional={
        "tool": st.sampled_from(["bash", "read", "edit", "apply_patch", "board_post"])
        | _json_values,
        "args": st.fixed_dictionaries(
            {},
            optional={
                "command": st.sampled_from(["rm -rf data", "make release", "echo hi"])
                | _json_values,
                "filePath": st.text(max_size=30) | _json_values,
                "workdir": _json_values,
                "patchText": _json_values,
            },
        )
        | _json_values,
        "call_id": _json_values,
        "session_id": st.text(max_size=10) | _json_values,
        "cwd": st.text(max_size=20) | _json_values,
        "source": st.sampled_from(["startup", "resume"]) | _json_values,
        "parent_id": _json_values,
        "prompt": st.text(max_size=40) | _json_values,
        "output": st.text(max_size=80) | _json_values,
        "exit": st.integers(-2, 300) | _json_values,
        "error": st.text(max_size=80) | _json_values,
    },
)


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(payload=_payloads | _json_values)
def test_fuzzed_payloads_never_break_the_hook(lessons_home, tmp_path, payload):
    """Through the real runner and adapter: exit status 0, and nothing or one answer."""
    env = hook_support.hook_env(lessons_home, tmp_path / "fuzz-state")
    out = io.StringIO()
    raw = io.BytesIO(json.dumps(payload).encode())
    assert runner.run(hot_kilo, stdin=raw, stdout=out, environ=env) == 0
    answer = check_answer(out.getvalue())
    if answer is not None and "deny" in answer:
        assert isinstance(payload, dict)
        assert payload["hook_event_name"] == "tool.execute.before"


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
        answers.append(check_answer(out))
    return answers


@pytest.mark.parametrize("round_", range(2))
def test_racing_calls_deliver_a_hint_exactly_once(lessons_home, tmp_path, round_):
    payload = load("before_bash", session_id=f"race-{round_}")
    answers = race(lessons_home, tmp_path / "state", payload)
    delivered = [a for a in answers if a and "HINT-ECHO" in a.get("context", "")]
    assert len(delivered) == 1


def test_racing_calls_are_nudged_exactly_once(lessons_home, tmp_path):
    payload = load("before_bash", session_id="nudge-race", args={"command": "make release"})
    answers = race(lessons_home, tmp_path / "state", payload)
    assert sum(1 for a in answers if a is not None) == 1
    assert os.listdir(tmp_path / "state")  # the claims live in the private state directory
