"""How the pattern-safety tests time a search.

Backtracking costs the same on every run while a busy machine only ever adds time, so a search
is timed as the best of three runs in CPU time of the thread: what is left is the pattern's own
cost, which is what a bound on it should judge.
"""

from __future__ import annotations

import re
import time


def searched_ms(source: str, subject: str) -> float:
    """CPU milliseconds of the best of three searches of ``subject``."""
    rx = re.compile(source)
    best = float("inf")
    for _ in range(3):
        start = time.thread_time()
        rx.search(subject)
        best = min(best, (time.thread_time() - start) * 1000)
    return best


def worst_ms(source: str, subjects: list[str]) -> float:
    """The slowest of ``subjects``, each timed by :func:`searched_ms`."""
    return max((searched_ms(source, s) for s in subjects), default=0.0)
