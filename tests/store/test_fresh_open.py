"""Several processes opening the same brand-new store at the same instant all succeed.

Switching a new file to WAL needs an exclusive lock that ``busy_timeout`` does not cover, so
without a retry one of the racing processes fails with "database is locked". Hooks and a
background scan starting together on a fresh machine do exactly this.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

#: Each worker imports once, then for every round waits for the round's "go" file and opens
#: that round's store, so all workers hit the same fresh file within a millisecond or so.
_WORKER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from lessons_core.store.sqlite import open_sqlite_store

    base, rounds = Path(sys.argv[1]), int(sys.argv[2])
    (base / f"ready-{sys.argv[3]}").touch()
    for n in range(rounds):
        go = base / f"go-{n}"
        deadline = time.monotonic() + 30
        while not go.exists():
            if time.monotonic() > deadline:
                sys.exit("never got the go signal")
            time.sleep(0.0005)
        store = open_sqlite_store(base / f"home-{n}")
        print(n, store.schema_version, store.counts()["lessons"], flush=True)
        store.close()
    """
)

WORKERS = 6
ROUNDS = 8


def test_processes_racing_on_a_fresh_store_all_open_it(home: Path, tmp_path: Path) -> None:
    """Every worker opens every fresh store, at the latest schema, with no error."""
    from lessons_core.store.migrations import LATEST

    base = tmp_path / "race"
    base.mkdir()
    for n in range(ROUNDS):
        (base / f"home-{n}").mkdir()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(base), str(ROUNDS), str(i)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(WORKERS)
    ]
    try:
        deadline = time.monotonic() + 60
        while len(list(base.glob("ready-*"))) < WORKERS:
            if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                pytest.fail("workers did not start")
            time.sleep(0.01)
        for n in range(ROUNDS):
            (base / f"go-{n}").touch()
            time.sleep(0.15)
        results = [p.communicate(timeout=60) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for proc, (out, err) in zip(procs, results, strict=True):
        assert proc.returncode == 0, err
        lines = out.split()
        assert lines == [str(x) for n in range(ROUNDS) for x in (n, LATEST, 0)], (out, err)
    for n in range(ROUNDS):
        conn = sqlite3.connect(base / f"home-{n}" / "lessons.db")
        try:
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        finally:
            conn.close()
