"""Tier 2 on sequences we wrote: a failing call, a look around, then the fix, round by round.

Real sessions are rarely a failure followed at once by its fix: between the two the agent reads
a help page, lists what is there, does a dry run or fails once more, and it writes its commands
around the work (``cd <project> && … 2>&1 | tail -30``, ``bash -lc '…'``). The labelled
corpora hold too few of each way to say whether a rule carries over, so
``benchmarks/labels/synthetic/sequences.json`` holds sequences of our own, written a round at a
time by a writer who had not read the detector: 32 that a careful engineer would want
remembered and 8 one-offs per round. Each round was measured before any change it led to (that
figure, in ``docs/scanner.md``, is the honest one); later rounds were written after the earlier
rounds' changes. From round 7 on, a first call may also fail the way its tool reports it with
exit 0 (``curl`` given a 404, a ``systemd`` warning, ``make: 'test' is up to date``): a call
that exits 0 is no failure to Tier 2, so those count as missed, as they are.

For each round it prints how many reusable sequences yield a candidate, in how many the
candidate's fix names the call that worked (its command as a step, without the ``cd`` in front
and the ``| tail`` behind), in how many its trigger is narrow (none, recalled at the error; or
one that fires on the failing call and not on the fix), and how many one-offs yield one.

    python benchmarks/tier2_sequences.py [--round N] [--show]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from lessons_core.scan import events as ev
from lessons_core.scan.detectors import tier2, triggers

DATA = Path(__file__).parent / "labels" / "synthetic" / "sequences.json"


def events_of(steps: list[dict[str, Any]]) -> list[ev.Event]:
    """The calls of a sequence as a reader would give them: a Bash call and its result each."""
    out: list[ev.Event] = []
    for n, step in enumerate(steps):
        cid = f"c{n}"
        common = {"session_id": "s1", "file": "/t/session.jsonl", "project": "/p"}
        out.append(
            ev.Event(ev.TOOL_CALL, "claude", tool="Bash", command=step["command"], call_id=cid,
                     line=2 * n + 1, offset=200 * n, **common)
        )  # fmt: skip
        failed = step["exit"] != 0
        out.append(
            ev.Event(ev.TOOL_RESULT, "claude", tool="Bash", call_id=cid, text=step["output"],
                     failure=ev.ERROR if failed else None, exit_code=step["exit"] or None,
                     line=2 * n + 2, offset=200 * n + 100, **common)
        )  # fmt: skip
    return out


def judge(sequence: dict[str, Any]) -> dict[str, Any]:
    """What Tier 2 made of one sequence."""
    steps = sequence["steps"]
    found = list(tier2.detect(events_of(steps)))
    failing, fixed = steps[0]["command"], steps[sequence["fix_at"]]["command"]
    said = (fixed[:40], triggers.as_step(fixed, failing)[:40])
    named = any(part in c.fix for c in found for part in said)
    narrow = any(
        c.trigger is None
        or (triggers.matches(c.trigger, failing) and not triggers.matches(c.trigger, fixed))
        for c in found
    )
    return {"found": bool(found), "named": named, "narrow": narrow, "candidates": found}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--round", type=int, help="only this round")
    parser.add_argument("--show", action="store_true", help="each sequence and its candidates")
    args = parser.parse_args()
    rounds = json.loads(DATA.read_text(encoding="utf-8"))["rounds"]
    print(
        f"{'round':<6} {'reusable':>8} {'found':>6} {'fix named':>10} {'narrow':>7} {'one-offs':>9}"
    )
    for one in rounds:
        if args.round is not None and one["round"] != args.round:
            continue
        kinds = ("reusable", "found", "named", "narrow", "oneoff", "oneoff_found")
        counts = dict.fromkeys(kinds, 0)
        for sequence in one["sequences"]:
            verdict = judge(sequence)
            reusable = sequence["lesson"] is not None
            if reusable:
                counts["reusable"] += 1
                counts["found"] += verdict["found"]
                counts["named"] += verdict["named"]
                counts["narrow"] += verdict["narrow"]
            else:
                counts["oneoff"] += 1
                counts["oneoff_found"] += verdict["found"]
            if args.show:
                kind = "reusable" if reusable else "one-off"
                print(f"  {sequence['name']} [{kind}]")
                for c in verdict["candidates"]:
                    print(f"      {c.summary}")
        r = counts["reusable"]
        print(
            f"{one['round']:<6} {r:>8} {counts['found']:>3}/{r:<2} {counts['named']:>7}/{r:<2}"
            f" {counts['narrow']:>4}/{r:<2} {counts['oneoff_found']:>6}/{counts['oneoff']}"
        )


if __name__ == "__main__":
    main()
