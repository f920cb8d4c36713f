"""The plugin's payloads in, its answers out, for OpenCode and its forks (hot path, standard
library only).

OpenCode and Kilo CLI (a fork of it) run no hook commands; both load the same JavaScript plugin
(:file:`opencode_plugin.js`), which turns each plugin hook into one JSON payload for the hook
command and acts on the answer. What differs between the two hosts is the agent's name and its
tool names, so each adapter's hot module is a :class:`PluginHost` with its own: OpenCode's is
:mod:`lessons_opencode.hot_opencode`, Kilo CLI's ``lessons_kilo.hot_kilo``. How the payload
and the answer look, and how the plugin copes with what these hosts cannot do, is told there.
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


class PluginHost:
    """One host of the plugin: the agent name its events carry and its native → canonical
    tool names (unknown names, MCP tools among them, are kept)."""

    __slots__ = ("agent", "names")

    def __init__(self, agent, names):
        self.agent = agent
        self.names = names

    def canonical_tool(self, native):
        """Canonical name of one of this host's tools."""
        return self.names.get(native, native)

    def normalize(self, payload):
        """Turn one payload of the plugin into the core's event dict, or ``None`` to stay
        silent."""
        if not isinstance(payload, dict):
            return None
        native = payload.get("hook_event_name")
        kind = EVENTS.get(native) if isinstance(native, str) else None
        if kind is None:
            return None
        cwd = _text(payload.get("cwd")) or os.getcwd()
        session_id = _text(payload.get("session_id")) or ""
        call_id = _text(payload.get("call_id"))
        event = new_event(self.agent, kind, native, session_id, cwd, call_id=call_id)
        event["transcript_path"] = None  # one database for every session: no file of its own
        if kind == "session_start":
            if _text(payload.get("parent_id")):
                event["event"] = "subagent_start"  # a task's child session starts empty
            event["source"] = "startup"
        elif kind == "prompt":
            event["prompt"] = _text(payload.get("prompt")) or ""
            event["late_handoff"] = True  # the compaction handoff rides with the next prompt
        elif kind in ("pre_tool", "post_tool", "post_failure"):
            self._fill_tool(event, payload, cwd)
            if kind == "post_tool":
                event["late_handoff"] = True
                error = failure_text(payload)
                if error is not None:
                    event["event"] = "post_failure"
                    event["error"] = error
            elif kind == "post_failure":
                event["error"] = _clip(_text(payload.get("error")) or "")
        return event

    def _fill_tool(self, event, payload, cwd):
        native = _text(payload.get("tool")) or ""
        args = payload.get("args")
        if not isinstance(args, dict):
            args = {}
        tool = self.canonical_tool(native)
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
