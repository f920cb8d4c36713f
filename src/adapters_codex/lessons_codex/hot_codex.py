"""Codex CLI payloads in, Codex CLI answers out (hot path, standard library only).

The core's runner calls :func:`normalize` on the JSON Codex pipes to the hook and :func:`render`
on its decision. Two facts about Codex shape this module:

* Codex validates hook output against strict schemas (unknown keys are rejected and the hook is
  then ignored without a word), so :func:`render` builds each answer from the documented fields
  of that one event and nothing else.
* Codex has no failure event. ``PostToolUse`` fires after failed shell commands too, with the
  output as plain text and no exit code field. Failures are recognised from the text where it
  carries an exit code (:func:`failure_text`), else from the call's completion record that
  Codex has already written to the session transcript (:func:`transcript_failure`).
"""

# os.path, not pathlib: importing pathlib costs the hook process more than these calls.
# ruff: noqa: PTH109

import os

from lessons_codex.hot_names import NATIVE_TO_CANONICAL, SHELL_TOOLS
from lessons_core.hot import fastjson as json
from lessons_core.hot import safefile
from lessons_core.hot.payload import (
    DEFAULT_DENY,
    LazyPattern,
    blocks_text,
    context_answer,
    event_of,
    first_text,
    new_event,
    paths_of,
    tool_call,
)
from lessons_core.hot.payload import absolute as _absolute
from lessons_core.hot.payload import clip as _clip
from lessons_core.hot.payload import text as _text
from lessons_core.hot.payload import with_trailer as _with_trailer

AGENT = "codex"

#: Codex hook event name -> the core's event kind.
EVENTS = {
    "PreToolUse": "pre_tool",
    "PostToolUse": "post_tool",
    "SessionStart": "session_start",
    "SubagentStart": "subagent_start",
    "UserPromptSubmit": "prompt",
    "PreCompact": "pre_compact",
    "Stop": "stop",
}

#: Events whose answer may carry ``hookSpecificOutput.additionalContext``.
CONTEXT_EVENTS = frozenset(
    ("PreToolUse", "PostToolUse", "SessionStart", "SubagentStart", "UserPromptSubmit")
)

SOURCES = frozenset(("startup", "resume", "clear", "compact", "fork"))

_PATCH_KINDS = ("Add File", "Update File", "Delete File", "Move to")


def patch_header(line):
    """``(kind, path)`` of a ``*** Update File: path``-style line, else ``None``.

    Plain string tests rather than a regex: every Codex edit passes here, and ``re`` would cost
    the hook its import. The transcript reader uses it too, so both read patches alike.
    """
    if not line.startswith("*** "):
        return None
    kind, sep, rest = line[4:].partition(": ")
    path = rest.rstrip()
    if not sep or kind not in _PATCH_KINDS or not path:
        return None
    return kind, path


# The three shapes shell output has taken in Codex (see docs/agents/codex.md):
# a JSON string with metadata.exit_code, "Exit code: N" (freeform), and unified exec's
# "Process exited with code N".
_EXIT_CODE = LazyPattern(r"(?m)^(?:Exit code:|Process exited with code)\s*(-?\d+)\s*$")
# Failures the harness reports in its own words instead of an exit code.
_HARNESS_FAILURE = LazyPattern(
    r"(?i)^(?:failed in sandbox\b|command timed out after\b|apply_patch verification failed\b"
    r"|patch rejected\b|execution error\b|exec error\b|write_stdin failed\b)"
)
#: A word of every _HARNESS_FAILURE alternative, checked before the regex is compiled.
_HARNESS_WORDS = ("sandbox", "timed out", "patch", "exec", "write_stdin")
#: Bytes of the transcript's end searched for a call's exit code.
_TRANSCRIPT_TAIL = 256 * 1024
#: Paths of one patch that lessons are matched against (the first ones, in patch order). Each
#: path costs every path lesson a glob test; a patch touching more files is a bulk rewrite.
MAX_PATCH_PATHS = 1000

_PATH_KEYS = ("file_path", "path", "relative_path", "absolute_path", "filename", "target_file")
_CONTENT_KEYS = ("content", "new_string", "body", "new_source", "text")


def normalize(payload):
    """Turn one Codex hook payload into the core's event dict, or ``None`` to stay silent."""
    found = event_of(payload, EVENTS)
    if found is None:
        return None
    native, kind = found
    cwd = _text(payload.get("cwd")) or os.getcwd()
    event = new_event(
        AGENT,
        kind,
        native,
        _text(payload.get("session_id")) or "",
        cwd,
        model=_text(payload.get("model")),
        call_id=_text(payload.get("tool_use_id")),
    )
    # Logged with each delivery, so the outcome loop reads the right rollout.
    event["transcript_path"] = _text(payload.get("transcript_path"))
    # Inside a sub-agent (newer releases): its calls keep their own dedup record.
    event["agent_id"] = _text(payload.get("agent_id"))
    if kind == "stop":
        event["stop_active"] = payload.get("stop_hook_active") is True
    if kind == "session_start":
        source = _text(payload.get("source"))
        event["source"] = source if source in SOURCES else "startup"
    elif kind == "prompt":
        event["prompt"] = _text(payload.get("prompt")) or ""
    elif kind in ("pre_tool", "post_tool"):
        _fill_tool(event, payload, cwd)
        if kind == "post_tool":
            error = failure_text(payload.get("tool_response"))
            if error is None and event["tool"] == "Bash":
                error = transcript_failure(
                    payload.get("transcript_path"), event["call_id"], payload.get("tool_response")
                )
            if error is not None:
                event["event"] = "post_failure"
                event["error"] = error
    return event


def _fill_tool(event, payload, cwd):
    """Canonical tool name, command, touched paths and introduced content of one tool call."""
    native, tool_input = tool_call(payload)
    if native in SHELL_TOOLS:
        command = _command(tool_input)
        event["tool"] = "Bash"
        event["command"] = command
        if command and "*** Begin Patch" in command:
            # A patch fed through the shell (``apply_patch <<'EOF' …``) is an edit all the same.
            _fill_patch(event, command, cwd)
        return
    if native == "apply_patch":
        patch = _command(tool_input) or _text(tool_input.get("input")) or ""
        event["tool"] = "Edit"
        _fill_patch(event, patch, cwd)
        return
    event["tool"] = NATIVE_TO_CANONICAL.get(native, native)
    event["paths"] = paths_of(tool_input, _PATH_KEYS, cwd)
    event["content"] = first_text(tool_input, _CONTENT_KEYS)


def _fill_patch(event, patch, cwd):
    """Paths and added lines of a Codex patch; a patch that only adds files counts as ``Write``."""
    paths, added, kinds = parse_patch(patch, cwd)
    event["paths"] = paths
    event["content"] = "\n".join(added) if added else None
    if kinds == {"Add File"}:
        event["tool"] = "Write"
    else:
        event["tool"] = "Edit"


def parse_patch(patch, cwd):
    """Return ``(paths, added_lines, header_kinds)`` for a ``*** Begin Patch`` text.

    Paths are made absolute against ``cwd`` and listed once each, in order, at most
    :data:`MAX_PATCH_PATHS` of them (a set keeps the de-duplication linear); added lines lose
    their leading ``+``. A ``*** Move to:`` destination counts as a touched path too.
    """
    paths: list[str] = []
    listed: set[str] = set()
    added = []
    kinds = set()
    for line in patch.splitlines():
        header = patch_header(line)
        if header:
            kind, path = header
            kinds.add(kind)
            if len(paths) < MAX_PATCH_PATHS:
                absolute = _absolute(path, cwd)
                if absolute not in listed:
                    listed.add(absolute)
                    paths.append(absolute)
        elif line.startswith("+"):
            added.append(line[1:])
    return paths, added, kinds


def failure_text(response):
    """The failure text of a ``PostToolUse`` ``tool_response``, or ``None`` if it succeeded.

    Shell output is a string (sometimes a JSON-encoded object with ``metadata.exit_code``); MCP
    results are objects with ``isError``. A non-zero exit code, or one of the harness's own
    failure messages at the start of a line, marks a failure.
    """
    if response is None:
        return None
    if isinstance(response, dict):
        return _failure_of_object(response)
    if not isinstance(response, str):
        return None
    text = response.strip()
    if text.startswith("{"):
        try:
            decoded = json.loads(text)
        except ValueError:
            decoded = None
        if isinstance(decoded, dict):
            return _failure_of_object(decoded)
    # Substring checks first: the regexes cost an import most outputs never need.
    match = (
        _EXIT_CODE.search(text) if ("Exit code:" in text or "exited with code" in text) else None
    )
    if match:
        return _clip(text) if int(match.group(1)) != 0 else None
    lowered = text.lower()
    if any(word in lowered for word in _HARNESS_WORDS) and _HARNESS_FAILURE.search(text):
        return _clip(text)
    return None


def transcript_failure(transcript_path, call_id, response):
    """The failure of shell call ``call_id`` as recorded in the session transcript, or ``None``.

    Unified exec (Codex 0.1xx) hands PostToolUse only the command's output, with no exit code.
    By the time the hook runs, Codex has written the call's completion to the transcript: an
    ``item_completed`` event whose item has ``id == call_id``, ``status`` and ``exit_code``
    (older releases: an ``exec_command_end`` event with ``call_id`` and ``exit_code``). Only the
    tail of the file is read, newest line first.
    """
    if not isinstance(transcript_path, str) or not transcript_path or not call_id:
        return None
    try:
        # A regular file only (a FIFO would block, /dev/zero never ends), its last bytes only.
        tail = safefile.read(
            transcript_path, _TRANSCRIPT_TAIL, trusted=False, follow=True, tail=True
        )
    except OSError:
        return None
    needle = call_id.encode("utf-8", "replace")
    for line in reversed(tail.splitlines()):
        if needle not in line or b"exit_code" not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        found = _exit_of_record(record, call_id)
        if found is None:
            continue
        code, output = found
        if code == 0:
            return None
        if not output and isinstance(response, str):
            output = response
        return _clip(f"Exit code: {code}\n{output}".rstrip())
    return None


def _exit_of_record(record, call_id):
    """``(exit_code, output)`` if this transcript line completes ``call_id``."""
    payload = record.get("payload") if isinstance(record, dict) else None
    if not isinstance(payload, dict):
        return None
    item = payload.get("item")
    if isinstance(item, dict) and item.get("id") == call_id:
        source = item
    elif payload.get("call_id") == call_id:
        source = payload
    else:
        return None
    code = source.get("exit_code")
    if not isinstance(code, int):
        return None
    output = source.get("aggregated_output")
    return code, output if isinstance(output, str) else ""


def _failure_of_object(obj):
    metadata = obj.get("metadata")
    if isinstance(metadata, dict) and isinstance(metadata.get("exit_code"), int):
        if metadata["exit_code"] == 0:
            return None
        output = obj.get("output")
        text = output if isinstance(output, str) else json.dumps(obj)
        return _clip(f"Exit code: {metadata['exit_code']}\n{text}")
    if obj.get("isError") is True or obj.get("is_error") is True:
        return _clip(blocks_text(obj.get("content")) or json.dumps(obj))
    nested = obj.get("output")
    if isinstance(nested, str):
        return failure_text(nested)
    return None


def render(event, decision):
    """The JSON object Codex expects for ``event`` given the core's ``decision`` (or ``None``)."""
    if not event or not decision:
        return None
    native = event.get("native_event")
    context = _with_trailer(decision.get("context"), decision.get("trailer"))
    deny = decision.get("deny")
    if native == "PreToolUse":
        specific = {}
        if deny is not None:
            specific["permissionDecision"] = "deny"
            specific["permissionDecisionReason"] = deny.strip() or DEFAULT_DENY
        if context:
            specific["additionalContext"] = context
        if not specific:
            return None
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", **specific}}
    if native in CONTEXT_EVENTS and context:
        return context_answer(native, context)
    return None


def _command(tool_input):
    command = tool_input.get("command")
    if isinstance(command, list):
        # The old ``shell`` tool took an argv list.
        return " ".join(str(part) for part in command)
    return _text(command) or _text(tool_input.get("cmd"))
