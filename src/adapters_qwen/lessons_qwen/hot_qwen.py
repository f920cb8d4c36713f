"""Qwen Code payloads in, Qwen Code answers out (hot path, standard library only).

The core's runner calls :func:`normalize` on the JSON Qwen Code pipes to the hook and
:func:`render` on its decision. Qwen Code took Claude Code's hook contract nearly word for word
(event names, ``hookSpecificOutput``, ``permissionDecision``, ``tool_use_id``,
``transcript_path``), so the work is Claude Code's dialect, :mod:`lessons_claude.hot_dialect`;
what differs, and how this module copes (verified against 0.24.4, see docs/agents/qwen.md):

* Tool names are Qwen's own (``run_shell_command``, ``read_file``, ``edit``…): they are mapped
  onto the canonical names by :mod:`lessons_qwen.hot_names`.
* ``PreToolUse`` context never reaches the model (Qwen reads only the decision from it), while
  ``PostToolUse`` and ``PostToolUseFailure`` context is appended to the call's result. So, as
  for Gemini CLI, the pre-tool event asks the core for guards and nudges only
  (``deliver_hints: False``) and the post-tool events of the same call ask for its hints
  (``deliver_hints: True``): they reach the model with the result, the moment Claude Code
  delivers them too.
* A shell command that exits non-zero is a ``PostToolUseFailure`` with the whole report
  (``Exit Code: N`` among it) as ``error``: failure-time recall keeps what the command printed
  (:func:`lessons_core.hot.payload.shell_report_output`).
* A session-start ``source`` other than Qwen's four is read as ``startup``.
* Context is HTML-escaped by Qwen (``<`` becomes ``&lt;``) before the model reads it.
"""

from lessons_claude.hot_dialect import EVENTS as EVENTS
from lessons_claude.hot_dialect import Dialect
from lessons_core.hot.payload import clip as _clip
from lessons_core.hot.payload import shell_report_output
from lessons_qwen.hot_names import NATIVE_TO_CANONICAL

AGENT = "qwen"

#: Events whose ``hookSpecificOutput.additionalContext`` Qwen Code hands to the model.
CONTEXT_EVENTS = (
    "PostToolUse",
    "PostToolUseFailure",
    "SessionStart",
    "SubagentStart",
    "UserPromptSubmit",
)

SOURCES = frozenset(("startup", "resume", "clear", "compact"))


def _error_text(error):
    return _clip(shell_report_output(error))


DIALECT = Dialect(
    AGENT, NATIVE_TO_CANONICAL, CONTEXT_EVENTS, sources=SOURCES, error_text=_error_text
)
normalize = DIALECT.normalize
render = DIALECT.render
