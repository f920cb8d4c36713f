"""Store figures: bulk insert, listing, lookups, recall search and concurrent writers.

Each figure is printed next to a baseline measured in the same run on the same machine, so the
ratio (not the absolute time) is what to compare between runs:

* bulk add vs a plain ``executemany`` into a table of the same columns (cost of merging by hash,
  slug checks and the FTS/revision triggers);
* listing vs ``SELECT * … fetchall()`` (cost of turning rows into model objects);
* FTS5 search vs a ``LIKE`` scan over the same text.

Usage: ``python benchmarks/store_bench.py [N]`` (default 2000 lessons).
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from lessons_core.models import Lesson, Provenance, Triggers
from lessons_core.store.sqlite import SQLiteStore, _lesson_params, open_sqlite_store

_TEXT = (
    "pytest docker git npm pip cargo make build cache timeout permission denied module missing "
    "port address lock branch merge rebase push install import config path env shell quote"
)
WORDS = _TEXT.split()


def lesson(n: int) -> Lesson:
    w = [WORDS[(n * k) % len(WORDS)] for k in (1, 3, 7, 11)]
    return Lesson(
        id="",
        slug="",
        summary=f"{w[0]} {w[1]} goes wrong {n}",
        mistake=f"ran {w[0]} with {w[2]} and it failed ({n})",
        remediation=f"use {w[3]} before {w[0]}",
        triggers=Triggers(tool_names=["Bash"], command_patterns=[rf"\b{w[0]}\b.*{n}"]),
        error_lines=[f"error: {w[1]} {w[2]} code {n}"],
        provenance=Provenance(sessions=[f"s{n % 50}"], projects=[f"p{n % 7}"]),
    )


def best(fn: Callable[[], object], repeat: int = 5) -> float:
    """Best of ``repeat`` runs, in milliseconds."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return min(times)


def row(label: str, ours: float, base: float, base_label: str) -> None:
    ratio = ours / base if base else float("inf")
    print(f"{label:<34} {ours:9.2f} ms   {base_label:<28} {base:8.2f} ms   x{ratio:6.1f}")


def writer(args: tuple[str, int, int]) -> float:
    home, worker, count = args
    store = open_sqlite_store(home)
    t0 = time.perf_counter()
    for i in range(count):
        store.add_lessons([lesson(100_000 + worker * 10_000 + i)])
    store.close()
    return time.perf_counter() - t0


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    lessons = [lesson(i) for i in range(n)]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        print(f"sqlite {sqlite3.sqlite_version}, {n} lessons\n")

        # bulk add vs plain executemany
        def ours_add() -> None:
            path = root / "bulk.db"
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
            with SQLiteStore(path) as s:
                s.add_lessons(lessons)

        stored = SQLiteStore(root / "ref.db")
        ready = stored.add_lessons(lessons)
        params = [_lesson_params(x, x.content_hash) for x in ready]

        def base_add() -> None:
            path = root / "plain.db"
            path.unlink(missing_ok=True)
            conn = sqlite3.connect(path)
            conn.execute(f"CREATE TABLE t ({', '.join(f'c{i}' for i in range(len(params[0])))})")
            conn.executemany(f"INSERT INTO t VALUES ({', '.join('?' * len(params[0]))})", params)
            conn.commit()
            conn.close()

        row(f"add_lessons({n})", best(ours_add, 3), best(base_add, 3), "executemany, no checks")

        raw = sqlite3.connect(root / "ref.db")
        row(
            "list_lessons()",
            best(stored.list_lessons),
            best(lambda: raw.execute("SELECT * FROM lessons").fetchall()),
            "SELECT * fetchall",
        )
        probe = ready[n // 2]
        row(
            "get_lesson(slug prefix)",
            best(lambda: stored.get_lesson(probe.slug[:-2])),
            best(lambda: raw.execute("SELECT * FROM lessons WHERE id = ?", (probe.id,)).fetchall()),
            "SELECT by primary key",
        )
        query = f"error: {WORDS[3]} {WORDS[5]} code 77"
        row(
            "search_lessons(error text)",
            best(lambda: stored.search_lessons(query)),
            best(
                lambda: raw.execute(
                    "SELECT * FROM lessons WHERE error_lines LIKE ? LIMIT 5", (f"%{WORDS[3]}%",)
                ).fetchall()
            ),
            "LIKE, one word, first 5 hits",
        )
        raw.close()
        stored.close()

        # concurrent writers: each add is its own BEGIN IMMEDIATE transaction
        workers, per = 4, 100
        home = root / "conc"
        home.mkdir()
        open_sqlite_store(home).close()
        t0 = time.perf_counter()
        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            spent = pool.map(writer, [(str(home), w, per) for w in range(workers)])
        wall = time.perf_counter() - t0
        with open_sqlite_store(home) as s:
            total = len(s.list_lessons())
        (root / "single").mkdir()
        single = writer((str(root / "single"), 0, per))
        print(
            f"\n{workers} writer processes x {per} single-lesson transactions: {total} rows, "
            f"wall {wall * 1000:.0f} ms (incl. process start), median per-writer "
            f"{statistics.median(spent) * 1000:.0f} ms; one writer alone {single * 1000:.0f} ms "
            f"(x{statistics.median(spent) / single:.1f})"
        )


if __name__ == "__main__":
    main()
