"""The ``#lesson`` reporting protocol: the text agents receive at session start.

It tells the model, in plain factual terms, that a mistake it corrects can be written down as a
block, and what the block looks like. The scanner parses exactly these field names (and accepts
``problem`` for ``mistake`` and ``solution`` for ``fix``). The compiler copies the text into the
manifest, so the hook process never imports this module.

It is kept under 1 KB: it rides along with every session start, inside the session-start budget.
Factual rather than imperative phrasing, because agents treat commanding text in hook output as a
possible prompt injection.
"""

from __future__ import annotations

FIELDS: tuple[str, ...] = ("tool", "trigger", "mistake", "fix", "tags")
ALIASES: dict[str, str] = {"problem": "mistake", "solution": "fix"}
OPEN = "#lesson"
CLOSE = "#/lesson"

PROTOCOL_TEXT = """\
## Lessons from earlier sessions
This project keeps a memory of mistakes and their fixes. When a tool call fails and you then \
find what works, you can record it for future sessions by writing a block like this in your reply:

#lesson
tool: Bash
trigger: pytest -x tests/
mistake: bare pytest hangs waiting for a TTY in this sandbox
fix: run python -m pytest -p no:cacheprovider tests/
tags: tool:pytest, lang:python
#/lesson

It is worth a block when the fix is not obvious from the error, when the same mistake could \
recur in another session, or when the user corrected you. `trigger` is the command or file \
pattern that led to the mistake; `tool` and `tags` are optional. Lessons recorded this way may \
come back as context next to a matching tool call."""


def protocol_text() -> str:
    """The protocol block delivered at session start."""
    return PROTOCOL_TEXT
