"""Several real processes writing to one store at once: everything lands, nothing is lost."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from store_factories import make_lesson

from lessons_core.errors import StoreError
from lessons_core.store.sqlite import SQLiteStore, open_sqlite_store

WORKER = Path(__file__).with_name("concurrent_writer.py")


def test_concurrent_writer_processes_lose_nothing(home: Path, tmp_path: Path) -> None:
    """Four processes add lessons, shared duplicates, candidates and offsets at the same time."""
    workers, count = 4, 25
    go = tmp_path / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), str(home), str(w), str(count), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(workers)
    ]
    time.sleep(0.3)  # let them all open the store (and race on creating the schema)
    go.touch()
    results = [p.communicate(timeout=120) for p in procs]
    for proc, (out, err) in zip(procs, results, strict=True):
        assert proc.returncode == 0, err
        assert "locked" not in err.lower()
        assert out.strip().endswith("done")

    with open_sqlite_store(home) as store:
        lessons = store.list_lessons()
        assert len(lessons) == workers * count + 1
        shared = next(lesson for lesson in lessons if lesson.summary.endswith("variant -1"))
        assert shared.provenance.occurrences == workers * count
        assert len(shared.provenance.sessions) == workers * count
        candidates = store.list_candidates()
        assert len(candidates) == workers * count + 1
        shared_c = next(c for c in candidates if "(case -1)" in c.mistake)
        assert len(shared_c.evidence) == workers * count
        assert store.counts()["scan_state"] == workers * count
        # every lesson insert or merge bumped the revision exactly once
        assert store.revision() == 2 * workers * count
        rows = store._conn.execute("SELECT count(*) FROM lessons_fts").fetchone()[0]
        assert rows == len(lessons)


def test_writer_waits_for_a_held_lock(home: Path) -> None:
    """A writer blocked by another process's open transaction waits and then succeeds."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time\n"
            "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "c.execute('BEGIN IMMEDIATE')\n"
            "print('locked', flush=True)\n"
            "time.sleep(1.0)\n"
            "c.execute('COMMIT')\n",
            str(home / "lessons.db"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    with open_sqlite_store(home) as store:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        started = time.monotonic()
        store.add_lessons([make_lesson(1)])
        waited = time.monotonic() - started
        assert len(store.list_lessons()) == 1
    holder.wait(timeout=10)
    holder.stdout.close()
    assert waited > 0.3


def test_lock_held_past_the_timeout_is_a_store_error(home: Path) -> None:
    """When the wait runs out, the user gets a StoreError that says so, not sqlite3's error."""
    store = SQLiteStore(home / "lessons.db", busy_timeout=0.2)
    other = SQLiteStore(home / "lessons.db", busy_timeout=0.2)
    try:
        with (
            other.transaction(),
            pytest.raises(StoreError, match="locked by another process"),
        ):
            store.add_lessons([make_lesson(1)])
        store.add_lessons([make_lesson(1)])
        assert len(store.list_lessons()) == 1
    finally:
        store.close()
        other.close()
