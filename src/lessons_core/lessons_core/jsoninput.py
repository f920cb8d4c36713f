"""JSON read from the user (files, stdin, ``config.json``): every way it can be bad is one error.

``json.loads`` fails in more ways than ``JSONDecodeError``: nesting deeper than the interpreter's
recursion limit raises ``RecursionError``, an integer of more than 4300 digits ``ValueError``,
and what it accepts can still break the code after it: a document nested a few hundred levels
deep exhausts the stack of whatever walks it next, and a ``\\ud800`` escape yields a string that
cannot be encoded (SQLite, stdout). :func:`loads` turns all of these into ``JSONDecodeError``, so
each caller's existing ``except json.JSONDecodeError`` names the input and the problem, and the
command prints ``Error: …`` instead of a traceback.

JSON Lines go both ways (``export``/``import``, ``--json`` output): :func:`json_lines` splits a
text where JSON Lines end a line and nowhere else, and :func:`dumps_line` writes a line that
every reader takes as one.
"""

from __future__ import annotations

import json
from typing import Any

#: Deeper than any lesson, export line, Node manifest or configuration needs (they nest four or
#: five levels), far below the interpreter's recursion limit.
MAX_DEPTH = 64


def loads(text: str) -> Any:
    """``json.loads(text)``, with every failure a :class:`json.JSONDecodeError`."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise json.JSONDecodeError(f"nested deeper than {MAX_DEPTH} levels", text, 0) from None
    except ValueError as exc:  # e.g. an integer longer than the conversion limit
        raise json.JSONDecodeError(str(exc).split(";")[0], text, 0) from None
    problem = _problem(value)
    if problem:
        raise json.JSONDecodeError(problem, text, 0)
    return value


def _problem(value: Any) -> str | None:
    """Why a parsed document is unusable: too deep, or a string that is not valid Unicode."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and not _encodable(item):
                return "a string holds a lone surrogate escape (not valid Unicode)"
        elif isinstance(item, (dict, list)):
            if depth > MAX_DEPTH:
                return f"nested deeper than {MAX_DEPTH} levels"
            if isinstance(item, dict):
                stack.extend((key, depth) for key in item)
                stack.extend((v, depth + 1) for v in item.values())
            else:
                stack.extend((v, depth + 1) for v in item)
    return None


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def json_lines(text: str) -> list[str]:
    """The lines of a JSON Lines text: split at line feeds only (a carriage return before one
    dropped).

    ``str.splitlines`` also breaks at U+0085, U+2028, U+2029 and a few control characters, which
    JSON allows unescaped inside a string: a lesson whose summary holds one would be cut in two
    and refused."""
    return [line.removesuffix("\r") for line in text.split("\n")]


def dumps_line(obj: Any) -> str:
    """``obj`` as one JSON Lines line, readable (no ASCII escapes) yet one line for every
    reader: the separators ``str.splitlines`` and JavaScript break at are written escaped."""
    line = json.dumps(obj, ensure_ascii=False)
    for char, escaped in _LINE_BREAKS:
        line = line.replace(char, escaped)
    return line


#: Characters JSON leaves unescaped in a string that some readers take as a line break (an
#: escaped form is only ever inside a string, where it decodes to the same character).
_LINE_BREAKS = (("\x85", "\\u0085"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029"))
