"""An MCP call is another party's input: the calling agent may have read a prompt injection.

What it records must not become a global or standing lesson, a trigger that matches every call
is refused, an error never echoes a huge argument back, and ``feedback`` counts only for a
session that was really given the lesson. The tools run over a real SQLite store; deliveries
come from the real Claude Code hook process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("lessons_mcp")
from lessons_mcp import schemas
from lessons_mcp.tools import ToolError, Tools

BIN = Path(sys.executable).parent

STASH = {
    "summary": "git stash leaves untracked files behind",
    "mistake": "Ran git stash before switching branches; the untracked files stayed",
    "remediation": "Use git stash -u (or --include-untracked) so untracked files go too.",
    "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"\bgit\s+stash\b"]},
}
RECORD = {
    "mistake": "git push --force rewrote a teammate's commits on the shared branch",
    "fix": "Use git push --force-with-lease so a push never drops commits you have not seen.",
    "tool": "Bash",
    "priority": 6,
}


def lessons(*args: str, input: str | None = None) -> str:
    proc = subprocess.run(
        [str(BIN / "lessons"), *args], input=input, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def add(item: dict[str, Any]) -> str:
    return str(json.loads(lessons("add", "-", "--json", input=json.dumps(item)))["id"])


def deliver(session: str, command: str = "git stash") -> None:
    """The real Claude Code hook delivers the matching lessons in ``session`` (and logs it)."""
    payload = {
        "session_id": session,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "cwd": os.environ["HOME"],
    }
    proc = subprocess.run(
        [str(BIN / "lessons-claude-hook")],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0 and "additionalContext" in proc.stdout, proc.stderr


def record_active(home: Path) -> None:
    (home / "config.json").write_text(json.dumps({"mcp": {"recordActive": True}}))


@pytest.fixture(name="project")
def fixture_project(tmp_path: Path) -> Path:
    root = tmp_path / "widgets"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True, capture_output=True)
    return root


def test_record_active_makes_a_hint_of_the_project_never_a_global_lesson(
    home: Path, project: Path
) -> None:
    from lessons_core.hot.project import project_id

    record_active(home)
    tools = Tools(cwd=str(project))
    answer = tools.record({**RECORD, "trigger": "git push --force"})
    assert answer.data["status"] == "active", answer.text
    assert answer.data["lesson"]["scope"] == project_id(str(project))
    entry = json.loads((home / "lesson-manifest.json").read_text())["lessons"]
    assert entry[answer.data["lesson"]["id"]]["scope"] == project_id(str(project))


@pytest.mark.parametrize("trigger", ["(?s)", ".*", "\\S", "\\w+"])
def test_record_refuses_a_trigger_that_matches_every_call(
    home: Path, project: Path, trigger: str
) -> None:
    record_active(home)
    with pytest.raises(ToolError, match="matches every call"):
        Tools(cwd=str(project)).record({**RECORD, "trigger": trigger})
    assert (
        "0 active lesson(s)"
        in Tools(cwd=str(project)).list({"kind": "lessons", "status": "active", "limit": 50}).text
    )
    assert (
        not (home / "lesson-manifest.json").exists()
        or json.loads((home / "lesson-manifest.json").read_text())["lessons"] == {}
    )


def test_record_without_a_trigger_waits_even_with_record_active(home: Path, project: Path) -> None:
    record_active(home)
    answer = Tools(cwd=str(project)).record(dict(RECORD))
    assert answer.data["status"] == "new" and "held" in answer.data, answer.text
    assert "fires on every call" in answer.data["held"]


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("search", {"text": "x" * (10 * 1024 * 1024)}),
        ("search", {"text": "x", "k" * (10 * 1024 * 1024): 1}),
        ("record", {"mistake": 5, "fix": ["y" * (10 * 1024 * 1024)]}),
        ("f" * (10 * 1024 * 1024), {}),
    ],
)
def test_a_schema_error_never_echoes_a_huge_argument(name: str, args: dict[str, Any]) -> None:
    from lessons_mcp.server import _message

    with pytest.raises(schemas.ArgumentError) as caught:
        schemas.check(name, args)
    assert len(_message(caught.value)) < 1000


def test_feedback_counts_only_for_a_session_given_the_lesson(home: Path) -> None:
    import sqlite3

    stash = add(STASH)
    tools = Tools()
    for _ in range(3):  # a made-up session demotes nothing
        with pytest.raises(ToolError, match="no record shows session"):
            tools.feedback({"lesson": stash, "verdict": "wrong", "session_id": "made-up"})
    with pytest.raises(ToolError, match="no record shows session"):
        tools.feedback({"lesson": stash, "verdict": "wrong"})  # this server never showed it

    deliver("s-real")
    tools.feedback({"lesson": stash, "verdict": "wrong", "session_id": "s-real"})
    with pytest.raises(ToolError, match="already judged"):
        tools.feedback({"lesson": stash, "verdict": "wrong", "session_id": "s-real"})

    assert tools.search({"text": "git stash untracked files", "scope": "all", "limit": 5}).data[
        "results"
    ]
    tools.feedback({"lesson": stash, "verdict": "helped"})  # what its own search returned

    conn = sqlite3.connect(home / "lessons.db")
    rows = conn.execute("SELECT session_id, outcome FROM deliveries").fetchall()
    conn.close()
    assert sorted(r[1] for r in rows) == ["prevented", "wrong"]
