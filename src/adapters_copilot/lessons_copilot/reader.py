"""Read GitHub Copilot CLI session logs (``session-state/<session id>/events.jsonl``) into events.

Every line is one event ``{type, data, id, timestamp, parentId}``, as Copilot CLI 1.0 writes
them. Those that matter here:

* ``session.start`` (and ``session.resume``) — ``data.sessionId`` and ``data.context.cwd``;
* ``user.message`` — what the user typed (``data.content``; ``transformedContent`` is the same
  with Copilot's own additions, left out);
* ``assistant.message`` — the model's text (``data.content``); its ``toolRequests`` are read at
  ``tool.execution_start`` instead, which every call that ran has, sub-agents' included;
* ``tool.execution_start`` — ``{toolCallId, toolName, arguments}``;
* ``tool.execution_complete`` — ``{toolCallId, success, result{content}, error{message, code}}``.
  A shell command that exits non-zero is a *success* whose text ends with ``<shellId: N
  completed with exit code K>``: read as a failure with that exit code;
* ``session.compaction_complete`` — a compaction of the history.

The session and folder come from ``session.start`` and a result's tool name from its call, so a
file is read from its start (no ``ranges``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lessons_copilot.hot_copilot import shell_failure
from lessons_copilot.hot_names import NATIVE_TO_CANONICAL
from lessons_copilot.roots import transcript_roots as transcript_roots
from lessons_core.api import as_text, classify_text, iter_lines, loads
from lessons_core.api import events as ev

AGENT = "copilot"

_PATH_KEYS = ("path", "file_path")
#: Event types that can hold an event (the rest is bookkeeping: hooks, turns, telemetry).
_WANTED = (
    b'"type":"session.start"',
    b'"type":"session.resume"',
    b'"type":"user.message"',
    b'"type":"assistant.message"',
    b'"type":"tool.execution_start"',
    b'"type":"tool.execution_complete"',
    b'"type":"session.compaction_complete"',
)
#: Words of a refusal: a hook's or a rule's deny, and the user's.
_DENIED_PREFIXES = ("Denied by ", "Permission denied and could not request permission")
_REJECTED_PREFIXES = ("The user rejected", "User rejected", "Rejected by")


def canonical(name: str) -> str:
    return NATIVE_TO_CANONICAL.get(name, name)


def read(
    path: str | Path,
    start_offset: int = 0,
    *,
    progress: ev.Progress | None = None,
    **_: Any,
) -> Iterator[ev.Event]:
    """Yield the events of one Copilot CLI session log from ``start_offset`` (bytes)."""
    prog = progress if progress is not None else ev.Progress(start_offset)
    file = str(path)
    calls: dict[str, str] = {}  # toolCallId -> native tool name
    for line_no, offset, raw in iter_lines(file, prog):
        if not any(mark in raw for mark in _WANTED):
            continue
        record = loads(raw, prog)
        if not isinstance(record, dict):
            continue
        data = record.get("data")
        if not isinstance(data, dict):
            continue
        kind = record.get("type")
        if kind in ("session.start", "session.resume"):
            _start(data, prog)
            continue
        stamp = record.get("timestamp")
        base: dict[str, Any] = {
            "session_id": prog.session_id,
            "project": prog.project,
            "time": stamp if isinstance(stamp, str) else None,
            "file": file,
            "line": line_no,
            "offset": offset,
            "sidechain": isinstance(data.get("parentToolCallId"), str),
        }
        yield from _events(kind, data, base, calls)


def _start(data: dict[str, Any], prog: ev.Progress) -> None:
    if isinstance(data.get("sessionId"), str):
        prog.session_id = data["sessionId"]
    context = data.get("context")
    if isinstance(context, dict) and isinstance(context.get("cwd"), str):
        prog.project = context["cwd"]


def _events(
    kind: Any, data: dict[str, Any], base: dict[str, Any], calls: dict[str, str]
) -> Iterator[ev.Event]:
    if kind == "user.message":
        text = data.get("content")
        if isinstance(text, str) and text.strip():
            yield ev.Event(ev.USER_TEXT, AGENT, text=text, **base)
    elif kind == "assistant.message":
        text = data.get("content")
        if isinstance(text, str) and text.strip():
            yield ev.Event(ev.ASSISTANT_TEXT, AGENT, text=text, **base)
    elif kind == "tool.execution_start":
        yield _call(data, base, calls)
    elif kind == "tool.execution_complete":
        yield _result(data, base, calls)
    elif kind == "session.compaction_complete":
        yield ev.Event(ev.COMPACTION, AGENT, **base)


def _arguments(value: Any) -> dict[str, Any]:
    """A call's arguments: a dict, or (in some logs) the same as a JSON string."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return {}
    return value if isinstance(value, dict) else {}


def _call(data: dict[str, Any], base: dict[str, Any], calls: dict[str, str]) -> ev.Event:
    name = data.get("toolName") if isinstance(data.get("toolName"), str) else ""
    assert isinstance(name, str)
    args = _arguments(data.get("arguments"))
    command = args.get("command") if isinstance(args.get("command"), str) else None
    paths = tuple(dict.fromkeys(args[k] for k in _PATH_KEYS if isinstance(args.get(k), str)))
    call_id = data.get("toolCallId") if isinstance(data.get("toolCallId"), str) else None
    if call_id is not None:
        calls[call_id] = name
    return ev.Event(
        ev.TOOL_CALL,
        AGENT,
        tool=canonical(name) if name else None,
        native_tool=name or None,
        command=command,
        paths=paths,
        call_id=call_id,
        # (``str_replace``'s texts: why a refused one did not match shows beside the one that
        # worked, as for the other agents' edits)
        edit=ev.edit_texts(args.get("old_str"), args.get("new_str")),
        **base,
    )


def _result(data: dict[str, Any], base: dict[str, Any], calls: dict[str, str]) -> ev.Event:
    call_id = data.get("toolCallId") if isinstance(data.get("toolCallId"), str) else None
    name = calls.get(call_id or "", "")
    result = data.get("result")
    error = data.get("error")
    failure: str | None = None
    exit_code: int | None = None
    if data.get("success") is False:
        if isinstance(error, dict):
            text = as_text(error.get("message"))
            code = error.get("code")
        else:
            text = as_text(error if error is not None else result)
            code = None
        failure = _failure(code, text, name)
    else:
        text = as_text(result.get("content") if isinstance(result, dict) else result)
        failed = shell_failure(text) if canonical(name) == "Bash" or not name else None
        if failed is not None:
            text, exit_code = failed
            failure = classify_text(text) or ev.ERROR
    return ev.Event(
        ev.TOOL_RESULT,
        AGENT,
        tool=canonical(name) if name else None,
        native_tool=name or None,
        call_id=call_id,
        failure=failure,
        exit_code=exit_code,
        text=ev.shorten(text),
        **base,
    )


#: What Copilot's edit tool says when the text to replace is not in the file, or is there more
#: than once: the tool refusing its input, as another agent's "String to replace not found".
_EDIT_REFUSALS = frozenset({"No match found", "Multiple matches found"})


def _failure(code: Any, text: str, name: str = "") -> str:
    """The failure class of a call Copilot reports as failed."""
    if text.startswith(_DENIED_PREFIXES) or code == "denied":
        return ev.DENIED
    if text.startswith(_REJECTED_PREFIXES) or code == "rejected":
        return ev.REJECTED
    if code == "timeout":
        return ev.TIMEOUT
    if canonical(name) == "Edit" and text.strip() in _EDIT_REFUSALS:
        return ev.VALIDATION
    return classify_text(text) or ev.ERROR
