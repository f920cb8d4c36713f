"""Time a pattern on subjects made to be hard for it, and refuse it when it is slow.

The structural rules (:mod:`lessons_core.compiler.regex_safety`) prove most patterns linear
without running them; this probe is the measurement behind that proof. It runs the form the
hook will run on subjects as long as the hook ever matches (:data:`SUBJECT_LIMIT`), built from
the pattern's own alphabet: every literal run of the pattern and a member of every character
class, repeated, alone and together, with and without a character the pattern never takes. A
pattern that needs more than :data:`BUDGET_MS` on any of them is refused.

Sizes grow from 1 KB, so a pattern that explodes does so on a short subject; a timer interrupts
a search that runs past the limit when the probe runs on the main thread (the regex engine
checks for signals as it goes).
"""

from __future__ import annotations

import contextlib
import functools
import re
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lessons_core import memory_file
from lessons_core.compiler.prefilter import sre_constants, sre_parse

#: The hook matches the first this many characters of a command, content or path.
SUBJECT_LIMIT = 32768
#: The longest one search may take on a subject of ``SUBJECT_LIMIT`` characters.
BUDGET_MS = 5.0
_SIZES = (1024, 4096, SUBJECT_LIMIT)
_BREAK = "\x01"
_MAX_UNITS = 8


class _Timeout(Exception):
    pass


#: Hot sources measured fast: in this process, or by an earlier build (:func:`remembered`).
_fast: set[str] = set()
#: The fast sources this process asked about, so a saved memory keeps only what is in use.
_asked: set[str] = set()
#: Name of the memory a build keeps in ``LESSONS_HOME``; bump the format when the probe changes.
MEMORY_NAME = "pattern-probes.json"
_MEMORY_FORMAT = 1


def probe(source: str) -> str | None:
    """Why ``source`` (as the hook runs it) is too slow, or ``None`` when every probe is fast.

    A verdict of "fast" is remembered: a pattern's speed on its own subjects does not change
    between builds, and measuring it costs milliseconds, which ten thousand lessons turn into
    a minute. A refusal is measured again each time, so a busy moment is never kept.
    """
    if source in _fast:
        _asked.add(source)
        return None
    reason = _measure(source)
    if reason is None:
        _fast.add(source)
        _asked.add(source)
    return reason


def forget() -> None:
    """Drop what this process remembers (a benchmark standing for several machines in one
    process calls it, so each machine measures as a process of its own would)."""
    _fast.clear()
    _asked.clear()


def _memory_key() -> str:
    """What a remembered verdict depends on: the probe's format and the regex engine's Python."""
    return f"{_MEMORY_FORMAT}:{sys.implementation.name}:{sys.version_info[:3]}"


@contextlib.contextmanager
def remembered(home: Path, *, save: bool = True) -> Iterator[None]:
    """Use the verdicts an earlier build left in ``home``, and (``save``) leave this build's.

    The memory holds only patterns measured fast, under this Python; anything unreadable is
    ignored, and the file is replaced atomically, private to the user like the rest of
    ``LESSONS_HOME``.
    """
    path = Path(home) / MEMORY_NAME
    _fast.update(memory_file.load(path, _memory_key(), "fast"))
    _asked.clear()
    yield
    if save:
        memory_file.save(path, _memory_key(), "fast", sorted(_asked))


@functools.lru_cache(maxsize=4096)
def _measure(source: str) -> str | None:
    try:
        rx = re.compile(source)
    except (re.error, RecursionError, OverflowError) as exc:
        return f"does not compile: {exc}"
    units = sorted(set(_units(source)), key=lambda u: (-len(u), u))[:_MAX_UNITS]
    worst, subject = worst_case(rx, units)
    if worst > BUDGET_MS:
        return (
            f"too slow: {worst:.1f} ms on a {len(subject)}-character subject made of its own "
            f"text (limit {BUDGET_MS:g} ms)"
        )
    return None


def worst_case(rx: re.Pattern[str], units: list[str]) -> tuple[float, str]:
    """The slowest search of ``rx`` over the probe subjects, in ms, and that subject."""
    worst = 0.0
    worst_subject = ""
    for size in _SIZES:
        budget = BUDGET_MS * size / SUBJECT_LIMIT * 4 if size < SUBJECT_LIMIT else BUDGET_MS
        for subject in subjects(units, size):
            took = _time(rx, subject)
            if took > budget:  # twice more, to rule out a busy moment
                took = min(took, _time(rx, subject), _time(rx, subject))
            if took > budget and size == SUBJECT_LIMIT and _busy_not_slow(rx, subject, took):
                took = budget  # linear, and over the budget only by what the load added
            if took > worst:
                worst, worst_subject = took, subject
            if took > budget:
                return (took if size == SUBJECT_LIMIT else max(took, BUDGET_MS * 10)), subject
    return worst, worst_subject


#: On a loaded machine even CPU time stretches (caches, frequency): a search over the budget by
#: no more than this factor is forgiven when its time grows linearly with the subject.
LOAD_SLACK = 3.0


def _busy_not_slow(rx: re.Pattern[str], subject: str, took: float) -> bool:
    """Whether a search over the budget is linear in the subject and only a little slow.

    An eighth of the subject must take at least a sixteenth of the time (a quadratic search
    takes a sixty-fourth): the verdict then says the machine was busy, not the pattern
    super-linear, so a build does not refuse a pattern one day and accept it the next.
    """
    if took > BUDGET_MS * LOAD_SLACK:
        return False
    eighth = subject[: len(subject) // 8]
    small = min(_time(rx, eighth), _time(rx, eighth))
    return small * 16 >= took


def subjects(units: list[str], size: int) -> Iterator[str]:
    """Subjects of ``size`` characters from ``units``: each alone, all in turn, with a break."""
    whole = "".join(units) or "a"
    shapes = [*units, whole, " ".join(units)]
    for shape in shapes:
        if not shape:
            continue
        count = max(1, size // len(shape))
        yield (shape * count)[:size]
        yield (shape * count)[: size - 1] + _BREAK


def _time(rx: re.Pattern[str], subject: str) -> float:
    """CPU milliseconds one search of ``subject`` takes, stopped at the limit when a timer can
    interrupt it.

    The timer can fire a little late (a loaded machine delivers the signal whenever it gets to
    it): after the search, in the clean-up, anywhere. So the handler only raises while
    :data:`_searching` says the search is under way, everything between arming and disarming
    is inside the ``try``, and a late signal does nothing at all; it can never escape into the
    build and cost a source its lessons.
    """
    limit = BUDGET_MS * 40 / 1000
    armed = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    previous: Any = None
    start = time.thread_time()  # CPU time: a busy machine does not make a pattern slow
    try:
        if armed:
            previous = signal.signal(signal.SIGALRM, _raise_timeout)
            signal.setitimer(signal.ITIMER_REAL, limit)
        _searching[0] = True
        rx.search(subject)
        _searching[0] = False
    except _Timeout:
        pass
    finally:
        _searching[0] = False
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            if previous is not None:
                signal.signal(signal.SIGALRM, previous)
    return (time.thread_time() - start) * 1000


#: Whether a timed search is running (the only time the timer may interrupt anything).
_searching = [False]


def _raise_timeout(_signum: int, _frame: Any) -> None:
    if _searching[0]:
        _searching[0] = False  # once: the clean-up that follows is never interrupted
        raise _Timeout


def _units(source: str) -> Iterator[str]:
    """The pattern's alphabet: its literal runs and one member of each class."""
    try:
        tree = sre_parse.parse(source)
    except (re.error, RecursionError):
        return
    yield from _walk(list(tree))


def _walk(items: list[tuple[Any, Any]]) -> Iterator[str]:
    c = sre_constants
    run: list[str] = []
    for op, arg in items:
        if op is c.LITERAL:
            run.append(chr(arg))
            continue
        if run:
            yield "".join(run)
            run = []
        if op is c.IN:
            yield from _class_samples(arg)
        elif op is c.NOT_LITERAL:
            yield "a" if arg != ord("a") else "b"
        elif op is c.ANY:
            yield "a"
        elif op is c.SUBPATTERN:
            yield from _walk(list(arg[3]))
        elif op is c.BRANCH:
            for branch in arg[1]:
                yield from _walk(list(branch))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT) or str(op) == "POSSESSIVE_REPEAT":
            yield from _walk(list(arg[2]))
        elif op in (c.ASSERT, c.ASSERT_NOT):
            yield from _walk(list(arg[1]))
        elif str(op) == "ATOMIC_GROUP":
            yield from _walk(list(arg))
    if run:
        yield "".join(run)


def _class_samples(items: list[tuple[Any, Any]]) -> Iterator[str]:
    c = sre_constants
    for op, arg in items:
        if op is c.LITERAL:
            yield chr(arg)
        elif op is c.RANGE:
            yield chr(arg[0])
        elif op is c.CATEGORY:
            name = str(arg)
            yield {"CATEGORY_DIGIT": "0", "CATEGORY_SPACE": " ", "CATEGORY_WORD": "a"}.get(
                name, "-"
            )
        elif op is c.NEGATE:
            yield "a"
