"""OpenCode payloads in, OpenCode answers out (hot path, standard library only).

OpenCode runs no hook commands; its plugins are JavaScript modules loaded into the agent. The
plugin file the installer writes (``opencode_plugin.js``) turns each plugin hook it handles into
one JSON payload for this command, and acts on the answer. The payload and the answer are this
adapter's own small contract, kept in step with that file:

* payload: ``hook_event_name`` (the plugin hook, or ``tool.error`` / ``session.start`` /
  ``session.idle`` for what the plugin derives from OpenCode's events), ``session_id``, ``cwd``;
  tool events add ``tool``, ``call_id``, ``args``; ``tool.execute.after`` adds ``output`` (the
  result text, already shortened by the plugin) and ``exit`` (a shell call's exit status);
  ``tool.error`` adds ``error``; ``session.start`` adds ``source`` and ``parent_id``;
  ``chat.message`` adds ``prompt``;
* answer: ``{"deny": reason}`` (the plugin throws, so OpenCode hands the reason to the model as
  the call's error and runs nothing) or ``{"context": text}`` (the plugin appends it to the
  call's result, the prompt or the system prompt), or nothing.

What OpenCode does differently from the other agents, and how this module copes:

* ``tool.execute.before`` can change the arguments or throw, nothing else; so hints found there
  are answered as context that the plugin keeps and appends to the same call's result in
  ``tool.execute.after`` — the moment Claude and Codex deliver them too;
* a tool that throws never reaches ``tool.execute.after``: the plugin reports it from the
  ``message.part.updated`` event as ``tool.error``, and its context is added to the error text
  the model reads;
* the system prompt is rebuilt for every model request, so the session block is asked for once
  per session and process and added every time; a resumed session gets it again (``resume`` is
  answered as a start: nothing of the block is in the stored conversation).
"""

# os.path, not pathlib: importing pathlib costs the hook process more than these calls.
# ruff: noqa: PTH109

import os

from lessons_core.hot.payload import (
    DEFAULT_DENY,
    first_text,
    new_event,
    paths_of,
)
from lessons_core.hot.payload import absolute as _absolute
from lessons_core.hot.payload import clip as _clip
from lessons_core.hot.payload import text as _text
from lessons_core.hot.payload import with_trailer as _with_trailer
from lessons_opencode.hot_names import NATIVE_TO_CANONICAL

AGENT = "opencode"

#: Payload name -> the core's event kind.
EVENTS = {
    "tool.execute.before": "pre_tool",
    "tool.execute.after": "post_tool",
    "tool.error": "post_failure",
    "session.start": "session_start",
    "chat.message": "prompt",
    "session.compacting": "pre_compact",
    "session.idle": "stop",
}

#: Payload names whose answer may carry context.
CONTEXT_EVENTS = frozenset(
    ("tool.execute.before", "tool.execute.after", "tool.error", "session.start", "chat.message")
)

_PATH_KEYS = ("filePath", "file_path", "path")
_CONTENT_KEYS = ("content", "newString", "new_string", "patchText")


def normalize(payload):
    """Turn one payload of the plugin into the core's event dict, or ``None`` to stay silent."""
    if not isinstance(payload, dict):
        return None
    native = payload.get("hook_event_name")
    kind = EVENTS.get(native) if isinstance(native, str) else None
    if kind is None:
        return None
    cwd = _text(payload.get("cwd")) or os.getcwd()
    session_id = _text(payload.get("session_id")) or ""
    event = new_event(AGENT, kind, native, session_id, cwd, call_id=_text(payload.get("call_id")))
    event["transcript_path"] = None  # one database for every session: no file of its own
    if kind == "session_start":
        if _text(payload.get("parent_id")):
            event["event"] = "subagent_start"  # a task's child session starts empty
        event["source"] = "startup"
    elif kind == "prompt":
        event["prompt"] = _text(payload.get("prompt")) or ""
        event["late_handoff"] = True  # the compaction handoff rides with the next prompt
    elif kind in ("pre_tool", "post_tool", "post_failure"):
        _fill_tool(event, payload, cwd)
        if kind == "post_tool":
            event["late_handoff"] = True
            error = failure_text(payload)
            if error is not None:
                event["event"] = "post_failure"
                event["error"] = error
        elif kind == "post_failure":
            event["error"] = _clip(_text(payload.get("error")) or "")
    return event


def canonical_tool(native):
    """Canonical name of an OpenCode tool (unknown names, MCP tools among them, unchanged)."""
    return NATIVE_TO_CANONICAL.get(native, native)


def _fill_tool(event, payload, cwd):
    native = _text(payload.get("tool")) or ""
    args = payload.get("args")
    if not isinstance(args, dict):
        args = {}
    tool = canonical_tool(native)
    event["tool"] = tool
    if tool == "Bash":
        event["command"] = _text(args.get("command"))
        workdir = _text(args.get("workdir"))
        if workdir:
            event["cwd"] = _absolute(workdir, cwd)
        return
    event["paths"] = paths_of(args, _PATH_KEYS, cwd)
    event["content"] = first_text(args, _CONTENT_KEYS)


def failure_text(payload):
    """The failure text of a ``tool.execute.after`` payload, or ``None`` if the call succeeded.

    Tools that fail throw, and never get here; a shell command that exits non-zero returns
    normally, with its status in ``exit``.
    """
    status = payload.get("exit")
    if isinstance(status, bool) or not isinstance(status, int) or status == 0:
        return None
    output = _text(payload.get("output")) or ""
    return _clip(f"{output.strip()}\nExit code: {status}".strip())


def render(event, decision):
    """The plugin's answer for ``event`` given the core's ``decision`` (or ``None``)."""
    if not event or not decision:
        return None
    native = event.get("native_event")
    deny = decision.get("deny")
    if native == "tool.execute.before" and deny is not None:
        return {"deny": deny.strip() or DEFAULT_DENY}
    context = _with_trailer(decision.get("context"), decision.get("trailer"))
    if context and native in CONTEXT_EVENTS:
        return {"context": context}
    return None
