"""A user's first day: an empty HOME, ``lessons install AGENT`` and nothing else.

The install must leave everything ready: the store and the manifest (so the very next session
start carries the #lesson protocol) and a background scan of the agent's existing transcripts.
Each test runs the real CLI and then the command the install registered, through ``/bin/sh``
as the agents do, with an environment that holds no ``LESSONS_*`` variable.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

LESSONS = str(Path(sys.executable).parent / "lessons")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"

#: agent → (its transcripts in our fixtures, where the agent keeps them under HOME, its settings)
AGENTS = {
    "claude": ("claude/projects", ".claude/projects", ".claude/settings.json"),
    "codex": ("codex/sessions", ".codex/sessions", ".codex/hooks.json"),
    "gemini": ("gemini/tmp", ".gemini/tmp", ".gemini/settings.json"),
}
SESSION_START = {
    "claude": {"hook_event_name": "SessionStart", "source": "startup"},
    "codex": {"hook_event_name": "SessionStart", "source": "startup"},
    "gemini": {"hook_event_name": "SessionStart", "source": "startup"},
}


@pytest.fixture(name="user")
def fixture_user(tmp_path: Path) -> dict[str, str]:
    """The environment of a user who never ran lessons: no LESSONS_* variable at all."""
    home = tmp_path / "home"
    home.mkdir()
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if not k.startswith("LESSONS_")}
    env.update(HOME=str(home), XDG_RUNTIME_DIR=str(runtime))
    for var in ("XDG_DATA_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"):
        env.pop(var, None)
    return env


def lessons(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LESSONS, *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )


def commands(settings: Path) -> Iterator[str]:
    """Every hook command string in an agent's settings file."""

    def walk(node: Any) -> Iterator[str]:
        if isinstance(node, dict):
            if isinstance(node.get("command"), str):
                yield node["command"]
            for value in node.values():
                yield from walk(value)
        elif isinstance(node, list):
            for item in node:
                yield from walk(item)

    yield from walk(json.loads(settings.read_text()))


def session_start(agent: str, command: str, env: dict[str, str], cwd: Path) -> str:
    payload = {**SESSION_START[agent], "session_id": "first-day-1", "cwd": str(cwd)}
    proc = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def active_lessons(home: Path) -> list[str]:
    db = home / "lessons.db"
    if not db.exists():
        return []
    with closing(sqlite3.connect(db)) as conn, conn:
        try:
            return [r[0] for r in conn.execute("SELECT summary FROM lessons WHERE status='active'")]
        except sqlite3.OperationalError:
            return []


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_install_alone_leaves_everything_ready(agent: str, user: dict[str, str]) -> None:
    """Store, manifest, the protocol at the next session start, and a first scan."""
    home = Path(user["HOME"])
    fixtures, where, settings = AGENTS[agent]
    shutil.copytree(FIXTURES / fixtures, home / where)
    lessons_home = home / ".local" / "share" / "lessons"
    assert not lessons_home.exists()

    out = lessons(user, "install", agent)
    assert out.returncode == 0, out.stderr
    assert "store and manifest ready" in out.stdout
    assert "in the background" in out.stdout
    assert (lessons_home / "lessons.db").is_file()
    assert (lessons_home / "lesson-manifest.json").is_file()

    registered = sorted(set(commands(home / settings)))
    assert registered and all("LESSONS_HOME" not in c for c in registered)
    answer = session_start(agent, registered[0], user, home)
    assert "#lesson" in answer and "#/lesson" in answer

    # The fixtures hold a #lesson block: the background scan promotes it to a lesson.
    deadline = time.monotonic() + 60
    while not active_lessons(lessons_home) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert active_lessons(lessons_home), "the background scan found nothing"


def test_a_custom_home_is_pinned_in_the_registered_command(
    user: dict[str, str], tmp_path: Path
) -> None:
    """LESSONS_HOME at install time reaches hooks that the agent starts without it."""
    custom = tmp_path / "team-lessons"
    lesson = {
        "summary": "Pinned homes reach the hook",
        "mistake": "m",
        "remediation": "r",
        "type": "directive",
    }
    with_home = {**user, "LESSONS_HOME": str(custom)}
    added = subprocess.run(
        [LESSONS, "add", "-"], input=json.dumps(lesson), capture_output=True, text=True,
        env=with_home, timeout=60, check=False,
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    out = lessons({**with_home, "LESSONS_AUTO_SCAN": "0"}, "install", "claude")
    assert out.returncode == 0, out.stderr
    assert f"pinned in the command: LESSONS_HOME={custom}" in out.stdout

    (command,) = set(commands(Path(user["HOME"]) / ".claude" / "settings.json"))
    assert f"LESSONS_HOME={custom}" in command
    answer = session_start("claude", command, user, tmp_path)  # no LESSONS_HOME here
    assert "Pinned homes reach the hook" in answer

    # This shell (no LESSONS_HOME) reads another home than the hook: doctor says so.
    report = json.loads(lessons(user, "doctor", "--json").stdout)
    (claude,) = [f for f in report["findings"] if f["check"] == "hooks:claude"]
    assert claude["status"] == "warn"
    assert str(custom) in claude["detail"] and claude["hook_home"] == str(custom)
    # ... and with the same home it does not.
    report = json.loads(lessons(with_home, "doctor", "--json").stdout)
    (claude,) = [f for f in report["findings"] if f["check"] == "hooks:claude"]
    assert "reads lessons from" not in claude["detail"]


def test_install_without_an_agent_offers_the_ones_found(
    user: dict[str, str], tmp_path: Path
) -> None:
    home = Path(user["HOME"])
    shutil.copytree(FIXTURES / "codex" / "sessions", home / ".codex" / "sessions")
    env = {**user, "LESSONS_AUTO_SCAN": "0", "PATH": f"{tmp_path / 'nobin'}:/usr/bin:/bin"}
    asked = lessons(env, "install")
    assert asked.returncode == 1
    assert "codex (transcripts in" in asked.stderr
    assert "lessons install codex" in asked.stderr
    assert "Traceback" not in asked.stderr

    done = lessons(env, "install", "--yes")
    assert done.returncode == 0, done.stderr
    assert (home / ".codex" / "hooks.json").is_file()
    assert not (home / ".claude" / "settings.json").exists()


def test_install_names_only_adapters_that_exist(user: dict[str, str]) -> None:
    out = lessons(user, "install", "cursor")
    assert out.returncode == 1
    assert "no adapter for agent 'cursor'" in out.stderr
    assert "lessons[cursor]" not in out.stderr
