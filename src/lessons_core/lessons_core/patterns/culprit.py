"""Which part of a refused pattern is at fault, in the user's own notation, and a rewrite.

The safety rules (:mod:`lessons_core.patterns.regex_safety`) judge the parsed pattern, which has
lost the text the user wrote. A refusal is only useful when it points at the text, so this
module finds the repeated group that breaks the rule by scanning the pattern as written, and
offers a rewrite of it when one is known to match exactly the same text:

* a repeat of a single repeated character or class, ``(a+)+`` or ``(?:\\d+)*``, is that
  character repeated once: ``a+``, ``\\d*``;
* a repeated run and an optional separator, ``(\\w+\\s?)+``, when no character is both, is the
  run followed by separated runs: ``\\w+(?:\\s\\w+)*\\s?``;
* a repeated alternation of single characters or classes, ``(\\w|\\d)+``, is one class:
  ``[\\w\\d]+``.

A rewrite is offered only when the whole pattern, so rewritten, is accepted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from lessons_core.patterns import charsets, regex_safety, syntax
from lessons_core.patterns.syntax import sre_constants

#: A quantifier as written, with its laziness or possessiveness.
_QUANTIFIER = re.compile(r"(?:[*+?]|\{(\d*)(?:(,)(\d*))?\})([?+]?)")
#: One character or class as written: an escape, a class, or a plain character.
_ATOM = re.compile(r"\\[^\d]|\[(?:\\.|[^\]\\])+\]|[^\\()\[\]|*+?{}^$]")
_CLASS_ESCAPES = frozenset("wWdDsS")


def locate(source: str, reason: str) -> tuple[str | None, str | None]:
    """The part of ``source`` that breaks the rule ``reason`` names, and an accepted rewrite of
    the whole pattern (each ``None`` when not found)."""
    numbered = bool(re.search(r"\\[1-9]|\(\?P=", source))  # groups must keep their numbers
    for start, end, body, quantifier in _repeated_groups(source):
        if not _breaks(source[start:end], body, reason):
            continue
        part = source[start:end]
        replacement = None if numbered else _rewrite(body, quantifier)
        if replacement is None:
            return part, None
        candidate = source[:start] + replacement + source[end:]
        if regex_safety.judge(candidate, measure=False).reason is None:
            return part, candidate
        return part, None
    return None, None


def _breaks(group: str, body: str, reason: str) -> bool:
    """Whether ``group`` (a repeated group as written) alone breaks the rule of ``reason``."""
    try:
        items = list(syntax.parse(group))
    except (re.error, RecursionError, OverflowError):
        return "back-reference" in reason and bool(re.search(r"\\[1-9]|\(\?P=", body))
    if "nested quantifiers" in reason or "back-reference" in reason:
        return regex_safety._walk(items, counting=False) is not None
    if "alternation" in reason:
        return regex_safety._check_alternations(group, 0) is not None
    if "match nothing" in reason or "multiply" in reason or "same text" in reason:
        return regex_safety.ambiguity(group)[0] is not None
    return False


def _repeated_groups(source: str) -> Iterator[tuple[int, int, str, str]]:
    """Every group followed by a quantifier, outermost first: ``(start, end, body,
    quantifier)``, where ``source[start:end]`` is the group with its quantifier."""
    found: list[tuple[int, int, str, str]] = []
    stack: list[tuple[int, int]] = []
    i = 0
    while i < len(source):
        c = source[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i = charsets.skip_class(source, i)
            continue
        if c == "(":
            body_start, _kind = regex_safety._group_prefix(source, i)
            stack.append((i, body_start))
            i = body_start
            continue
        if c == ")" and stack:
            start, body_start = stack.pop()
            quantifier = _QUANTIFIER.match(source, i + 1)
            if quantifier:
                found.append((start, quantifier.end(), source[body_start:i], quantifier.group(0)))
        i += 1
    yield from sorted(found)


def _rewrite(body: str, quantifier: str) -> str | None:
    """An exact, unambiguous form of ``(body)quantifier``, or ``None``."""
    outer = _bounds(quantifier)
    if outer is None:
        return None
    single = _single_repeat(body)
    if single is not None:
        atom, inner = single
        if inner[1] is not None or inner[0] > 1:
            return None
        low = 0 if inner[0] == 0 or outer[0] == 0 else outer[0]
        return atom + ("*" if low == 0 else "+" if low == 1 else f"{{{low},}}")
    run = _run_and_separator(body)
    if run is not None and outer[1] is None and outer[0] <= 1:
        atom, separator = run
        whole = f"{atom}+(?:{separator}{atom}+)*{separator}?"
        return whole if outer[0] == 1 else f"(?:{whole})?"
    members = _class_of_alternatives(body)
    if members is not None:
        return f"[{members}]{quantifier}"
    return None


def _bounds(quantifier: str) -> tuple[int, int | None] | None:
    """``(low, high)`` of a greedy quantifier (``high`` ``None`` when unbounded)."""
    found = _QUANTIFIER.fullmatch(quantifier)
    if found is None or found.group(4):
        return None  # lazy or possessive: leave it to the user
    text = quantifier
    if text == "*":
        return 0, None
    if text == "+":
        return 1, None
    if text == "?":
        return 0, 1
    low = int(found.group(1) or 0)
    if not found.group(2):
        return low, low
    return low, int(found.group(3)) if found.group(3) else None


def _single_repeat(body: str) -> tuple[str, tuple[int, int | None]] | None:
    """``(atom, bounds)`` when ``body`` is one character or class under one quantifier."""
    atom = _ATOM.match(body)
    if atom is None:
        return None
    bounds = _bounds(body[atom.end() :])
    if bounds is None:
        return None
    return atom.group(0), bounds


def _run_and_separator(body: str) -> tuple[str, str] | None:
    """``(atom, separator)`` when ``body`` is ``atom+separator?`` and no character is both."""
    atom = _ATOM.match(body)
    if atom is None or not body.startswith("+", atom.end()):
        return None
    rest = body[atom.end() + 1 :]
    separator = _ATOM.match(rest)
    if separator is None or rest[separator.end() :] != "?":
        return None
    if _chars(atom.group(0)) & _chars(separator.group(0)):
        return None
    return atom.group(0), separator.group(0)


def _class_of_alternatives(body: str) -> str | None:
    """The inside of one character class matching what the alternatives of ``body`` match,
    when each alternative is one character or a (non-negated) class."""
    branches = body.split("|")
    if len(branches) < 2:
        return None
    inside: list[str] = []
    for branch in branches:
        atom = _ATOM.fullmatch(branch)
        if atom is None:
            return None
        text = atom.group(0)
        if text == "." or text.startswith("[^"):
            return None
        if text.startswith("["):
            inside.append(text[1:-1])
        elif text.startswith("\\"):
            if text[1] not in _CLASS_ESCAPES and text[1].isalnum():
                return None  # \b, \A and the like are not characters
            inside.append(text)
        else:
            inside.append(re.escape(text) if text in "]\\^-" else text)
    return "".join(dict.fromkeys(inside))


def _chars(atom: str) -> frozenset[str]:
    try:
        items: list[tuple[Any, Any]] = list(syntax.parse(atom))
    except (re.error, RecursionError, OverflowError):
        return charsets.ALL
    if not items or items[0][0] is sre_constants.AT:
        return charsets.ALL
    return charsets.chars_in(items, False)
