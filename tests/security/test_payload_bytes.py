"""A payload with bytes that are not clean UTF-8 JSON still gets its lesson.

Codex CLI passes what the model wrote through to the hook: a raw NUL inside a string, or a
lone surrogate encoded as raw bytes (``\\xed\\xa0\\x80``, what a WTF-8 string gives), or a
stray byte. The hook used to fail open on each (the payload did not decode, or the JSON scanner
refused a control character) and the call's lesson was lost. The real ``lessons-codex-hook``
process is fed each shape here.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import hook_support

HOOK = str(hook_support.BIN / "lessons-codex-hook")
LESSON = {
    "summary": "Quiet pytest",
    "mistake": "HINT-PYTEST: verbose output floods the context",
    "remediation": "Use pytest -q.",
    "type": "hint",
    "priority": 9,
    "triggers": {"toolNames": ["Bash"], "commandPatterns": ["\\bpytest\\b"]},
}


@pytest.fixture(scope="module", name="built_home")
def fixture_built_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hook_support.build_lessons_home(tmp_path_factory.mktemp("payload-home"), [LESSON])


def payload(session: str, command: bytes) -> bytes:
    head = json.dumps(
        {
            "session_id": session,
            "cwd": "/home/dev/project",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_use_id": "call_1",
            "tool_input": {"command": "COMMAND"},
        }
    ).encode()
    return head.replace(b"COMMAND", command)


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(b"pytest tests/ -k a\x00b", id="raw-nul"),
        pytest.param(b"pytest tests/ -k \xed\xa0\x80x", id="raw-lone-surrogate"),
        pytest.param(b"pytest tests/ -k \xff\xfe", id="stray-bytes"),
        pytest.param(b"pytest tests/ -k \\ud800x", id="escaped-lone-surrogate"),
        pytest.param(b"pytest tests/ -k a\\u0000b", id="escaped-nul"),
        pytest.param(b"pytest \x01\x1f\ttests/", id="raw-control-characters"),
    ],
)
def test_the_lesson_is_still_delivered(built_home: Path, tmp_path: Path, command: bytes) -> None:
    proc = subprocess.run(
        [HOOK],
        input=payload(f"bytes-{tmp_path.name}", command),
        capture_output=True,
        env=hook_support.hook_env(built_home, tmp_path / "state"),
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0
    assert proc.stdout, proc.stderr
    answer = json.loads(proc.stdout)
    assert "HINT-PYTEST" in answer["hookSpecificOutput"]["additionalContext"]


def test_a_payload_that_is_not_json_still_fails_open(built_home: Path, tmp_path: Path) -> None:
    """Leniency is for the bytes inside strings, not for what is not JSON at all."""
    proc = subprocess.run(
        [HOOK],
        input=b"\xff\xfe not json {",
        capture_output=True,
        env=hook_support.hook_env(built_home, tmp_path / "state"),
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0
    assert proc.stdout == b""
