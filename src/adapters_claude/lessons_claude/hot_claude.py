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
"""

from lessons_claude.hot_dialect import EVENTS as EVENTS
from lessons_claude.hot_dialect import Dialect
from lessons_claude.hot_names import NATIVE_TO_CANONICAL

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
