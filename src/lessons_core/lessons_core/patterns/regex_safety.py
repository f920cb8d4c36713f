"""Refuse, at build time, patterns that can make the hook backtrack for seconds.

Python's ``re`` is a backtracking engine: a pattern such as ``(a+)+$`` takes exponential time on
``aaaa…a!``, and the hook runs every pattern against whatever command or file content the agent
produces. So every command, path and content pattern is checked before it enters the manifest.
The check is structural (it inspects the parsed pattern, it never runs it), so it cannot hang
the build itself.

A repeat *counts* when its maximum is unbounded (``*``, ``+``, ``{n,}``) or at least
``LARGE_REPEAT`` (``{1,50}``). Possessive repeats (``a*+``) and atomic groups (``(?>…)``) never
give back what they matched, so their bodies do not count. A pattern is refused when:

1. **nested quantifiers** – a counting repeat's body contains another counting repeat:
   ``(a+)+``, ``(.*)*``, ``(\\w+\\s?)*``;
2. **overlapping repeated alternation** – a counting repeat applies to a group whose
   alternatives can begin with the same character, or one of which can match the empty string:
   ``(a|a)*``, ``(\\w|\\d)+``, ``(ab|ac)*``, ``(a|b?)+``. This is judged on the pattern as
   written (before ``re`` merges alternatives into character classes), with the first-character
   sets computed over ASCII plus a sample of other characters;
3. **back-reference in a repeat** – ``(a)(\\1)*`` and similar, whose cost no structural rule
   bounds.

Refused lessons are left out of the manifest; ``lessons build`` reports each (lesson, pattern,
rule) and exits non-zero, while the rest of the catalogue is still compiled and written.
"""

from __future__ import annotations

import functools
import itertools
import re
from typing import Any

import attrs

from lessons_core.errors import LessonsError
from lessons_core.patterns import syntax
from lessons_core.patterns.charsets import ALL as _ALL
from lessons_core.patterns.charsets import ATOMIC as _ATOMIC
from lessons_core.patterns.charsets import POSSESSIVE as _POSSESSIVE
from lessons_core.patterns.charsets import PROBES as _PROBES
from lessons_core.patterns.charsets import REPEATS as _REPEATS
from lessons_core.patterns.charsets import chars_in, skip_class
from lessons_core.patterns.charsets import chars_of as _chars_of
from lessons_core.patterns.charsets import class_members as _class_members
from lessons_core.patterns.charsets import folded as _fold
from lessons_core.patterns.syntax import sre_constants

LARGE_REPEAT = 10

_MAXREPEAT = sre_constants.MAXREPEAT


class UnsafePatternError(LessonsError):
    """A pattern refused by the safety rules; the message names lesson, pattern and rule."""


@attrs.frozen
class Verdict:
    """The judgement of one pattern: refused (``reason``) or accepted, and how much of a subject
    the hook matches it against (``limit``).

    A refusal names, when it can, the ``part`` of the pattern at fault as the user wrote it, and
    an accepted ``rewrite`` of the whole pattern.
    """

    reason: str | None
    limit: int = 32768
    degree: int = 1
    part: str | None = None
    rewrite: str | None = None


def check_pattern(source: str, *, measure: bool = True) -> str | None:
    """Return why ``source`` is refused (invalid or unsafe), or ``None`` when it is accepted."""
    return judge(source, measure=measure).reason


#: Patterns this process accepted on their full limit, with the form the hook runs: a build
#: asks again of every pattern a sync or an import has just judged. Bounded: emptied when full.
_accepted: dict[str, tuple[Verdict, str]] = {}
_ACCEPTED_MAX = 65536


def judge(source: str, *, measure: bool = True) -> Verdict:
    """Judge ``source``: rules 1-3 on the pattern as written, rules 4-6 on :func:`hot_source`
    (the form the hook runs), which also give the power its search time grows with and so the
    subject length it is matched against (:func:`subject_limit`); ``measure`` then times that
    form on subjects of that length made from its own text
    (:mod:`lessons_core.patterns.probe`).

    A measured acceptance on the full limit of its degree is kept in this process, and given
    again while the probe still holds that form fast (so the probe's own memory, and what it
    saves, stay the judge of the timing); the rules, which never change their answer, are not
    run twice. A refusal, and an acceptance on a limit the probe lowered (whose refusal on the
    longer limit is measured again each time), are judged anew."""
    if measure and source in _accepted:
        from lessons_core.patterns.probe import probe

        verdict, hot = _accepted[source]
        if probe(hot, verdict.limit, linear=verdict.degree <= 1) is None:
            return verdict
    verdict = _judge(source, measure=measure)
    if measure and verdict.reason is None and verdict.limit == subject_limit(verdict.degree):
        if len(_accepted) >= _ACCEPTED_MAX:
            _accepted.clear()
        _accepted[source] = (verdict, hot_source(source))
    return verdict


def forget() -> None:
    """Drop every verdict and timing this process remembers, as a new process starts (a
    benchmark standing for several machines in one process calls it)."""
    from lessons_core.patterns import probe

    _accepted.clear()
    hot_source.cache_clear()
    probe.forget()


def _judge(source: str, *, measure: bool) -> Verdict:
    try:
        compiled = re.compile(source)
    except (re.error, RecursionError, OverflowError) as exc:
        return Verdict(f"does not compile: {exc}")
    tree = syntax.parse(source)
    reason = _walk(list(tree), counting=False)
    if reason is None:
        reason = _check_alternations(source, compiled.flags)
    if reason:
        from lessons_core.patterns import culprit

        part, rewrite = culprit.locate(source, reason)
        return Verdict(reason, part=part, rewrite=rewrite)
    hot = hot_source(source)
    reason, degree = ambiguity(hot)
    if reason:
        from lessons_core.patterns import culprit

        part, rewrite = culprit.locate(source, reason)
        return Verdict(reason, degree=degree, part=part, rewrite=rewrite)
    limit = subject_limit(degree)
    if measure:
        from lessons_core.patterns.probe import probe

        # Proven linear (rules 1-6, degree 1): the probe may scale its 1 KB times to 32 KB.
        reason = probe(hot, limit, linear=degree <= 1)
        # Too slow on its limit: a quarter of the length, down to MIN_LIMIT, bounds it instead.
        while reason and limit // 4 >= MIN_LIMIT:
            limit //= 4
            reason = probe(hot, limit)
        if reason:
            return Verdict(reason, limit, degree)
    return Verdict(None, limit, degree)


@functools.lru_cache(maxsize=16384)
def hot_source(source: str) -> str:
    """The form of ``source`` the hook runs: ``.*`` chains rewritten to run in linear time
    (kept: a build asks it of each pattern several times, and a sync or an import before)."""
    from lessons_core.patterns.linearize import hot_form

    return hot_form(source)


def ensure_safe(source: str, lesson: str, field: str) -> None:
    """Raise :class:`UnsafePatternError` naming ``lesson`` and ``field`` if it is refused."""
    verdict = judge(source)
    if verdict.reason:
        raise UnsafePatternError(f"lesson {lesson}: {field} {describe(source, verdict)}")


def describe(source: str, verdict: Verdict) -> str:
    """A refusal in the user's own notation: the pattern and the part at fault as written (no
    doubled backslashes), the rule, and an accepted rewrite when there is one."""
    text = f"pattern `{source}` is refused: {verdict.reason}"
    if verdict.part and verdict.part != source:
        text += f"; the problem is `{verdict.part}`"
    if verdict.rewrite:
        text += f"; accepted instead: `{verdict.rewrite}`"
    return text


# -- rules 1 and 3: walk the parsed tree --------------------------------------------------------


def _counts(high: int) -> bool:  # rules 1-3 judge each repeat alone; rule 5 multiplies
    return high == _MAXREPEAT or high >= LARGE_REPEAT


def _walk(items: list[tuple[Any, Any]], counting: bool) -> str | None:
    for op, arg in items:
        reason = _visit(op, arg, counting)
        if reason:
            return reason
    return None


_NESTED = (
    "nested quantifiers (a repeated group holds a repeat that can trade characters with the"
    " group's next pass, so the time can double with every character)"
)


def _visit(op: Any, arg: Any, counting: bool) -> str | None:
    if op in _REPEATS:
        _low, high, body = arg
        if _counts(high):
            if counting:
                return _NESTED
            if _walk(list(body), counting=True) is None:
                return None
            if _has_backref(list(body)):
                return "back-reference inside a repeat"
            if _passes_trade(list(body)):
                return _NESTED
            # Passes that cannot trade (``(?:[^/]+/)*``): each inner repeat is judged alone.
            return _walk(list(body), counting=False)
        return _walk(list(body), counting)
    if (_POSSESSIVE is not None and op is _POSSESSIVE) or (_ATOMIC is not None and op is _ATOMIC):
        return None  # never backtracks into its body
    if op is sre_constants.GROUPREF or op is sre_constants.GROUPREF_EXISTS:
        if counting:
            return "back-reference inside a repeat"
        if op is sre_constants.GROUPREF_EXISTS:
            _group, yes, no = arg
            return _walk(list(yes), counting) or (_walk(list(no), counting) if no else None)
        return None
    if op is sre_constants.SUBPATTERN:
        return _walk(list(arg[3]), counting)
    if op is sre_constants.BRANCH:
        for branch in arg[1]:
            reason = _walk(list(branch), counting)
            if reason:
                return reason
        return None
    if op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
        return _walk(list(arg[1]), counting)
    return None


def _has_backref(items: list[tuple[Any, Any]]) -> bool:
    c = sre_constants
    for op, arg in items:
        if op is c.GROUPREF or op is c.GROUPREF_EXISTS:
            return True
        if op is c.SUBPATTERN and _has_backref(list(arg[3])):
            return True
        if op is c.BRANCH and any(_has_backref(list(b)) for b in arg[1]):
            return True
        if op in _REPEATS and _has_backref(list(arg[2])):
            return True
        if op in (c.ASSERT, c.ASSERT_NOT) and _has_backref(list(arg[1])):
            return True
    return False


#: Added to the power of the repeats a first pass of a repeated body leaves behind, so that a
#: repeat of the second pass they feed stands out.
_LOOP = 1000


def _passes_trade(body: list[tuple[Any, Any]]) -> bool:
    """Whether a repeat in one pass of ``body`` can hand characters to a repeat in the next
    (``(\\w+\\s?)+``: a run of word characters splits between passes in every way, which is
    exponential), rather than every pass ending on characters the next cannot take
    (``(?:[^/]+/)*``, ``(?:\\s\\w+)*``), which is at most polynomial and judged by rule 6."""
    walker = _Ambiguity(False, False)
    try:
        first = walker.sequence(body, [], 1)
        marked = [_Rep(r.chars, r.power + _LOOP, r.factor, r.mids) for r in first]
        walker.sequence(body, marked, 1)
    except (_Refuse, RecursionError):
        return True
    return walker.degree >= _LOOP


# -- rule 2: repeated alternations, as written ---------------------------------------------------


def _check_alternations(source: str, flags: int) -> str | None:
    for branches, scoped in _repeated_alternations(source):
        firsts: list[frozenset[str]] = []
        for branch in branches:
            first = _first_set(branch, flags | scoped)
            if first is None:
                return f"repeated alternation with a branch that can match empty ({branch!r})"
            for earlier in firsts:
                if earlier & first:
                    shown = "|".join(branches)
                    return f"repeated alternation ({shown}) whose branches can start alike"
            firsts.append(first)
    return None


def _repeated_alternations(source: str) -> list[tuple[list[str], int]]:
    """Every group with a top-level ``|`` that a counting repeat follows: its branch texts and
    the scoped flags (``(?i:…)``) in force around it."""
    found: list[tuple[list[str], int]] = []
    stack: list[tuple[int, list[int], int]] = []
    i = 0
    n = len(source)
    while i < n:
        c = source[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i = skip_class(source, i)
            continue
        if c == "(":
            j, kind = _group_prefix(source, i)
            if kind == "skip":
                i = j
                continue
            scoped = stack[-1][2] if stack else 0
            head = source[i:j]
            if head.endswith(":") and "i" in head.split("-")[0]:
                scoped |= re.IGNORECASE
            stack.append((j, [], scoped))
            i = j
            continue
        if c == "|" and stack:
            stack[-1][1].append(i)
        elif c == ")" and stack:
            start, bars, scoped = stack.pop()
            if bars and _counting_quantifier(source, i + 1):
                edges = [start - 1, *bars, i]
                found.append(([source[a + 1 : b] for a, b in itertools.pairwise(edges)], scoped))
        i += 1
    return found


_GROUP_PREFIX = re.compile(r"\(\?(?:P<\w+>|<\w+>|'\w+'|[:=!>]|<[=!]|[aiLmsux-]+:)")
_SKIPPED_GROUP = re.compile(r"\(\?(?:#[^)]*\)|[aiLmsux]+\))")


def _group_prefix(source: str, i: int) -> tuple[int, str]:
    """Where a group's body starts, or ``skip`` for comments and global flag groups."""
    skipped = _SKIPPED_GROUP.match(source, i)
    if skipped:
        return skipped.end(), "skip"
    prefix = _GROUP_PREFIX.match(source, i)
    if prefix:
        return prefix.end(), "group"
    return i + 1, "group"


_QUANTIFIER = re.compile(r"[*+]|\{(\d*)(,?)(\d*)\}")


def _counting_quantifier(source: str, i: int) -> bool:
    match = _QUANTIFIER.match(source, i)
    if not match:
        return False
    if match.group(0) in "*+":
        return True
    _low, comma, high = match.groups()
    if not comma:
        return bool(_low) and int(_low) >= LARGE_REPEAT
    return not high or int(high) >= LARGE_REPEAT


def _first_set(branch: str, flags: int) -> frozenset[str] | None:
    """Characters a match of ``branch`` can start with; ``None`` if it can match empty."""
    try:
        items = list(syntax.parse(branch, flags & ~re.UNICODE & ~re.ASCII | (flags & re.ASCII)))
    except (re.error, RecursionError):
        return _ALL  # cannot tell alone (a back-reference to an outer group): assume the worst
    first, nullable = _first(items, bool(flags & re.IGNORECASE))
    return None if nullable else first


def _first(items: list[tuple[Any, Any]], fold: bool) -> tuple[frozenset[str], bool]:
    result: set[str] = set()
    for op, arg in items:
        first, nullable = _first_of(op, arg, fold)
        result |= first
        if not nullable:
            return frozenset(result), False
    return frozenset(result), True


def _first_of(op: Any, arg: Any, fold: bool) -> tuple[frozenset[str], bool]:
    c = sre_constants
    if op is c.LITERAL:
        return _fold({chr(arg)}, fold), False
    if op is c.NOT_LITERAL:
        return _ALL - {chr(arg)}, False
    if op is c.ANY:
        return _ALL, False
    if op is c.IN:
        return _fold(_class_members(arg), fold), False
    if op is c.SUBPATTERN:
        add_flags = arg[1]
        return _first(list(arg[3]), fold or bool(add_flags & re.IGNORECASE))
    if op in _REPEATS or (_POSSESSIVE is not None and op is _POSSESSIVE):
        low, _high, body = arg
        first, nullable = _first(list(body), fold)
        return first, nullable or low == 0
    if _ATOMIC is not None and op is _ATOMIC:
        return _first(list(arg), fold)
    if op is c.BRANCH:
        union: set[str] = set()
        any_nullable = False
        for branch in arg[1]:
            first, nullable = _first(list(branch), fold)
            union |= first
            any_nullable = any_nullable or nullable
        return frozenset(union), any_nullable
    if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
        return frozenset(), True  # zero-width: look at what follows
    return _ALL, False  # back-references and anything unusual: assume the worst


# -- rules 4 to 6: ambiguity computed on the form the hook runs ----------------------------------
#
# A backtracking search costs, on a subject of length n, about n to the power of the longest
# *chain* of repeats that can hand characters to one another: the search itself tries every
# start (one power), and every unbounded repeat that can give back characters a later repeat
# can take adds one more. ``\s*\s*x`` is cubic, ``\bjq\b.*\belse`` quadratic, ``.*/[^/]*``
# linear after its leading ``.*`` is dropped (the ``/`` between them is a character the second
# repeat cannot take). Two repeats chain when the characters they take overlap and every
# character the pattern requires between them is one that both could take. Bounded repeats
# (``{0,9}``) chain too but multiply by their bound rather than by n. Atomic groups, possessive
# repeats and look-arounds are entered once per attempt but never re-entered by backtracking:
# what is inside them chains with what came before, never with what comes after.

#: The largest product of bounded repeats along one chain that is still accepted.
MAX_BOUNDED_FACTOR = 1000


class _Rep:
    """One repeat that backtracking can still return to, and what it costs to get there."""

    __slots__ = ("chars", "factor", "mids", "power")

    def __init__(self, chars: frozenset[str], power: int, factor: int, mids: frozenset[Any]):
        self.chars = chars
        self.power = power
        self.factor = factor
        self.mids = mids

    def after(self, taken: frozenset[str]) -> _Rep | None:
        """This repeat once the pattern has required one character of ``taken``; ``None`` once
        nothing it could give back can any longer reach a later repeat."""
        if not (taken & self.chars):
            return None
        return _Rep(self.chars, self.power, self.factor, self.mids | {taken})

    def feeds(self, chars: frozenset[str]) -> bool:
        both = self.chars & chars
        if not both:
            return False
        for mid in self.mids:
            if mid is _BOUNDARY:  # a word boundary between them: both sides must be possible
                if not (both & _WORD and both - _WORD):
                    return False
            elif not (mid & both):
                return False
        return True

    def at_boundary(self) -> _Rep:
        return _Rep(self.chars, self.power, self.factor, self.mids | {_BOUNDARY})


_SEARCH = _Rep(_ALL, 1, 1, frozenset())
_WORD = frozenset(p for p in _PROBES if re.match(r"\w", p))
#: Stands, among the requirements between two repeats, for a ``\b``.
_BOUNDARY: frozenset[str] = frozenset({"\\b"})


class _Refuse(Exception):
    pass


def check_ambiguity(source: str) -> str | None:
    """Rules 4-6 on ``source`` as the hook runs it: why it is refused, or ``None``."""
    return ambiguity(source)[0]


def ambiguity(source: str) -> tuple[str | None, int]:
    """Rules 4-6 on ``source`` as the hook runs it: why it is refused (or ``None``), and the
    power of the subject's length its search time grows with (1: linear)."""
    try:
        tree = syntax.parse(source)
    except (re.error, RecursionError, OverflowError) as exc:
        return f"does not compile: {exc}", 1
    walker = _Ambiguity(bool(tree.state.flags & re.IGNORECASE), bool(tree.state.flags & re.M))
    try:
        walker.sequence(list(tree), [_SEARCH], 1, tail=True)
    except _Refuse as exc:
        return str(exc), walker.degree
    except RecursionError:
        return "too deeply nested to analyse", walker.degree
    if walker.degree > MAX_DEGREE:
        return (
            f"{walker.degree} repeats in a row can trade characters: the search time grows with"
            f" the subject's length to the power {walker.degree}, too fast to bound on a useful"
            " length"
        ), walker.degree
    return None, walker.degree


#: How many characters of a subject the hook matches a pattern against, by the power of the
#: subject's length its search time grows with. A linear search sees the hook's whole subject;
#: a polynomial one only its start, which holds every real command (the longest commands agents
#: run are a few kilobytes of here-document), so its worst case stays bounded.
DEGREE_LIMITS = {1: 32768, 2: 4096, 3: 256}
#: The highest power accepted: beyond it no useful length keeps the search fast.
MAX_DEGREE = max(DEGREE_LIMITS)
#: The shortest limit a pattern measured too slow on its own may be given instead of a refusal.
MIN_LIMIT = 256


def subject_limit(degree: int) -> int:
    """How many characters of a subject a pattern of this ``degree`` is matched against."""
    return DEGREE_LIMITS.get(max(1, degree), 0)


class _Ambiguity:
    def __init__(self, fold: bool, multiline: bool):
        self.fold = fold
        self.multiline = multiline
        self.max_factor = 1
        #: The longest chain of repeats that trade characters, the search's loop included.
        self.degree = 1

    def sequence(
        self, items: list[tuple[Any, Any]], active: list[_Rep], mult: int, tail: bool = False
    ) -> list[_Rep]:
        """Walk ``items`` after the repeats ``active``; ``tail``: nothing follows them."""
        last = len(items) - 1
        for index, (op, arg) in enumerate(items):
            active = self.item(op, arg, active, mult, tail and index == last)
        return active

    def _take(self, active: list[_Rep], chars: frozenset[str]) -> list[_Rep]:
        out = []
        for rep in active:
            kept = rep.after(chars)
            if kept is not None:
                out.append(kept)
        return out

    def item(self, op: Any, arg: Any, active: list[_Rep], mult: int, tail: bool) -> list[_Rep]:
        c = sre_constants
        if op in (c.LITERAL, c.NOT_LITERAL, c.ANY, c.IN):
            return self._take(active, _chars_of(op, arg, self.fold))
        if op is c.AT:
            if arg in (c.AT_BEGINNING_STRING,) or (arg is c.AT_BEGINNING and not self.multiline):
                return []  # one position only: nothing before it can hand anything on
            if arg in (c.AT_BEGINNING, c.AT_BEGINNING_LINE):
                return self._take(active, frozenset("\n"))
            if arg is c.AT_BOUNDARY:
                return [rep.at_boundary() for rep in active]
            return active
        if op is c.SUBPATTERN:
            fold = self.fold
            self.fold = fold or bool(arg[1] & re.IGNORECASE)
            try:
                return self.sequence(list(arg[3]), active, mult, tail)
            finally:
                self.fold = fold
        if op is c.BRANCH:
            branches = [list(b) for b in arg[1]]
            empty = [b for b in branches if _nullable(b)]
            if len(empty) >= 2 and any(_nullable_only(b) for b in empty):
                raise _Refuse(
                    "alternatives that match the same text (each choice doubles the work)"
                )
            merged: list[_Rep] = []
            for branch in branches:
                merged.extend(self.sequence(branch, list(active), mult, tail))
            return _dedupe(merged)
        if op in (c.ASSERT, c.ASSERT_NOT):
            direction, body = arg
            body = list(body)
            before = _not_preceded_by(op, direction, body, self.fold)
            if before is not None:
                return self._take(active, before)
            self.sequence(body, list(active), mult)  # runs once per attempt; never re-entered
            return active
        if _ATOMIC is not None and op is _ATOMIC:
            inner = self.sequence(list(arg), list(active), mult, tail)
            return [rep for rep in inner if any(rep.chars is a.chars for a in active)]
        if op in _REPEATS or (_POSSESSIVE is not None and op is _POSSESSIVE):
            return self.repeat(op, arg, active, mult, tail)
        if op is c.GROUPREF:
            return self._take(active, _ALL)
        if op is c.GROUPREF_EXISTS:
            _group, yes, no = arg
            out = self.sequence(list(yes), list(active), mult)
            if no:
                out += self.sequence(list(no), list(active), mult)
            return _dedupe(out)
        return active

    def repeat(self, op: Any, arg: Any, active: list[_Rep], mult: int, tail: bool) -> list[_Rep]:
        low, high, body = arg
        body = list(body)
        if high == 0:
            return active
        unbounded = high == _MAXREPEAT
        large = unbounded or mult * high >= LARGE_REPEAT
        if large and _nullable(body):
            raise _Refuse(
                "a repeat of something that can match nothing (it can split a run in too many ways)"
            )
        chars = chars_in(body, self.fold)
        # The first pass through the body follows what came before; what it holds is judged
        # there, and bounded choices inside a repeat multiply once per pass.
        saved = self.max_factor
        self.max_factor = 1
        self.sequence(body, list(active), LARGE_REPEAT if large else max(1, mult * high), tail)
        inner = self.max_factor
        self.max_factor = saved
        if inner > 1 and high >= 2:
            total = inner ** min(high, 10)
            if total > MAX_BOUNDED_FACTOR:
                raise _Refuse(f"bounded repeats inside a repeat multiply to {total} ways")
        if low == high:  # a fixed count chooses nothing: it only consumes
            return active if low == 0 else self._take(active, chars)
        power, factor = (1, 1) if unbounded else (0, high - low + 1)
        feeders = [rep for rep in active if rep.feeds(chars)]
        if feeders:
            best = max(feeders, key=lambda r: (r.power, r.factor))
            power += best.power
            factor *= best.factor
        if not tail:  # a repeat that ends the pattern is never backtracked into
            self.degree = max(self.degree, power)
            if factor > MAX_BOUNDED_FACTOR:
                raise _Refuse(
                    f"bounded repeats that can trade characters multiply to {factor} ways"
                )
        self.max_factor = max(self.max_factor, factor)
        after = active if low == 0 else self._take(active, chars)
        if _POSSESSIVE is not None and op is _POSSESSIVE:
            return after
        return [*after, _Rep(chars, power, factor, frozenset())]


def _dedupe(reps: list[_Rep]) -> list[_Rep]:
    seen: dict[tuple[int, int, int, frozenset[Any]], _Rep] = {}
    for rep in reps:
        seen.setdefault((id(rep.chars), rep.power, rep.factor, rep.mids), rep)
    return list(seen.values())


def _not_preceded_by(
    op: Any, direction: int, body: list[tuple[Any, Any]], fold: bool
) -> frozenset[str] | None:
    """For ``(?<![^\\n])`` (the rewriter's "where a run of the gap's characters starts"), the
    characters that must stand just before; ``None`` for any other look-around."""
    c = sre_constants
    if op is not c.ASSERT_NOT or direction != -1 or len(body) != 1:
        return None
    kind, arg = body[0]
    if kind not in (c.LITERAL, c.NOT_LITERAL, c.IN):
        return None
    return _ALL - _chars_of(kind, arg, fold)


def _nullable(items: list[tuple[Any, Any]]) -> bool:
    return _first(items, False)[1]


def _nullable_only(items: list[tuple[Any, Any]]) -> bool:
    """True when ``items`` can match nothing but the empty string (``(?:|)`` after ``re``
    factors ``a|a`` into ``a(?:|)``)."""
    return not chars_in(items, False)


# -- patterns that match every call -------------------------------------------------------------

#: Everyday subjects: a pattern that matches every call matches each of these.
_EVERYDAY = ("", "\n", " ", "a", "Z", "0", "-", "/", "\u00e9", "ls -la", "git status", "npm test")


def matches_everything(source: str) -> bool:
    """Whether ``source`` finds a match in any text (``""``, ``.*``, ``(?s)``, ``^``, ``x?``,
    ``(?!.*y)``): it matches everyday subjects, the empty one included, and each literal run of
    its own (so ``^(?!ls\\b)`` — everything but one command — is not counted).

    A guard or a nudge with such a pattern would stop every call of its tools.
    """
    try:
        rx = re.compile(source)
    except (re.error, RecursionError, OverflowError):
        return False
    from lessons_core.patterns.probe import _units

    samples = [*_EVERYDAY, *_units(source)]
    return all(rx.search(sample) is not None for sample in samples)
