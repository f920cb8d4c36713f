"""Time a pattern on subjects made to be hard for it, and refuse it when it is slow.

The structural rules (:mod:`lessons_core.patterns.regex_safety`) prove most patterns linear
without running them; this probe is the measurement behind that proof. It runs the form the
hook will run on subjects as long as the hook ever matches it against (:data:`SUBJECT_LIMIT`, or
the shorter limit of a pattern whose search grows faster than linearly), built from the
pattern's own alphabet: every literal run of the pattern and a member of every character class,
repeated, alone and together, with and without a character the pattern never takes; and what
the pattern matches up to each of its repeats, repeated (``git push git push …`` for
``\\bgit\\s+push\\b.*--force``), which is what makes a search retry at every start; and a run of
what each repeat's body matches (:func:`bodies`: ``a-a-a-…`` for ``(?:[a-z]-){400,500}!``), on
which a repeat walks as far as its count lets it from every start of the search. A pattern that
needs more than :data:`BUDGET_MS` (:data:`LIMITED_BUDGET_MS` for a shorter limit) on any of them
is refused.

The runs of a body are what bound a repeat with a large count. Such a repeat is linear by the
structural rules (it chooses among at most a thousand counts), yet every start of the search
walks up to its count before the pattern fails, so the search costs the subject's length times
that walk: ``(?:[a-z]-){2500,3400}!`` took 790 ms on 32 KB of ``a-a-…``, and no subject made of
its units (``a``, ``-``, ``!``) ever held a long run of ``a-``. Calling such a repeat quadratic
instead, as the rules call a polynomial pattern, would not bound it alone: the walk's length is
the repeat's count, not a power of the subject, so only a measurement on the run says which
subject length keeps it within the budget (``(?:[a-z]-){400,500}!``: 10 ms on 4 KB, 24 ms on
8 KB). With the runs among the subjects, the probe measures the walk, and the limit is lowered
(:func:`lessons_core.patterns.regex_safety.judge`) until it fits, as for any slow pattern.

Sizes grow from 1 KB, so a pattern that explodes does so on a short subject; a timer interrupts
a search that runs past the limit when the probe runs on the main thread (the regex engine
checks for signals as it goes).

Most of the time goes to the 32 KB subjects, and most patterns need none of it: a pattern the
structural rules prove linear (``linear``, from :func:`lessons_core.patterns.regex_safety.judge`)
searches a 32 KB subject in at most 32 times what it takes on the same shape cut to 1 KB, once
the 1 KB subject already holds everything one start of the search can reach
(:func:`scalable`). Such a pattern is timed on the 1 KB subjects only, and accepted when that
time scaled to 32 KB, times :data:`LINEAR_MARGIN`, is within the budget; otherwise (a slower
one, one whose reach does not fit in 1 KB such as ``[a-z]{4100,5000}!``, which is instant on 1
and 4 KB and 67 ms on 32 KB, or one not proven linear) it gets every size, as before.
The proof is the compiler's own, made on the pattern in hand: nothing that comes with a lesson
(a team's, a repository's, a model's) says which path a pattern takes.

A pattern of the same shape as one measured fast in this process, on the same limit and the
same path (:mod:`lessons_core.patterns.shapes`: the same parse tree, its literals renamed among
characters every test of the pattern takes alike), is fast without a timing of its own: on
every subject it makes the same steps as that one on a renamed subject. The shape too is worked
out here from the pattern in hand, and only an acceptance is shared, never a refusal.
"""

from __future__ import annotations

import contextlib
import functools
import re
import signal
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from lessons_core import memory_file
from lessons_core.patterns import shapes, syntax
from lessons_core.patterns.charsets import class_members
from lessons_core.patterns.syntax import sre_constants

#: The hook matches the first this many characters of a command, content or path.
SUBJECT_LIMIT = 32768
#: The longest one search may take on a subject of ``SUBJECT_LIMIT`` characters.
BUDGET_MS = 5.0
#: The longest one search of a polynomial pattern may take on a subject of its own limit.
LIMITED_BUDGET_MS = 20.0
_SIZES = (1024, 4096, SUBJECT_LIMIT)
_BREAK = "\x01"
_MAX_UNITS = 8
#: How many repeat bodies :func:`bodies` returns.
_MAX_BODIES = 4
#: How far the 32 KB time of a scaled pattern may exceed its 1 KB time times 32 and still be
#: within the budget. On the seed catalogue's linear patterns and the shapes of
#: ``benchmarks/pattern_safety.py`` (234, best of three each, on a loaded machine) the 32 KB
#: time was at most 1.85 times the scaled one and 0.87 times it at the median (the search's
#: fixed cost, caches, a bounded repeat reaching its bound only on the longer subject). Short of
#: a ratio of 2 a scaled pattern is within the budget; short of 6 (2 x :data:`LOAD_SLACK`),
#: within what the full probe forgives a linear pattern on a busy machine.
LINEAR_MARGIN = 2.0
#: The longest text one start of a scaled pattern may reach, and the longest piece its subjects
#: are built from: a quarter of the 1 KB subject, so that it holds that reach four times over.
SCALABLE_SPAN = _SIZES[0] // 4


class _Timeout(Exception):
    pass


#: Hot sources measured fast: in this process, or by an earlier build (:func:`remembered`).
_fast: set[str] = set()
#: The fast sources this process asked about, so a saved memory keeps only what is in use.
_asked: set[str] = set()
#: Shapes (:mod:`lessons_core.patterns.shapes`) this process measured fast, with the limit and
#: whether the times were scaled: a pattern of one of them is as fast without a timing of its own.
#: Kept in this process only, from patterns measured here.
_fast_shapes: set[tuple[int, bool, str]] = set()
#: Name of the memory a build keeps in ``LESSONS_HOME``; bump the format when the probe changes.
MEMORY_NAME = "pattern-probes.json"
_MEMORY_FORMAT = 5


def probe(source: str, limit: int = SUBJECT_LIMIT, *, linear: bool = False) -> str | None:
    """Why ``source`` (as the hook runs it) is too slow, or ``None`` when every probe is fast.

    ``linear`` says the structural rules proved the search linear in the subject's length; the
    probe then scales its 1 KB times instead of timing 4 and 32 KB when that is a bound
    (:func:`scalable`). Only the compiler's own analysis of ``source`` may say so.

    A verdict of "fast" is remembered: a pattern's speed on its own subjects does not change
    between builds, and measuring it costs milliseconds, which ten thousand lessons turn into
    a minute. A refusal is measured again each time, so a busy moment is never kept.
    """
    key = source if limit == SUBJECT_LIMIT else f"{limit}:{source}"
    if key in _fast:
        _asked.add(key)
        return None
    scaled = linear and limit >= SUBJECT_LIMIT
    form = shapes.shape(source)
    kind = None if form is None else (limit, scaled, form)
    # One of its shape measured fast: it is as fast on every subject (see the shapes module).
    shared = kind is not None and kind in _fast_shapes
    reason = None if shared else _measure(source, limit, scaled)
    if reason is None:
        _fast.add(key)
        _asked.add(key)
        if kind is not None:
            _fast_shapes.add(kind)
    return reason


def forget() -> None:
    """Drop what this process remembers (a benchmark standing for several machines in one
    process calls it, so each machine measures as a process of its own would)."""
    _fast.clear()
    _asked.clear()
    _fast_shapes.clear()
    _measure.cache_clear()
    shapes.forget()


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
def _measure(source: str, limit: int = SUBJECT_LIMIT, linear: bool = False) -> str | None:
    try:
        rx = re.compile(source)
    except (re.error, RecursionError, OverflowError) as exc:
        return f"does not compile: {exc}"
    units = sorted(set(_units(source)), key=lambda u: (-len(u), u))[:_MAX_UNITS]
    prefixes, ordered, walks = pumps(source), list(_units(source)), bodies(source)
    scale = linear and scalable(source, units, prefixes, ordered, walks)
    worst, subject = worst_case(rx, units, limit, prefixes, ordered, scale=scale, walks=walks)
    budget = budget_ms(limit)
    if worst > budget:
        return (
            f"too slow: {worst:.1f} ms on a {len(subject)}-character subject made of its own "
            f"text (limit {budget:g} ms)"
        )
    return None


def budget_ms(limit: int) -> float:
    """The longest one search may take on a subject of ``limit`` characters."""
    return BUDGET_MS if limit >= SUBJECT_LIMIT else LIMITED_BUDGET_MS


def worst_case(
    rx: re.Pattern[str],
    units: list[str],
    limit: int = SUBJECT_LIMIT,
    prefixes: list[str] | None = None,
    ordered: list[str] | None = None,
    *,
    scale: bool = False,
    walks: list[str] | None = None,
) -> tuple[float, str]:
    """The slowest search of ``rx`` over the probe subjects of up to ``limit`` characters, in
    ms, and that subject (``ordered``: the pattern's units in order, for :func:`runs`;
    ``walks``: its repeats' bodies, see :func:`bodies`).

    ``scale`` (a pattern proven linear whose reach fits the first size, see :func:`scalable`)
    stops after the first size when its slowest time there, scaled to ``limit`` and multiplied
    by :data:`LINEAR_MARGIN`, is within the budget; that scaled time is returned. A subject
    made twice (a pattern whose alphabet makes two shapes alike) is searched once."""
    with _alarm_handled():
        return _worst_case(rx, units, limit, prefixes, ordered, scale, walks or [])


def _worst_case(
    rx: re.Pattern[str],
    units: list[str],
    limit: int,
    prefixes: list[str] | None,
    ordered: list[str] | None,
    scale: bool,
    walks: list[str],
) -> tuple[float, str]:
    worst = 0.0
    worst_subject = ""
    top = budget_ms(limit)
    for size in sorted({min(s, limit) for s in _SIZES}):
        budget = top * size / limit * 4 if size < limit else top
        made = list(subjects(units, size, prefixes or (), walks))
        if ordered:
            made += runs(ordered, size)
        for subject in dict.fromkeys(made):
            took = _time(rx, subject)
            if took > budget:  # twice more, to rule out a busy moment
                took = min(took, _time(rx, subject), _time(rx, subject))
            if took > budget and size == limit and _busy_not_slow(rx, subject, took, top):
                took = budget  # linear, and over the budget only by what the load added
            if took > worst:
                worst, worst_subject = took, subject
            if took > budget:
                return (took if size == limit else max(took, top * 10)), subject
        if scale and size < limit and worst * limit / size * LINEAR_MARGIN <= top:
            return worst * limit / size, worst_subject
    return worst, worst_subject


def scalable(
    source: str,
    units: list[str],
    prefixes: list[str],
    ordered: list[str],
    walks: Iterable[str] = (),
) -> bool:
    """Whether a linear pattern's 1 KB times bound its 32 KB ones: what one start of its search
    can reach (:func:`reach`) and every piece its subjects are built from fit in
    :data:`SCALABLE_SPAN`, so a 1 KB subject holds the same shape as the 32 KB one, only fewer
    times, and each start of the search meets the same text in both.

    A bounded repeat that reaches further than the short subject (``[a-z]{4100,5000}!``: the
    engine gives up at once on a subject shorter than the pattern's least match, then scans up
    to 5,000 characters from each start of the long one) is not scaled; nor is a pattern whose
    literals would be cut short on 1 KB but not on 32 KB. A repeat whose count is within the
    reach (``(?:[a-z]-){100,128}!``: 256 characters) is scaled: its run of ``a-`` (``walks``,
    see :func:`bodies`) is among the 1 KB subjects, and each start walks as far on 1 KB as on 32.
    """
    try:
        items = list(syntax.parse(source))
    except (re.error, RecursionError, OverflowError):
        return False
    pieces = [" ".join(units), "".join(ordered[: _MAX_UNITS * 2]), *prefixes, *walks]
    return reach(items) <= SCALABLE_SPAN and max(map(len, pieces)) <= SCALABLE_SPAN


def reach(items: list[tuple[Any, Any]]) -> int:
    """How far past its start one attempt of the items can read, unbounded repeats counted at
    their least (more than :data:`SCALABLE_SPAN` for anything this cannot tell, such as a
    back-reference).

    An unbounded repeat in a pattern proven linear cannot be handed a character by the search's
    loop over starts, so the runs it scans from different starts do not overlap: that costs the
    same per character on any length. A bounded one scans up to its bound from every start.
    """
    c = sre_constants
    unknown = SCALABLE_SPAN + 1
    total = 0
    for op, arg in items:
        if op in (c.LITERAL, c.NOT_LITERAL, c.ANY, c.IN):
            total += 1
        elif op is c.AT:
            continue
        elif op is c.SUBPATTERN:
            total += reach(list(arg[3]))
        elif op is c.BRANCH:
            total += max((reach(list(branch)) for branch in arg[1]), default=0)
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT) or str(op) == "POSSESSIVE_REPEAT":
            low, high, body = arg
            times = max(low, 1) if high == sre_constants.MAXREPEAT else high
            total += times * reach(list(body))
        elif op in (c.ASSERT, c.ASSERT_NOT):
            total += reach(list(arg[1]))  # zero-width, but it reads ahead (or back) of here
        elif str(op) == "ATOMIC_GROUP":
            total += reach(list(arg))
        else:
            return unknown
        if total > SCALABLE_SPAN:
            return unknown
    return total


#: On a loaded machine even CPU time stretches (caches, frequency): a search over the budget by
#: no more than this factor is forgiven when its time grows linearly with the subject.
LOAD_SLACK = 3.0


def _busy_not_slow(
    rx: re.Pattern[str], subject: str, took: float, budget: float = BUDGET_MS
) -> bool:
    """Whether a search over the budget is linear in the subject and only a little slow.

    An eighth of the subject must take at least a sixteenth of the time (a quadratic search
    takes a sixty-fourth): the verdict then says the machine was busy, not the pattern
    super-linear, so a build does not refuse a pattern one day and accept it the next.
    """
    if took > budget * LOAD_SLACK:
        return False
    eighth = subject[: len(subject) // 8]
    small = min(_time(rx, eighth), _time(rx, eighth))
    return small * 16 >= took


def subjects(
    units: list[str], size: int, prefixes: Iterable[str] = (), walks: Iterable[str] = ()
) -> Iterator[str]:
    """Subjects of ``size`` characters from ``units``: each alone, all in turn, with a break;
    each of ``prefixes`` (see :func:`pumps`) repeated, alone, spaced, and followed by one unit
    repeated; and each of ``walks`` (see :func:`bodies`) repeated, with a break."""
    whole = "".join(units) or "a"
    shapes = [*units, whole, " ".join(units), *walks]
    for prefix in prefixes:
        shapes += [prefix, prefix + " "]
        for unit in units[:4]:
            if size > len(prefix):
                yield prefix + (unit * size)[: size - len(prefix)]
    for shape in shapes:
        if not shape:
            continue
        count = max(1, size // len(shape))
        yield (shape * count)[:size]
        yield (shape * count)[: size - 1] + _BREAK


#: What ends a long run in :func:`runs`: a character the pattern may never take, a word
#: character (a ``\b`` fails before it), a slash and a newline (a ``[^/]*`` or a ``.*`` stops).
_RUN_ENDS = (_BREAK, "_", "/", "\n")


def runs(ordered: list[str], size: int) -> Iterator[str]:
    """Subjects that reach a repeat once and then feed it a long run: the units before one
    unit, in the pattern's order, then that unit repeated, then one of :data:`_RUN_ENDS`.

    ``\\bset\\s+-[a-zA-Z]*e[a-zA-Z]*\\b`` is quadratic on ``set -eeee…e_`` only (165 ms on 4 KB),
    which neither the repetitions of :func:`subjects` nor its pumped prefixes, which end on
    the repeated unit, ever make.
    """
    seen: set[str] = set()
    for index, unit in enumerate(ordered[: _MAX_UNITS * 2]):
        if not unit or unit in seen:
            continue
        seen.add(unit)
        head = "".join(ordered[:index])[: size // 4]
        count = max(1, (size - len(head) - 1) // len(unit))
        for end in _RUN_ENDS:
            yield (head + unit * count)[: size - 1] + end


def _time(rx: re.Pattern[str], subject: str) -> float:
    """CPU milliseconds one search of ``subject`` takes, stopped at the limit when a timer can
    interrupt it.

    The timer can fire a little late (a loaded machine delivers the signal whenever it gets to
    it): after the search, in the clean-up, anywhere. So the handler only raises while
    :data:`_searching` says the search is under way, everything between arming and disarming
    is inside the ``try``, and a late signal does nothing at all; it can never escape into the
    build and cost a source its lessons.

    The handler is installed here unless :func:`_alarm_handled` already holds it for a whole
    pattern (installing one costs more than searching a 1 KB subject); the clock starts once
    the timer is armed, so what is measured is the search.
    """
    limit = BUDGET_MS * 40 / 1000
    armed = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    own = armed and not _handling[0]
    previous: Any = None
    start = time.thread_time()  # CPU time: a busy machine does not make a pattern slow
    try:
        if own:
            previous = signal.signal(signal.SIGALRM, _raise_timeout)
        if armed:
            signal.setitimer(signal.ITIMER_REAL, limit)
        _searching[0] = True
        start = time.thread_time()
        rx.search(subject)
        _searching[0] = False
    except _Timeout:
        pass
    finally:
        _searching[0] = False
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            if own and previous is not None:
                signal.signal(signal.SIGALRM, previous)
    return (time.thread_time() - start) * 1000


@contextlib.contextmanager
def _alarm_handled() -> Iterator[None]:
    """Hold the probe's ``SIGALRM`` handler over many timed searches, then put back the one
    before. Between searches it does nothing: it raises only while :data:`_searching`."""
    armed = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    if not armed or _handling[0]:
        yield
        return
    previous = signal.signal(signal.SIGALRM, _raise_timeout)
    _handling[0] = True
    try:
        yield
    finally:
        _handling[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        if previous is not None:
            signal.signal(signal.SIGALRM, previous)


#: Whether a timed search is running (the only time the timer may interrupt anything).
_searching = [False]
#: Whether :func:`_alarm_handled` holds the handler (each search then only arms the timer).
_handling = [False]


def _raise_timeout(_signum: int, _frame: Any) -> None:
    if _searching[0]:
        _searching[0] = False  # once: the clean-up that follows is never interrupted
        raise _Timeout


#: How many of a pattern's matched prefixes :func:`pumps` returns.
_MAX_PUMPS = 4


def pumps(source: str) -> list[str]:
    """Text the pattern matches up to each of its top-level repeats and look-arounds, longest
    first: repeated, each copy is a new start from which the search runs on to the end."""
    try:
        items = list(syntax.parse(source))
    except (re.error, RecursionError, OverflowError):
        return []
    c = sre_constants
    while len(items) == 1 and items[0][0] is c.SUBPATTERN:
        items = list(items[0][1][3])
    found: list[str] = []
    for k in range(1, len(items) + 1):
        op = items[k][0] if k < len(items) else None
        if op is None or op in (c.MAX_REPEAT, c.MIN_REPEAT, c.ASSERT, c.ASSERT_NOT):
            text = _sample(items[:k])
            if text and text not in found:
                found.append(text)
    return sorted(found, key=len, reverse=True)[:_MAX_PUMPS]


def bodies(source: str) -> list[str]:
    """One text each repeat's body matches, the repeats that reach furthest first (an unbounded
    one, then the largest count times its body's length): repeated to fill a subject, it is a
    run the repeat walks as far as its count lets it from every start of the search.

    The pattern's units and matched prefixes never make that run when the body holds more
    than one unit (``a-`` for ``(?:[a-z]-){400,500}!``, ``aa-`` for ``(?:[a-z]{2}-)*``); a
    body of one unit repeats a unit already among the subjects, so the same subject is made
    twice and searched once.
    """
    try:
        items = list(syntax.parse(source))
    except (re.error, RecursionError, OverflowError):
        return []
    found: dict[str, int] = {}
    _bodies(items, found)
    return sorted(found, key=lambda text: (-found[text], text))[:_MAX_BODIES]


def _bodies(items: list[tuple[Any, Any]], found: dict[str, int]) -> None:
    c = sre_constants
    for op, arg in items:
        if op in (c.MAX_REPEAT, c.MIN_REPEAT) or str(op) == "POSSESSIVE_REPEAT":
            _low, high, body = arg
            text = _sample(list(body))
            if text and high:
                walk = SUBJECT_LIMIT if high == sre_constants.MAXREPEAT else high * len(text)
                found[text] = max(found.get(text, 0), walk)
            _bodies(list(body), found)
        elif op is c.SUBPATTERN:
            _bodies(list(arg[3]), found)
        elif op is c.BRANCH:
            for branch in arg[1]:
                _bodies(list(branch), found)
        elif op in (c.ASSERT, c.ASSERT_NOT):
            _bodies(list(arg[1]), found)
        elif str(op) == "ATOMIC_GROUP":
            _bodies(list(arg), found)


def _sample(items: list[tuple[Any, Any]]) -> str:
    """One text the items match (look-arounds and anchors aside): the first choice of each
    alternation, each repeat taken as few times as it must, but at least once."""
    c = sre_constants
    out: list[str] = []
    for op, arg in items:
        if op is c.LITERAL:
            out.append(chr(arg))
        elif op is c.NOT_LITERAL:
            out.append("a" if arg != ord("a") else "b")
        elif op is c.ANY:
            out.append("a")
        elif op is c.IN:
            out.append(_class_member(arg))
        elif op is c.SUBPATTERN:
            out.append(_sample(list(arg[3])))
        elif op is c.BRANCH:
            out.append(_sample(list(arg[1][0])))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT) or str(op) == "POSSESSIVE_REPEAT":
            out.append(_sample(list(arg[2])) * max(1, min(arg[0], 8)))
        elif str(op) == "ATOMIC_GROUP":
            out.append(_sample(list(arg)))
    return "".join(out)


def _units(source: str) -> Iterator[str]:
    """The pattern's alphabet: its literal runs and one member of each class."""
    try:
        tree = syntax.parse(source)
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


def _class_member(items: list[tuple[Any, Any]]) -> str:
    """A character the class takes: its first sample when it is one, which a negated class's
    (``a`` for ``[^a-z]``) need not be; else a member, a letter or digit first (punctuation is
    likelier to be what the pattern wants next, which would end the walk with a match)."""
    members = class_members(items)
    for sample in _class_samples(items):
        if sample in members:
            return sample
    return min(members, key=lambda m: (not m.isalnum(), not m.isprintable(), m), default="a")


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
