"""Worker process for the concurrency test: waits for a start signal, then writes.

Run as a script: ``python concurrent_writer.py HOME WORKER COUNT GO_FILE``. Each write is its own
transaction, so the workers interleave as tightly as SQLite lets them.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from store_factories import make_candidate, make_lesson

from lessons_core.models import Evidence, Provenance
from lessons_core.store.sqlite import open_sqlite_store


def main() -> None:
    home, worker, count, go = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
    store = open_sqlite_store(home)
    deadline = time.monotonic() + 30
    while not go.exists() and time.monotonic() < deadline:
        time.sleep(0.005)
    for i in range(count):
        n = worker * 1000 + i
        store.add_lessons([make_lesson(n)])
        # Every worker also adds the same shared lesson: all of them must merge into one row.
        store.add_lessons([make_lesson(-1, provenance=Provenance(sessions=[f"w{worker}-{i}"]))])
        store.add_candidate(make_candidate(n))
        # ... and the same shared candidate, whose evidence must accumulate.
        store.add_candidate(
            make_candidate(-1, evidence=(Evidence(file=f"/w{worker}.jsonl", line=i + 1),))
        )
        store.set_scan_state(f"/w{worker}/{i}.jsonl", {"offset": i})
    store.close()
    print(f"worker {worker} done")


if __name__ == "__main__":
    main()
