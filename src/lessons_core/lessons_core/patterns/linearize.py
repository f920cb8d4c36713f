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
from typing import Any

from lessons_core.patterns import syntax
from lessons_core.patterns.charsets import chars_in, skip_class
from lessons_core.patterns.syntax import sre_constants

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
    dot = cls == "[^\\n]"

    def step(segment: str, scan: str) -> str | None:
        """``segment`` found by ``scan`` once and for all, or ``None`` if that is not exact."""
        if not _within(segment, cls, fold):
            return None
        if _fixed_width(segment):
            return f"(?>{scan}{segment})"
        if _non_overlapping(segment, fold):
            return f"(?>{scan}(?={segment})){segment}"
        return None

    def at_last(core: str, look: str) -> str | None:
        """``core`` then ``look`` (``(?!.*X)``), tried on the last match of ``core`` only."""
        if _within(core, cls, fold) and _fixed_width(core):
            return f"(?>.*{core}){look}"
        if not _non_overlapping(core, fold):
            return None
        whole = f"(?>.*(?={core})){core}{look}"
        if _within(core, cls, fold):
            return whole
        # The core can run on to the next line, where the look-ahead reads another line. Its
        # last start on this line, with every end it has, covers a match that does; the last
        # start of a match that stays on this line covers every match that does.
        local = _on_one_line(core)
        if local is None or not _within(local, cls, fold):
            return None
        return f"(?:{whole}|(?>.*(?={local})){local}{look})"

    if len(pieces) == 1:
        tail = _trailing_lookahead(branch, "(?!.*")
        found = at_last(*tail) if tail is not None and dot else None
        if found is not None:
            return anchor + found
        return _first_then_lookahead(branch, fold) or branch
    segments = list(pieces)
    if segments and segments[0] == "" and dot:
        segments = segments[1:]  # a leading .* says nothing for a yes/no search
    while len(segments) > 1 and segments[-1] == "":
        segments = segments[:-1]  # nor does a trailing gap
    if len(segments) == 1:
        return segments[0] if segments[0] else branch
    *middle, last = segments
    lazy = f"{cls}*?"
    steps = [step(s, lazy) for s in middle]
    if any(s is None for s in steps):
        return branch
    parts = [anchor, *(s for s in steps if s is not None)]
    negative = _trailing_lookahead(last, "(?!.*") if dot else None
    positive = _trailing_lookahead(last, "(?=" + _gap_text(pieces, branch))
    if negative is not None and (found := at_last(*negative)) is not None:
        parts.append(found)  # the last match leaves the least text after it
    elif positive is not None and (found := step(positive[0], lazy)) is not None:
        parts.append(found + positive[1])  # the first match leaves the most
    else:
        parts.append(f"{lazy}{last}")
    return "".join(parts)


def _first_then_lookahead(branch: str, fold: bool) -> str | None:
    """``core(?=G…)`` with ``G`` a gap (one look-ahead or several, each starting with the same
    gap): the first ``core`` of a run of ``G``'s characters leaves the most room for them, so
    it alone is tried."""
    tail = _trailing_lookaheads(branch)
    if tail is None:
        return None
    core, look, written = tail
    cls = "[^\\n]" if written == ".*" else written[:-1]
    anchor = f"(?<!{cls})"
    if _within(core, cls, fold):
        if _fixed_width(core):
            return f"{anchor}(?>{cls}*?{core}){look}"
        if _non_overlapping(core, fold):
            return f"{anchor}(?>{cls}*?(?={core})){core}{look}"
        return None
    if cls != "[^\\n]" or not _non_overlapping(core, fold):
        return None
    # A core that can run on to the next line: only the last start of a line can, so that one is
    # tried with every end it has, and the first start of a match that stays on the line.
    local = _on_one_line(core)
    if local is None or not _within(local, cls, fold):
        return None
    return f"{anchor}(?:(?>.*(?={core})){core}{look}|(?>[^\\n]*?(?={local})){local}{look})"


def _trailing_lookaheads(branch: str) -> tuple[str, str, str] | None:
    """``(core, looks, gap)`` when ``branch`` ends in positive look-aheads that all start with
    the same gap (``.*`` or a lazy negated class)."""
    core, looks, gap = branch, "", None
    while True:
        tail = _trailing_lookahead(core, "(?=")
        if tail is None:
            break
        found = _GAP.match(tail[1], 3)
        if found is None:
            return None
        written = found.group(0).rstrip("?").replace("+", "*")
        if gap is not None and written != gap:
            return None
        core, looks, gap = tail[0], tail[1] + looks, written
    if gap is None or not core:
        return None
    return core, looks, gap


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
        # A top-level position is never escaped (escapes are skipped while finding them).
        if m and i in top and branch[m.end() : m.end() + 1] not in ("+", "*", "?", "{"):
            found.append((m.start(), m.end(), m.group(0).rstrip("?").replace("+", "*")))
            i = m.end()
            continue
        if branch[i] == "\\":
            i += 2
        elif branch[i] == "[":
            i = skip_class(branch, i)
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


def _trailing_lookahead(segment: str, opener: str) -> tuple[str, str] | None:
    """``(core, look)`` when ``segment`` ends in a look-ahead that starts with ``opener``."""
    if not segment.endswith(")"):
        return None
    start = _matching_open(segment, len(segment) - 1)
    if start is None or not segment.startswith(opener, start) or start == 0:
        return None
    return segment[:start], segment[start:]


def _non_overlapping(segment: str, fold: bool) -> bool:
    """No match of ``segment`` can begin inside another: it starts with a literal character that
    nothing after it can take. Then matches are ordered by their starts, so the first start
    also has the first end and the last start the last end."""
    try:
        items = list(syntax.parse(segment))
    except (re.error, RecursionError, OverflowError):
        return False
    c = sre_constants
    while items and items[0][0] is c.AT:
        items = items[1:]
    if not items or items[0][0] is not c.LITERAL:
        return False
    first = {chr(items[0][1])}
    if fold:
        first |= {ch.lower() for ch in first} | {ch.upper() for ch in first}
    return not (first & chars_in(items[1:], fold))


#: Every ``\s`` character but the newline, for use inside a character class.
_SPACE_NOT_NEWLINE = (
    "\\t\\x0b\\x0c\\r \\x1c-\\x1f\\x85\\xa0\\u1680"
    "\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"
)


def _on_one_line(segment: str) -> str | None:
    """``segment`` with every part that could take a newline made not to; ``None`` when that is
    not done here (a caller checks the result with :func:`_within`)."""
    out: list[str] = []
    i = 0
    while i < len(segment):
        c = segment[i]
        if c == "\\":
            two = segment[i : i + 2]
            out.append({"\\s": "[^\\S\\n]", "\\D": "[^\\d\\n]", "\\W": "[^\\w\\n]"}.get(two, two))
            i += 2
            continue
        if c == "[":
            end = skip_class(segment, i)
            body = segment[i + 1 : end - 1]
            if body.startswith("^"):
                out.append("[^\\n" + body[1:] + "]")
            else:
                out.append("[" + body.replace("\\s", _SPACE_NOT_NEWLINE) + "]")
            i = end
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _within(segment: str, cls: str, fold: bool) -> bool:
    """Every character ``segment`` can take is one the gap takes too. Otherwise two matches of
    the segment that overlap can end on different sides of a character the gap cannot cross,
    and the first match is no longer the one that leaves the most room.

    The gap's characters are known only among the probe characters, while a segment's literals
    can be any (``\\u3000`` of a ``\\s`` written out for one line): those are asked of the gap
    itself."""
    try:
        taken = chars_in(list(syntax.parse(segment)), fold)
        gap = chars_in(list(syntax.parse(cls)), fold)
    except (re.error, RecursionError, OverflowError):
        return False
    flags = re.IGNORECASE if fold else 0
    return all(re.fullmatch(cls, ch, flags) for ch in taken - gap)


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
        if found.group(0).startswith("[") and skip_class(branch, found.start()) != len(branch) - 1:
            return branch
        branch = head


def _fixed_width(segment: str) -> bool:
    if segment.startswith("(?:^|/)"):
        segment = segment[7:]  # only at the start or after a slash: the first match ends first
    if not segment:
        return True
    try:
        low, high = syntax.parse(segment).getwidth()
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
            i = skip_class(text, i)
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


def _matching_open(text: str, close: int) -> int | None:
    """Where the group that ends at ``text[close]`` opens (top-level groups only)."""
    i = 0
    opened: list[int] = []
    found: Any = None
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i = skip_class(text, i)
            continue
        if c == "(":
            opened.append(i)
        elif c == ")":
            if not opened:
                return None
            start = opened.pop()
            if i == close:
                found = start
        i += 1
    return found if isinstance(found, int) else None
