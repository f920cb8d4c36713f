"""Worst-case time of every accepted pattern on adversarial subjects, beside the written form.

For each pattern — every seed-catalogue pattern the build accepts, and the shapes that used to
stall the hook — this prints the slowest search the hook would run (the compiled form, on at
most the first ``SUBJECT_LIMIT`` characters) over subjects of up to 64 KB made of the pattern's
own text, and, as the baseline, the slowest search of the pattern as written on the same
subjects, cut short at ``--cap`` ms. Refused patterns are listed with the rule they break.
Target: no accepted pattern over 5 ms. Times are CPU time of this thread, best of three.

    python benchmarks/pattern_safety.py [--sizes 4096,16384,65536] [--cap 200]
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
from lessons_core.compiler.globs import glob_to_regex
from lessons_core.compiler.probe import SUBJECT_LIMIT, _units, subjects
from lessons_core.compiler.regex_safety import check_pattern, hot_source

REPO = Path(__file__).resolve().parents[1]
SEED = REPO.parent / "shared" / "corpus" / "seed-lessons" / "lesson-manifest.json"
TARGET_MS = 5.0

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
]


class _Cap(Exception):
    pass


def _raise(_signum: int, _frame: object) -> None:
    raise _Cap


def worst(source: str, texts: list[str], cap_ms: float, limit: int | None) -> float:
    """Slowest search of ``source`` over ``texts`` in ms (a capped run counts as ``cap_ms``)."""
    rx = re.compile(source)
    slowest = 0.0
    for text in texts:
        subject = text[:limit] if limit else text
        best = float("inf")
        for _ in range(3):
            signal.signal(signal.SIGALRM, _raise)
            signal.setitimer(signal.ITIMER_REAL, cap_ms / 1000)
            start = time.thread_time()
            try:
                rx.search(subject)
                took = (time.thread_time() - start) * 1000
            except _Cap:
                took = cap_ms
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            best = min(best, took)
            if took >= cap_ms:
                break
        slowest = max(slowest, best)
    return slowest


def adversarial(source: str, sizes: list[int]) -> list[str]:
    units = sorted(set(_units(source)), key=lambda u: (-len(u), u))[:8]
    return [text for size in sizes for text in subjects(units, size)]


def seed_patterns() -> list[str]:
    if not SEED.is_file():
        return []
    data = json.loads(SEED.read_text("utf-8"))
    found: list[str] = []
    for lesson in data["lessons"].values():
        for key in ("commandRegexSources", "pathRegexSources"):
            for entry in lesson[key]:
                flags = "(?i)" if "i" in entry.get("flags", "") else ""
                source = flags + entry["source"]
                if key == "pathRegexSources":  # matched against the whole path, as imported
                    source = _anchored(source)
                if source not in found:
                    found.append(source)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="4096,16384,65536")
    parser.add_argument("--cap", type=float, default=200.0, help="ms after which a baseline stops")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows: list[tuple[str, str, float, float | None, str]] = []
    for group, sources in (("shape", SHAPES), ("seed", seed_patterns())):
        for source in sources:
            texts = adversarial(source, sizes)
            baseline = worst(source, texts, args.cap, None)
            reason = check_pattern(source)
            if reason:
                rows.append((group, source, baseline, None, reason))
                continue
            hot = worst(hot_source(source), texts, args.cap, SUBJECT_LIMIT)
            rows.append((group, source, baseline, hot, ""))
    print(f"subjects up to {max(sizes)} characters; the hook matches the first {SUBJECT_LIMIT}")
    print(f"{'kind':5}  {'written ms':>10}  {'hook ms':>8}  pattern")
    for group, source, baseline, hot, reason in rows:
        shown = source if len(source) <= 70 else source[:67] + "..."
        capped = ">=" if baseline >= args.cap else "  "
        hook = f"{hot:8.2f}" if hot is not None else "refused"
        print(f"{group:5}  {capped}{baseline:8.2f}  {hook:>8}  {shown}")
        if reason:
            print(f"{'':29}{reason}")
    accepted = [r for r in rows if r[3] is not None]
    slowest = max(accepted, key=lambda r: r[3] or 0.0) if accepted else None
    refused = len(rows) - len(accepted)
    print(f"\n{len(accepted)} accepted, {refused} refused")
    if slowest is not None:
        print(f"slowest accepted in the hook: {slowest[3]:.2f} ms ({slowest[1]})")
        print(f"slowest as written: {max(r[2] for r in rows):.2f} ms (capped at {args.cap:g})")
        return 0 if (slowest[3] or 0.0) <= TARGET_MS else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
