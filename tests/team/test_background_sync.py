"""The background scan syncs with the team store when one is configured, and never fails for it."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from tests.team.team_support import Machine

from lessons_core.scan import background
from lessons_core.testing import contract_lesson

psycopg = pytest.importorskip("psycopg")


def _use(machine: Machine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LESSONS_HOME", str(machine.home))


def test_the_background_scan_pushes_and_pulls(tmp_path: Path, team_url: str, monkeypatch):
    alpha, beta = Machine(tmp_path, "alpha", team_url), Machine(tmp_path, "beta", team_url)
    with alpha.store() as store:
        (lesson,) = store.add_lessons([contract_lesson(1)])
    empty = tmp_path / "no-transcripts"
    empty.mkdir()
    for machine in (alpha, beta):
        _use(machine, monkeypatch)
        assert background.run_background(paths=[empty]) is True
    assert lesson.id in beta.manifest_ids()
    with psycopg.connect(team_url) as conn:
        assert conn.execute("SELECT machine FROM lessons").fetchall() == [("alpha",)]


def test_an_unreachable_team_does_not_stop_the_scan(tmp_path: Path, monkeypatch):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    machine = Machine(tmp_path, "laptop", f"postgresql://u:pw@127.0.0.1:{port}/x")
    _use(machine, monkeypatch)
    empty = tmp_path / "no-transcripts"
    empty.mkdir()
    assert background.run_background(paths=[empty]) is True


def test_an_unknown_team_store_names_the_available_ones(tmp_path: Path, monkeypatch):
    from lessons_core import services, team
    from lessons_core.errors import LessonsError

    home = tmp_path / "h"
    home.mkdir()
    (home / "config.json").write_text(json.dumps({"team": {"store": "nosuch"}}))
    monkeypatch.setenv("LESSONS_HOME", str(home))
    with services.session() as sess, pytest.raises(LessonsError, match=r"available: .*postgres"):
        team.run_sync(sess)
    (home / "config.json").write_text(json.dumps({"team": {"store": "sqlite"}}))
    with services.session() as sess, pytest.raises(LessonsError, match="cannot serve as a team"):
        team.run_sync(sess)
