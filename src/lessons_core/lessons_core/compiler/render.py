"""The texts the hook delivers, rendered once at build time.

Each lesson gets its full injection text and a short form. The short form (at most
``SHORT_MAX_BYTES`` of UTF-8) is what the hook falls back to when the full text would overflow the
injection budget, so a second or third matching lesson can still be named instead of dropped.
"""

from __future__ import annotations

from lessons_core.models import Lesson

SHORT_MAX_BYTES = 200
ELLIPSIS = "…"
#: How a lesson's full text and its short form begin: what a hook's deny starts with, which is
#: how the scanner tells a call a stored lesson stopped from a mistake of the agent's.
HEADING = "## Lesson: "
SHORT_HEADING = "Lesson: "
SHORT_FIX = " — Fix: "


def injection_text(lesson: Lesson) -> str:
    """The lesson's own injection text, or ``## Lesson: summary / mistake / **Fix**: …``."""
    if lesson.injection and lesson.injection.strip():
        return lesson.injection.strip()
    lines = [f"{HEADING}{_one_line(lesson.summary)}"]
    if lesson.mistake.strip():
        lines.append(lesson.mistake.strip())
    if lesson.remediation.strip():
        lines.append(f"**Fix**: {lesson.remediation.strip()}")
    return "\n".join(lines)


def short_text(lesson: Lesson) -> str:
    """One line, ≤ 200 bytes: the summary and as much of the fix as fits."""
    summary = _one_line(lesson.summary) or _one_line(lesson.mistake)
    fix = _one_line(lesson.remediation)
    text = f"{SHORT_HEADING}{summary}{SHORT_FIX}{fix}" if fix else f"{SHORT_HEADING}{summary}"
    return truncate_bytes(text, SHORT_MAX_BYTES)


def truncate_bytes(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes, between words, with an ellipsis.

    A word cut in half (``python -m pyt…``) reads as a different command; the cut falls on the
    last space instead, unless that would throw away more than half of what fits (one very
    long word), where a character boundary is all there is.
    """
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    room = limit - len(ELLIPSIS.encode("utf-8"))
    cut = data[:room].decode("utf-8", "ignore")
    if not text[len(cut) : len(cut) + 1].isspace():
        space = cut.rfind(" ")
        if space > len(cut) // 2:
            cut = cut[:space]
    return cut.rstrip() + ELLIPSIS


def _one_line(text: str) -> str:
    return " ".join(text.split())
