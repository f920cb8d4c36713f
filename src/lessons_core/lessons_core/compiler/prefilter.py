"""Literal prefilters: a lowercase substring a regex cannot match without.

The hook checks ``literal in text.lower()`` before it compiles or runs a pattern, so most
patterns of a large catalogue cost one substring search per call. A literal is only recorded
when it is certain: the pattern is parsed with the standard library's regex parser and only
characters that every match must contain, in sequence, count:

* the top-level sequence of the pattern is walked; plain groups are entered (a group is a
  sequence too) and a repeat whose minimum is at least one contributes its body's literal;
* alternations, character classes, lookarounds and anything optional end the current run;
* the longest run wins; runs shorter than two characters are not worth a check (``None``).

Case: the literal is lowercased and compared with the lowercased text, which is exact for
case-sensitive patterns. For case-insensitive ones a handful of non-ASCII letters fold onto ASCII
ones (``ſ`` → ``s``, the Kelvin sign → ``k``), which ``str.lower`` does not do; such patterns are
marked ``fold`` and the hook skips the literal check for non-ASCII text.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

# The standard library's own regex parser (``re._parser`` since 3.11; ``sre_parse`` is its
# deprecated alias). Private, but stable in shape for two decades and the only exact parser.
sre_parse: Any = importlib.import_module("re._parser")
sre_constants: Any = importlib.import_module("re._constants")

MIN_LITERAL = 2

_LITERAL = sre_constants.LITERAL
_SUBPATTERN = sre_constants.SUBPATTERN
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


def required_literal(source: str) -> str | None:
    """The longest lowercase substring every match of ``source`` contains, or ``None``."""
    try:
        parsed = sre_parse.parse(source)
    except (re.error, RecursionError):
        return None
    runs: list[str] = []
    current: list[str] = []
    _walk(list(parsed), current, runs)
    runs.append("".join(current))
    best = max(runs, key=len, default="")
    if len(best) < MIN_LITERAL:
        return None
    return best.lower()


def _walk(items: list[tuple[Any, Any]], current: list[str], runs: list[str]) -> None:
    for op, arg in items:
        if op is _LITERAL:
            current.append(chr(arg))
        elif op is _SUBPATTERN:
            # (group, add_flags, del_flags, pattern); a scoped flag change ends the run
            # conservatively only when it turns case-insensitivity off, which cannot matter
            # for a lowercased literal, so the group is read as a plain sequence.
            _walk(list(arg[3]), current, runs)
        elif _ATOMIC is not None and op is _ATOMIC:
            _walk(list(arg), current, runs)
        elif op in _REPEATS:
            low, _high, body = arg
            _flush(current, runs)
            if low >= 1:
                inner: list[str] = []
                _walk(list(body), inner, runs)
                runs.append("".join(inner))
            _flush(current, runs)
        else:
            _flush(current, runs)


def _flush(current: list[str], runs: list[str]) -> None:
    if current:
        runs.append("".join(current))
        current.clear()
