"""Codex's code mode: tool calls made from a short script the model writes.

In code mode the model calls one custom tool, ``exec``, whose input is a JavaScript snippet
that calls the real tools itself::

    const r = await tools.exec_command({cmd: "pnpm test", "workdir": "/w/app"});
    text(JSON.stringify(r));

and whose output is ``Script completed``, the wall time, ``Output:`` and whatever the script
printed: with ``JSON.stringify(r)`` the tool's own result (``exit_code``, ``output``, or
``session_id`` while the process still runs). A script that makes exactly one tool call with a
literal object is that call: the reader reads it as the inner tool with those arguments, and
its output as that tool's output, so a failed command in code mode is a failed command. A
script that does more (several calls, a loop, computed arguments) stays an ``exec`` call.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: The one tool a code-mode script is run by.
SCRIPT_TOOL = "exec"
_TOOL_CALL = re.compile(r"\btools\.(\w+)\(\s*(?=\{)")
_HEADER = re.compile(r"\AScript completed\nWall time [\d.]+ \w+\nOutput:\n")
#: A bare key of a JavaScript object literal: ``{cmd: …`` or ``, workdir: …``.
_BARE_KEY = re.compile(r"([{,]\s*)([A-Za-z_$][\w$]*)(\s*:)")


def script_call(script: str) -> tuple[str, dict[str, Any]] | None:
    """The tool and arguments of a script that makes exactly one tool call with a literal
    object (``tools.exec_command({...})``), or ``None``."""
    calls = list(_TOOL_CALL.finditer(script))
    if len(calls) != 1:
        return None
    literal = _object_at(script, calls[0].end())
    if literal is None:
        return None
    try:
        args = json.loads(_quote_keys(literal))
    except (ValueError, RecursionError):
        return None
    return (calls[0].group(1), args) if isinstance(args, dict) else None


def _object_at(text: str, start: int) -> str | None:
    """The balanced ``{…}`` starting at ``start`` (double-quoted strings skipped whole)."""
    depth = 0
    i = start
    while i < len(text):
        char = text[i]
        if char == '"':
            i = _string_end(text, i)
            if i < 0:
                return None
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
        i += 1
    return None


def _string_end(text: str, start: int) -> int:
    """The index of the quote that closes the string opened at ``start`` (``-1``: none)."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i
        i += 1
    return -1


def _quote_keys(literal: str) -> str:
    """The object literal as JSON: bare keys quoted, strings left as they are."""
    out: list[str] = []
    last = 0
    i = 0
    while i < len(literal):
        if literal[i] == '"':
            end = _string_end(literal, i)
            if end < 0:
                break
            out.append(_BARE_KEY.sub(r'\1"\2"\3', literal[last:i]))
            out.append(literal[i : end + 1])
            last = i = end + 1
            continue
        i += 1
    out.append(_BARE_KEY.sub(r'\1"\2"\3', literal[last:]))
    return "".join(out)


def script_output(text: str) -> tuple[str, int | None, int | None] | None:
    """What a code-mode script printed of its one call's result: the command's output, its
    exit code and, for a process still running, its session id; ``None`` when the script
    printed something else (then its text is read as it is)."""
    head = _HEADER.match(text)
    if head is None:
        return None
    rest = text[head.end() :].lstrip()  # (the printed part may come as a part of its own)
    if not rest.startswith("{"):
        return None
    try:
        result = json.loads(rest)
    except (ValueError, RecursionError):
        return None
    if not isinstance(result, dict):
        return None
    output = result.get("output")
    printed = output if isinstance(output, str) else ""
    code, session = result.get("exit_code"), result.get("session_id")
    if isinstance(code, int) and not isinstance(code, bool):
        return printed, code, None
    if isinstance(session, int) and not isinstance(session, bool):
        return printed, None, session
    return None
