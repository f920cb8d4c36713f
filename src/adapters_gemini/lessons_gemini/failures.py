"""How Gemini CLI reports a failed call: the ``Exit Code: N`` line of its shell tool."""

from __future__ import annotations

import re

# Some recordings carry the newlines escaped (a literal backslash-n), so accept both.
_GEMINI_EXIT = re.compile(r"(?:^|\\n)Exit Code: (-?\d+)", re.MULTILINE)


def gemini_exit_code(text: str) -> int | None:
    """The ``Exit Code: N`` line of Gemini's shell tool output."""
    if "Exit Code: " not in text:
        return None
    m = _GEMINI_EXIT.search(text)
    return int(m.group(1)) if m else None
