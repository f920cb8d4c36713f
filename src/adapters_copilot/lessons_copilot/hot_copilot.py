"""GitHub Copilot CLI payloads in, Copilot answers out (hot path, standard library only).

The core's runner calls :func:`normalize` on the JSON Copilot pipes to the hook and
:func:`render` on its decision; :mod:`lessons_copilot.hook` binds the event name first (see
:class:`Bound`). What Copilot CLI 1.0 does, verified on its binary (see docs/agents/copilot.md):

* **Two payload dialects.** A hook registered under a camelCase event (``preToolUse``…, the
  form our installer writes) gets ``{sessionId, timestamp (ms), cwd, toolName, toolArgs,
  toolResult…}`` and *no event name*: the installer puts the event in the command line and the
  hook reads it from there. A hook registered under a PascalCase event (``PreToolUse``…), and
  every hook of a repository's ``.claude/settings.json`` (Copilot runs those in a trusted
  folder), gets ``{hook_event_name, session_id, timestamp (ISO), cwd, tool_name, tool_input,
  tool_result…}`` with Claude Code's tool names.
* **Telling the host.** Copilot always sends ``timestamp`` and never the fields Claude Code
  (and Qwen Code, its near copy) send with every event (``permission_mode``, ``prompt_id``,
  ``tool_use_id``, a ``transcript_path`` before the stop). A payload naming a Claude-style event
  without Copilot's marks is another host's: this hook stays silent rather than answer it in
  Copilot's format.
* **One answer format.** Copilot reads ``permissionDecision`` / ``permissionDecisionReason``
  and a top-level ``additionalContext`` in both dialects; Claude's ``hookSpecificOutput``
  context is dropped by it. So every answer here is Copilot's own.
* **No context before a call.** ``preToolUse`` reads only a decision: guards and nudges deny
  there (``deliver_hints: False``); hints ride with the result at ``postToolUse`` (appended to
  the tool output) or ``postToolUseFailure`` (a message after the failed result).
* **A failed command is a success.** A shell command that exits non-zero is reported at
  ``postToolUse`` (``resultType: success``) with ``<shellId: N completed with exit code K>``
  after its output: such a result is read as a failure, for failure-time recall.
* **A pre-tool hook that fails denies the call.** Copilot denies a ``preToolUse`` call whose
  hook exits non-zero; the runner always exits 0 and the installed command ends in ``|| true``.
"""

# os.path, not pathlib: importing pathlib costs the hook process more than these calls.
# ruff: noqa: PTH109

import os

from lessons_copilot.hot_names import NATIVE_TO_CANONICAL
from lessons_core.hot import fastjson
from lessons_core.hot.payload import DEFAULT_DENY, new_event
from lessons_core.hot.payload import absolute as _absolute
from lessons_core.hot.payload import clip as _clip
from lessons_core.hot.payload import with_trailer as _with_trailer

AGENT = "copilot"

#: Copilot's camelCase hook events (the ones our installer registers) -> the core's kinds.
EVENTS = {
    "preToolUse": "pre_tool",
    "postToolUse": "post_tool",
    "postToolUseFailure": "post_failure",
    "sessionStart": "session_start",
    "subagentStart": "subagent_start",
    "userPromptSubmitted": "prompt",
    "preCompact": "pre_compact",
    "agentStop": "stop",
}

#: The same events in Copilot's Claude-compatible (PascalCase) dialect.
PASCAL_EVENTS = {
    "PreToolUse": "preToolUse",
    "PostToolUse": "postToolUse",
    "PostToolUseFailure": "postToolUseFailure",
    "SessionStart": "sessionStart",
    "SubagentStart": "subagentStart",
    "UserPromptSubmit": "userPromptSubmitted",
    "PreCompact": "preCompact",
    "Stop": "agentStop",
}

#: Events whose ``additionalContext`` Copilot hands to the model.
CONTEXT_EVENTS = (
    "postToolUse",
    "postToolUseFailure",
    "sessionStart",
    "subagentStart",
    "userPromptSubmitted",
)

#: Copilot's session-start ``source`` -> the core's.
SOURCES = {
    "new": "startup",
    "startup": "startup",
    "resume": "resume",
    "clear": "clear",
    "compact": "compact",
}

_TOOL_EVENTS = ("pre_tool", "post_tool", "post_failure")
#: Keys under which a Copilot tool names the file or folder it works on.
_PATH_KEYS = ("path", "file_path")
#: How Copilot's shell tool ends its result: ``<shellId: N completed with exit code K>``.
_SHELL_TAG = "<shellId: "
_EXIT_WORDS = " completed with exit code "


def _text(value):
    return value if isinstance(value, str) and value else None


def _dict(value):
    """``value`` as a dict: Copilot has sent ``toolArgs`` as a JSON string too."""
    if isinstance(value, str):
        value = fastjson.loads(value, lenient=True) if value.startswith("{") else None
    return value if isinstance(value, dict) else {}


#: Fields Claude Code (and Qwen Code) send with their events and Copilot never does.
_CLAUDE_MARKS = ("permission_mode", "prompt_id", "tool_use_id")


def is_copilots(payload, event):
    """Whether a payload in the Claude-style dialect (``hook_event_name``) comes from Copilot."""
    if "timestamp" not in payload or any(k in payload for k in _CLAUDE_MARKS):
        return False
    return event == "agentStop" or "transcript_path" not in payload


def dialect(payload, native):
    """``(camelCase event name, key style)`` of a Copilot payload, or ``None`` to stay silent.

    ``native`` is the event name the installer put in the command line (camelCase dialect);
    a payload that names its event (PascalCase dialect) must carry Copilot's ``timestamp``.
    """
    if not isinstance(payload, dict):
        return None
    named = payload.get("hook_event_name")
    if named is not None:
        camel = PASCAL_EVENTS.get(named) if isinstance(named, str) else None
        if camel is None or not is_copilots(payload, camel):
            return None  # not Copilot's: Claude Code (or another host) is calling
        return camel, "snake"
    if isinstance(native, str) and native in EVENTS:
        return native, "camel"
    return None


def _get(payload, style, camel, snake):
    return payload.get(camel if style == "camel" else snake)


def _tool_fields(tool, tool_input, cwd):
    """Return ``(command, paths, content)`` for one tool call (canonical ``tool``)."""
    command = None
    content = None
    raw_paths = []
    if tool == "Bash":
        command = _text(tool_input.get("command"))
    elif tool == "Write":
        content = _text(tool_input.get("file_text")) or _text(tool_input.get("content"))
    elif tool == "Edit":
        content = (
            _text(tool_input.get("new_str"))
            or _text(tool_input.get("new_string"))
            or _text(tool_input.get("input"))
        )
    elif tool == "Agent":
        content = _text(tool_input.get("prompt"))
    if tool in ("Glob", "Grep"):
        bases = tool_input.get("paths")
        if isinstance(bases, str):
            bases = [bases]
        if not isinstance(bases, list) or not bases:
            bases = [_text(tool_input.get("path")) or cwd]
        for base in bases:
            if isinstance(base, str) and base:
                raw_paths.append(base)
                pattern = _text(tool_input.get("pattern" if tool == "Glob" else "glob"))
                if pattern:
                    raw_paths.append(os.path.join(base, pattern))  # noqa: PTH118
    else:
        raw_paths.extend(v for v in (_text(tool_input.get(k)) for k in _PATH_KEYS) if v)
    paths = []
    for raw in raw_paths:
        path = _absolute(raw, cwd)
        if path not in paths:
            paths.append(path)
    return command, paths, content


def shell_failure(text):
    """``(output, exit code)`` of a shell result that reports a non-zero exit, else ``None``.

    Copilot's shell tool ends what it returns with ``<shellId: N completed with exit code K>``;
    the output is what came before that line. (String methods, not ``re``: this runs on every
    shell result, and importing ``re`` costs the hook process more than the whole match.)
    """
    if not isinstance(text, str):
        return None
    end = text.rstrip()
    start = end.rfind(_SHELL_TAG)
    if start < 0 or not end.endswith(">"):
        return None
    _, found, code = end[start:-1].rpartition(_EXIT_WORDS)
    digits = code[1:] if code.startswith("-") else code
    if not found or not digits.isdigit() or int(code) == 0:
        return None
    return text[:start].strip(), int(code)


def normalize(payload, native=None):
    """Copilot's stdin JSON (and the event named on the command line) -> the core's event."""
    found = dialect(payload, native)
    if found is None:
        return None
    name, style = found
    kind = EVENTS[name]
    cwd = _text(payload.get("cwd")) or os.getcwd()
    event = new_event(
        AGENT, kind, name, _text(_get(payload, style, "sessionId", "session_id")), cwd
    )
    event["transcript_path"] = _text(_get(payload, style, "transcriptPath", "transcript_path"))
    if kind in _TOOL_EVENTS:
        native_tool = _text(_get(payload, style, "toolName", "tool_name"))
        if not native_tool:
            return None
        tool_input = _dict(_get(payload, style, "toolArgs", "tool_input"))
        tool = NATIVE_TO_CANONICAL.get(native_tool, native_tool)
        event["tool"] = tool
        event["command"], event["paths"], event["content"] = _tool_fields(tool, tool_input, cwd)
        if tool == "WebFetch":
            event["url"] = _text(tool_input.get("url"))
        # Copilot shows the model no context before a call: hints wait for its result.
        event["deliver_hints"] = kind != "pre_tool"
        if kind == "post_tool":
            result = _dict(_get(payload, style, "toolResult", "tool_result"))
            text = result.get("textResultForLlm", result.get("text_result_for_llm"))
            failed = shell_failure(text) if tool == "Bash" else None
            if failed is not None:
                event["event"] = "post_failure"
                event["error"] = _clip(failed[0] or f"exit code {failed[1]}")
        elif kind == "post_failure":
            error = payload.get("error")
            if isinstance(error, dict):
                error = error.get("message")
            event["error"] = _clip(error) if _text(error) else None
    elif kind == "session_start":
        event["source"] = SOURCES.get(_text(payload.get("source")) or "", "startup")
    elif kind == "prompt":
        event["prompt"] = _text(payload.get("prompt"))
    elif kind == "pre_compact":
        event["source"] = _text(payload.get("trigger"))
    elif kind == "stop":
        event["stop_active"] = payload.get("stop_hook_active") is True
    return event


def render(event, decision):
    """The core's decision -> Copilot's answer dict, or ``None`` to print nothing (allow)."""
    if not event or not decision:
        return None
    native = event.get("native_event")
    deny = decision.get("deny")
    if native == "preToolUse":
        if deny is None:
            return None
        return {
            "permissionDecision": "deny",
            "permissionDecisionReason": deny.strip() or DEFAULT_DENY,
        }
    context = _with_trailer(decision.get("context"), decision.get("trailer"))
    if context and native in CONTEXT_EVENTS:
        return {"additionalContext": context}
    return None


class Bound:
    """This module with the event named on the hook's command line bound to ``normalize``:
    the object :func:`lessons_core.hot.runner.run` is handed."""

    AGENT = AGENT

    def __init__(self, native):
        self.native = native

    def normalize(self, payload):
        return normalize(payload, self.native)

    def render(self, event, decision):
        return render(event, decision)
