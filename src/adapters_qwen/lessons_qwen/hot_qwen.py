"""Qwen Code payloads in, Qwen Code answers out (hot path, standard library only).

The core's runner calls :func:`normalize` on the JSON Qwen Code pipes to the hook and
:func:`render` on its decision. Qwen Code took Claude Code's hook contract nearly word for word
(event names, ``hookSpecificOutput``, ``permissionDecision``, ``tool_use_id``,
``transcript_path``); what differs, and how this module copes (verified against 0.24.4, see
docs/agents/qwen.md):

* Tool names are Qwen's own (``run_shell_command``, ``read_file``, ``edit``…): they are mapped
  onto the canonical names by :mod:`lessons_qwen.hot_names`.
* ``PreToolUse`` context never reaches the model (Qwen reads only the decision from it), while
  ``PostToolUse`` and ``PostToolUseFailure`` context is appended to the call's result. So, as
  for Gemini CLI, the pre-tool event asks the core for guards and nudges only
  (``deliver_hints: False``) and the post-tool events of the same call ask for its hints
  (``deliver_hints: True``): they reach the model with the result, the moment Claude Code
  delivers them too.
* A shell command that exits non-zero is a ``PostToolUseFailure`` with the whole report
  (``Exit Code: N`` among it) as ``error``: failure-time recall needs nothing more.
* Context is HTML-escaped by Qwen (``<`` becomes ``&lt;``) before the model reads it.
"""

# os.path, not pathlib: importing pathlib costs the hook process more than these calls.
# ruff: noqa: PTH109, PTH118

import os

from lessons_core.hot.payload import DEFAULT_DENY, event_of, new_event, tool_call
from lessons_core.hot.payload import absolute as _absolute
from lessons_core.hot.payload import clip as _clip
from lessons_core.hot.payload import with_trailer as _with_trailer
from lessons_qwen.hot_names import NATIVE_TO_CANONICAL

AGENT = "qwen"

#: Qwen Code hook event name -> the core's event kind.
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

#: Events whose ``hookSpecificOutput.additionalContext`` Qwen Code hands to the model.
CONTEXT_EVENTS = (
    "PostToolUse",
    "PostToolUseFailure",
    "SessionStart",
    "SubagentStart",
    "UserPromptSubmit",
)

SOURCES = frozenset(("startup", "resume", "clear", "compact"))

_TOOL_EVENTS = ("pre_tool", "post_tool", "post_failure")
#: Keys under which a Qwen tool names the file or folder it works on.
_PATH_KEYS = ("file_path", "notebook_path", "path")


def _text(value):
    return value if isinstance(value, str) and value else None


def _tool_fields(tool, tool_input, cwd):
    """Return ``(command, paths, content)`` for one tool call (canonical ``tool``)."""
    command = None
    content = None
    raw_paths = []
    if tool == "Bash":
        command = _text(tool_input.get("command"))
    elif tool == "Write":
        content = _text(tool_input.get("content"))
    elif tool == "Edit":
        content = _text(tool_input.get("new_string"))
    elif tool == "NotebookEdit":
        content = _text(tool_input.get("new_source"))
    elif tool == "Agent":
        content = _text(tool_input.get("prompt"))
    if tool in ("Glob", "Grep"):
        base = _text(tool_input.get("path")) or cwd
        if base:
            raw_paths.append(base)
            pattern = _text(tool_input.get("pattern") if tool == "Glob" else tool_input.get("glob"))
            if pattern:
                raw_paths.append(os.path.join(base, pattern))
    else:
        raw_paths.extend(v for v in (_text(tool_input.get(k)) for k in _PATH_KEYS) if v)
    paths = []
    for raw in raw_paths:
        path = _absolute(raw, cwd)
        if path not in paths:
            paths.append(path)
    return command, paths, content


#: The headings of Qwen Code's shell report, one per line, each followed by its text.
_REPORT_HEADINGS = (
    "Command:",
    "Directory:",
    "Output:",
    "Error:",
    "Exit Code:",
    "Signal:",
    "Background PIDs:",
    "Process Group PGID:",
)


def shell_output(text):
    """What a failed shell command printed, out of Qwen Code's report of it.

    The report (``Command: …``, ``Directory: …``, ``Output: …``, ``Error: …``, ``Exit Code: N``…)
    is what ``error`` holds for a shell command; recall matches a lesson's error lines against
    the command's own lines, so the output and error sections are kept (``(none)`` and
    ``(empty)`` dropped) and the rest of the report goes. Any other text is returned as is.
    """
    if not text.startswith("Command: "):
        return text
    kept = []
    section = None
    for line in text.split("\n"):
        heading = next((h for h in _REPORT_HEADINGS if line.startswith(h)), None)
        if heading is not None:
            section = heading
            line = line[len(heading) :].lstrip()
        if section in ("Output:", "Error:") and line not in ("(none)", "(empty)"):
            kept.append(line)
    output = "\n".join(kept).strip()
    return output or text


def normalize(payload):
    """Qwen Code's stdin JSON -> the core's event dict, or ``None`` to stay silent."""
    found = event_of(payload, EVENTS)
    if found is None:
        return None
    native, kind = found
    cwd = _text(payload.get("cwd")) or os.getcwd()
    event = new_event(
        AGENT,
        kind,
        native,
        _text(payload.get("session_id")),
        cwd,
        model=_text(payload.get("model")),
        call_id=_text(payload.get("tool_use_id")) or _text(payload.get("tool_call_id")),
    )
    event["agent_type"] = _text(payload.get("agent_type"))
    # Set on events fired inside a sub-agent: its calls keep their own dedup record.
    event["agent_id"] = _text(payload.get("agent_id"))
    event["transcript_path"] = _text(payload.get("transcript_path"))
    if kind in _TOOL_EVENTS:
        native_tool, tool_input = tool_call(payload)
        if not native_tool:
            return None
        tool = NATIVE_TO_CANONICAL.get(native_tool, native_tool)
        event["tool"] = tool
        event["command"], event["paths"], event["content"] = _tool_fields(tool, tool_input, cwd)
        if tool == "WebFetch":
            event["url"] = _text(tool_input.get("url"))
        # Qwen shows the model no context before a call: hints wait for its result.
        event["deliver_hints"] = kind != "pre_tool"
        if kind == "post_failure":
            error = _text(payload.get("error"))
            event["error"] = _clip(shell_output(error)) if error else None
            event["interrupted"] = payload.get("is_interrupt") is True
    elif kind == "session_start":
        source = _text(payload.get("source"))
        event["source"] = source if source in SOURCES else "startup"
    elif kind == "prompt":
        event["prompt"] = _text(payload.get("prompt"))
    elif kind == "pre_compact":
        event["source"] = _text(payload.get("trigger"))
    elif kind == "stop":
        event["stop_active"] = payload.get("stop_hook_active") is True
    return event


def render(event, decision):
    """The core's decision -> Qwen Code's answer dict, or ``None`` to print nothing."""
    if not event or not decision:
        return None
    native = event.get("native_event")
    deny = decision.get("deny")
    if native == "PreToolUse":
        if deny is None:
            return None
        return {
            "hookSpecificOutput": {
                "hookEventName": native,
                "permissionDecision": "deny",
                "permissionDecisionReason": deny.strip() or DEFAULT_DENY,
            }
        }
    context = _with_trailer(decision.get("context"), decision.get("trailer"))
    if context and native in CONTEXT_EVENTS:
        return {"hookSpecificOutput": {"hookEventName": native, "additionalContext": context}}
    return None
