"""Contract tests: the payloads our OpenCode plugin sends, fed to the real hook process.

The payloads in ``payloads/`` were captured from the plugin file running inside OpenCode 1.18
(its hook command replaced by one that saved its stdin; paths rewritten). The plugin reads the
answer as JSON and acts on ``deny`` and ``context`` only, so every run must exit 0 and print one
JSON object with exactly one of those keys, or nothing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import hook_support

HOOK = str(hook_support.BIN / "lessons-opencode-hook")
PAYLOADS = Path(__file__).resolve().parent / "payloads"

LESSONS = [
    {
        "summary": "Quiet shell scripts",
        "mistake": "HINT-SH: sh -c hides the real command",
        "remediation": "Run the command directly.",
        "type": "hint",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": ["^sh -c\\b"]},
    },
    {
        "summary": "Keep the data directory",
        "mistake": "GUARD-RM: rm -rf data wiped the fixtures",
        "remediation": "Move it aside.",
        "type": "guard",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": ["\\brm\\s+-rf\\s+data\\b"]},
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
    return hook_support.build_lessons_home(
        tmp_path_factory.mktemp("opencode-contract-home"), LESSONS
    )


def run_hook(payload: Any, lessons_home: Path, state: Path) -> dict[str, Any] | None:
    proc = hook_support.run_hook_process([HOOK], payload, lessons_home, state)
    assert proc.returncode == 0
    assert proc.stderr == ""
    out = proc.stdout.strip()
    if not out:
        return None
    answer = json.loads(out)
    assert isinstance(answer, dict) and len(answer) == 1
    assert set(answer) <= {"deny", "context"}
    assert all(isinstance(v, str) and v for v in answer.values())
    return answer


def load(name: str) -> dict[str, Any]:
    return json.loads((PAYLOADS / f"{name}.json").read_text())


@pytest.mark.parametrize("path", sorted(PAYLOADS.glob("*.json")), ids=lambda p: p.stem)
def test_every_captured_payload_gets_json_or_nothing(path, lessons_home, tmp_path):
    run_hook(json.loads(path.read_text()), lessons_home, tmp_path / "state")


def test_session_start_carries_the_protocol(lessons_home, tmp_path):
    answer = run_hook(load("session_start"), lessons_home, tmp_path / "state")
    assert answer is not None and "PROTOCOL-START" in answer["context"]
    assert "#lesson" in answer["context"]


def test_a_resumed_session_gets_its_block_again(lessons_home, tmp_path):
    """OpenCode rebuilds the system prompt for every request: a new process needs the block."""
    state = tmp_path / "state"
    assert run_hook(load("session_start"), lessons_home, state) is not None
    resumed = {**load("session_start"), "source": "resume"}
    answer = run_hook(resumed, lessons_home, state)
    assert answer is not None and "PROTOCOL-START" in answer["context"]


def test_hint_is_answered_before_the_call_once(lessons_home, tmp_path):
    """The hint comes back as context at tool.execute.before (the plugin keeps it for the
    result), once per session."""
    state = tmp_path / "state"
    answer = run_hook(load("before_bash"), lessons_home, state)
    assert answer is not None and "HINT-SH" in answer["context"]
    assert run_hook(load("before_bash"), lessons_home, state) is None


def test_guard_denies_with_the_lesson(lessons_home, tmp_path):
    payload = load("before_bash")
    payload["args"] = {"command": "rm -rf data", "description": "clean"}
    answer = run_hook(payload, lessons_home, tmp_path / "state")
    assert answer is not None and "GUARD-RM" in answer["deny"]


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
    assert json.loads(log.read_text().splitlines()[-1])["event"] == "post_failure"


def test_a_thrown_tool_error_recalls_a_lesson_about_it(lessons_home, tmp_path):
    """A read of a missing file throws in OpenCode: its error text recalls the lesson."""
    answer = run_hook(load("tool_error_read"), lessons_home, tmp_path / "state")
    assert answer is not None and "Generated files appear after make" in answer["context"]


@pytest.mark.parametrize(
    "stdin", ["", "not json", "[1, 2]", '{"hook_event_name": "tool.execute.before"}']
)
def test_fails_open_silently(stdin, lessons_home, tmp_path):
    assert run_hook(stdin, lessons_home, tmp_path / "state") is None


BANNED = {*hook_support.BANNED, "pathlib"}
MODULES_RUN = hook_support.modules_script("lessons_opencode")


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
