"""One "machine" of the load test: scans transcripts, adds lessons and syncs, several rounds.

Run as ``python load_worker.py INDEX ROUNDS TRANSCRIPTS`` with its own LESSONS_HOME (whose
config.json names the team store); prints one JSON line of what it did.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import attrs

from lessons_core import services, team
from lessons_core.models import Provenance
from lessons_core.scan import engine
from lessons_core.testing import contract_lesson

PER_ROUND = 5


def main() -> int:
    index, rounds, transcripts = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    done = {"scanned": 0, "added": 0, "syncs": 0, "offline": 0, "conflicts": 0}
    for round_no in range(rounds):
        with services.session() as sess:
            report = engine.run_scan(sess, paths=[transcripts], workers=1)
            done["scanned"] += report.files_read
            fresh = [
                contract_lesson(10_000 + index * 1000 + round_no * PER_ROUND + k)
                for k in range(PER_ROUND)
            ]
            if round_no == 0:
                # The same lesson, learned on every machine in its own session.
                shared = contract_lesson(1, provenance=Provenance(sessions=[f"sess-m{index}"]))
                fresh.append(attrs.evolve(shared, summary="learned everywhere"))
            stored = sess.store.add_lessons(fresh)
            done["added"] += len(stored)
            for lesson in stored[:2]:
                sess.store.record_delivery(
                    lesson.id,
                    f"sess-m{index}-{round_no}",
                    "claude",
                    "pre_tool:hint",
                    outcome="prevented",
                )
            sess.rebuild_manifest()
            synced = team.run_sync(sess)
            assert synced is not None
            done["syncs"] += 1
            done["offline"] += bool(synced.offline)
            done["conflicts"] += len(synced.conflicts)
    print(json.dumps(done))
    return 0


if __name__ == "__main__":
    sys.exit(main())
