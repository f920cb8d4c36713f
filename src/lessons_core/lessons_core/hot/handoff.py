"""The compaction handoff: what mattered in a session, carried across its compaction.

Compaction replaces the conversation with a summary, and the lessons delivered so far, the
failures still open and the fixes recalled from earlier sessions are exactly what a summary
tends to lose. ``PreCompact`` (Claude Code, Codex) / ``PreCompress`` (Gemini) writes them into
the session's private state (``<key>.handoff``, see :mod:`lessons_core.hot.claims`) with the
texts they were delivered with; the first event after compaction that can carry context
delivers the handoff once (claim ``handoff@<stamp>``) inside the session-start budget:
``SessionStart`` with ``source: compact`` on Claude Code and Codex; Gemini fires no
``SessionStart`` after compression, so there its next ``BeforeAgent`` or ``AfterTool`` does.

Standard library only; the note is small (at most ``MAX_ITEMS`` lessons per list).
"""

# os.path, not pathlib: importing pathlib costs the hook process more than these calls.
# ruff: noqa: PTH116

import os
import time

HEADER = "Carried over from before this session's context was compacted:"
MAX_ITEMS = 12
ITEM_BYTES = 240
#: Share of the session-start budget the handoff may take (the rest is for the usual block).
SHARE = 0.5


def _short(manifest, lesson_id):
    lesson = manifest.get("lessons", {}).get(lesson_id) or {}
    text = lesson.get("short") or lesson.get("slug") or ""
    return " ".join(str(text).split())


def collect(session, manifest):
    """The handoff of a session: delivered lessons, recalled fixes, open failures."""
    from lessons_core.hot import reminders

    lessons = manifest.get("lessons", {})
    delivered: list[str] = []
    recalled: list[str] = []
    for name in session.names():
        lesson_id = name
        target = delivered
        if name.startswith("nudge:"):
            lesson_id = name[6:]
        elif name.startswith("recall:"):
            lesson_id, target = name[7:], recalled
        if lesson_id in lessons and lesson_id not in delivered and lesson_id not in recalled:
            target.append(lesson_id)
    fails = [
        {"subject": name, "command": rec.get("command", ""), "error": rec.get("error", "")}
        for name, rec in reminders.open_failures(session).items()
        if isinstance(rec, dict)
    ]
    return {
        "stamp": int(time.time() * 1000),
        "delivered": [[i, _short(manifest, i)] for i in delivered[-MAX_ITEMS:]],
        "recalled": [[i, _short(manifest, i)] for i in recalled[-MAX_ITEMS:]],
        "failures": fails[-MAX_ITEMS:],
    }


def write(session, manifest, stats):
    """Write the handoff at pre-compaction (nothing when the session had nothing to carry)."""
    note = collect(session, manifest)
    if not (note["delivered"] or note["recalled"] or note["failures"]):
        session.drop_note("handoff")
        return
    try:
        session.write_note("handoff", note)
        stats["handoff"] = len(note["delivered"]) + len(note["recalled"]) + len(note["failures"])
    except OSError as exc:
        stats["handoff_error"] = str(exc)[:200]


def _cut(text):
    data = text.encode("utf-8")
    if len(data) <= ITEM_BYTES:
        return text
    return data[: ITEM_BYTES - 3].decode("utf-8", "ignore").rstrip() + "…"


def render(note):
    """The handoff as lines, most important first: open failures, recalled fixes, lessons."""
    lines = []
    for fail in note.get("failures") or ():
        what = fail.get("command") or fail.get("subject") or "a call"
        error = fail.get("error")
        lines.append(_cut(f"- still failing: `{what}`" + (f": {error}" if error else "")))
    for lesson_id, text in note.get("recalled") or ():
        lines.append(_cut(f"- recalled fix ({lesson_id}): {text}"))
    for lesson_id, text in note.get("delivered") or ():
        lines.append(_cut(f"- lesson given ({lesson_id}): {text}"))
    return lines


def take(session, budget, stats):
    """The handoff text within ``budget`` bytes, once per compaction; ``None`` when none waits."""
    note = session.read_note("handoff")
    if not isinstance(note, dict) or not session.claim(f"handoff@{note.get('stamp')}"):
        return None
    session.drop_note("handoff")
    parts = [HEADER]
    used = len(HEADER.encode("utf-8"))
    for line in render(note):
        size = len(line.encode("utf-8")) + 1
        if used + size > budget:
            stats["handoff_cut"] = True
            break
        parts.append(line)
        used += size
    return "\n".join(parts) if len(parts) > 1 else None


def pending(state):
    """True when a handoff waits in this session (one ``stat``; for agents without a
    post-compaction session start)."""
    if state is None or (hasattr(state, "has_note") and not state.has_note("handoff")):
        return False
    session = state.get()
    if session is None:
        return False
    try:
        os.stat(session.note_path("handoff"))
    except OSError:
        return False
    return True
