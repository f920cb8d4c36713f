"""Claude Code payloads in, Claude Code answers out. Standard library only (hook process).

``normalize`` turns the JSON Claude Code writes to a hook's stdin into the core's plain event
dict (see "The hot-path seam" in docs/architecture.md); ``render`` turns the core's decision back
into the exact JSON Claude Code honours. Both read defensively: fields were renamed between
releases (``Task`` → ``Agent``, ``MultiEdit`` retired) and a missing key must mean "nothing to
say", never an exception.

What Claude Code does with the answer (verified against 2.1.197, see docs/agents/claude.md):
a PreToolUse deny stops the call and its reason becomes the tool_result the model reads;
PreToolUse ``additionalContext`` reaches the model next to the tool *result*; SessionStart,
SubagentStart and UserPromptSubmit context reaches it before work starts. No ``env`` key exists
in any answer.

GitHub Copilot CLI runs a trusted repository's ``.claude/settings.json`` hooks too, with a
Claude-style payload of its own (``hook_event_name``, ``session_id``, ``tool_name``…) that
carries a ``timestamp`` and, before the stop, no ``transcript_path``: Claude Code's always
carries ``transcript_path`` and never ``timestamp``. Copilot drops the context of an answer in
Claude's shape, so this hook stays silent on Copilot's calls (:func:`is_copilots`) and leaves
them to lessons-copilot's hook, instead of claiming lessons that would never reach the model.
"""

import os

from lessons_claude.hot_names import NATIVE_TO_CANONICAL
from lessons_core.hot.payload import absolute as _abs
from lessons_core.hot.payload import new_event
from lessons_core.hot.payload import with_trailer as _with_trailer

AGENT = "claude"

#: Claude Code hook event name -> core event name.
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

#: Core event name -> the Claude Code event the answer must name.
NATIVE_EVENTS = {core: native for native, core in EVENTS.items()}

#: Events whose ``hookSpecificOutput.additionalContext`` Claude Code passes to the model.
CONTEXT_EVENTS = (
    "pre_tool",
    "post_tool",
    "post_failure",
    "session_start",
    "subagent_start",
    "prompt",
)

_TOOL_EVENTS = ("pre_tool", "post_tool", "post_failure")


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _tool_fields(
    tool: str, tool_input: object, cwd: str | None
) -> tuple[str | None, list[str], str | None]:
    """Return ``(command, paths, content)`` for one tool call."""
    if not isinstance(tool_input, dict):
        return None, [], None
    command = None
    raw_paths = []
    content = None

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
    elif tool in ("Glob", "Grep"):
        base = _text(tool_input.get("path")) or cwd
        if base:
            raw_paths.append(base)
            pattern = _text(tool_input.get("pattern") if tool == "Glob" else tool_input.get("glob"))
            if pattern:
                raw_paths.append(os.path.join(base, pattern))  # noqa: PTH118

    # Every file tool (and many MCP tools) names its target with one of these keys.
    for key in ("file_path", "notebook_path", "path"):
        if tool in ("Glob", "Grep") and key == "path":
            continue
        value = _text(tool_input.get(key))
        if value:
            raw_paths.append(value)

    paths = []
    for raw in raw_paths:
        path = _abs(raw, cwd)
        if path not in paths:
            paths.append(path)
    return command, paths, content


def is_copilots(payload: dict[str, object]) -> bool:
    """Whether GitHub Copilot CLI, not Claude Code, sent this payload (see the module)."""
    if "timestamp" not in payload:
        return False
    return "transcript_path" not in payload or "stop_reason" in payload


def normalize(payload: object) -> dict[str, object] | None:
    """Claude Code's stdin JSON (a dict) -> the core's event dict, or ``None`` to stay silent."""
    if not isinstance(payload, dict) or is_copilots(payload):
        return None
    event = EVENTS.get(_text(payload.get("hook_event_name")) or "")
    if event is None:
        return None
    cwd = _text(payload.get("cwd")) or os.getcwd()  # noqa: PTH109
    out: dict[str, object] = new_event(
        AGENT,
        event,
        None,
        _text(payload.get("session_id")),
        cwd,
        model=_text(payload.get("model")),
        call_id=_text(payload.get("tool_use_id")),
    )
    out["agent_type"] = _text(payload.get("agent_type"))
    # Set on events fired inside a sub-agent: its calls keep their own dedup record.
    out["agent_id"] = _text(payload.get("agent_id"))
    out["transcript_path"] = _text(payload.get("transcript_path"))
    if event in _TOOL_EVENTS:
        native = _text(payload.get("tool_name"))
        if native is None:
            return None
        tool = NATIVE_TO_CANONICAL.get(native, native)
        tool_input = payload.get("tool_input")
        out["tool"] = tool
        out["command"], out["paths"], out["content"] = _tool_fields(tool, tool_input, cwd)
        if tool == "WebFetch" and isinstance(tool_input, dict):
            out["url"] = _text(tool_input.get("url"))
        if event == "post_failure":
            out["error"] = _text(payload.get("error"))
            out["interrupted"] = payload.get("is_interrupt") is True
    elif event == "session_start":
        out["source"] = _text(payload.get("source")) or "startup"
    elif event == "prompt":
        out["prompt"] = _text(payload.get("prompt"))
    elif event == "pre_compact":
        out["source"] = _text(payload.get("trigger"))
    elif event == "stop":
        out["stop_active"] = payload.get("stop_hook_active") is True
    return out


def render(
    event: dict[str, object] | None, decision: dict[str, object] | None
) -> dict[str, dict[str, str]] | None:
    """The core's decision -> Claude Code's answer dict, or ``None`` to print nothing."""
    if not event or not decision:
        return None
    kind = _text(event.get("event")) or ""
    native = NATIVE_EVENTS.get(kind)
    if native is None:
        return None
    deny = _text(decision.get("deny"))
    context = _text(decision.get("context"))

    specific: dict[str, str] = {"hookEventName": native}
    if kind == "pre_tool" and deny:
        specific["permissionDecision"] = "deny"
        specific["permissionDecisionReason"] = deny
    if context and kind in CONTEXT_EVENTS:
        specific["additionalContext"] = _with_trailer(context, _text(decision.get("trailer")))
    if len(specific) == 1:
        return None
    return {"hookSpecificOutput": specific}
