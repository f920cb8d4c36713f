"""After a real hook run the process holds no third-party or heavy stdlib module."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest
from hot_support import HERE, install_manifest, make_lesson

from hook_support import BANNED, modules_after_run, modules_script
from lessons_core.models import LessonType

CLAUDE_RUN = modules_script("lessons_claude")


def _catalogue(home):
    install_manifest(
        home,
        make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": [r"\bpytest\b"]}),
        make_lesson(
            type=LessonType.GUARD, triggers={"tool_names": ["Bash"], "command_patterns": ["rm -rf"]}
        ),
        make_lesson(triggers={"tool_names": ["Edit"], "path_patterns": ["**/*.py"]}, scope="x"),
        make_lesson(triggers={"tool_names": ["Edit"], "path_patterns": ["*.py"]}),
        make_lesson(type=LessonType.DIRECTIVE, tags=["lang:python"]),
    )


def _loaded(tmp_path, argv, payload):
    loaded, proc = modules_after_run(argv, json.dumps(payload).encode(), tmp_path / "modules.txt")
    return loaded, proc.stdout


@pytest.mark.parametrize(
    "payload",
    [
        {"event": "pre_tool", "tool": "Bash", "command": "pytest -q", "session_id": "m"},
        {"event": "pre_tool", "tool": "Edit", "paths": ["/a/b.py"], "content": "x", "cwd": "/"},
        {"event": "session_start", "source": "startup", "session_id": "m", "cwd": "/"},
    ],
)
def test_runner_imports_only_the_standard_library(home, tmp_path, payload):
    """The echo adapter through the runner: none of the banned modules gets imported."""
    _catalogue(home)
    loaded, stdout = _loaded(
        tmp_path, [sys.executable, str(HERE / "run_echo_hook.py"), "--modules"], payload
    )
    assert stdout  # something was delivered, so the whole path ran
    assert "lessons_core.hot.runner" in loaded
    assert not (loaded & BANNED), sorted(loaded & BANNED)


@pytest.mark.skipif(
    importlib.util.find_spec("lessons_claude") is None, reason="Claude adapter not installed"
)
def test_claude_hook_imports_only_the_standard_library(home, tmp_path):
    """The Claude Code hook on a real PreToolUse payload stays within the standard library."""
    _catalogue(home)
    payload = {
        "session_id": "m",
        "cwd": str(tmp_path),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "pytest -q"},
    }
    loaded, stdout = _loaded(tmp_path, [sys.executable, "-c", CLAUDE_RUN], payload)
    assert b"Lesson" in stdout
    assert not (loaded & BANNED), sorted(loaded & BANNED)


MATCH_ONLY = """
import sys
from lessons_core.hot import manifest, match
m = manifest.load()
event = {"event": "pre_tool", "tool": "Bash", "command": sys.argv[2], "session_id": "x"}
found = match.matching(m, event)
with open(sys.argv[1], "w", encoding="utf-8") as fh:
    fh.write("\\n".join(sorted(sys.modules)))
print(len(found))
"""


@pytest.mark.parametrize(("command", "fired"), [("ls -la", 0), ("pytest -q", 1)])
def test_matching_runs_regexes_without_importing_re(home, tmp_path, command, fired):
    """With the compiled manifest, matching (prefilter, regex) needs neither re nor json."""
    _catalogue(home)
    out_file = tmp_path / "modules.txt"
    proc = subprocess.run(
        [sys.executable, "-c", MATCH_ONLY, str(out_file), command],
        capture_output=True,
        timeout=60,
        check=True,
    )
    assert proc.stdout.strip() == str(fired).encode()
    loaded = set(out_file.read_text().split())
    assert not (loaded & {"re", "json", *BANNED}), sorted(loaded & {"re", "json", *BANNED})


#: One ordinary shell call per agent, in that agent's own payload shape.
SHELL_CALLS = {
    "lessons_claude": {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "pytest -q"},
    },
    "lessons_codex": {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "pytest -q"},
        "model": "gpt-5",
    },
    "lessons_gemini": {
        "hook_event_name": "BeforeTool",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "pytest -q"},
    },
    "lessons_opencode": {
        "hook_event_name": "tool.execute.before",
        "tool": "bash",
        "args": {"command": "pytest -q"},
    },
    "lessons_kilo": {
        "hook_event_name": "tool.execute.before",
        "tool": "bash",
        "args": {"command": "pytest -q"},
    },
    "lessons_qwen": {
        "hook_event_name": "PostToolUse",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "pytest -q"},
        "tool_response": {"llmContent": "Command: pytest -q\nExit Code: 0"},
    },
    "lessons_copilot": {
        "hook_event_name": "PostToolUse",
        "timestamp": "2026-12-03T19:04:25.835Z",
        "tool_name": "Bash",
        "tool_input": {"command": "pytest -q"},
        "tool_result": {
            "result_type": "success",
            "text_result_for_llm": "1 passed\n<shellId: 0 completed with exit code 0>",
        },
    },
}


@pytest.mark.parametrize("package", sorted(SHELL_CALLS))
def test_a_shell_call_loads_neither_re_nor_json(home, tmp_path, package):
    """Every adapter answers an ordinary shell call without importing re, json or enum.

    Those three cost a hook process about 8 ms together: more than the whole match.
    """
    if importlib.util.find_spec(package) is None:
        pytest.skip(f"{package} is not installed")
    _catalogue(home)
    payload = {"session_id": "m", "cwd": str(tmp_path), **SHELL_CALLS[package]}
    loaded, _ = _loaded(tmp_path, [sys.executable, "-c", modules_script(package)], payload)
    heavy = loaded & {"re", "json", "enum", *BANNED}
    assert not heavy, sorted(heavy)


def test_a_codex_patch_loads_neither_re_nor_json(home, tmp_path):
    """Every Codex edit is an ``apply_patch``: reading its headers must not pull in ``re``."""
    if importlib.util.find_spec("lessons_codex") is None:
        pytest.skip("lessons_codex is not installed")
    _catalogue(home)
    patch = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-a = 1\n+a = 2\n*** End Patch\n"
    payload = {
        "session_id": "m",
        "cwd": str(tmp_path),
        "hook_event_name": "PreToolUse",
        "tool_name": "apply_patch",
        "tool_input": {"command": patch},
        "model": "gpt-5",
    }
    loaded, stdout = _loaded(
        tmp_path, [sys.executable, "-c", modules_script("lessons_codex")], payload
    )
    assert b"Lesson" in stdout  # the Edit path lesson on **/*.py fired from the patch's path
    heavy = loaded & {"re", "json", "enum", *BANNED}
    assert not heavy, sorted(heavy)
