"""Gemini CLI payloads in, Gemini CLI answers out (hot path, standard library only).

The core's runner calls :func:`normalize` on the JSON Gemini pipes to the hook and :func:`render`
on its decision. What Gemini does differently from the other agents, and how this module copes:

* ``BeforeTool`` cannot carry context (Gemini drops it); only a deny reaches the model there. So
  a ``BeforeTool`` event asks the core for guards and nudges only (``deliver_hints: False``), and
  the ``AfterTool`` event of the same call asks for hints (``deliver_hints: True``): they are
  appended to that tool's result, which is the same moment Claude and Codex deliver them.
* Gemini has no failure event: ``AfterTool`` carries ``tool_response.error`` for tool errors, and
  a shell command that exited non-zero is only visible as ``Exit Code: N`` in ``llmContent``.
* Plain stdout becomes a message shown to the user and any exit code ≥ 2 is read as a deny, so
  :func:`render` only ever returns a JSON object (or nothing) and the hook always exits 0.
* Tool arguments changed names over releases (``absolute_path``/``path``/``directory`` before
  v0.14) and may be relative to the workspace; both spellings are read, paths made absolute.
"""

# os.path, not pathlib: importing pathlib costs the hook process more than these calls.
# ruff: noqa: PTH109

import os

from lessons_core.hot.payload import (
    DEFAULT_DENY,
    LazyPattern,
    context_answer,
    event_of,
    first_text,
    new_event,
    paths_of,
    shell_report_output,
    tool_call,
)
from lessons_core.hot.payload import absolute as _absolute
from lessons_core.hot.payload import clip as _clip
from lessons_core.hot.payload import text as _text
from lessons_core.hot.payload import with_trailer as _with_trailer
from lessons_gemini.hot_names import BLOCKED_PREFIX, NATIVE_TO_CANONICAL

AGENT = "gemini"

#: Gemini hook event name -> the core's event kind.
EVENTS = {
    "BeforeTool": "pre_tool",
    "AfterTool": "post_tool",
    "SessionStart": "session_start",
    "BeforeAgent": "prompt",
    "PreCompress": "pre_compact",
    "AfterAgent": "stop",
}

SOURCES = frozenset(("startup", "resume", "clear"))

#: The line Gemini CLI appends to the chat file when it starts a chat on a compressed history
#: (and when it resumes one). ``PreCompress`` fires before every model turn, compressing or
#: not, so this line past the note's offset is what shows a compression really happened.
NEW_CHAT_LINE = '{"$set":{"sessionId":'

_PATH_KEYS = ("file_path", "absolute_path", "path", "dir_path", "directory")
_CONTENT_KEYS = ("content", "new_string")
_EXIT_CODE = LazyPattern(r"(?m)^Exit Code:\s*(-?\d+)\s*$")
_SIGNAL = LazyPattern(r"(?m)^Signal:\s*(\S+)\s*$")


def normalize(payload):
    """Turn one Gemini hook payload into the core's event dict, or ``None`` to stay silent."""
    found = event_of(payload, EVENTS)
    if found is None:
        return None
    native, kind = found
    cwd = _text(payload.get("cwd")) or os.environ.get("GEMINI_CWD") or os.getcwd()
    session_id = _text(payload.get("session_id")) or os.environ.get("GEMINI_SESSION_ID", "")
    event = new_event(AGENT, kind, native, session_id, cwd)
    # Logged with each delivery, so the outcome loop reads the right chat file.
    event["transcript_path"] = _text(payload.get("transcript_path")) or None
    if kind == "session_start":
        source = _text(payload.get("source")) or _text(payload.get("trigger"))
        event["source"] = source if source in SOURCES else "startup"
    elif kind == "prompt":
        event["prompt"] = _text(payload.get("prompt")) or ""
        event["late_handoff"] = True  # no SessionStart follows a compression
    elif kind == "stop":
        event["stop_active"] = payload.get("stop_hook_active") is True
    elif kind == "pre_compact":
        event["trigger"] = _text(payload.get("trigger"))
        event["compaction_marker"] = NEW_CHAT_LINE
    elif kind == "pre_tool":
        _fill_tool(event, payload, cwd)
        event["deliver_hints"] = False
    elif kind == "post_tool":
        _fill_tool(event, payload, cwd)
        event["deliver_hints"] = True
        event["late_handoff"] = True
        error = failure_text(payload.get("tool_response"))
        if error is not None:
            event["event"] = "post_failure"
            event["error"] = error
    return event


def canonical_tool(native, mcp_context=None):
    """Canonical name of a Gemini tool: the table, else MCP ``mcp_srv_tool`` → ``mcp__srv__tool``.

    Server names may themselves hold underscores, so ``mcp_context`` (sent with MCP calls) is
    preferred over splitting the name.
    """
    if native in NATIVE_TO_CANONICAL:
        return NATIVE_TO_CANONICAL[native]
    if isinstance(mcp_context, dict):
        server = mcp_context.get("server_name")
        tool = mcp_context.get("tool_name")
        if isinstance(server, str) and server and isinstance(tool, str) and tool:
            return f"mcp__{server}__{tool}"
    if native.startswith("mcp__"):
        return native
    if native.startswith("mcp_"):
        server, _, tool = native[4:].partition("_")
        if server and tool:
            return f"mcp__{server}__{tool}"
    if "__" in native:
        # Older releases named MCP tools ``server__tool``.
        server, _, tool = native.partition("__")
        if server and tool:
            return f"mcp__{server}__{tool}"
    return native


def _fill_tool(event, payload, cwd):
    native, tool_input = tool_call(payload)
    tool = canonical_tool(native, payload.get("mcp_context"))
    event["tool"] = tool
    if tool == "Bash":
        event["command"] = _text(tool_input.get("command"))
        return
    paths = paths_of(tool_input, _PATH_KEYS, cwd)
    if native == "read_many_files":
        include = tool_input.get("include") or tool_input.get("paths")
        if isinstance(include, str):
            include = [include]
        if isinstance(include, list):
            paths.extend(_absolute(item, cwd) for item in include if isinstance(item, str) and item)
    event["paths"] = paths
    event["content"] = first_text(tool_input, _CONTENT_KEYS)


def failure_text(response):
    """The failure text of an ``AfterTool`` ``tool_response``, or ``None`` if the call succeeded."""
    if not isinstance(response, dict):
        return None
    error = response.get("error")
    if isinstance(error, dict):
        message = error.get("message")
        if isinstance(message, str) and message:
            return _clip(message)
    elif isinstance(error, str) and error:
        return _clip(error)
    text = _flatten(response.get("llmContent"))
    if text.lstrip().startswith(BLOCKED_PREFIX):
        return _clip(text.strip())  # refused before it ran, though reported as a success
    # Substring checks first: most results are not shell reports, and the regexes cost an import.
    match = _EXIT_CODE.search(text) if "Exit Code:" in text else None
    if match and int(match.group(1)) != 0:
        return _clip(shell_report_output(text.strip()))
    signal = _SIGNAL.search(text) if "Signal:" in text else None
    if signal and signal.group(1) not in ("0", "(none)"):
        return _clip(shell_report_output(text.strip()))
    return None


def _flatten(content):
    """Text of ``llmContent``: a string, a part, or a list of parts/strings."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        text = content.get("text")
        return text if isinstance(text, str) else ""
    if isinstance(content, list):
        return "\n".join(_flatten(item) for item in content)
    return ""


def render(event, decision):
    """The JSON object Gemini expects for ``event`` given the core's ``decision`` (or ``None``)."""
    if not event or not decision:
        return None
    native = event.get("native_event")
    deny = decision.get("deny")
    if native == "BeforeTool":
        if deny is None:
            return None
        return {"decision": "deny", "reason": deny.strip() or DEFAULT_DENY}
    context = _with_trailer(decision.get("context"), decision.get("trailer"))
    if context and native in ("AfterTool", "SessionStart", "BeforeAgent"):
        return context_answer(native, context)
    return None
