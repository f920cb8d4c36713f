"""The SQLite store: CRUD, merging by content hash, prefixes, revision, full-text index."""

from __future__ import annotations

import os
import re
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import attrs
import pytest
from store_factories import make_candidate, make_lesson

from lessons_core.errors import LessonsError, NotFound, StoreError
from lessons_core.models import Evidence, LessonType, Provenance, Status, Triggers
from lessons_core.store.base import Store
from lessons_core.store.sqlite import SQLiteStore, candidate_key, open_sqlite_store
from privileges import bound_by_permissions

ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def test_store_implements_the_protocol(store: SQLiteStore) -> None:
    """The SQLite store is a Store, so code typed against the protocol accepts it."""
    assert isinstance(store, Store)


def test_file_is_wal_with_foreign_keys(store: SQLiteStore, home: Path) -> None:
    """The database lives at LESSONS_HOME/lessons.db, in WAL mode, with foreign keys on."""
    assert store.path == home / "lessons.db"
    assert store.path.is_file()
    conn = sqlite3.connect(store.path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()
    assert store._conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_add_assigns_id_slug_and_timestamps(store: SQLiteStore) -> None:
    """A lesson without id, slug or dates gets a ULID, a slug and ISO-8601 UTC timestamps."""
    (stored,) = store.add_lessons([make_lesson()])
    assert re.fullmatch(r"[0-9A-HJKMNP-TV-Z]{26}", stored.id)
    assert re.fullmatch(r"pytest-hangs-without-a-tty-variant-0-[a-z0-9]{4}", stored.slug)
    assert ISO_UTC.match(stored.created_at)
    assert stored.updated_at == stored.created_at
    assert store.get_lesson(stored.id) == stored


def test_round_trip_keeps_every_field(store: SQLiteStore) -> None:
    """What goes in comes back equal, including triggers, tuples, enums and provenance."""
    lesson = make_lesson(
        7,
        id="01JAAAAAAAAAAAAAAAAAAAAAAA",
        slug="my-lesson-abcd",
        type=LessonType.GUARD,
        triggers=Triggers(
            tool_names=["Bash", "Edit"],
            command_patterns=[r"git\s+push(?!.*--force-with-lease)"],
            path_patterns=["**/migrations/*.py"],
            content_patterns=["TODO"],
            model_patterns=["^claude-"],
        ),
        priority=9,
        confidence=0.93,
        scope="proj-123",
        injection="pre-rendered text",
        status=Status.DISABLED,
        provenance=Provenance(
            source="scan:tier1", sessions=["a", "b"], projects=["x"], occurrences=3
        ),
        created_at="2025-01-02T03:04:05.000Z",
        updated_at="2025-01-03T03:04:05.000Z",
    )
    (stored,) = store.add_lessons([lesson])
    assert stored == lesson
    assert store.get_lesson("my-lesson-abcd") == lesson
    row = next(store.iter_rows())
    assert row["session_count"] == 2
    assert row["project_count"] == 1
    assert row["content_hash"] == lesson.content_hash
    assert row["triggers"]["commandPatterns"] == [r"git\s+push(?!.*--force-with-lease)"]


def test_same_content_merges_instead_of_duplicating(store: SQLiteStore) -> None:
    """Adding a lesson whose content hash is stored adds counts, unions sessions, keeps max conf."""
    (first,) = store.add_lessons([make_lesson(confidence=0.6)])
    again = make_lesson(
        confidence=0.9,
        summary="  PYTEST hangs without a TTY,   variant 0 ",  # same after normalization
        provenance=Provenance(sessions=["s0", "s9"], projects=["p2"], occurrences=2),
    )
    (merged,) = store.add_lessons([again])
    assert merged.id == first.id
    assert merged.slug == first.slug
    assert merged.summary == first.summary
    assert merged.confidence == 0.9
    assert merged.provenance.sessions == ("s0", "s9")
    assert merged.provenance.projects == ("p1", "p2")
    assert merged.provenance.occurrences == 3
    assert len(store.list_lessons()) == 1
    assert store.get_lesson(first.id) == merged


def test_merge_never_lowers_confidence(store: SQLiteStore) -> None:
    """The higher confidence wins whichever copy arrives first."""
    store.add_lessons([make_lesson(confidence=0.9)])
    (merged,) = store.add_lessons([make_lesson(confidence=0.2)])
    assert merged.confidence == 0.9


def test_duplicates_within_one_batch_merge(store: SQLiteStore) -> None:
    """Two equal lessons in the same call become one row with two occurrences."""
    out = store.add_lessons([make_lesson(1), make_lesson(1)])
    assert out[0].id == out[1].id
    assert out[1].provenance.occurrences == 2
    assert len(store.list_lessons()) == 1


def test_slug_collision_gets_a_fresh_suffix(store: SQLiteStore) -> None:
    """Two different lessons asking for the same slug both get stored, with distinct slugs."""
    a, b = store.add_lessons([make_lesson(1, slug="same-abcd"), make_lesson(2, slug="same-abcd")])
    assert a.slug == "same-abcd"
    assert b.slug != "same-abcd"
    assert b.slug.startswith("pytest-hangs")


def test_same_id_different_content_is_refused(store: SQLiteStore) -> None:
    """An explicit id that is taken by another lesson is a clear error, not an overwrite."""
    store.add_lessons([make_lesson(1, id="01JAAAAAAAAAAAAAAAAAAAAAAA")])
    with pytest.raises(LessonsError, match="already stored"):
        store.add_lessons([make_lesson(2, id="01JAAAAAAAAAAAAAAAAAAAAAAA")])
    assert len(store.list_lessons()) == 1


def test_failed_batch_is_rolled_back(store: SQLiteStore) -> None:
    """add_lessons is atomic: an error on the third lesson leaves none of the batch behind."""
    store.add_lessons([make_lesson(0, id="01JAAAAAAAAAAAAAAAAAAAAAAA")])
    batch = [make_lesson(1), make_lesson(2), make_lesson(3, id="01JAAAAAAAAAAAAAAAAAAAAAAA")]
    with pytest.raises(LessonsError):
        store.add_lessons(batch)
    assert len(store.list_lessons()) == 1


def test_get_by_prefix_and_ambiguity(store: SQLiteStore) -> None:
    """Unique prefixes of ids or slugs resolve; an ambiguous one lists the matches."""
    a, b = store.add_lessons(
        [
            make_lesson(1, slug="docker-build-cache-aaaa"),
            make_lesson(2, slug="docker-run-ports-bbbb"),
        ]
    )
    assert store.get_lesson("docker-b") == a
    assert store.get_lesson("docker-r") == b
    assert store.get_lesson(a.id.lower()) == a
    with pytest.raises(LessonsError) as excinfo:
        store.get_lesson("docker-")
    assert "docker-build-cache-aaaa" in str(excinfo.value)
    assert "docker-run-ports-bbbb" in str(excinfo.value)
    assert store.get_lesson("nothing-like-this") is None
    assert store.get_lesson("") is None


def test_exact_slug_beats_prefix_of_another(store: SQLiteStore) -> None:
    """A key that is one lesson's full slug and another's prefix picks the exact match."""
    a, _ = store.add_lessons(
        [make_lesson(1, slug="git-push"), make_lesson(2, slug="git-push-force")]
    )
    assert store.get_lesson("git-push") == a


def test_list_filters_by_status_and_type(store: SQLiteStore) -> None:
    """list_lessons narrows by status and by a list of types."""
    store.add_lessons(
        [
            make_lesson(1),
            make_lesson(2, status=Status.DISABLED),
            make_lesson(3, type=LessonType.PROTOCOL),
            make_lesson(4, type=LessonType.GUARD),
        ]
    )
    assert len(store.list_lessons()) == 4
    assert len(store.list_lessons(status=Status.ACTIVE)) == 3
    kinds = {lesson.type for lesson in store.list_lessons(types=["protocol", "guard"])}
    assert kinds == {LessonType.PROTOCOL, LessonType.GUARD}


def test_update_replaces_and_refreshes_updated_at(store: SQLiteStore) -> None:
    """update_lesson stores the new content under the same id and moves updated_at."""
    (stored,) = store.add_lessons([make_lesson(created_at="2020-01-01T00:00:00.000Z")])
    changed = attrs.evolve(stored, remediation="Use pytest -p no:cacheprovider -x", priority=9)
    updated = store.update_lesson(changed)
    assert updated.updated_at > "2020-01-01T00:00:00.000Z"
    again = store.get_lesson(stored.id)
    assert again is not None
    assert again.remediation == "Use pytest -p no:cacheprovider -x"
    assert again.priority == 9
    assert store.find_by_hash(changed.content_hash) == again
    assert store.find_by_hash(stored.content_hash) is None


def test_update_unknown_or_colliding_lesson(store: SQLiteStore) -> None:
    """Updating a missing id is NotFound; making a lesson equal to another is refused."""
    a, b = store.add_lessons([make_lesson(1), make_lesson(2)])
    with pytest.raises(NotFound):
        store.update_lesson(attrs.evolve(a, id="01JZZZZZZZZZZZZZZZZZZZZZZZ"))
    with pytest.raises(LessonsError, match="identical"):
        store.update_lesson(attrs.evolve(b, summary=a.summary, mistake=a.mistake))


def test_remove(store: SQLiteStore) -> None:
    """remove_lesson deletes by key and returns what it removed; unknown keys give None."""
    (stored,) = store.add_lessons([make_lesson()])
    assert store.remove_lesson(stored.slug) == stored
    assert store.get_lesson(stored.id) is None
    assert store.remove_lesson(stored.slug) is None


def test_revision_moves_on_every_lesson_change(store: SQLiteStore) -> None:
    """Insert, merge, update and delete each bump the revision; candidate writes do not."""
    seen = [store.revision()]
    (stored,) = store.add_lessons([make_lesson()])
    seen.append(store.revision())
    store.add_lessons([make_lesson()])  # merge
    seen.append(store.revision())
    store.update_lesson(attrs.evolve(stored, priority=8))
    seen.append(store.revision())
    store.remove_lesson(stored.id)
    seen.append(store.revision())
    assert seen == sorted(set(seen)), seen
    before = store.revision()
    store.add_candidate(make_candidate())
    store.set_scan_state("/t/x.jsonl", {"offset": 10})
    assert store.revision() == before


def test_revision_is_shared_between_connections(store: SQLiteStore, home: Path) -> None:
    """Another process's change is visible in this connection's revision (it lives in the DB)."""
    other = open_sqlite_store(home)
    try:
        before = store.revision()
        other.add_lessons([make_lesson(5)])
        assert store.revision() > before
    finally:
        other.close()


def test_full_text_search_follows_inserts_updates_and_deletes(store: SQLiteStore) -> None:
    """The FTS index is kept in sync by triggers: new text is found, old text is gone."""
    assert store.fts
    (a,) = store.add_lessons(
        [make_lesson(1, error_lines=["ModuleNotFoundError: No module named 'yaml'"])]
    )
    store.add_lessons([make_lesson(2, summary="docker build ignores cache", error_lines=[])])
    assert store.search_lessons("No module named yaml")[0].id == a.id
    store.update_lesson(attrs.evolve(a, error_lines=["EADDRINUSE: address already in use"]))
    assert store.search_lessons("yaml") == []
    assert [x.id for x in store.search_lessons("EADDRINUSE address")] == [a.id]
    store.remove_lesson(a.id)
    assert store.search_lessons("EADDRINUSE") == []
    rows = store._conn.execute("SELECT count(*) FROM lessons_fts").fetchone()[0]
    assert rows == 1


def test_search_survives_fts_syntax_in_error_text(store: SQLiteStore) -> None:
    """Error output full of FTS5 operators (quotes, colons, stars, parens) is searched as words."""
    (a,) = store.add_lessons([make_lesson(1, error_lines=['error: "NEAR" (x) * AND -q:'])])
    assert [x.id for x in store.search_lessons('error: "NEAR" (x) * AND -q:')] == [a.id]
    assert store.search_lessons("  ::: ") == []


def test_search_skips_inactive_lessons_by_default(store: SQLiteStore) -> None:
    """Recall looks at active lessons only unless told otherwise."""
    store.add_lessons([make_lesson(1, status=Status.DISABLED, error_lines=["segfault core"])])
    assert store.search_lessons("segfault") == []
    assert len(store.search_lessons("segfault", status=None)) == 1


def test_candidate_round_trip_and_merge(store: SQLiteStore) -> None:
    """A candidate found again merges its evidence into the pending one (no second row)."""
    first = store.add_candidate(make_candidate(1, confidence=0.4))
    assert first.id and ISO_UTC.match(first.created_at)
    assert store.get_candidate(first.id) == first
    again = make_candidate(
        1,
        confidence=0.7,
        evidence=(
            Evidence(file="/t/1.jsonl", line=2, call_id="c1"),  # already known
            Evidence(file="/t/other.jsonl", line=9, call_id=None, session_id="sx"),
        ),
    )
    merged = store.add_candidate(again)
    assert merged.id == first.id
    assert merged.confidence == 0.7
    assert [e.file for e in merged.evidence] == ["/t/1.jsonl", "/t/other.jsonl"]
    assert merged.evidence[1].session_id == "sx"
    assert len(store.list_candidates()) == 1


def test_candidate_merge_only_into_pending(store: SQLiteStore) -> None:
    """Once a candidate is promoted or rejected, finding it again queues a new pending one."""
    first = store.add_candidate(make_candidate(1))
    store.update_candidate(attrs.evolve(first, status="rejected"))
    second = store.add_candidate(make_candidate(1))
    assert second.id != first.id
    assert [c.id for c in store.list_candidates(status="pending")] == [second.id]
    assert [c.id for c in store.list_candidates(status="rejected")] == [first.id]


def test_candidate_key_ignores_evidence_and_whitespace() -> None:
    """The merge key is about content: spacing and case do not matter, the tool does."""
    a = make_candidate(1)
    assert candidate_key(a) == candidate_key(
        attrs.evolve(a, mistake=a.mistake.upper() + "  ", evidence=())
    )
    assert candidate_key(a) != candidate_key(attrs.evolve(a, tool="Edit"))


def test_candidate_prefix_lookup(store: SQLiteStore) -> None:
    """Candidates resolve by id or unique id prefix; unknown ids are None."""
    c = store.add_candidate(make_candidate(1))
    assert store.get_candidate(c.id[:20].lower()) == c
    assert store.get_candidate("ZZZZ") is None
    with pytest.raises(NotFound):
        store.update_candidate(attrs.evolve(c, id="01JZZZZZZZZZZZZZZZZZZZZZZZ"))


def test_scan_state_round_trip(store: SQLiteStore) -> None:
    """Offsets and file identity go to columns, anything else to the extra JSON."""
    assert store.get_scan_state("/t/a.jsonl") is None
    state = {"offset": 120, "size": 500, "mtime_ns": 17, "inode": 42, "session_id": "abc"}
    store.set_scan_state("/t/a.jsonl", state)
    assert store.get_scan_state("/t/a.jsonl") == state
    store.set_scan_state("/t/a.jsonl", {"offset": 500, "size": 500, "mtime_ns": 18, "inode": 42})
    assert store.get_scan_state("/t/a.jsonl") == {
        "offset": 500,
        "size": 500,
        "mtime_ns": 18,
        "inode": 42,
    }


def test_deliveries_cascade_with_their_lesson(store: SQLiteStore) -> None:
    """Delivery records reference lessons; deleting the lesson deletes its records."""
    (a,) = store.add_lessons([make_lesson()])
    store.record_delivery(a.id, "sess-1", "claude", "pre_tool")
    store.record_delivery(a.id, "sess-2", "codex", "post_failure", outcome="avoided")
    rows = store.list_deliveries(lesson_id=a.id)
    assert [(r["session_id"], r["outcome"]) for r in rows] == [
        ("sess-1", None),
        ("sess-2", "avoided"),
    ]
    with pytest.raises(LessonsError):
        store.record_delivery("01JNOTALESSONAAAAAAAAAAAAA", "s", "claude", "pre_tool")
    store.remove_lesson(a.id)
    assert store.list_deliveries() == []


def test_transaction_groups_writes(store: SQLiteStore) -> None:
    """Writes inside transaction() commit together or not at all."""
    with pytest.raises(RuntimeError), store.transaction():
        store.add_lessons([make_lesson(1)])
        store.add_candidate(make_candidate(1))
        raise RuntimeError("boom")
    assert store.list_lessons() == []
    assert store.list_candidates() == []
    with store.transaction():
        store.add_lessons([make_lesson(1)])
        store.add_candidate(make_candidate(1))
    assert len(store.list_lessons()) == 1
    assert len(store.list_candidates()) == 1


def test_corrupt_file_is_a_clear_store_error(home: Path) -> None:
    """A file that is not SQLite gives a StoreError saying so and what to do."""
    path = home / "lessons.db"
    path.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(StoreError, match="corrupt or not a SQLite database"):
        SQLiteStore(path)


def test_truncated_database_is_a_clear_store_error(home: Path) -> None:
    """A real store cut short mid-file is reported, not a traceback from sqlite3."""
    path = home / "lessons.db"
    with SQLiteStore(path) as store:
        store.add_lessons([make_lesson(n) for n in range(50)])
    for extra in ("-wal", "-shm"):
        Path(f"{path}{extra}").unlink(missing_ok=True)
    data = path.read_bytes()
    path.write_bytes(data[:100] + b"\x00" * 50 + data[150:4096])
    with pytest.raises(StoreError), SQLiteStore(path) as store:
        store.list_lessons()


def test_directory_in_the_way_is_a_clear_error(home: Path) -> None:
    """A directory where the database should be is reported as such."""
    (home / "lessons.db").mkdir()
    with pytest.raises(StoreError, match="directory"):
        open_sqlite_store(home)


@pytest.mark.skipif(os.name != "posix", reason="needs POSIX permissions")
def test_unwritable_home_is_a_store_error(tmp_path: Path) -> None:
    """A store that cannot be created names the path instead of raising sqlite3's error.

    It runs in a child bound by file permissions, so the check holds when the suite runs as
    root too.
    """
    locked = tmp_path / "ro"
    locked.mkdir()
    locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
    probe = (
        "import sys\n"
        "from lessons_core.errors import StoreError\n"
        "from lessons_core.store.sqlite import open_sqlite_store\n"
        "try:\n"
        "    open_sqlite_store(sys.argv[1])\n"
        "except StoreError as exc:\n"
        "    print(exc)\n"
        "else:\n"
        "    sys.exit('opened a store in a read-only folder')\n"
    )
    try:
        done = subprocess.run(
            [*bound_by_permissions(), sys.executable, "-c", probe, str(locked)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        locked.chmod(stat.S_IRWXU)
    assert done.returncode == 0, done.stderr
    assert str(locked) in done.stdout


def test_prefix_is_literal_not_a_pattern(store: SQLiteStore) -> None:
    """Characters that LIKE or GLOB would treat as wildcards match only themselves."""
    a, _ = store.add_lessons(
        [make_lesson(1, slug="use_under-score-aaaa"), make_lesson(2, slug="usexunder-bbbb")]
    )
    assert store.get_lesson("use_") == a
    assert store.get_lesson("use%") is None
    assert store.get_lesson("use*") is None
