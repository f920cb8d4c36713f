"""Path globs → regular-expression sources, done once at build time.

The hook process then runs a compiled regex instead of a glob engine. Rules:

* ``**`` crosses directory separators (``**/`` also matches no directory at all);
* ``*`` and ``?`` stay within one path segment;
* ``[abc]``, ``[a-z]``, ``[!abc]`` are character classes (never matching ``/``);
* ``{a,b}`` is an alternation (nesting allowed, each branch is itself a glob);
* a glob without ``/`` matches the file's basename in any directory (``*.py``);
* a glob starting with ``/`` is anchored at the root; any other glob with a ``/`` may start at
  any directory boundary (``src/**/*.py`` matches ``/home/me/app/src/x/y.py``).

Paths are compared with ``/`` separators (the hook turns Windows backslashes into ``/``).

A run of ``**/`` is one ``**/`` (``**/**/x`` means ``**/x``). A glob with ``**/`` between other
parts becomes a regex that ``re`` runs in linear time on any path: on each line, the first place
where the part before a ``**/`` matches is taken once and for all (``(?>…)``, never re-entered),
then the first place for the next part, because an earlier match always leaves at least as much
room for the rest. ``src/**/test/**/*.py`` written the plain way costs the square of the path's
length on a path repeating ``src/``; see docs/patterns.md.
"""

from __future__ import annotations

import re

from lessons_core.errors import LessonsError


class GlobError(LessonsError):
    """A path glob that cannot be translated (unbalanced brackets or braces)."""


def glob_to_regex(glob: str) -> str:
    """Return a regex source that ``re.search`` matches against an absolute path."""
    if not glob:
        raise GlobError("empty path glob")
    text = glob.replace("\\", "/")
    while "**/**/" in text:
        text = text.replace("**/**/", "**/")
    body = _translate(text, 0, len(text), in_braces=False)[0]
    # Relative globs (with or without a "/") start at any directory boundary; for a bare
    # basename glob this is exactly "the file's name, in any directory".
    anchor = "^" if text.startswith("/") else "(?:^|/)"
    pieces = body.split(_GLOBSTAR)
    if pieces[0] == "" and anchor != "^":
        pieces = pieces[1:]  # a leading **/ is "at any directory boundary" already
        pieces[0] = pieces[0] if pieces else ""
    if len(pieces) == 1 or _BRACED_SLASH.search(text):
        return anchor + _ANY_DIRS.join(pieces) + "$"
    head, *middle, last = pieces
    parts = [_LINE_START, f"(?>.*?{anchor}{head})"]
    parts += [f"(?>(?:.*?/)??{piece})" for piece in middle]
    parts.append(f"{_ANY_DIRS}{last}$")
    return "".join(parts)


#: ``**/``: any number of directories, none included.
_ANY_DIRS = "(?:.*/)?"
#: Marks a top-level ``**/`` in a translation, to split it there.
_GLOBSTAR = "\x00"
_LINE_START = r"(?<![^\n])"
#: Braces with a ``/`` inside make a part's width vary; such globs keep the plain translation.
_BRACED_SLASH = re.compile(r"\{[^}]*/")


def _translate(text: str, i: int, end: int, *, in_braces: bool) -> tuple[str, int]:
    """``text[i:end]`` as a regex; a top-level ``**/`` is left as the ``_GLOBSTAR`` mark."""
    out: list[str] = []
    while i < end:
        c = text[i]
        if c == "*":
            if text.startswith("**", i):
                j = i + 2
                while j < end and text[j] == "*":
                    j += 1
                at_start = i == 0 or text[i - 1] in "/{,"
                if at_start and j < end and text[j] == "/":
                    out.append(_ANY_DIRS if in_braces else _GLOBSTAR)
                    i = j + 1
                else:
                    out.append(".*")
                    i = j
            else:
                out.append("[^/]*")
                i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            cls, i = _char_class(text, i, end)
            out.append(cls)
        elif c == "{":
            alt, i = _braces(text, i + 1, end)
            out.append(alt)
        elif in_braces and c in ",}":
            return "".join(out), i
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out), i


def _char_class(text: str, i: int, end: int) -> tuple[str, int]:
    j = i + 1
    negate = j < end and text[j] in "!^"
    if negate:
        j += 1
    start = j
    if j < end and text[j] == "]":
        j += 1
    while j < end and text[j] != "]":
        j += 1
    if j >= end:
        raise GlobError(f"unclosed '[' in path glob {text!r}")
    members = text[start:j].replace("\\", "\\\\").replace("^", "\\^").replace("[", "\\[")
    members = members.replace("/", "")
    if not members:
        raise GlobError(f"empty character class in path glob {text!r}")
    return ("[^/" + members + "]" if negate else "[" + members + "]"), j + 1


def _braces(text: str, i: int, end: int) -> tuple[str, int]:
    branches: list[str] = []
    while True:
        branch, i = _translate(text, i, end, in_braces=True)
        branches.append(branch)
        if i >= end:
            raise GlobError(f"unclosed '{{' in path glob {text!r}")
        if text[i] == "}":
            return "(?:" + "|".join(branches) + ")", i + 1
        i += 1  # a comma: next branch
