"""The recall path of the hook process stays light: no re, json, sqlite3 or typing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import lessons_claude
import lessons_core

SCRIPT = """
import sys
sys.path[:0] = sys.argv[1:]
from lessons_claude import hot_claude
from lessons_core.hot import runner
runner.run(hot_claude)
sys.stderr.write(" ".join(sorted(sys.modules)))
"""
HEAVY = (
    "re",
    "json",
    "sqlite3",
    "_sqlite3",
    "math",
    "array",
    "datetime",
    "typing",
    "logging",
    "enum",
    "hashlib",
    "pathlib",
)


def run_script(payload: dict[str, object]) -> tuple[str, set[str]]:
    dirs = [str(Path(m.__file__).resolve().parents[1]) for m in (lessons_claude, lessons_core)]
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", SCRIPT, *dirs],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=30,
        check=True,
    )
    return done.stdout, set(done.stderr.split())


@pytest.mark.parametrize(
    "payload",
    [
        {
            "session_id": "imports-1",
            "cwd": "/tmp",
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash",
            "tool_input": {"command": "pytest -q"},
            "tool_use_id": "toolu_1",
            "error": "Exit code 2\nE   ModuleNotFoundError: No module named 'requests'",
        },
        {
            "session_id": "imports-2",
            "cwd": "/tmp",
            "hook_event_name": "UserPromptSubmit",
            "prompt": "git push was rejected as non-fast-forward again, sort out the push",
        },
    ],
    ids=["failure", "prompt"],
)
def test_recall_imports_nothing_heavy(catalogue: Path, payload: dict[str, object]) -> None:
    """A delivering recall call reads the published index: no SQLite, no heavy module."""
    out, modules = run_script(payload)
    assert "injected=" in out  # it really recalled something
    assert "lessons_core.hot.recall" in modules and "_sqlite3" not in modules
    assert "lessons_core.hot.runner" in modules
    assert not modules.intersection(HEAVY), sorted(modules.intersection(HEAVY))


def test_without_programs_the_normalizer_falls_back_to_re(catalogue: Path) -> None:
    """No compiled programs (another interpreter built them): same answer, through ``re``."""
    (catalogue / "recall-programs.marshal").unlink()
    out, modules = run_script(
        {
            "session_id": "imports-3",
            "cwd": "/tmp",
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash",
            "tool_input": {"command": "pytest -q"},
            "error": "Exit code 2\nE   ModuleNotFoundError: No module named 'requests'",
        }
    )
    assert "injected=rc-missing-requests" in out
    assert "re" in modules


def test_recall_and_the_build_do_not_load_the_hook_runner() -> None:
    """No import cycle between recall and the runner: the compiler and recall load without it."""
    code = (
        "import sys\n"
        "import lessons_core.hot.recall, lessons_core.compiler.build\n"
        "import lessons_core.store.recall_index\n"
        "print('lessons_core.hot.runner' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "False"
