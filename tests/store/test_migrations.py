"""Schema versions: fresh stores, upgrades from older schemas, refusal of newer ones."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from store_factories import make_lesson

from lessons_core.errors import StoreError
from lessons_core.store import migrations
from lessons_core.store.sqlite import SQLiteStore, open_sqlite_store


def _versions(path: Path) -> tuple[int, str]:
    conn = sqlite3.connect(path)
    try:
        user_version = conn.execute("PRAGMA user_version").fetchone()[0]
        meta = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
    finally:
        conn.close()
    return user_version, meta


def test_fresh_store_is_at_the_latest_schema(store: SQLiteStore) -> None:
    """A new store records the latest version in user_version and in meta."""
    assert store.schema_version == migrations.LATEST
    assert _versions(store.path) == (migrations.LATEST, str(migrations.LATEST))


def test_newer_schema_is_refused(home: Path) -> None:
    """A store written by a newer lessons is refused with an upgrade hint, and left untouched."""
    path = home / "lessons.db"
    with SQLiteStore(path) as store:
        store.add_lessons([make_lesson()])
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {migrations.LATEST + 5}")
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()
    with pytest.raises(StoreError) as excinfo:
        SQLiteStore(path)
    message = str(excinfo.value)
    assert f"newer lessons (schema {migrations.LATEST + 5}); upgrade lessons" in message
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM lessons").fetchone()[0] == 1
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # not switched to WAL
    conn.close()


def _v2_add_notes(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE lessons ADD COLUMN notes TEXT NOT NULL DEFAULT ''")
    conn.execute("UPDATE lessons SET notes = 'migrated ' || slug")


def test_older_store_is_migrated_keeping_its_rows(home: Path) -> None:
    """A store at the latest schema goes through a later step; its rows survive and gain the
    column."""
    path = home / "lessons.db"
    with SQLiteStore(path) as store:
        (stored,) = store.add_lessons([make_lesson()])
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        later = migrations.LATEST + 1
        assert migrations.migrate(conn, path, [*migrations.MIGRATIONS, _v2_add_notes]) == later
        assert conn.execute("PRAGMA user_version").fetchone()[0] == later
        notes = conn.execute("SELECT notes FROM lessons").fetchone()[0]
        assert notes == f"migrated {stored.slug}"
        # running it again is a no-op
        assert migrations.migrate(conn, path, [*migrations.MIGRATIONS, _v2_add_notes]) == later
    finally:
        conn.close()
    assert _versions(path) == (later, str(later))


def test_failing_step_rolls_back_every_step(home: Path) -> None:
    """Migrations run in one transaction: a failing step leaves the old schema as it was."""
    path = home / "lessons.db"
    with SQLiteStore(path):
        pass

    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("ALTER TABLE lessons ADD COLUMN half_done TEXT")
        raise RuntimeError("step failed")

    conn = sqlite3.connect(path, isolation_level=None)
    try:
        with pytest.raises(RuntimeError):
            migrations.migrate(conn, path, [*migrations.MIGRATIONS, _v2_add_notes, broken])
        assert conn.execute("PRAGMA user_version").fetchone()[0] == migrations.LATEST
        columns = {row[1] for row in conn.execute("PRAGMA table_info(lessons)")}
        assert "notes" not in columns
        assert "half_done" not in columns
    finally:
        conn.close()


def test_empty_file_is_initialised(home: Path) -> None:
    """A zero-byte file (schema 0) is a valid empty database and gets the full schema."""
    (home / "lessons.db").touch()
    with open_sqlite_store(home) as store:
        assert store.schema_version == migrations.LATEST
        store.add_lessons([make_lesson()])
        assert len(store.list_lessons()) == 1


def test_store_without_fts5_still_searches(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without FTS5 the schema skips the index and search falls back to LIKE."""
    monkeypatch.setattr(migrations, "fts5_available", lambda conn: False)
    with open_sqlite_store(home) as store:
        assert not store.fts
        (a,) = store.add_lessons([make_lesson(1, error_lines=["EADDRINUSE on port 8080"])])
        store.add_lessons([make_lesson(2, error_lines=[])])
        assert [x.id for x in store.search_lessons("eaddrinuse")] == [a.id]
        tables = {
            row[0]
            for row in store._conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        assert "lessons_fts" not in tables


def test_statement_splitter_keeps_trigger_bodies_whole() -> None:
    """Trigger bodies contain semicolons; the splitter must not cut them apart."""
    parts = migrations._split(
        "CREATE TABLE a (x);\n-- note\nCREATE TRIGGER t AFTER INSERT ON a BEGIN\n"
        "  UPDATE a SET x = 1;\n  UPDATE a SET x = 2;\nEND;\n"
    )
    assert len(parts) == 2
    assert parts[1].startswith("CREATE TRIGGER") and parts[1].endswith("END;")


def test_a_store_from_before_sightings_keeps_its_lessons_and_learns_where_they_are_seen(
    home: Path,
) -> None:
    """A store at schema 1 (lessons without the places they were seen) opens at the latest
    schema: its lessons read back seen nowhere yet, and a sighting is stored from then on."""
    import attrs

    from lessons_core.models import Sighting

    path = home / "lessons.db"
    with SQLiteStore(path) as store:
        (stored,) = store.add_lessons([make_lesson()])
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("ALTER TABLE lessons DROP COLUMN evidence")
    conn.execute("PRAGMA user_version = 1")
    conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    conn.close()
    with SQLiteStore(path) as store:
        assert store.schema_version == migrations.LATEST
        (old,) = store.list_lessons()
        assert old == stored
        assert old.provenance.evidence == ()
        seen = Sighting("/t/a.jsonl", 3, None, "s1", "/work/alpha")
        store.update_lesson(
            attrs.evolve(old, provenance=attrs.evolve(old.provenance, evidence=(seen,)))
        )
    with SQLiteStore(path) as store:
        assert store.get_lesson(stored.id).provenance.evidence == (seen,)
