"""What characters a parsed pattern can take, and where a character class ends.

The safety rules (:mod:`~lessons_core.patterns.regex_safety`) and the rewriter of ``.*`` chains
(:mod:`~lessons_core.patterns.linearize`) both ask these questions; the answers live here,
below both, so that neither imports the other.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from lessons_core.patterns.syntax import sre_constants

REPEATS = {sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT}
POSSESSIVE = getattr(sre_constants, "POSSESSIVE_REPEAT", None)
ATOMIC = getattr(sre_constants, "ATOMIC_GROUP", None)

#: Characters the first-character analysis tries: ASCII, Latin-1, and a few others.
PROBES = [chr(c) for c in range(256)] + ["\u0100", "\u03b1", "\u0416", "\u2028", "\u4e00"]
ALL = frozenset(PROBES)


CATEGORY_RX = {
    "CATEGORY_DIGIT": r"\d",
    "CATEGORY_NOT_DIGIT": r"\D",
    "CATEGORY_SPACE": r"\s",
    "CATEGORY_NOT_SPACE": r"\S",
    "CATEGORY_WORD": r"\w",
    "CATEGORY_NOT_WORD": r"\W",
}


@functools.cache
def _category(name: str) -> frozenset[str]:
    """The probe characters of a category (``\\d``, ``\\w``, …): a handful of names, asked
    tens of thousands of times by a large build, so each is worked out once."""
    rx = re.compile(CATEGORY_RX.get(name, r"[\s\S]"))
    return frozenset(p for p in PROBES if rx.match(p))


def class_members(items: list[tuple[Any, Any]]) -> frozenset[str]:
    """The probe characters a parsed character class (``[...]``) takes."""
    c = sre_constants
    members: set[str] = set()
    negate = False
    for op, arg in items:
        if op is c.NEGATE:
            negate = True
        elif op is c.LITERAL:
            members.add(chr(arg))
        elif op is c.RANGE or str(op).startswith("RANGE"):
            low, high = arg
            members.update(p for p in PROBES if low <= ord(p) <= high)
        elif op is c.CATEGORY:
            members.update(_category(str(arg)))
        else:
            members.update(ALL)
    return ALL - members if negate else frozenset(members)


def folded(chars: set[str] | frozenset[str], fold: bool) -> frozenset[str]:
    """``chars`` with both cases of each when the pattern ignores case (``fold``)."""
    if not fold:
        return frozenset(chars)
    out = set(chars)
    for ch in chars:
        out.add(ch.lower())
        out.add(ch.upper())
    return frozenset(out)


def chars_of(op: Any, arg: Any, fold: bool) -> frozenset[str]:
    """The characters one single-character item (literal, ``.``, class) can take."""
    c = sre_constants
    if op is c.LITERAL:
        return folded({chr(arg)}, fold)
    if op is c.NOT_LITERAL:
        return ALL - folded({chr(arg)}, fold)
    if op is c.ANY:
        return ALL - {"\n"}
    return folded(class_members(arg), fold)


def chars_in(items: list[tuple[Any, Any]], fold: bool) -> frozenset[str]:
    """Every character a match of ``items`` can consume (an over-estimate is safe)."""
    c = sre_constants
    out: set[str] = set()
    for op, arg in items:
        if op in (c.LITERAL, c.NOT_LITERAL, c.ANY, c.IN):
            out |= chars_of(op, arg, fold)
        elif op is c.SUBPATTERN:
            out |= chars_in(list(arg[3]), fold or bool(arg[1] & re.IGNORECASE))
        elif op is c.BRANCH:
            for branch in arg[1]:
                out |= chars_in(list(branch), fold)
        elif op in REPEATS or (POSSESSIVE is not None and op is POSSESSIVE):
            out |= chars_in(list(arg[2]), fold)
        elif ATOMIC is not None and op is ATOMIC:
            out |= chars_in(list(arg), fold)
        elif op in (c.GROUPREF, c.GROUPREF_EXISTS):
            out |= ALL
    return frozenset(out)


def skip_class(source: str, i: int) -> int:
    """The index just past the character class that opens at ``source[i]`` (``[``)."""
    j = i + 1
    if j < len(source) and source[j] == "^":
        j += 1
    if j < len(source) and source[j] == "]":
        j += 1
    while j < len(source) and source[j] != "]":
        j += 2 if source[j] == "\\" else 1
    return j + 1
