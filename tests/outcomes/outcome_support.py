"""Shared pieces of the outcome-loop tests: the lesson, its error, a transcript writer."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lessons_core.hot import manifest as manifest_mod

SESSION = "9b1c2d3e-0000-4000-8000-00000000abcd"

PYTEST_LESSON = {
    "id": "oc-venv-pytest",
    "summary": "Run the tests with the project's virtualenv",
    "mistake": "Bare pytest runs the system interpreter, which lacks the project's packages.",
    "remediation": "Use .venv/bin/python -m pytest.",
    "triggers": {"toolNames": ["Bash"], "commandPatterns": ["^pytest\\b"]},
    "errorLines": ["E   ModuleNotFoundError: No module named 'requests'"],
    "priority": 6,
    "confidence": 0.8,
}
MODULE_ERROR = "Exit code 2\nE   ModuleNotFoundError: No module named 'requests'\n1 error in 0.1s"


class ClaudeTranscript:
    """Writes a Claude Code transcript line by line, the way Claude Code records a session."""

    def __init__(self, path: Path, session: str = SESSION, cwd: str = "/srv/dev/acme"):
        self.path = path
        self.session = session
        self.cwd = cwd
        self.n = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()

    def _line(self, kind: str, message: dict[str, Any], when: str, **extra: Any) -> None:
        self.n += 1
        record = {
            "parentUuid": None,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session,
            "version": "2.1.33",
            "type": kind,
            "uuid": f"u-{self.n:04d}",
            "timestamp": when,
            "message": message,
            **extra,
        }
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")

    def call(self, call_id: str, command: str, when: str) -> None:
        block = {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command}}
        self._line(
            "assistant", {"id": f"msg_{call_id}", "role": "assistant", "content": [block]}, when
        )

    def result(self, call_id: str, text: str, when: str, *, error: bool = False) -> None:
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": text}
        if error:
            block["is_error"] = True
        self._line("user", {"role": "user", "content": [block]}, when)

    def say(self, text: str, when: str) -> None:
        self._line("assistant", {"id": f"m{self.n}", "role": "assistant", "content": [
            {"type": "text", "text": text}]}, when)  # fmt: skip


def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """LESSONS_HOME, LESSONS_STATE_DIR and HOME inside this test's tmp_path (a fixture body)."""
    home = tmp_path / "lessons-home"
    home.mkdir()
    monkeypatch.setenv("LESSONS_HOME", str(home))
    monkeypatch.setenv("LESSONS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    (tmp_path / "user").mkdir()
    monkeypatch.delenv("LESSONS_HOOK_LOG", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    manifest_mod.clear_cache()
    yield home
    manifest_mod.clear_cache()
