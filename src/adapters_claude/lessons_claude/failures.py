"""How Claude Code reports a failed call: its exit code line and its user-rejection shape."""

from __future__ import annotations

import re

from lessons_core.api import HEAD, class_of, compile_regex, mistake_class
from lessons_core.api import events as ev

#: Words that make a short is_error text an error report rather than the user's typed feedback.
_ERRORISH = compile_regex(
    r"error|fail|not found|no such|denied|exit|traceback|exception|cannot|can't|invalid|"
    r"undefined|fatal|missing|refused|refusing|unable|status code|illegal|unknown|ERR!",
    re.IGNORECASE,
)

_CLAUDE_EXIT = compile_regex(r"\AExit code (\d+)")


def classify_claude(text: str) -> tuple[str, int | None]:
    """Classify the text of a Claude Code ``is_error`` tool result.

    Returns ``(failure class, exit code or None)``. Claude Code 2.0.x stored the user's typed
    feedback as the whole content of a rejected call, so a short single line that reads like
    neither an error nor a tool message counts as a rejection. A line a mistake class knows is
    the tool's own refusal, however calm its words: the Read of a file over the size limit says
    only that the file "exceeds maximum allowed size" and to "use offset and limit parameters".
    """
    head = text[:HEAD]
    m = _CLAUDE_EXIT.match(head)
    code = int(m.group(1)) if m else None
    kind = class_of(head)
    if kind is not None:
        return kind, code
    stripped = head.strip()
    if (
        code is None
        and len(stripped) < 300
        and "\n" not in stripped
        and not _ERRORISH.search(stripped)
        and mistake_class(stripped) is None
    ):
        return ev.REJECTED, None
    return ev.ERROR, code
