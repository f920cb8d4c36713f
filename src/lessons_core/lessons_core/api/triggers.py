"""Helpers for a detector that proposes a command trigger: the ones Tier 2 uses.

Used as a namespace (``from lessons_core.api import triggers``). ``command_trigger`` turns a
failing command (and the fix, when there is one) into a pattern that fires on the next
occurrence and not on the fix; the others narrow or check such a pattern while staying inside
what the compiler's safety check accepts.
"""

from __future__ import annotations

from lessons_core.scan.detectors.triggers import (
    Shape,
    anchored,
    command_trigger,
    is_bare_executable,
    matches,
    shapes,
    tight_trigger,
    with_flag,
    without_flag,
)

__all__ = [
    "Shape",
    "anchored",
    "command_trigger",
    "is_bare_executable",
    "matches",
    "shapes",
    "tight_trigger",
    "with_flag",
    "without_flag",
]
