"""``lessons sync`` between machines (separate LESSONS_HOMEs) and one real PostgreSQL server."""

from __future__ import annotations

import json
from pathlib import Path

import attrs
import pytest
from tests.team.team_support import Machine

from lessons_core.models import Sighting, Status
from lessons_core.testing import contract_candidate, contract_lesson

psycopg = pytest.importorskip("psycopg")


@pytest.fixture
def machines(tmp_path: Path, team_url: str) -> tuple[Machine, Machine]:
    return Machine(tmp_path, "alpha", team_url), Machine(tmp_path, "beta", team_url)


def _team_rows(url: str, sql: str) -> list[tuple[object, ...]]:
    with psycopg.connect(url) as conn:
        return conn.execute(sql).fetchall()


def test_a_lesson_learned_on_one_machine_reaches_the_others_manifest(machines):
    alpha, beta = machines
    with alpha.store() as store:
        (lesson,) = store.add_lessons([contract_lesson(1)])
    first = alpha.sync()
    assert first.offline == "" and first.pushed_lessons == 1
    report = beta.sync()
    assert report.pulled == 1 and report.pushed_lessons == 0
    with beta.store() as store:
        pulled = store.get_lesson(lesson.id)
    assert pulled is not None and pulled.summary == lesson.summary
    # The hook reads the manifest: the sync rebuilt it with the team's lesson.
    assert lesson.id in beta.manifest_ids()
    # Nothing moves on a second round, and nothing is duplicated.
    again = [alpha.sync(), beta.sync()]
    assert [(r.pulled, r.pushed_lessons, r.updated) for r in again] == [(0, 0, 0), (0, 0, 0)]


def test_rows_carry_their_owner(machines, team_url):
    alpha, _ = machines
    with alpha.store() as store:
        store.add_lessons(
            [
                contract_lesson(
                    2, provenance=attrs.evolve(contract_lesson(2).provenance, projects=["proj-x"])
                )
            ]
        )
    alpha.sync()
    rows = _team_rows(team_url, "SELECT author, machine, project FROM lessons")
    assert rows == [("alpha", "alpha", "proj-x")]


def test_candidates_and_deliveries_travel_without_transcripts(machines, team_url):
    alpha, beta = machines
    with alpha.store() as store:
        (lesson,) = store.add_lessons([contract_lesson(3)])
        store.add_candidate(contract_candidate(3))
        store.record_delivery(lesson.id, "sess-1", "claude", "pre_tool:hint", outcome="prevented")
    report = alpha.sync()
    assert (report.pushed_candidates, report.pushed_deliveries) == (1, 1)
    with beta.store() as store:
        store.add_candidate(contract_candidate(3))  # the same finding on another machine
    beta.sync()
    (row,) = _team_rows(team_url, "SELECT evidence, machine FROM candidates")
    evidence, machine = row
    # One candidate (the same evidence merged), by file name only: no local path travels.
    assert machine == "alpha"
    assert [e["file"] for e in evidence] == ["3.jsonl"]
    deliveries = _team_rows(team_url, "SELECT lesson_id, outcome, machine FROM deliveries")
    assert deliveries == [(lesson.id, "prevented", "alpha")]
    # Pushing again (a new sync) adds nothing twice.
    again = alpha.sync()
    assert (again.pushed_candidates, again.pushed_deliveries) == (0, 0)
    assert len(_team_rows(team_url, "SELECT 1 FROM deliveries")) == 1


def test_where_a_lesson_was_seen_stays_on_the_machine(machines, team_url):
    """The places a lesson was seen name transcripts and project directories: they stay in the
    local store, the team row has none, and the pull that brings the team's row back (and a
    second sync) leaves them as they were."""
    alpha, beta = machines
    seen = (
        Sighting(
            "/home/al/.claude/projects/-home-al-shop/s1.jsonl", 4, None, "s1", "/home/al/shop"
        ),
    )
    base = contract_lesson(5)
    with alpha.store() as store:
        (lesson,) = store.add_lessons(
            [attrs.evolve(base, provenance=attrs.evolve(base.provenance, evidence=seen))]
        )
    assert alpha.sync().pushed_lessons == 1
    assert _team_rows(team_url, "SELECT evidence FROM lessons") == [([],)]
    alpha.sync()
    with alpha.store() as store:
        assert store.get_lesson(lesson.id).provenance.evidence == seen
    assert beta.sync().pulled == 1
    with beta.store() as store:
        assert store.get_lesson(lesson.id).provenance.evidence == ()


def test_an_edit_travels_and_a_team_removal_follows(machines, team_url):
    alpha, beta = machines
    with beta.store() as store:
        (lesson,) = store.add_lessons([contract_lesson(4)])
    beta.sync()
    alpha.sync()  # alpha holds the team's lesson (beta's own)
    with beta.store() as store:
        store.update_lesson(attrs.evolve(store.get_lesson(lesson.id), priority=9))
    assert beta.sync().pushed_lessons == 1
    assert alpha.sync().updated == 1
    with alpha.store() as store:
        assert store.get_lesson(lesson.id).priority == 9
    # Disabled on the team (a reviewer), then removed: both reach the machines that pulled it.
    with psycopg.connect(team_url) as conn:
        conn.execute("UPDATE lessons SET status = 'disabled'")
    assert alpha.sync().updated == 1
    with alpha.store() as store:
        assert store.get_lesson(lesson.id).status == Status.DISABLED
    assert lesson.id not in alpha.manifest_ids()
    with psycopg.connect(team_url) as conn:
        conn.execute("DELETE FROM lessons")
    assert alpha.sync().removed == 1
    with alpha.store() as store:
        assert store.get_lesson(lesson.id) is None


def test_a_conflict_is_resolved_by_revision_reported_and_never_lost(machines, team_url):
    alpha, beta = machines
    with alpha.store() as store:
        (lesson,) = store.add_lessons([contract_lesson(5)])
    alpha.sync()
    beta.sync()
    with alpha.store() as store:
        store.update_lesson(attrs.evolve(lesson, remediation="alpha's remedy"))
    with beta.store() as store:
        store.update_lesson(attrs.evolve(lesson, remediation="beta's remedy"))
    assert alpha.sync().conflicts == ()
    report = beta.sync()
    (line,) = report.conflicts
    assert lesson.slug in line and "team conflict" in line
    # The higher revision (alpha's, accepted by the team first) wins on beta too …
    with beta.store() as store:
        assert store.get_lesson(lesson.id).remediation == "alpha's remedy"
    # … and beta's version is kept whole: on the team and beside beta's store.
    (kept,) = _team_rows(team_url, "SELECT machine, lesson FROM lesson_conflicts")
    assert kept[0] == "beta" and kept[1]["remediation"] == "beta's remedy"
    local = [json.loads(x) for x in (beta.home / "team-conflicts.jsonl").read_text().splitlines()]
    assert local[0]["lesson"]["remediation"] == "beta's remedy"
    assert beta.sync().conflicts == ()  # settled: not reported again
