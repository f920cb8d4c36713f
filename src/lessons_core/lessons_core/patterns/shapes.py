"""The shape of a pattern: what the regex engine can tell of it, its literal characters aside.

A catalogue repeats its patterns' forms with other words: ``\\btool1\\s+run\\b``,
``\\btool2\\s+run\\b``, … A first build timed each of them (:mod:`.probe`), and ten thousand
lessons made a minute of it. Two patterns of one shape take the same time on every subject,
so one measurement serves them all; this module says when two patterns are of one shape.

**The shape.** The parse tree with each ASCII literal outside a character class (``LITERAL``,
and ``NOT_LITERAL``, which is ``[^c]``) replaced by a name: which of the pattern's own tests the
character passes (its *signature*: a newline or not, a word, digit or space character or not,
and in or out of each character class of the pattern), and the how-manyth distinct character of
that signature it is. Everything else is kept as written: the classes, the counts, the anchors,
the flags, and the literals the rule below pins.

**Why one measurement serves the shape.** Let ``P`` and ``Q`` have one shape. For each
signature, the distinct renamed characters of ``P`` and of ``Q`` are as many, in the same order;
map the one onto the other, character for character, and extend that to a permutation ``σ`` of
the ASCII characters of the signature that fixes every pinned character (possible: an injective
map between two equally large subsets of a finite set extends to a permutation of it). Outside
ASCII, ``σ`` is the identity. Then ``σ`` keeps every test the compiled program makes of a
subject's character: equality with a literal (``σ`` is one to one and sends ``P``'s literals to
``Q``'s), membership of a class or category, a word boundary (which asks whether a neighbour is
a word character) and ``.`` or a line anchor (which ask whether it is a newline), since ``σ``
keeps the signature; and a subject of one byte width stays that width. So for every subject
``t``, ``Q`` searching ``σ(t)`` makes the same steps as ``P`` searching ``t``, step for step,
and the slowest subject of any length costs both alike: if ``P`` is fast on every subject, so
is ``Q``; and a subject that makes ``Q`` slow, mapped back, makes ``P`` as slow.

What the engine builds from the literals keeps that: the literal prefix it scans for, and the
table it skips with on a mismatch, depend only on which of the prefix's characters are equal.
The exception is the set of first characters of an alternation at the pattern's start
(``(?:ab|cd)``), which the compiler turns into a character set whose layout (a range, a bitmap,
a list) depends on the characters' values: so the first literal of every alternative is
*pinned*, kept as written, and every other occurrence of a pinned character is too. A character
class is kept as written, so its layout is the same.

Not given a shape (``None``: the pattern is timed on its own, as always): a pattern that ignores
case (the engine's folding depends on the letter), one with scoped flags (a test would mean
something else inside them), and one with an item this module does not know.

The probe keeps acceptances by shape only, never refusals, and only for shapes it measured in
this process from a pattern in hand: nothing that comes with a lesson names a shape.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from lessons_core.patterns import syntax
from lessons_core.patterns.charsets import CATEGORY_RX
from lessons_core.patterns.syntax import sre_constants

#: The characters renamed: a subject of ASCII characters stays one byte wide under ``σ``.
_RENAMED = range(128)


class _NoShape(Exception):
    """The pattern holds something the shape cannot vouch for."""


def shape(source: str) -> str | None:
    """The shape of ``source`` (see the module's docstring), or ``None`` when it has none."""
    try:
        return _shape(source)
    except (re.error, RecursionError, OverflowError, _NoShape):
        return None


def forget() -> None:
    """Drop the shapes worked out in this process (see :func:`lessons_core.patterns.probe.
    forget`)."""
    _shape.cache_clear()


@functools.lru_cache(maxsize=512)
def _shape(source: str) -> str:
    tree = syntax.parse(source)
    flags = tree.state.flags
    if flags & (re.IGNORECASE | re.LOCALE):
        raise _NoShape
    items = list(tree)
    found: list[list[tuple[Any, Any]]] = []
    pinned: set[int] = set()
    _collect(items, found, pinned, first=False)
    classes = tuple(tuple(members) for members in found)
    ascii_only = bool(flags & re.ASCII)
    names: dict[int, tuple[tuple[bool, ...], int]] = {}
    counts: dict[tuple[bool, ...], int] = {}

    def name(code: int) -> Any:
        if code in pinned or code not in _RENAMED:
            return code
        if code not in names:
            mark = _signature(chr(code), classes, ascii_only)
            names[code] = (mark, counts.get(mark, 0))
            counts[mark] = counts.get(mark, 0) + 1
        return names[code]

    return repr((flags, _rename(items, name, first=False)))


def _collect(
    items: list[tuple[Any, Any]],
    classes: list[list[tuple[Any, Any]]],
    pinned: set[int],
    first: bool,
) -> None:
    """Gather the character classes of ``items`` and pin the literals an alternative opens
    with (``first``: ``items`` is an alternative)."""
    c = sre_constants
    for index, (op, arg) in enumerate(items):
        if op in (c.LITERAL, c.NOT_LITERAL):
            if first and index == 0:
                pinned.add(arg)
        elif op is c.IN:
            classes.append(list(arg))
        elif op is c.SUBPATTERN:
            if arg[1] or arg[2]:
                raise _NoShape  # scoped flags
            _collect(list(arg[3]), classes, pinned, first and index == 0)
        elif op is c.BRANCH:
            for branch in arg[1]:
                _collect(list(branch), classes, pinned, first=True)
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT) or str(op) == "POSSESSIVE_REPEAT":
            _collect(list(arg[2]), classes, pinned, first=False)
        elif op in (c.ASSERT, c.ASSERT_NOT):
            _collect(list(arg[1]), classes, pinned, first=False)
        elif str(op) == "ATOMIC_GROUP":
            _collect(list(arg), classes, pinned, first and index == 0)
        elif op is c.GROUPREF_EXISTS:
            _group, yes, no = arg
            _collect(list(yes), classes, pinned, first=False)
            if no:
                _collect(list(no), classes, pinned, first=False)
        elif op not in (c.AT, c.ANY, c.GROUPREF):
            raise _NoShape


def _rename(items: list[tuple[Any, Any]], name: Any, first: bool) -> tuple[Any, ...]:
    """``items`` as nested tuples, each renamed literal's character replaced by its name."""
    c = sre_constants
    out: list[Any] = []
    for op, arg in items:
        if op in (c.LITERAL, c.NOT_LITERAL):
            out.append((str(op), name(arg)))
        elif op is c.IN:
            out.append((str(op), tuple((str(o), _plain(a)) for o, a in arg)))
        elif op is c.SUBPATTERN:
            group, _add, _del, body = arg
            out.append((str(op), group, _rename(list(body), name, first)))
        elif op is c.BRANCH:
            out.append((str(op), tuple(_rename(list(b), name, True) for b in arg[1])))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT) or str(op) == "POSSESSIVE_REPEAT":
            low, high, body = arg
            out.append((str(op), low, high, _rename(list(body), name, False)))
        elif op in (c.ASSERT, c.ASSERT_NOT):
            direction, body = arg
            out.append((str(op), direction, _rename(list(body), name, False)))
        elif str(op) == "ATOMIC_GROUP":
            out.append((str(op), _rename(list(arg), name, first)))
        elif op is c.GROUPREF_EXISTS:
            group, yes, no = arg
            no_part = _rename(list(no), name, False) if no else None
            out.append((str(op), group, _rename(list(yes), name, False), no_part))
        else:  # AT, ANY, GROUPREF: kept as written
            out.append((str(op), _plain(arg)))
    return tuple(out)


def _plain(arg: Any) -> Any:
    """``arg`` with the engine's named constants as their names, for a stable text."""
    if isinstance(arg, (list, tuple)):
        return tuple(_plain(a) for a in arg)
    if arg is None or isinstance(arg, int):
        return arg
    return str(arg)


@functools.lru_cache(maxsize=4096)
def _signature(
    ch: str, classes: tuple[tuple[tuple[Any, Any], ...], ...], ascii_only: bool
) -> tuple[bool, ...]:
    """Which of the tests the pattern can make of a character ``ch`` passes: a newline, a word,
    digit or space character, and a member of each of the pattern's classes (kept: a catalogue
    asks it of the same letters and the same few classes again and again)."""
    own = (
        ch == "\n",
        _category("CATEGORY_WORD", ascii_only)(ch),
        _category("CATEGORY_DIGIT", ascii_only)(ch),
        _category("CATEGORY_SPACE", ascii_only)(ch),
    )
    return own + tuple(_member(items, ch, ascii_only) for items in classes)


def _member(items: tuple[tuple[Any, Any], ...], ch: str, ascii_only: bool) -> bool:
    """Whether the parsed class ``items`` takes ``ch``, as the engine decides it."""
    c = sre_constants
    code = ord(ch)
    negate = False
    found = False
    for op, arg in items:
        if op is c.NEGATE:
            negate = True
        elif op is c.LITERAL:
            found = found or code == arg
        elif op is c.RANGE:
            found = found or arg[0] <= code <= arg[1]
        elif op is c.CATEGORY:
            found = found or _category(str(arg), ascii_only)(ch)
        else:
            raise _NoShape  # a folded range or literal: only with ignored case
    return found != negate


@functools.cache
def _category(name: str, ascii_only: bool) -> Any:
    """The test of one category (``\\d``, ``\\w``, …) under the pattern's flags."""
    if name not in CATEGORY_RX:
        raise _NoShape
    rx = re.compile(CATEGORY_RX[name], re.ASCII if ascii_only else 0)
    return lambda ch: rx.match(ch) is not None
