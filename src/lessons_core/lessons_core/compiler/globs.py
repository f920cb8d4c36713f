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
    body = _translate(text, 0, len(text), in_braces=False)[0]
    if text.startswith("/"):
        return "^" + body + "$"
    # Relative globs (with or without a "/") start at any directory boundary; for a bare
    # basename glob this is exactly "the file's name, in any directory".
    return "(?:^|/)" + body + "$"


def _translate(text: str, i: int, end: int, *, in_braces: bool) -> tuple[str, int]:
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
                    out.append("(?:.*/)?")
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
