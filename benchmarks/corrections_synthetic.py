"""The corrections detector on messages we wrote, set by set: how many it hears, and keeps.

The labelled corpora hold few user corrections (9 on the dev side, 8 on the test side), too few
to say whether the detector's words carry over. So ``benchmarks/labels/synthetic/
corrections.json`` holds messages of our own: corrections that state a rule a later session
could use, corrections of the work in hand (one-offs), and ordinary messages. The ``design``
set was written first and the detector's filter of one-offs
(:func:`lessons_core.scan.detectors.corrections.states_rule`) was written against it; the
``held-out`` set was written before that filter and is not tuned on. ``design-2`` and
``held-out-2`` were written later, together, by a writer who had not read the detector; a
seeded coin chose which of the two the detector's words may be tuned on, and ``held-out-2`` is
not. ``design-3`` and ``held-out-3`` were written the same way after the detector had been tuned
on ``design-2``, committed before any change they led to, and drawn by another coin.

For each set and kind it prints how many messages the hook's detector hears
(:func:`lessons_core.hot.corrections.correction`) and how many of those the scan keeps as
candidates. What it should print: rules heard and kept, one-offs heard (the hook asks the agent
to judge them) but not kept, ordinary messages not heard.

    python benchmarks/corrections_synthetic.py [--show]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from lessons_core.hot import corrections as hot
from lessons_core.scan.detectors.corrections import states_rule

DATA = Path(__file__).parent / "labels" / "synthetic" / "corrections.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", action="store_true", help="list the messages kept or missed")
    args = parser.parse_args()
    sets = json.loads(DATA.read_text(encoding="utf-8"))["sets"]
    print(f"{'set':<10} {'kind':<9} {'messages':>8} {'heard':>6} {'kept':>5}")
    for name, kinds in sets.items():
        for kind, messages in kinds.items():
            heard = [m for m in messages if hot.correction(m)]
            kept = [m for m in heard if states_rule(m)]
            print(f"{name:<10} {kind:<9} {len(messages):>8} {len(heard):>6} {len(kept):>5}")
            if args.show:
                shown = kept if kind != "rule" else [m for m in messages if m not in kept]
                for message in shown:
                    print(f"    {'missed' if kind == 'rule' else 'kept'}: {message}")
    for name, kinds in sets.items():
        kept = {
            k: sum(1 for m in v if hot.correction(m) and states_rule(m)) for k, v in kinds.items()
        }
        found = kept["rule"] + kept["one-off"] + kept["ordinary"]
        print(
            f"{name}: recall {kept['rule']}/{len(kinds['rule'])} of the rules, "
            f"precision {kept['rule']}/{found} of the candidates"
        )


if __name__ == "__main__":
    main()
