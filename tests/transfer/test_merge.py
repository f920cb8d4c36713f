"""The shared import rules: unchanged, merged, conflicting, added — in one transaction."""

from __future__ import annotations

import attrs

from lessons_core import serde
from lessons_core.models import Provenance
from lessons_core.transfer.merge import ImportReport, import_lessons

ID = "01KNH2FRACBQMQWX29GPYE47D8"


def make(**extra):
    return serde.lesson_from_json(
        {
            "id": ID,
            "slug": "git-stash-abcd",
            "summary": "git stash drops untracked files",
            "mistake": "m",
            "remediation": "r",
            **extra,
        }
    )


def run(store, lessons):
    return import_lessons(store, lessons, ImportReport(source="test"))


def test_new_lessons_are_added_with_their_id_and_slug(store):
    """A fresh store takes the lesson as it is."""
    report = run(store, [make()])
    assert [lesson.id for lesson in report.added] == [ID]
    assert store.get_lesson("git-stash-abcd").id == ID


def test_reimport_is_unchanged(store):
    """The same file twice changes nothing the second time."""
    run(store, [make()])
    report = run(store, [make()])
    assert (len(report.added), len(report.unchanged), report.changed()) == (0, 1, False)


def test_same_content_under_another_id_merges_idempotently(store):
    """Counts are unioned / maxed, so merging the same thing twice equals merging it once."""
    run(store, [make(provenance={"sessions": ["s1"], "occurrences": 2})])
    other = attrs.evolve(
        make(),
        id="01KNH2FRACBQMQWX29GPYE47D9",
        slug="other-slug",
        provenance=Provenance(sessions=("s2",), occurrences=3),
        tags=("git",),
    )
    first = run(store, [other])
    assert len(first.merged) == 1
    stored = store.get_lesson(ID)
    assert stored.provenance.sessions == ("s1", "s2")
    assert stored.provenance.occurrences == 3
    assert stored.tags == ("git",)
    second = run(store, [other])
    assert len(second.unchanged) == 1
    assert store.get_lesson(ID).provenance == stored.provenance


def test_same_id_with_other_content_keeps_the_stored_one_by_default(store):
    """An edited copy does not overwrite the stored lesson; the report says how to take it."""
    run(store, [make()])
    report = run(store, [make(remediation="a different fix")])
    ((stored, how, incoming),) = report.conflicts
    assert (stored.id, how, incoming.id) == (ID, "keep", ID)
    assert store.get_lesson(ID).remediation == "r"
    assert len(store.list_lessons()) == 1  # nothing invisible was stored
    text = "\n".join(report.lines())
    assert "kept the stored version" in text and "--on-conflict theirs" in text
    assert "remediation: stored 'r' / imported 'a different fix'" in text
    assert not report.changed()


def test_a_conflict_resolved_as_theirs_replaces_in_place(store):
    run(store, [make()])
    report = import_lessons(store, [make(remediation="a different fix")], ImportReport(), "theirs")
    ((stored, how, _),) = report.conflicts
    assert how == "theirs" and stored.id == ID
    assert store.get_lesson(ID).remediation == "a different fix"
    assert len(store.list_lessons()) == 1


def test_a_conflict_resolved_as_both_adds_a_copy(store):
    run(store, [make()])
    report = import_lessons(store, [make(remediation="a different fix")], ImportReport(), "both")
    ((copy, how, _),) = report.conflicts
    assert how == "both" and copy.id != ID
    assert {x.remediation for x in store.list_lessons()} == {"r", "a different fix"}


def test_a_resolver_is_asked_per_conflict(store):
    run(store, [make()])
    asked = []

    def resolver(stored, incoming):
        asked.append((stored.remediation, incoming.remediation))
        return "theirs"

    import_lessons(store, [make(remediation="x2")], ImportReport(), resolver)
    assert asked == [("r", "x2")]
    assert store.get_lesson(ID).remediation == "x2"


def test_report_lines_count_by_type(store):
    """The report says what happened, per outcome and per type."""
    report = run(
        store,
        [
            make(),
            make(id="01KNH2FRACBQMQWX29GPYE47DA", slug="x-aaaa", summary="other", type="guard"),
        ],
    )
    assert report.lines()[:3] == [
        "Imported 2 lesson(s) from test:",
        "  added 2, merged 0, unchanged 0, conflicts 0, rejected 0",
        "  by type: guard 1, hint 1",
    ]
