"""Claude Code's hook dialect: its payloads in, its answers out (hot path, standard library only).

Claude Code pipes one JSON object per hook event to the command (``hook_event_name``,
``session_id``, ``cwd``, ``transcript_path``, ``tool_name``, ``tool_input``, ``tool_use_id``…)
and reads back ``{"hookSpecificOutput": {"hookEventName": …, "permissionDecision": "deny",
"permissionDecisionReason": …, "additionalContext": …}}`` or nothing. Qwen Code took that
contract nearly word for word, so both agents' hot modules are a :class:`Dialect` given what
differs between them: the agent's name, its tool names, the events whose context reaches the
model, the session-start sources it may send, how a failure's ``error`` is read, and which
payloads are another host's. Claude Code's is :mod:`lessons_claude.hot_claude`, Qwen Code's
``lessons_qwen.hot_qwen``; what each agent does with the answer is told there.

Payloads are read defensively: fields were renamed between releases (``Task`` → ``Agent``,
``MultiEdit`` retired) and a missing or odd key means "nothing to say", never an exception.
"""

# os.path, not pathlib: importing pathlib costs the hook process more than these calls.
# ruff: noqa: PTH109, PTH118

import os

from lessons_core.hot.payload import DEFAULT_DENY, event_of, new_event, tool_call
from lessons_core.hot.payload import absolute as _absolute
from lessons_core.hot.payload import with_trailer as _with_trailer

#: The dialect's hook event name -> the core's event kind.
EVENTS = {
    "PreToolUse": "pre_tool",
    "PostToolUse": "post_tool",
    "PostToolUseFailure": "post_failure",
    "SessionStart": "session_start",
    "SubagentStart": "subagent_start",
    "UserPromptSubmit": "prompt",
    "PreCompact": "pre_compact",
    "Stop": "stop",
}

#: The core's event kind -> the event name an answer must carry.
NATIVE_EVENTS = {kind: native for native, kind in EVENTS.items()}

TOOL_EVENTS = ("pre_tool", "post_tool", "post_failure")

#: Keys under which a file tool (and many MCP tools) names its target.
_PATH_KEYS = ("file_path", "notebook_path", "path")


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def tool_fields(
    tool: str, tool_input: dict[str, object], cwd: str | None
) -> tuple[str | None, list[str], str | None]:
    """Return ``(command, paths, content)`` for one call of the canonical ``tool``."""
    command = None
    content = None
    raw_paths = []
    if tool == "Bash":
        command = _text(tool_input.get("command"))
    elif tool == "Write":
        content = _text(tool_input.get("content"))
    elif tool == "Edit":
        content = _text(tool_input.get("new_string"))
    elif tool == "MultiEdit":
        edits = tool_input.get("edits")
        if isinstance(edits, list):
            parts = [e.get("new_string") for e in edits if isinstance(e, dict)]
            content = "\n".join(p for p in parts if isinstance(p, str) and p) or None
    elif tool == "NotebookEdit":
        content = _text(tool_input.get("new_source"))
    elif tool == "Agent":
        content = _text(tool_input.get("prompt"))
    keys: tuple[str, ...] = _PATH_KEYS
    if tool in ("Glob", "Grep"):
        # The search's folder (the session's by default) and the pattern inside it.
        keys = ("file_path", "notebook_path")
        base = _text(tool_input.get("path")) or cwd
        if base:
            raw_paths.append(base)
            pattern = _text(tool_input.get("pattern") if tool == "Glob" else tool_input.get("glob"))
            if pattern:
                raw_paths.append(os.path.join(base, pattern))
    raw_paths.extend(v for v in (_text(tool_input.get(k)) for k in keys) if v)
    paths = []
    for raw in raw_paths:
        path = _absolute(raw, cwd)
        if path not in paths:
            paths.append(path)
    return command, paths, content


class Dialect:
    """One agent speaking Claude Code's hook dialect, and what it does its own way.

    ``names`` maps the agent's tool names onto canonical ones (unknown names, MCP tools among
    them, are kept). ``context_events`` are the hook events whose ``additionalContext`` the
    agent hands to the model; when ``PreToolUse`` is not among them, a pre-tool event asks the
    core for guards and nudges only (``deliver_hints: False``) and the post-tool events of the
    same call ask for its hints (``deliver_hints: True``), so they ride with the call's result.
    ``sources`` are the session-start sources passed on as sent (any other is a ``startup``;
    ``None``: every non-empty one); ``error_text`` turns a failure's non-empty ``error`` into
    the text recall reads (``None``: as sent); ``ignore`` tells another host's payload, which
    gets no answer.
    """

    __slots__ = ("agent", "context_events", "error_text", "ignore", "names", "sources")

    def __init__(self, agent, names, context_events, *, sources=None, error_text=None, ignore=None):
        self.agent = agent
        self.names = names
        self.context_events = context_events
        self.sources = sources
        self.error_text = error_text
        self.ignore = ignore

    def normalize(self, payload: object) -> dict[str, object] | None:
        """The agent's stdin JSON -> the core's event dict, or ``None`` to stay silent."""
        if not isinstance(payload, dict):
            return None
        found = event_of(payload, EVENTS)
        if found is None or (self.ignore is not None and self.ignore(payload)):
            return None
        native, kind = found
        get = payload.get
        cwd = _text(get("cwd")) or os.getcwd()
        event: dict[str, object] = new_event(
            self.agent,
            kind,
            native,
            _text(get("session_id")),
            cwd,
            model=_text(get("model")),
            call_id=_text(get("tool_use_id")) or _text(get("tool_call_id")),
        )
        event["agent_type"] = _text(get("agent_type"))
        # Set on events fired inside a sub-agent: its calls keep their own dedup record.
        event["agent_id"] = _text(get("agent_id"))
        event["transcript_path"] = _text(get("transcript_path"))
        if kind in TOOL_EVENTS:
            native_tool, tool_input = tool_call(payload)
            if not native_tool:
                return None
            tool = self.names.get(native_tool, native_tool)
            event["tool"] = tool
            event["command"], event["paths"], event["content"] = tool_fields(tool, tool_input, cwd)
            if tool == "WebFetch":
                event["url"] = _text(tool_input.get("url"))
            if "PreToolUse" not in self.context_events:
                # No context reaches the model before the call: hints wait for its result.
                event["deliver_hints"] = kind != "pre_tool"
            if kind == "post_failure":
                error = _text(get("error"))
                if error and self.error_text is not None:
                    error = self.error_text(error)
                event["error"] = error
                event["interrupted"] = get("is_interrupt") is True
        elif kind == "session_start":
            source = _text(get("source"))
            known = self.sources is None or source in self.sources
            event["source"] = source if source and known else "startup"
        elif kind == "prompt":
            event["prompt"] = _text(get("prompt"))
        elif kind == "pre_compact":
            event["source"] = _text(get("trigger"))
        elif kind == "stop":
            event["stop_active"] = get("stop_hook_active") is True
        return event

    def render(
        self, event: dict[str, object] | None, decision: dict[str, object] | None
    ) -> dict[str, dict[str, str]] | None:
        """The core's decision -> the agent's answer dict, or ``None`` to print nothing.

        A deny is answered at ``PreToolUse`` only, with the core's reason (a blank one becomes
        :data:`~lessons_core.hot.payload.DEFAULT_DENY`: the agents refuse an empty reason).
        """
        if not event or not decision:
            return None
        native = NATIVE_EVENTS.get(_text(event.get("event")) or "")
        if native is None:
            return None
        specific = {"hookEventName": native}
        deny = decision.get("deny")
        if native == "PreToolUse" and isinstance(deny, str):
            specific["permissionDecision"] = "deny"
            specific["permissionDecisionReason"] = deny.strip() or DEFAULT_DENY
        context = _with_trailer(_text(decision.get("context")), _text(decision.get("trailer")))
        if context and native in self.context_events:
            specific["additionalContext"] = context
        if len(specific) == 1:
            return None
        return {"hookSpecificOutput": specific}
