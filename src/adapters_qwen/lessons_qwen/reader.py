"""Read Qwen Code chat recordings (``projects/<project>/chats/<session id>.jsonl``) into events.

Every line is one record with Claude Code's envelope (``uuid``, ``parentUuid``, ``sessionId``,
``timestamp``, ``cwd``, ``type``) around a Gemini-style message (``{role, parts}``), as Qwen Code
0.24 writes them:

* ``user`` — the typed prompt, as ``text`` parts;
* ``assistant`` — ``text`` parts (``thought: true`` marks reasoning) and ``functionCall``
  parts ``{id, name, args}``, one per tool call;
* ``tool_result`` — a ``functionResponse`` part ``{id, name, response: {output | error}}`` and
  Qwen's own account of the call in ``toolCallResult`` (``status``, ``errorType``, and for a
  shell command ``resultDisplay.exitCode``);
* ``system`` — bookkeeping (telemetry, snapshots, titles); ``subtype: chat_compression`` marks
  a compression of the history.

A record is complete on its line, so the file may be read from any line (``ranges``): the
session and project come with every record.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lessons_core.api import as_text, classify_text, iter_lines, loads
from lessons_core.api import events as ev
from lessons_core.hot.payload import shell_report_output
from lessons_qwen.hot_names import NATIVE_TO_CANONICAL
from lessons_qwen.roots import transcript_roots as transcript_roots

AGENT = "qwen"

#: Prompts Qwen Code adds itself (reminders, hook context), not the user's words.
_SKIP_USER_PREFIXES = ("<system-reminder>", "<qwen:")
_PATH_KEYS = ("file_path", "notebook_path", "path")
#: ``toolCallResult.errorType`` values of a call the tool refused as malformed or premature.
_VALIDATION = frozenset(
    {
        "invalid_tool_params",
        "edit_requires_prior_read",
        "file_changed_since_read",
        "prior_read_verification_failed",
        "edit_preparation_failure",
    }
)
#: ``errorType`` values of a call a rule, a hook or the user's settings stopped.
_DENIED = frozenset({"execution_denied", "permission_denied"})
#: Record types that can hold an event; ``system`` ones only for a compression.
_WANTED = (b'"type":"user"', b'"type":"assistant"', b'"type":"tool_result"', b"chat_compression")


def canonical(name: str) -> str:
    return NATIVE_TO_CANONICAL.get(name, name)


def read(
    path: str | Path,
    start_offset: int = 0,
    *,
    progress: ev.Progress | None = None,
    **_: Any,
) -> Iterator[ev.Event]:
    """Yield the events of one Qwen Code session file from ``start_offset`` (bytes)."""
    prog = progress if progress is not None else ev.Progress(start_offset)
    file = str(path)
    for line_no, offset, raw in iter_lines(file, prog):
        if not any(mark in raw for mark in _WANTED):
            continue
        record = loads(raw, prog)
        if not isinstance(record, dict):
            continue
        if isinstance(record.get("sessionId"), str):
            prog.session_id = record["sessionId"]
        if isinstance(record.get("cwd"), str):
            prog.project = record["cwd"]
        stamp = record.get("timestamp")
        base: dict[str, Any] = {
            "session_id": prog.session_id,
            "project": prog.project,
            "time": stamp if isinstance(stamp, str) else None,
            "file": file,
            "line": line_no,
            "offset": offset,
            "sidechain": bool(record.get("agentId") or record.get("isSidechain")),
        }
        yield from _events(record, base)


def _parts(record: dict[str, Any]) -> list[dict[str, Any]]:
    message = record.get("message")
    parts = message.get("parts") if isinstance(message, dict) else None
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def _events(record: dict[str, Any], base: dict[str, Any]) -> Iterator[ev.Event]:
    kind = record.get("type")
    if kind == "user":
        text = "\n".join(
            p["text"]
            for p in _parts(record)
            if isinstance(p.get("text"), str) and not p["text"].startswith(_SKIP_USER_PREFIXES)
        )
        if text.strip():
            yield ev.Event(ev.USER_TEXT, AGENT, text=text, **base)
    elif kind == "assistant":
        texts: list[str] = []
        for part in _parts(record):
            call = part.get("functionCall")
            if isinstance(call, dict):
                yield from _said(texts, base)  # what the model said before the call, first
                texts = []
                yield _call(call, base)
            elif isinstance(part.get("text"), str) and not part.get("thought"):
                texts.append(part["text"])
        yield from _said(texts, base)
    elif kind == "tool_result":
        outcome = record.get("toolCallResult")
        for part in _parts(record):
            response = part.get("functionResponse")
            if isinstance(response, dict):
                yield _result(response, outcome if isinstance(outcome, dict) else {}, base)
    elif kind == "system" and record.get("subtype") == "chat_compression":
        yield ev.Event(ev.COMPACTION, AGENT, **base)


def _said(texts: list[str], base: dict[str, Any]) -> Iterator[ev.Event]:
    """The model's text parts (reasoning left out) as one event, if they say anything."""
    text = "\n".join(texts)
    if text.strip():
        yield ev.Event(ev.ASSISTANT_TEXT, AGENT, text=text, **base)


def _call(call: dict[str, Any], base: dict[str, Any]) -> ev.Event:
    name = call.get("name") if isinstance(call.get("name"), str) else ""
    args = call.get("args") if isinstance(call.get("args"), dict) else {}
    assert isinstance(name, str) and isinstance(args, dict)
    command = args.get("command") if isinstance(args.get("command"), str) else None
    paths = tuple(dict.fromkeys(args[k] for k in _PATH_KEYS if isinstance(args.get(k), str)))
    call_id = call.get("id")
    return ev.Event(
        ev.TOOL_CALL,
        AGENT,
        tool=canonical(name),
        native_tool=name,
        command=command,
        paths=paths,
        call_id=call_id if isinstance(call_id, str) else None,
        edit=ev.edit_texts(args.get("old_string"), args.get("new_string")),
        **base,
    )


def _result(response: dict[str, Any], outcome: dict[str, Any], base: dict[str, Any]) -> ev.Event:
    name = response.get("name") if isinstance(response.get("name"), str) else ""
    assert isinstance(name, str)
    body = response.get("response")
    errored = False
    if isinstance(body, dict):
        errored = bool(body.get("error"))
        text = as_text(body.get("error") or body.get("output") or body.get("llmContent"))
    else:
        text = as_text(body)
    status = outcome.get("status")
    display = outcome.get("resultDisplay")
    code = display.get("exitCode") if isinstance(display, dict) else None
    exit_code = code if isinstance(code, int) and not isinstance(code, bool) else None
    failure: str | None = None
    if status == "cancelled":
        kind = classify_text(text)
        failure = kind if kind in (ev.REJECTED, ev.DENIED, ev.TIMEOUT) else ev.INTERRUPTED
    elif status == "error" or errored or exit_code:
        failure = _failure(outcome.get("errorType"), text)
    if canonical(name) == "Bash":
        text = shell_report_output(text)  # (as the other agents log it: what it printed)
    call_id = response.get("id")
    return ev.Event(
        ev.TOOL_RESULT,
        AGENT,
        tool=canonical(name),
        native_tool=name,
        call_id=call_id if isinstance(call_id, str) else None,
        failure=failure,
        exit_code=exit_code,
        text=ev.shorten(text),
        **base,
    )


def _failure(error_type: Any, text: str) -> str:
    """The failure class of a call Qwen Code reports as failed."""
    if error_type in _VALIDATION:
        return ev.VALIDATION
    if error_type in _DENIED:
        return ev.DENIED
    if error_type == "execution_timeout":
        return ev.TIMEOUT
    return classify_text(text) or ev.ERROR
