"""Remember which triggers the manifest compiler's safety check accepted, between scans.

Intake asks of every detected trigger whether the compiler would refuse it
(:func:`lessons_core.patterns.regex_safety.check_pattern`): the structural rules, and then (for
every tier but the scanner's own heuristics, see :data:`lessons_core.scan.intake.UNTIMED_TIERS`)
a timing of the pattern on subjects made to be hard for it, which costs from a few to tens of
milliseconds a pattern. The same mistakes recur from scan to scan, and with them the same
triggers, so a scan of a few new lines spent most of its time timing patterns it had timed the
hour before. The verdict depends on the pattern alone (and on the rules and the Python that
judged it), so an accepted pattern is remembered: in this process, and in ``LESSONS_HOME``
(:data:`MEMORY_NAME`) from one scan to the next. A Tier 2 trigger accepted by the structural
rules alone is remembered as such, apart: a scan of a few new lines then does not even import
the rules.

Only acceptances are kept; a refusal is judged again every time, so a busy moment that made a
timing slow is never kept. The file holds digests, never the patterns: a trigger is checked
before its secrets are redacted. Anything unreadable, or written under other rules or another
Python, is ignored, and the file is replaced atomically, private like the rest of the folder.
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Iterator
from pathlib import Path

from lessons_core import memory_file
from lessons_core.hot.digest import hex_blake2b

#: The memory's file in ``LESSONS_HOME``.
MEMORY_NAME = "trigger-checks.json"
#: Bump when the compiler's rules change what they accept.
FORMAT = 1
#: Digests kept at most (the newest): a store's triggers are a few hundred.
LIMIT = 4096

#: Digests of the patterns accepted, in this process or by an earlier scan (oldest first).
_accepted: dict[str, None] = {}
#: Whether this process accepted a pattern the loaded memory did not hold.
_grown = False


def _digest(pattern: str, timed: bool = True) -> str:
    # An acceptance by the structural rules alone (a Tier 2 trigger) is told apart by a prefix
    # the pattern itself cannot supply: a pattern holds no NUL byte.
    text = pattern if timed else "structural\0" + pattern
    return hex_blake2b(text.encode("utf-8", "surrogatepass"), 16)


def _key() -> str:
    """What a verdict depends on: the rules' format and the regex engine's Python."""
    return f"{FORMAT}:{sys.implementation.name}:{sys.version_info[:3]}"


def accepted(pattern: str, *, timed: bool = True) -> bool:
    """Whether ``pattern`` was accepted before (in this process or a remembered scan): with its
    timing, or (``timed=False``) at least by the structural rules."""
    if _digest(pattern) in _accepted:
        return True
    return not timed and _digest(pattern, timed=False) in _accepted


def accept(pattern: str, *, timed: bool = True) -> None:
    """Remember that the check accepted ``pattern``: with its timing, or (``timed=False``) by
    the structural rules alone."""
    global _grown
    digest = _digest(pattern, timed)
    if digest not in _accepted:
        _accepted[digest] = None
        _grown = True


def structural_problem(pattern: str) -> str | None:
    """Why the manifest compiler's structural rules refuse ``pattern``, or ``None`` when they
    accept it (no timing: :func:`lessons_core.patterns.regex_safety.check_pattern` with
    ``measure=False``). An acceptance is remembered, and one with its timing counts too, so a
    scan that meets only known triggers does not import the rules."""
    if accepted(pattern, timed=False):
        return None
    reason = _judged(pattern)
    if reason is None:
        accept(pattern, timed=False)
    return reason


@functools.lru_cache(maxsize=1024)
def _judged(pattern: str) -> str | None:
    from lessons_core.patterns.regex_safety import check_pattern

    return check_pattern(pattern, measure=False)


def forget() -> None:
    """Drop what this process remembers (tests, and a benchmark standing for fresh processes)."""
    global _grown
    _accepted.clear()
    _judged.cache_clear()
    _grown = False


@contextlib.contextmanager
def remembered(home: Path | str) -> Iterator[None]:
    """Use the acceptances an earlier scan left in ``home``, and leave this scan's there."""
    global _grown
    path = Path(home) / MEMORY_NAME
    for digest in memory_file.load(path, _key(), "accepted"):
        _accepted.setdefault(digest, None)
    _grown = False
    yield
    if not _grown:
        return  # nothing new: the file stays as it is
    _grown = False
    memory_file.save(path, _key(), "accepted", list(_accepted)[-LIMIT:])
