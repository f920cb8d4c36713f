"""Claude Code payloads in, Claude Code answers out. Standard library only (hook process).

``normalize`` turns the JSON Claude Code writes to a hook's stdin into the core's plain event
dict (see "The hot-path seam" in docs/architecture.md); ``render`` turns the core's decision back
into the exact JSON Claude Code honours. The dialect itself, shared with Qwen Code, is
:mod:`lessons_claude.hot_dialect`; this module gives it Claude Code's name, tool names and ways.

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

Claude Code checks a call's input before running it, and a call refused there (an Edit whose
text to replace is not in the file, a Write of a file not read yet) fires no hook at all: its
error reaches the model as a ``tool_result`` wrapped in ``<tool_use_error>`` and nothing else
(verified with 2.1.197). :data:`REFUSAL_MARK`, :func:`refusals` and :func:`refused_call` tell
the core's catch-up (:mod:`lessons_core.hot.catchup`) how the transcript shows such a refusal.
"""

from lessons_claude.hot_dialect import EVENTS as EVENTS
from lessons_claude.hot_dialect import Dialect, tool_fields
from lessons_claude.hot_names import NATIVE_TO_CANONICAL
from lessons_core.hot.payload import blocks_text

AGENT = "claude"

#: Events whose ``hookSpecificOutput.additionalContext`` Claude Code passes to the model.
CONTEXT_EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "SessionStart",
    "SubagentStart",
    "UserPromptSubmit",
)


def is_copilots(payload: dict[str, object]) -> bool:
    """Whether GitHub Copilot CLI, not Claude Code, sent this payload (see the module)."""
    if "timestamp" not in payload:
        return False
    return "transcript_path" not in payload or "stop_reason" in payload


DIALECT = Dialect(AGENT, NATIVE_TO_CANONICAL, CONTEXT_EVENTS, ignore=is_copilots)
normalize = DIALECT.normalize
render = DIALECT.render


# -- refusals read back from the transcript (lessons_core.hot.catchup) ---------------------------

#: Bytes every transcript line holding a refusal carries, so the lines without it go unparsed.
REFUSAL_MARK = b"<tool_use_error>"
_REFUSAL_OPEN = "<tool_use_error>"
#: Refusals that say nothing of the call itself: a parallel call failed and this one was dropped.
_NOT_THE_CALLS_OWN = ("Sibling tool call errored",)


def _blocks(record: object, role: str) -> list[dict[str, object]]:
    """The content blocks of a transcript line of ``role`` (``user``, ``assistant``)."""
    if not isinstance(record, dict) or record.get("type") != role:
        return []
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict)]


def refusals(record: object) -> list[tuple[str, str]]:
    """``(call id, error text)`` of each call this transcript line shows refused unrun.

    A refusal is an ``is_error`` result whose text opens with ``<tool_use_error>``: Claude Code
    words the errors of the calls it ran otherwise (``Exit code 1`` …), and those reach
    ``PostToolUseFailure``. The text is kept as the model read it, tags and all, as the scanner
    stores such lessons' error lines.
    """
    found = []
    for block in _blocks(record, "user"):
        if block.get("type") != "tool_result" or block.get("is_error") is not True:
            continue
        call_id = block.get("tool_use_id")
        text = blocks_text(block.get("content"))
        if not isinstance(call_id, str) or not call_id or not text.startswith(_REFUSAL_OPEN):
            continue
        if any(text[len(_REFUSAL_OPEN) :].startswith(n) for n in _NOT_THE_CALLS_OWN):
            continue
        found.append((call_id, text))
    return found


def refused_call(record: object, call_id: str, cwd: str | None) -> dict[str, object] | None:
    """The refused call ``call_id`` as the core's event fields (``tool``, ``command``, ``paths``,
    ``content``), if this transcript line is the model's message that made it."""
    for block in _blocks(record, "assistant"):
        if block.get("type") != "tool_use" or block.get("id") != call_id:
            continue
        name = block.get("name")
        tool_input = block.get("input")
        if not isinstance(name, str) or not name:
            return None
        tool = NATIVE_TO_CANONICAL.get(name, name)
        command, paths, content = tool_fields(
            tool, tool_input if isinstance(tool_input, dict) else {}, cwd
        )
        return {"tool": tool, "command": command, "paths": paths, "content": content}
    return None
