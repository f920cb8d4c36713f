"""A ``wrong`` verdict (the MCP server's ``feedback`` tool) counts against the lesson."""

from __future__ import annotations

from lessons_core import outcomes
from lessons_core.models import Lesson
from lessons_core.store.sqlite import SQLiteStore


def _lesson() -> Lesson:
    return Lesson(
        id="L1",
        slug="l1",
        summary="git stash leaves untracked files",
        mistake="ran git stash before switching branches",
        remediation="use git stash -u",
        confidence=0.8,
    )


def test_wrong_is_counted_lowers_confidence_and_marks_the_lesson_failing(store: object) -> None:
    assert isinstance(store, SQLiteStore)
    (lesson,) = store.add_lessons([_lesson()])
    for n in range(2):
        store.record_delivery(lesson.id, f"s{n}", "mcp", "mcp:feedback", outcome=outcomes.WRONG)
    fig = outcomes.figures(store)[lesson.id]
    assert fig.wrong == 2 and fig.judged == 2
    assert fig.failing
    assert outcomes.confidence_delta(fig) < 0
    (adjusted,) = outcomes.adjust([lesson], store)
    assert adjusted.confidence < lesson.confidence
    summary = outcomes.summary(store)
    assert summary["totals"]["wrong"] == 2
    assert lesson.id in summary["failingToPrevent"]
    assert "called wrong 2" in outcomes.stats_lines(summary)[0]


def test_wrong_rows_survive_export_and_merge(store: object) -> None:
    assert isinstance(store, SQLiteStore)
    (lesson,) = store.add_lessons([_lesson()])
    store.record_delivery(lesson.id, "s1", "mcp", "mcp:feedback", outcome=outcomes.WRONG)
    rows = list(outcomes.export_rows(store))
    with store.transaction():
        store._execute("DELETE FROM deliveries")
    assert outcomes.merge_rows(store, rows)[0] == 1
    assert [r["outcome"] for r in store.list_deliveries()] == ["wrong"]
