"""The synthetic sequences of ``benchmarks/tier2_sequences.py`` and how it judges them.

The data is checked for the shape the benchmark counts on; the judging on sequences whose
verdict is known. No test asserts how many of a round Tier 2 finds: that is a measurement.
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmark_scripts import load

REPO = Path(__file__).resolve().parents[2]
seqs = load("tier2_sequences", REPO / "benchmarks" / "tier2_sequences.py")


def test_every_round_holds_sequences_of_a_failure_then_its_fix():
    rounds = json.loads(seqs.DATA.read_text(encoding="utf-8"))["rounds"]
    assert [r["round"] for r in rounds] == list(range(1, len(rounds) + 1))
    for one in rounds:
        names = [s["name"] for s in one["sequences"]]
        assert len(names) == len(set(names)), one["round"]
        lessons = [s["lesson"] for s in one["sequences"]]
        assert sum(lesson is None for lesson in lessons) == 8, one["round"]
        for sequence in one["sequences"]:
            steps, fix_at = sequence["steps"], sequence["fix_at"]
            # From round 7 on, a first call may fail as its tool reports it with exit 0 (an
            # HTTP error through curl, a warning of systemd): what Tier 2 cannot see as a failure.
            failed = steps[0]["exit"] != 0 or one["round"] >= 7
            assert failed and steps[fix_at]["exit"] == 0, sequence["name"]
            assert 1 <= fix_at < len(steps)


def _sequence(*steps, fix_at):
    return {
        "name": "x",
        "steps": [{"command": c, "output": o, "exit": x} for c, o, x in steps],
        "fix_at": fix_at,
        "lesson": "…",
    }


def test_a_fix_is_named_by_its_command_without_what_surrounds_it():
    verdict = seqs.judge(
        _sequence(
            ("cd /p && cargo nextest run", "error: no such command: `nextest`", 101),
            ("cd /p && cargo install cargo-nextest --locked 2>&1 | tail -3", "Installed", 0),
            ("cd /p && cargo nextest run 2>&1 | tail -5", "212 tests run: 212 passed", 0),
            fix_at=1,
        )
    )
    assert verdict["found"] and verdict["named"] and verdict["narrow"]


def test_a_sequence_without_a_candidate_is_neither_named_nor_narrow():
    verdict = seqs.judge(
        _sequence(
            ("make tset", "make: *** No rule to make target 'tset'.  Stop.", 2),
            ("sed -i 's/a/b/' Makefile", "", 0),
            ("make tset", "ok", 0),
            fix_at=2,
        )
    )
    assert verdict == {"found": False, "named": False, "narrow": False, "candidates": []}
