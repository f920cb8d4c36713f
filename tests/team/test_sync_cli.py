"""``lessons sync`` as a process: offline, catching up, refusals, and a password never shown."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest
from tests.conftest import bin_path
from tests.team.team_support import Machine

from lessons_core.testing import contract_lesson


def _lessons(machine: Machine, *args: str, env: dict[str, str] | None = None):
    return subprocess.run(
        [bin_path("lessons"), *args],
        capture_output=True,
        text=True,
        env={**machine.environ, **(env or {})},
        timeout=120,
        check=False,
    )


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _password(url: str) -> str:
    return url.split("://", 1)[1].split("@", 1)[0].split(":", 1)[1]


def test_offline_says_so_exits_0_and_catches_up_later(tmp_path: Path, team_url: str):
    secret = _password(team_url)
    down = team_url.rsplit("@", 1)[0] + f"@127.0.0.1:{_closed_port()}/x"
    machine = Machine(tmp_path, "laptop", down)
    with machine.store() as store:
        (lesson,) = store.add_lessons([contract_lesson(1)])
    offline = _lessons(machine, "sync")
    assert offline.returncode == 0, offline.stderr
    assert offline.stderr.startswith("Offline: cannot connect to postgresql://lessons:***@")
    assert "the next sync catches up" in offline.stderr
    as_json = json.loads(_lessons(machine, "sync", "--json").stdout)
    assert as_json["offline"] and as_json["pushedLessons"] == 0
    # Back on the network (the address from the environment, which wins over config.json).
    online = _lessons(machine, "sync", env={"LESSONS_DATABASE_URL": team_url})
    assert online.returncode == 0, online.stderr
    assert "pushed 1 lesson(s)" in online.stdout
    for result in (offline, online):
        assert secret not in result.stdout + result.stderr
    import psycopg

    with psycopg.connect(team_url) as conn:
        assert conn.execute("SELECT id FROM lessons").fetchall() == [(lesson.id,)]


def test_a_wrong_password_is_an_error_that_does_not_echo_it(tmp_path: Path, team_url: str):
    wrong = team_url.replace(_password(team_url), "Wr0ng-Pa55word", 1)
    machine = Machine(tmp_path, "laptop", wrong)
    result = _lessons(machine, "-vv", "sync")
    assert result.returncode == 1
    assert result.stderr.startswith("Error: the team store postgresql://lessons:***@")
    assert "password authentication failed" in result.stderr
    assert "Wr0ng-Pa55word" not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def test_config_shows_the_url_with_its_password_masked(tmp_path: Path, team_url: str):
    machine = Machine(tmp_path, "laptop", team_url)
    secret = _password(team_url)
    for args in (("config",), ("config", "--json"), ("config", "team.url")):
        result = _lessons(machine, *args)
        assert result.returncode == 0, result.stderr
        assert secret not in result.stdout and "lessons:***@" in result.stdout


def test_sync_without_a_team_store_says_how_to_set_one(home: Path):
    result = subprocess.run(
        [bin_path("lessons"), "sync"],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr.startswith("Error: no team store is configured")


@pytest.mark.parametrize(
    "given", ["postgresql://u:hunter2@db.example/x", "host=db password=hunter2 user=u"]
)
def test_mask_url_hides_passwords_in_both_spellings(given: str):
    from lessons_core.team import mask_url

    shown = mask_url(given)
    assert "hunter2" not in shown and "***" in shown
