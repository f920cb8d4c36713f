"""Worst-case time of every accepted pattern on adversarial subjects, beside the written form.

For each pattern — every seed-catalogue pattern, the shapes that used to stall the hook, and the
shapes people write that used to be refused — this prints the slowest search the hook would run
(the compiled form, on at most the pattern's subject limit: the hook's ``SUBJECT_LIMIT``, or the
shorter one of a polynomial pattern) over subjects of up to 64 KB made of the pattern's own text
(its literals, class members, matched prefixes and repeat bodies, repeated), and, as the
baseline, the slowest search of the pattern as written on the same subjects, cut short at
``--cap`` ms. Refused patterns are listed with the rule they break.

Then the worst hook call: every accepted pattern searched, each on its own limit, over the
subjects that were worst for the slowest patterns — as if one tool's lessons held them all and
the call's text passed every literal prefilter — and, as a looser bound, the sum of every
pattern's own worst case. The call is searched as the hook searches it: the seed's hints share
the call's budget of characters (``hot.match.SEARCH_BUDGET``), after which each sees the short
subject; the seed's guards and nudges, and every shape above (counted as a guard, the costlier
case), are never cut. The same call without the budget is printed beside it.

Targets: no accepted pattern over 25 ms, no hook call over 100 ms. Times are CPU time of this
thread, best of three.

    python benchmarks/pattern_safety.py [--sizes 4096,16384,65536] [--cap 200] [--calls 20]
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
import time
from pathlib import Path

from lessons_core.compiler.entries import _anchored
from lessons_core.hot.match import SEARCH_BUDGET, searched
from lessons_core.patterns.globs import glob_to_regex
from lessons_core.patterns.probe import SUBJECT_LIMIT, _units, bodies, pumps, subjects
from lessons_core.patterns.regex_safety import hot_source, judge

REPO = Path(__file__).resolve().parents[1]
SEED = REPO.parent / "shared" / "corpus" / "seed-lessons" / "lesson-manifest.json"
TARGET_MS = 25.0
CALL_TARGET_MS = 100.0

SHAPES = [
    r"(?:[a-z]|[a-z])" * 30 + "!",
    r"(?:(?:a|a){9}){9}!",
    r"(?:a?){28}a{28}",
    r"git.*push.*--force.*main",
    r".*a.*a.*a.*a.*b",
    r"\s*\s*\s*\s*x",
    r"\bjq\b.*\belse\s+empty\b",
    glob_to_regex("**/**/**/**/**/z"),
    glob_to_regex("src/**/test/**/*.py"),
    # What people write, refused until the subject limit bounded it.
    r"\bgit\s+push\b.*--force\b",
    r"\bdocker\s+build\b(?!.*--platform)",
    r"\bpython[0-9]*\s+-m\s+pytest\b(?!.*--timeout)",
    r"\bset\s+-[a-zA-Z]*e[a-zA-Z]*\b",
    r"execFile\w*\(['\"]claude",
    r"(?i)^.*/[^/]*cache[^/]*$",
    r"[\w.-]+@[\w.-]+",
    # A repeat with a large count walks that far from every start: bounded by a shorter subject.
    r"(?:[a-z]-){400,500}!",
    r"(?:[a-z]-){2500,3400}!",
    r"(?:[a-z]{2}-){400,500}!",
    # Exponential: still refused.
    r"(a+)+$",
    r"(\w+\s?)+$",
]


class _Cap(Exception):
    pass


#: Whether a capped search is running: a timer that fires late (after the search, while it is
#: being disarmed) then does nothing, instead of escaping from the clean-up.
_searching = [False]


def _raise(_signum: int, _frame: object) -> None:
    if _searching[0]:
        _searching[0] = False
        raise _Cap


def worst(source: str, texts: list[str], cap_ms: float, limit: int | None) -> float:
    """Slowest search of ``source`` over ``texts`` in ms (a capped run counts as ``cap_ms``)."""
    return worst_with_subject(source, texts, cap_ms, limit)[0]


def worst_with_subject(
    source: str, texts: list[str], cap_ms: float, limit: int | None
) -> tuple[float, str]:
    """Slowest search of ``source`` over ``texts`` in ms, and the text it was slowest on."""
    rx = re.compile(source)
    slowest = 0.0
    slowest_text = texts[0] if texts else ""
    for text in texts:
        subject = text[:limit] if limit else text
        best = float("inf")
        for _ in range(3):
            # A CPU-time timer, armed inside the try: on a busy machine a wall-clock one could
            # fire before the search started.
            signal.signal(signal.SIGVTALRM, _raise)
            start = time.thread_time()
            try:
                signal.setitimer(signal.ITIMER_VIRTUAL, cap_ms / 1000)
                _searching[0] = True
                rx.search(subject)
                _searching[0] = False
                took = (time.thread_time() - start) * 1000
            except _Cap:
                took = cap_ms
            finally:
                _searching[0] = False
                signal.setitimer(signal.ITIMER_VIRTUAL, 0)
            best = min(best, took)
            if took >= cap_ms:
                break
        if best > slowest:
            slowest, slowest_text = best, text
    return slowest, slowest_text


def adversarial(source: str, sizes: list[int]) -> list[str]:
    units = sorted(set(_units(source)), key=lambda u: (-len(u), u))[:8]
    prefixes, walks = pumps(source), bodies(source)
    return [text for size in sizes for text in subjects(units, size, prefixes, walks)]


def call_cost(hooked: list[tuple[str, int, bool]], text: str, budget: bool = True) -> float:
    """One hook call's matching on ``text``, in ms: every pattern searched on its limit, the
    hints (``uncut`` False) within the call's budget when ``budget`` is on, as the hook does."""
    total = 0.0
    left = SEARCH_BUDGET
    for source, limit, uncut in sorted(hooked, key=lambda h: not h[2]):  # uncut ones first
        if uncut or not budget:
            total += worst(source, [text], 1000.0, limit)
            continue
        n = searched(len(text), limit, left)
        left -= n
        total += worst(source, [text[:n]], 1000.0, None)
    return total


def seed_patterns() -> list[str]:
    return [source for source, _kind, _uncut in seed_kinds()]


def seed_kinds() -> list[tuple[str, str, bool]]:
    """Every distinct seed pattern with what it is matched against (``command`` or ``path``),
    and whether the budget leaves it uncut (a guard's or a nudge's)."""
    if not SEED.is_file():
        return []
    data = json.loads(SEED.read_text("utf-8"))
    found: list[tuple[str, str, bool]] = []
    for lesson in data["lessons"].values():
        uncut = lesson.get("type") in ("guard", "nudge")
        for key in ("commandRegexSources", "pathRegexSources"):
            for entry in lesson[key]:
                flags = "(?i)" if "i" in entry.get("flags", "") else ""
                source = flags + entry["source"]
                if key == "pathRegexSources":  # matched against the whole path, as imported
                    source = _anchored(source)
                kind = "path" if key == "pathRegexSources" else "command"
                known = next((i for i, f in enumerate(found) if f[:2] == (source, kind)), None)
                if known is None:
                    found.append((source, kind, uncut))
                elif uncut:
                    found[known] = (source, kind, True)
    return found


def _kind(source: str) -> str:
    """A shape's kind: globs and whole-path regexes are matched against paths."""
    return "path" if source.startswith(("(?:^|/)", "(?i)^.*/", "^")) else "command"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="4096,16384,65536")
    parser.add_argument("--cap", type=float, default=200.0, help="ms after which a baseline stops")
    parser.add_argument(
        "--calls", type=int, default=20, help="worst subjects of this many patterns make calls"
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows: list[tuple[str, str, float, float | None, int, str]] = []
    worst_texts: list[tuple[float, str]] = []
    hooked: dict[str, list[tuple[str, int, bool]]] = {"command": [], "path": []}
    shapes = [(source, _kind(source), True) for source in SHAPES]
    for group, sources in (("shape", shapes), ("seed", seed_kinds())):
        for source, kind, uncut in sources:
            texts = adversarial(source, sizes)
            baseline = worst(source, texts, args.cap, None)
            verdict = judge(source)
            if verdict.reason:
                rows.append((group, source, baseline, None, 0, verdict.reason))
                continue
            hot_form = hot_source(source)
            hot, text = worst_with_subject(hot_form, texts, args.cap, verdict.limit)
            rows.append((group, source, baseline, hot, verdict.limit, ""))
            worst_texts.append((hot, text[:SUBJECT_LIMIT]))
            if (hot_form, verdict.limit, uncut) not in hooked[kind]:
                hooked[kind].append((hot_form, verdict.limit, uncut))
    print(f"subjects up to {max(sizes)} characters; the hook matches the first {SUBJECT_LIMIT}")
    print(f"{'kind':5}  {'written ms':>10}  {'hook ms':>8}  {'limit':>6}  pattern")
    for group, source, baseline, hot, limit, reason in rows:
        shown = source if len(source) <= 70 else source[:67] + "..."
        capped = ">=" if baseline >= args.cap else "  "
        hook = f"{hot:8.2f}" if hot is not None else "refused"
        print(f"{group:5}  {capped}{baseline:8.2f}  {hook:>8}  {limit or '':>6}  {shown}")
        if reason:
            print(f"{'':37}{reason}")
    accepted = [r for r in rows if r[3] is not None]
    slowest = max(accepted, key=lambda r: r[3] or 0.0) if accepted else None
    refused = len(rows) - len(accepted)
    limited = sum(1 for r in accepted if r[4] < SUBJECT_LIMIT)
    print(f"\n{len(accepted)} accepted ({limited} on a shorter subject), {refused} refused")
    if slowest is None:
        return 0
    print(f"slowest accepted in the hook: {slowest[3]:.2f} ms ({slowest[1]})")
    print(f"slowest as written: {max(r[2] for r in rows):.2f} ms (capped at {args.cap:g})")
    calls = [text for _ms, text in sorted(worst_texts, reverse=True)[: args.calls]]
    # A call runs the command patterns on its command, or the path patterns on its paths.
    call = 0.0
    for kind, patterns in hooked.items():
        costs = [call_cost(patterns, text) for text in calls]
        worst_kind = max(costs) if costs else 0.0
        whole = max((call_cost(patterns, text, budget=False) for text in calls), default=0.0)
        call = max(call, worst_kind)
        uncut = sum(1 for p in patterns if p[2])
        print(
            f"worst hook call, {kind} patterns: {worst_kind:.2f} ms for {len(patterns)} patterns"
            f" ({uncut} never cut) on {len(calls)} hostile subjects; {whole:.2f} ms if every"
            " hint searched the whole subject"
        )
    bound = sum(r[3] or 0.0 for r in accepted)
    print(f"sum of every pattern's own worst case: {bound:.2f} ms")
    ok = (slowest[3] or 0.0) <= TARGET_MS and call <= CALL_TARGET_MS
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
