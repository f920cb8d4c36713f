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
candidates. A message in the form of Claude Code's declined call ("The user doesn't want to
proceed with this tool use. … Reason: …") is judged as the scan judges one: its reason alone,
as the reason for a declined call. What it should print: rules heard and kept, one-offs heard
(the hook asks the agent to judge them) but not kept, ordinary messages not heard.

    python benchmarks/corrections_synthetic.py [--show]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from lessons_core.hot import corrections as hot
from lessons_core.scan.detectors.corrections import states_rule

DATA = Path(__file__).parent / "labels" / "synthetic" / "corrections.json"
#: The words that open a declined call's message, and those that lead to the user's reason.
_DECLINED = "The user doesn't want to proceed with this tool use."
_REASON = "Reason:"


def heard(message: str) -> str | None:
    """The correcting words the hook's detector hears in ``message``, read as the scan reads
    it: the reason of a declined call on its own, as such a reason."""
    if message.startswith(_DECLINED) and _REASON in message:
        reason = message.split(_REASON, 1)[1].strip()
        return hot.correction(reason, rejected=True)
    return hot.correction(message)


def kept(message: str) -> bool:
    """Whether the scan keeps ``message`` as a candidate: heard, and stating a rule."""
    words = heard(message)
    return bool(words) and states_rule(words)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", action="store_true", help="list the messages kept or missed")
    args = parser.parse_args()
    sets = json.loads(DATA.read_text(encoding="utf-8"))["sets"]
    print(f"{'set':<10} {'kind':<9} {'messages':>8} {'heard':>6} {'kept':>5}")
    for name, kinds in sets.items():
        for kind, messages in kinds.items():
            heard_ones = [m for m in messages if heard(m)]
            kept_ones = [m for m in heard_ones if kept(m)]
            print(
                f"{name:<10} {kind:<9} {len(messages):>8} {len(heard_ones):>6} {len(kept_ones):>5}"
            )
            if args.show:
                shown = kept_ones if kind != "rule" else [m for m in messages if m not in kept_ones]
                for message in shown:
                    print(f"    {'missed' if kind == 'rule' else 'kept'}: {message}")
    for name, kinds in sets.items():
        counts = {k: sum(1 for m in v if kept(m)) for k, v in kinds.items()}
        found = counts["rule"] + counts["one-off"] + counts["ordinary"]
        print(
            f"{name}: recall {counts['rule']}/{len(kinds['rule'])} of the rules, "
            f"precision {counts['rule']}/{found} of the candidates"
        )


if __name__ == "__main__":
    main()
