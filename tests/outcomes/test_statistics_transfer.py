"""Delivery statistics travel in the JSONL export and merge on import, idempotently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from outcome_support import PYTEST_LESSON

from lessons_core import outcomes, serde, services
from lessons_core.cli.main import cli
from lessons_core.transfer import jsonl


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def seed(outcome_rows: list[tuple[str, str, str]]) -> None:
    with services.open_store() as store:
        for session, outcome, at in outcome_rows:
            store.record_delivery("oc-venv-pytest", session, "claude", "pre_tool:hint",
                                  outcome=outcome, delivered_at=at)  # fmt: skip


def deliveries() -> list[tuple[str, str, str | None, str]]:
    with services.open_store() as store:
        return sorted(
            (r["lesson_id"], r["session_id"], r["outcome"], r["delivered_at"])
            for r in store.list_deliveries()
        )


ROWS = [
    ("s1", "prevented", "2026-05-01T10:00:00.000001Z"),
    ("s2", "recurred", "2026-05-02T10:00:00.000002Z"),
    ("s3", "quiet", "2026-05-03T10:00:00.000003Z"),
]


def test_round_trip_into_a_fresh_home(
    lesson_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Export from one home, import into another: lessons and statistics arrive, once."""
    seed(ROWS)
    before = deliveries()
    export = tmp_path / "export.jsonl"
    invoke("export", str(export))
    lines = [json.loads(x) for x in export.read_text().splitlines()]
    assert lines[0]["type"] == "lessons-export" and lines[0]["count"] == 1
    assert lines[-1]["type"] == jsonl.STATISTICS_TYPE == outcomes.EXPORT_TYPE
    assert len(lines[-1]["deliveries"]) == 3

    other = tmp_path / "other-home"
    monkeypatch.setenv("LESSONS_HOME", str(other))
    first = invoke("import", str(export))
    assert "delivery statistics: 3 merged" in first.output
    assert deliveries() == before
    second = invoke("import", str(export))
    assert "delivery statistics" not in second.output
    assert deliveries() == before
    figures = json.loads(invoke("stats", "--json").output)["outcomes"]
    assert figures["lessons"]["oc-venv-pytest"]["prevented"] == 1


def test_import_merges_only_the_missing_rows(lesson_home: Path, tmp_path: Path) -> None:
    """Rows already present (same lesson, session, event, time) are kept once."""
    seed(ROWS[:2])
    with services.open_store() as store:
        rows = list(outcomes.export_rows(store))
    seed(ROWS[2:])
    with services.open_store() as store:
        extra = {"type": jsonl.STATISTICS_TYPE, "lessonId": "oc-venv-pytest",
                 "deliveries": [{"session": "s9", "agent": "codex", "event": "post_failure:recall",
                                 "at": "2026-06-01T00:00:00Z", "outcome": "bogus"}]}  # fmt: skip
        added, skipped = outcomes.merge_rows(store, [*rows, extra])
    assert (added, skipped) == (1, 2)
    assert len(deliveries()) == 4
    assert ("oc-venv-pytest", "s9", None, "2026-06-01T00:00:00Z") in deliveries()


def test_statistics_of_unknown_lessons_are_skipped(lesson_home: Path) -> None:
    """A statistics line for a lesson this store lacks adds nothing."""
    item = {"session": "s", "event": "pre_tool:hint", "at": "2026-01-01T00:00:00Z"}
    row = {"type": jsonl.STATISTICS_TYPE, "lessonId": "not-here", "deliveries": [item]}
    with services.open_store() as store:
        assert outcomes.merge_rows(store, [row]) == (0, 1)
    assert deliveries() == []


def test_statistics_lines_do_not_disturb_lesson_parsing() -> None:
    """The lesson reader skips statistics lines; statistics_lines finds only them."""
    lesson = serde.lesson_from_json(PYTEST_LESSON)
    stats = [{"type": jsonl.STATISTICS_TYPE, "lessonId": lesson.id, "deliveries": []}]
    text = "\n".join(jsonl.export_lines([lesson], statistics=stats))
    parsed = jsonl.parse_jsonl(text)
    assert [x.id for _, x in parsed.lessons] == [lesson.id]
    assert jsonl.statistics_lines(text) == stats
