"""The normalized events a transcript reader yields and a detector reads.

Used as a namespace (``from lessons_core.api import events as ev``; ``ev.TOOL_CALL``): the
kinds of event and of failure are plain strings, compared by value.
"""

from __future__ import annotations

from lessons_core.scan.events import (
    ASSISTANT_TEXT,
    COMPACTION,
    DENIED,
    ERROR,
    INTERRUPTED,
    KINDS,
    MISTAKES,
    REJECTED,
    TIMEOUT,
    TOOL_CALL,
    TOOL_RESULT,
    USER_TEXT,
    VALIDATION,
    Event,
    Progress,
    edit_texts,
    shorten,
)

__all__ = [
    "ASSISTANT_TEXT",
    "COMPACTION",
    "DENIED",
    "ERROR",
    "INTERRUPTED",
    "KINDS",
    "MISTAKES",
    "REJECTED",
    "TIMEOUT",
    "TOOL_CALL",
    "TOOL_RESULT",
    "USER_TEXT",
    "VALIDATION",
    "Event",
    "Progress",
    "edit_texts",
    "shorten",
]
