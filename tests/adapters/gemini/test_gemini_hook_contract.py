"""Contract tests: captured Gemini CLI 0.61 payloads fed to the real hook process.

Gemini turns plain stdout into a message shown to the user, reads stderr when stdout is empty,
and treats any exit status of 2 or more as a deny. So every run here must exit 0, print only a
JSON object (or nothing) and leave stderr empty. The payloads in ``payloads/`` were captured from
the real CLI (paths rewritten); older argument names are built inline.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import hook_support

HOOK = str(hook_support.BIN / "lessons-gemini-hook")
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
        "summary": "Config modules are reviewed",
        "mistake": "PATH-CONFIG: config modules need a review",
        "remediation": "Ask before changing config/.",
        "type": "hint",
        "triggers": {"toolNames": ["Write", "Edit", "Read"], "pathPatterns": ["**/config/*.py"]},
    },
    {
        "summary": "Lock files are generated",
        "mistake": "GREP-LOCK: searching lock files wastes the budget",
        "remediation": "Exclude *.lock.",
        "type": "hint",
        "triggers": {"toolNames": ["Grep", "Glob"], "pathPatterns": ["**/vendor"]},
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
    return hook_support.build_lessons_home(tmp_path_factory.mktemp("gemini-contract-home"), LESSONS)


def run_hook(payload: Any, lessons_home: Path, state: Path) -> dict[str, Any] | None:
    """Run the hook process: exit 0, empty stderr, stdout empty or one JSON object."""
    proc = hook_support.run_hook_process([HOOK], payload, lessons_home, state)
    assert proc.returncode == 0
    assert proc.stderr == ""
    out = proc.stdout.strip()
    if not out:
        return None
    answer = json.loads(out)
    assert isinstance(answer, dict)
    return answer


def context_of(answer: dict[str, Any] | None, event: str) -> str:
    assert answer is not None
    assert set(answer) == {"hookSpecificOutput"}
    specific = answer["hookSpecificOutput"]
    assert set(specific) == {"hookEventName", "additionalContext"}
    assert specific["hookEventName"] == event
    return str(specific["additionalContext"])


def load(name: str) -> dict[str, Any]:
    return json.loads((PAYLOADS / f"{name}.json").read_text())


@pytest.mark.parametrize("path", sorted(PAYLOADS.glob("*.json")), ids=lambda p: p.stem)
def test_every_captured_payload_gets_json_or_nothing(path, lessons_home, tmp_path):
    """Whatever the event: exit 0, no stderr, and either nothing or a known answer shape."""
    payload = json.loads(path.read_text())
    answer = run_hook(payload, lessons_home, tmp_path / "state")
    if answer is None:
        return
    if payload["hook_event_name"] == "BeforeTool":
        assert set(answer) == {"decision", "reason"} and answer["decision"] == "deny"
    else:
        context_of(answer, payload["hook_event_name"])


def test_session_start_carries_the_protocol(lessons_home, tmp_path):
    """SessionStart answers with the protocol as additionalContext."""
    answer = run_hook(load("session_start"), lessons_home, tmp_path / "state")
    assert "PROTOCOL-START" in context_of(answer, "SessionStart")


def test_hint_waits_for_after_tool(lessons_home, tmp_path):
    """BeforeTool prints nothing for a hint and leaves it unclaimed; AfterTool delivers it once."""
    state = tmp_path / "state"
    assert run_hook(load("before_tool_shell"), lessons_home, state) is None
    after = load("after_tool_shell_failed")
    context = context_of(run_hook(after, lessons_home, state), "AfterTool")
    assert "HINT-SH" in context
    assert run_hook(after, lessons_home, state) is None


def test_guard_denies_at_before_tool(lessons_home, tmp_path):
    """A guard answers {"decision": "deny", "reason": …} with the lesson."""
    payload = load("before_tool_shell")
    payload["tool_input"] = {"command": "rm -rf data", "description": "clean"}
    answer = run_hook(payload, lessons_home, tmp_path / "state")
    assert answer is not None and set(answer) == {"decision", "reason"}
    assert answer["decision"] == "deny" and "GUARD-RM" in answer["reason"]


def test_relative_write_path_fires_the_path_lesson_after_the_call(lessons_home, tmp_path):
    """write_file with a workspace-relative path matches **/config/*.py at AfterTool."""
    state = tmp_path / "state"
    assert run_hook(load("before_tool_write_file"), lessons_home, state) is None
    answer = run_hook(load("after_tool_write_file"), lessons_home, state)
    assert "PATH-CONFIG" in context_of(answer, "AfterTool")


@pytest.mark.parametrize(
    ("tool", "tool_input", "marker"),
    [
        ("read_file", {"absolute_path": "config/settings.py"}, "PATH-CONFIG"),
        ("search_file_content", {"pattern": "x", "path": "vendor"}, "GREP-LOCK"),
        ("list_directory", {"path": "vendor"}, "GREP-LOCK"),
        ("run_shell_command", {"command": "sh -c 'ls'", "directory": "lib"}, "HINT-SH"),
    ],
)
def test_pre_014_argument_names(tool, tool_input, marker, lessons_home, tmp_path):
    """Older tool and argument names (absolute_path, path, directory) still match."""
    payload = load("after_tool_read_file")
    payload.update(tool_name=tool, tool_input=tool_input)
    payload["tool_response"] = {"llmContent": "ok", "returnDisplay": "ok"}
    answer = run_hook(payload, lessons_home, tmp_path / "state")
    assert marker in context_of(answer, "AfterTool")


def test_lifecycle_variants(lessons_home, tmp_path):
    """SessionStart with `trigger`, PreCompress and AfterAgent: JSON or nothing, never text."""
    base = load("session_start")
    state = tmp_path / "state"
    started = {**base}
    started.pop("source")
    started["trigger"] = "startup"
    assert "PROTOCOL-START" in context_of(run_hook(started, lessons_home, state), "SessionStart")
    compress = {**base, "hook_event_name": "PreCompress", "trigger": "auto"}
    assert run_hook(compress, lessons_home, state) is None
    assert run_hook(load("after_agent"), lessons_home, state) is None


@pytest.mark.parametrize("stdin", ["", "not json", "[1, 2]", '{"hook_event_name": "BeforeTool"}'])
def test_fails_open_silently(stdin, lessons_home, tmp_path):
    """Garbage in: exit 0, nothing on stdout or stderr (no user-visible message, no deny)."""
    assert run_hook(stdin, lessons_home, tmp_path / "state") is None


#: The contract adds ``pathlib``: the adapters resolve paths with ``os.path`` only.
BANNED = {*hook_support.BANNED, "pathlib"}
MODULES_RUN = hook_support.modules_script("lessons_gemini")


@pytest.mark.parametrize("name", ["after_tool_shell_failed", "session_start"])
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
