"""Eight machines scan and sync against one server at once: nothing lost, nothing duplicated."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import REPO_ROOT
from tests.team.team_support import Machine

from lessons_core import services

psycopg = pytest.importorskip("psycopg")

MACHINES = 8
ROUNDS = 3
WORKER = Path(__file__).with_name("load_worker.py")
TRANSCRIPTS = REPO_ROOT / "tests" / "fixtures" / "transcripts" / "tier1"


def test_eight_machines_at_once(tmp_path: Path, team_url: str):
    machines = [Machine(tmp_path, f"m{i}", team_url) for i in range(MACHINES)]
    procs = []
    for i, machine in enumerate(machines):
        copy = tmp_path / f"transcripts-{i}"  # each machine's own copy of the same sessions
        shutil.copytree(TRANSCRIPTS, copy)
        env = {**machine.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        procs.append(
            subprocess.Popen(
                [sys.executable, str(WORKER), str(i), str(ROUNDS), str(copy)],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-3000:]
        results.append(json.loads(out.splitlines()[-1]))
    assert all(r["offline"] == 0 and r["syncs"] == ROUNDS for r in results)
    assert all(r["scanned"] > 0 for r in results)
    for machine in machines:  # a last round, so every machine has seen everyone's pushes
        assert machine.sync().offline == ""

    with psycopg.connect(team_url) as conn:
        team_rows = conn.execute(
            "SELECT id, content_hash, occurrences, sessions, summary FROM lessons"
        ).fetchall()
        pending = conn.execute(
            "SELECT content_key, count(*) FROM candidates WHERE status = 'pending' "
            "GROUP BY content_key"
        ).fetchall()
        deliveries = conn.execute("SELECT count(*) FROM deliveries").fetchone()[0]
    # Nothing duplicated: one team row per content, however many machines learned it.
    hashes = [row[1] for row in team_rows]
    assert len(hashes) == len(set(hashes))
    # Nothing lost: every lesson of every machine is on the team, and back on every machine.
    local_hashes = set()
    for machine in machines:
        with services.open_store(machine.environ) as store:
            lessons = store.list_lessons()
        local_hashes |= {lesson.content_hash for lesson in lessons}
        assert {lesson.content_hash for lesson in lessons} == set(hashes), machine.name
        assert len(machine.manifest_ids()) == len(team_rows), machine.name
    assert local_hashes == set(hashes)
    unique = MACHINES * ROUNDS * 5
    assert len(team_rows) >= unique + 1
    (shared,) = [row for row in team_rows if row[4] == "learned everywhere"]
    assert shared[2] == MACHINES and len(shared[3]) == MACHINES
    assert all(count == 1 for _key, count in pending)
    # Every delivery record arrived once: two per machine per round.
    assert deliveries == MACHINES * ROUNDS * 2
