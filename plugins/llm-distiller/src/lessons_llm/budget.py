"""The per-scan budget of model calls and tokens, shared by every process of the scan.

A large scan reads in forked helper processes; the counters live in shared memory created
before the fork (in :meth:`Distiller.prepare`), so the helpers draw on one budget rather than
one each. A call is allowed only while both limits hold, counting the call's estimated tokens
in advance; the estimate is replaced by what the model reports once it answers.
"""

from __future__ import annotations

import multiprocessing
from typing import Any

CALLS, TOKENS, ASKED, CACHED, SKIPPED, FAILED = range(6)


def _context() -> Any:
    """Fork where the scan forks (its helpers inherit the counters), the default elsewhere."""
    forks = "fork" in multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if forks else None)


class Budget:
    """Calls and tokens spent in one scan, with the counts a report wants."""

    def __init__(self, max_calls: int, max_tokens: int) -> None:
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self._counts: Any = _context().Array("q", 6)

    def reserve(self, estimate: int) -> bool:
        """Take one call and ``estimate`` tokens, or say the budget is spent."""
        with self._counts.get_lock():
            counts = self._counts
            if counts[CALLS] >= self.max_calls or counts[TOKENS] + estimate > self.max_tokens:
                counts[SKIPPED] += 1
                return False
            counts[CALLS] += 1
            counts[TOKENS] += estimate
            return True

    def settle(self, estimate: int, spent: int) -> None:
        """Replace a reserved estimate by the tokens the call really spent."""
        with self._counts.get_lock():
            self._counts[TOKENS] += spent - estimate
            self._counts[ASKED] += 1

    def note(self, which: int) -> None:
        with self._counts.get_lock():
            self._counts[which] += 1

    def figures(self) -> dict[str, int]:
        with self._counts.get_lock():
            counts = list(self._counts)
        names = ("calls", "tokens", "answered", "cached", "skipped", "failed")
        return dict(zip(names, counts, strict=True))
