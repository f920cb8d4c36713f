"""Literal prefilters: a lowercase substring a regex cannot match without.

The hook checks ``literal in text.lower()`` before it compiles or runs a pattern, so most
patterns of a large catalogue cost one substring search per call. A literal is only recorded
when it is certain: the pattern is parsed with the standard library's regex parser and only
characters that every match must contain, in sequence, count:

* the top-level sequence of the pattern is walked; plain groups are entered (a group is a
  sequence too) and a repeat whose minimum is at least one contributes its body's literal;
* an alternation whose every branch has a required substring yields an *any-of* list (at
  most eight entries): ``\\b(node|npx|tsx)\\b`` → ``["node", "npx", "tsx"]``;
* character classes, lookarounds and anything optional end the current run;
* the longest certain substring wins (a list counts as long as its shortest entry); anything
  shorter than two characters is not worth a check (``None``).

Only ASCII characters are used: ``str.lower`` is not always character by character outside
ASCII (a capital sigma lowers differently at the end of a word), so a non-ASCII character ends
the run. Case: the literal is lowercased and compared with the lowercased text, which is exact
for case-sensitive patterns. For case-insensitive ones a handful of non-ASCII letters fold onto
ASCII ones (``ſ`` → ``s``, the Kelvin sign → ``k``), which ``str.lower`` does not do; such
patterns are marked ``fold`` and the hook skips the literal check for non-ASCII text.
"""

from __future__ import annotations

import re
from typing import Any

from lessons_core.patterns import syntax
from lessons_core.patterns.syntax import sre_constants

MIN_LITERAL = 2
MAX_ALTERNATIVES = 8

_LITERAL = sre_constants.LITERAL
_SUBPATTERN = sre_constants.SUBPATTERN
_BRANCH = sre_constants.BRANCH
_REPEATS = {sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT}
if hasattr(sre_constants, "POSSESSIVE_REPEAT"):
    _REPEATS.add(sre_constants.POSSESSIVE_REPEAT)
_ATOMIC = getattr(sre_constants, "ATOMIC_GROUP", None)


def folds_case(source: str) -> bool:
    """True when the pattern matches case-insensitively anywhere (flag or inline group)."""
    try:
        compiled = re.compile(source)
    except re.error:
        return False
    return bool(compiled.flags & re.IGNORECASE) or ("(?" in source and "i" in _inline_flags(source))


def _inline_flags(source: str) -> str:
    flags = []
    for match in re.finditer(r"\(\?([aiLmsux-]+)[:)]", source):
        flags.append(match.group(1).split("-")[0])
    return "".join(flags)


def required_literal(source: str) -> str | list[str] | None:
    """What every match of ``source`` contains, lowercased: one substring, a short list of
    substrings of which at least one occurs (from an alternation), or ``None``."""
    try:
        parsed = syntax.parse(source)
    except (re.error, RecursionError):
        return None
    best = _best(list(parsed))
    if best is None or _quality(best) < MIN_LITERAL:
        return None
    return best.lower() if isinstance(best, str) else sorted({b.lower() for b in best})


Required = str | list[str]


def _quality(value: Required) -> int:
    if isinstance(value, str):
        return len(value)
    return min((len(v) for v in value), default=0)


def _best(items: list[tuple[Any, Any]]) -> Required | None:
    options: list[Required] = []
    current: list[str] = []
    _walk(items, current, options)
    _flush(current, options)
    if not options:
        return None
    # The longest certain substring wins; a plain substring beats an any-of list of equal length.
    return max(options, key=lambda v: (_quality(v), isinstance(v, str)))


def _walk(items: list[tuple[Any, Any]], current: list[str], options: list[Required]) -> None:
    for op, arg in items:
        if op is _LITERAL and arg < 128:
            current.append(chr(arg))
        elif op is _SUBPATTERN:
            # A group is a sequence too; scoped flags cannot matter for a lowercased literal.
            _walk(list(arg[3]), current, options)
        elif _ATOMIC is not None and op is _ATOMIC:
            _walk(list(arg), current, options)
        elif op in _REPEATS:
            low, _high, body = arg
            _flush(current, options)
            if low >= 1:
                inner = _best(list(body))
                if inner is not None:
                    options.append(inner)
        elif op is _BRANCH:
            _flush(current, options)
            alternatives: set[str] = set()
            for branch in arg[1]:
                found = _best(list(branch))
                if found is None or _quality(found) < MIN_LITERAL:
                    alternatives = set()
                    break
                alternatives.update([found] if isinstance(found, str) else found)
            if alternatives and len(alternatives) <= MAX_ALTERNATIVES:
                options.append(sorted(alternatives))
        else:
            _flush(current, options)


def _flush(current: list[str], options: list[Required]) -> None:
    if current:
        options.append("".join(current))
        current.clear()
