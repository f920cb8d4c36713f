"""Rewrite ``.*`` chains into forms the backtracking engine runs in linear time.

The hook only asks *whether* a pattern occurs in a command (``search`` as a yes/no), never where.
That freedom makes the most common polynomial shape of real catalogues cheap. ``A.*B`` costs
``re`` a scan of the rest of the line for every place ``A`` matches, so a command holding ``A``
many times and no ``B`` costs the square of its length (``git.*push.*--force.*main`` took seconds
on a few kilobytes). For a yes/no answer it is enough to take, on each line, the *first* match of
``A`` and then the first ``B`` after it: a later ``A`` ends later and leaves less room, so if the
first one fails, every later one does. Written with atomic groups, which ``re`` never re-enters::

    (?<![^\\n])(?>.*?A)(?>.*?B)…(?>.*?Y).*?Z

The leading look-behind lets the search start only at the beginning of a line; each atomic group
then scans forward once. Each segment except the last must have a fixed width (so the first
match is also the one that ends first); a pattern whose segments do not qualify, or that uses
flags the rewrite cannot honour (``(?s)``, ``(?x)``), is returned unchanged and judged as written.

A trailing ``(?!.*X)`` ("``A`` not followed on its line by ``X``") is the mirror case: the
*last* ``A`` of the line is the one with the least text after it, so it is taken with a greedy
atomic scan, ``(?>.*A)(?!.*X)``, and the look-ahead runs once per line.

A leading ``.*`` and a trailing ``.*`` change nothing for a yes/no search and are dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from lessons_core.compiler.prefilter import sre_parse

#: Prepended to every rewritten branch: the search may start only where a line starts.
LINE_START = r"(?<![^\n])"

_LEADING_FLAGS = re.compile(r"^\(\?([aiLmsux]+)\)")


def hot_form(source: str) -> str:
    """``source`` rewritten so that its search costs linear time, or ``source`` itself.

    The result finds a match exactly when ``source`` does (it is only used as a yes/no answer).
    """
    flags = _LEADING_FLAGS.match(source)
    head = flags.group(0) if flags else ""
    if flags and ("s" in flags.group(1) or "x" in flags.group(1)):
        return source
    body = source[len(head) :]
    if re.search(r"\(\?[a-zA-Z]*[sx][a-zA-Z-]*[:)]", body):
        return source  # scoped dotall or verbose: '.' and spaces mean something else
    branches = _split(body, "|")
    if branches is None:
        return source
    out: list[str] = []
    changed = False
    fold = bool(flags and "i" in flags.group(1))
    for branch in branches:
        rewritten = _branch(branch, fold)
        changed = changed or rewritten != branch
        out.append(rewritten)
    if not changed:
        return source
    result = head + "|".join(out)
    try:
        re.compile(result)
    except re.error:
        return source
    return result


def _branch(branch: str, fold: bool) -> str:
    branch = _drop_trailing_star(branch)
    gap = _gap_of(branch)
    if gap is None:
        return branch
    cls, pieces = gap
    anchor = f"(?<!{cls})"

    def fits(segment: str) -> bool:
        return _fixed_width(segment) and _within(segment, cls, fold)

    if len(pieces) == 1:
        tail = _trailing_negative_lookahead(branch, ".*", fits)
        if tail is None or cls != "[^\\n]":
            return branch
        core, look = tail
        return f"{anchor}(?>.*{core}){look}"
    segments = list(pieces)
    if segments and segments[0] == "" and cls == "[^\\n]":
        segments = segments[1:]  # a leading .* says nothing for a yes/no search
    while len(segments) > 1 and segments[-1] == "":
        segments = segments[:-1]  # nor does a trailing gap
    if len(segments) == 1:
        return segments[0] if segments[0] else branch
    *middle, last = segments
    if not all(fits(s) for s in middle):
        return branch
    lazy = f"{cls}*?"
    parts = [anchor] + [f"(?>{lazy}{s})" for s in middle]
    negative = _trailing_negative_lookahead(last, ".*", fits) if cls == "[^\\n]" else None
    positive = _trailing_lookahead(last, "(?=" + _gap_text(pieces, branch), fits)
    if negative is not None:
        core, look = negative
        parts.append(f"(?>.*{core}){look}")
    elif positive is not None:
        core, look = positive
        parts.append(f"(?>{lazy}{core}){look}")
    else:
        parts.append(f"{lazy}{last}")
    return "".join(parts)


#: A gap between segments: ``.*`` (greedy or lazy) or a lazy negated class, never possessive.
_GAP = re.compile(r"\.[*+]\??|\[\^(?:\\.|[^\]\\])+\]\*\?")


def _gap_of(branch: str) -> tuple[str, list[str]] | None:
    """The branch's gap (as a class) and the segments between its top-level gaps: ``.*`` when
    the branch has one, else a lazy negated class when only one is used; else ``None``."""
    tokens = _tokens(branch)
    if tokens is None:
        return None
    top = {i for i, _c in tokens}
    found: list[tuple[int, int, str]] = []
    i = 0
    while i < len(branch):
        m = _GAP.match(branch, i)
        if m and i in top and branch[m.end() : m.end() + 1] not in ("+", "*", "?", "{"):
            if i == 0 or not _escaped(branch, i):
                found.append((m.start(), m.end(), m.group(0).rstrip("?").replace("+", "*")))
                i = m.end()
                continue
        if branch[i] == "\\":
            i += 2
        elif branch[i] == "[":
            i = _skip_class(branch, i)
        else:
            i += 1
    kinds = {g for _a, _b, g in found}
    if ".*" in kinds:  # the line is the run; a class gap is then part of a segment
        found = [f for f in found if f[2] == ".*"]
        kinds = {".*"}
    if len(kinds) > 1:
        return None
    if not found:
        return "[^\\n]", [branch]
    kind = kinds.pop()
    cls = "[^\\n]" if kind == ".*" else kind[:-1]
    pieces: list[str] = []
    start = 0
    for a, b, _g in found:
        # ``.+`` is one character, then ``.*``: the character joins the segment before it.
        pieces.append(branch[start:a] + ("." if branch[a + 1] == "+" else ""))
        start = b
    pieces.append(branch[start:])
    return cls, pieces


def _gap_text(pieces: list[str], branch: str) -> str:
    """The gap as written (for a look-ahead that repeats it)."""
    if len(pieces) < 2:
        return ".*"
    at = len(pieces[0])
    m = _GAP.match(branch, at)
    return m.group(0) if m else ".*"


def _escaped(text: str, i: int) -> bool:
    slashes = 0
    while i - slashes - 1 >= 0 and text[i - slashes - 1] == "\\":
        slashes += 1
    return slashes % 2 == 1


def _trailing_lookahead(
    segment: str, opener: str, fits: Callable[[str], bool]
) -> tuple[str, str] | None:
    """``(core, "(?=GAP…)")`` when ``segment`` is a fixed-width core ending in a look-ahead that
    starts with the branch's own gap: the first core leaves the most room for it."""
    if not segment.endswith(")"):
        return None
    start = _matching_open(segment, len(segment) - 1)
    if start is None or not segment.startswith(opener, start):
        return None
    core = segment[:start]
    if not core or not fits(core):
        return None
    return core, segment[start:]


def _trailing_negative_lookahead(
    segment: str, gap: str, fits: Callable[[str], bool]
) -> tuple[str, str] | None:
    """``(core, "(?!.*X)")`` when ``segment`` is a fitting core ending in such a look-ahead."""
    return _trailing_lookahead(segment, "(?!" + gap, fits)


def _within(segment: str, cls: str, fold: bool) -> bool:
    """Every character ``segment`` can take is one the gap takes too. Otherwise two matches of
    the segment that overlap can end on different sides of a character the gap cannot cross,
    and the first match is no longer the one that leaves the most room."""
    from lessons_core.compiler import regex_safety  # imports this module lazily

    try:
        taken = regex_safety.chars_in(list(sre_parse.parse(segment)), fold)
        gap = regex_safety.chars_in(list(sre_parse.parse(cls)), fold)
    except (re.error, RecursionError, OverflowError):
        return False
    return taken <= gap


_TRAILING_STAR = re.compile(r"(?:\[(?:\\.|[^\]\\])+\]|\\[wWsSdD]|\.)\*$")


def _drop_trailing_star(branch: str) -> str:
    """``X[^/]*`` → ``X``: a repeat that may match nothing at the very end changes no yes/no."""
    while True:
        found = _TRAILING_STAR.search(branch)
        if not found or found.start() == 0:
            return branch
        head = branch[: found.start()]
        if _tokens(head) is None or (head.endswith("\\") and not head.endswith("\\\\")):
            return branch
        if found.group(0).startswith("[") and _skip_class(branch, found.start()) != len(branch) - 1:
            return branch
        branch = head


def _fixed_width(segment: str) -> bool:
    if segment.startswith("(?:^|/)"):
        segment = segment[7:]  # only at the start or after a slash: the first match ends first
    if not segment:
        return True
    try:
        low, high = sre_parse.parse(segment).getwidth()
    except (re.error, RecursionError, OverflowError):
        return False
    return bool(low == high)


def _tokens(text: str) -> list[tuple[int, str]] | None:
    """The positions of top-level characters of ``text`` (outside groups and classes) with the
    token found there; ``None`` when the text is not balanced."""
    out: list[tuple[int, str]] = []
    depth = 0
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            if depth == 0:
                out.append((i, c))
            i = _skip_class(text, i)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                return None
        elif depth == 0:
            out.append((i, c))
        i += 1
    return None if depth else out


def _split(text: str, sep: str) -> list[str] | None:
    """``text`` split at its top-level ``sep`` (never inside a group or a class); ``None`` when
    the text is not balanced."""
    tokens = _tokens(text)
    if tokens is None:
        return None
    pieces: list[str] = []
    start = 0
    for i, c in tokens:
        if c == sep:
            pieces.append(text[start:i])
            start = i + 1
    pieces.append(text[start:])
    return pieces


def top_level_split(text: str, sep: str) -> list[str]:
    """``text`` split at its top-level ``sep``; unbalanced text is one piece."""
    return _split(text, sep) or [text]


def _skip_class(text: str, i: int) -> int:
    j = i + 1
    if j < len(text) and text[j] == "^":
        j += 1
    if j < len(text) and text[j] == "]":
        j += 1
    while j < len(text) and text[j] != "]":
        j += 2 if text[j] == "\\" else 1
    return j + 1


def _matching_open(text: str, close: int) -> int | None:
    """Where the group that ends at ``text[close]`` opens (top-level groups only)."""
    depth = 0
    i = 0
    opened: list[int] = []
    found: Any = None
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i = _skip_class(text, i)
            continue
        if c == "(":
            opened.append(i)
            depth += 1
        elif c == ")":
            depth -= 1
            if not opened:
                return None
            start = opened.pop()
            if i == close:
                found = start
        i += 1
    return found if isinstance(found, int) else None
