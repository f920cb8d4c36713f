"""The excerpt a model sees: the few facts of one finding, redacted, and nothing else.

What leaves the machine is exactly this text: the failing call, its error, what the user said,
what the agent said about its mistake, and the call that fixed it — each passed through
:func:`lessons_core.privacy.scrub` (secrets become ``[REDACTED:<kind>]``, home directories
``~``) and only then cut short, so no cut can split a secret out of the rule that finds it.
The project's path, other messages, file contents and the rest of the transcript are never
part of it.
"""

from __future__ import annotations

from lessons_core.api import Finding, error_lines, redact_head, scrub
from lessons_core.api import events as ev

#: Characters kept of each part (a command, an error, a remark).
COMMAND_CHARS = 600
ERROR_CHARS = 900
WORDS_CHARS = 400


def _cut(text: str, limit: int) -> str:
    """``text`` redacted, then cut to ``limit`` characters: in the other order a secret that
    straddles the cut loses the end its rule needs and goes out nearly whole."""
    text = scrub(redact_head(text.strip(), limit))
    if len(text) <= limit:
        return text
    return text[: limit - 12].rstrip() + " [… cut]"


def _call(call: ev.Event) -> str:
    if call.command:
        return f"{call.tool} `{_cut(call.command, COMMAND_CHARS)}`"
    if call.paths:
        return f"{call.tool} on {', '.join(call.paths[:3])}"
    return call.tool or "a tool call"


def _error(result: ev.Event) -> str:
    lines = error_lines(result.text) if result.text else ()
    text = "\n".join(lines) if lines else result.text or ""
    if not text.strip():
        text = "(no output)"
    status = result.failure or "it worked but the user objected"
    if result.exit_code not in (None, 0):
        status += f", exit {result.exit_code}"
    return f"[{status}]\n{_cut(text, ERROR_CHARS)}"


def build(finding: Finding) -> str:
    """The redacted excerpt of ``finding`` (the same finding always gives the same text, which
    is what the cache is keyed by)."""
    parts = [
        f"Agent: {finding.call.agent}",
        f"Failing call: {_call(finding.call)}",
        f"Its result: {_error(finding.result)}",
    ]
    if finding.user_text:
        parts.append(f"The user said: {_cut(finding.user_text, WORDS_CHARS)}")
    if finding.diagnosis:
        parts.append(f"The agent said: {_cut(finding.diagnosis, WORDS_CHARS)}")
    if finding.fix is not None:
        parts.append(f"Fixing call (it worked): {_call(finding.fix)}")
    return scrub("\n".join(parts))
