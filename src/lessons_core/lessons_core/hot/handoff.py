"""The compaction handoff: what mattered in a session, carried across its compaction.

Compaction replaces the conversation with a summary, and the lessons delivered so far, the
failures still open and the fixes recalled from earlier sessions are exactly what a summary
tends to lose. ``PreCompact`` (Claude Code, Codex) / ``PreCompress`` (Gemini) writes them into
the session's private state (``<key>.handoff``, see :mod:`lessons_core.hot.claims`) with the
texts they were delivered with; the first event after compaction that can carry context
delivers the handoff once (claim ``handoff@<stamp>``) inside the session-start budget:
``SessionStart`` with ``source: compact`` on Claude Code and Codex; Gemini fires no
``SessionStart`` after compression, so there its next ``BeforeAgent`` or ``AfterTool`` does.

Gemini CLI (0.61) fires ``PreCompress`` with ``trigger: auto`` before every model turn, before it
has decided whether to compress, and almost always does not. So a Gemini note is only tentative
(``confirm``: the transcript, its size then, and the line Gemini writes when it starts the
compressed chat; the adapter names that line): the next event that can carry context looks for
that line past the recorded size, and delivers (and re-arms) only when it is there; otherwise it
drops the note. A session start drops a tentative note, since a resumed chat writes the same line.

Standard library only; the note is small (at most ``MAX_ITEMS`` lessons per list).
"""

# os.path, not pathlib: importing pathlib costs the hook process more than these calls.
# ruff: noqa: PTH116

import os
import time

from lessons_core.hot import safefile

HEADER = "Carried over from before this session's context was compacted:"
MAX_ITEMS = 12
ITEM_BYTES = 240
#: Share of the session-start budget the handoff may take (the rest is for the usual block).
SHARE = 0.5
#: How much of the transcript written since a tentative note is searched for the evidence.
MAX_EVIDENCE_BYTES = 32 * 1024 * 1024
_CHUNK = 256 * 1024


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


def write(session, manifest, stats, confirm=None):
    """Write the handoff at pre-compaction (nothing when the session had nothing to carry).

    ``confirm`` (``{"path", "offset", "marker"}``) makes the note tentative: it is written even
    when empty, because a confirmed compaction also re-arms, and it keeps the offset of a
    tentative note still waiting, so evidence written in between is not skipped.
    """
    note = collect(session, manifest)
    if confirm is not None:
        old = session.read_note("handoff")
        before = old.get("confirm") if isinstance(old, dict) else None
        if isinstance(before, dict) and before.get("path") == confirm.get("path"):
            offset = before.get("offset")
            if isinstance(offset, int) and 0 <= offset < confirm["offset"]:
                confirm = dict(confirm, offset=offset)
        note["confirm"] = confirm
    elif not (note["delivered"] or note["recalled"] or note["failures"]):
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


def take(session, budget, stats, note=None):
    """The handoff text within ``budget`` bytes, once per compaction; ``None`` when none waits."""
    note = session.read_note("handoff") if note is None else note
    if not isinstance(note, dict) or not session.claim(f"handoff@{note.get('stamp')}"):
        return None
    session.drop_note("handoff")
    return text_of(note, budget, stats)


def text_of(note, budget, stats):
    """The note as text within ``budget`` bytes (``None`` when it carries nothing)."""
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


def compacted(confirm):
    """Did the agent compact after the tentative note ``confirm`` was written?

    True when the transcript holds the agent's new-chat line at the start of a line written past
    the recorded offset. A transcript that is missing, not a regular file, or shorter than the
    offset (rewritten) is no evidence.
    """
    if not isinstance(confirm, dict):
        return False
    path, offset, marker = confirm.get("path"), confirm.get("offset"), confirm.get("marker")
    if not (isinstance(path, str) and path and isinstance(offset, int) and offset >= 0):
        return False
    if not isinstance(marker, str) or not marker:
        return False
    needle = b"\n" + marker.encode("utf-8")
    try:
        # The agent's file, not ours: a link is followed, but only a regular file is read.
        fd, st = safefile.open_read(path, trusted=False, follow=True)
    except (OSError, ValueError):
        return False
    try:
        if st.st_size < offset:
            return False
        os.lseek(fd, offset, os.SEEK_SET)
        tail = b"\n"  # the offset is where a line started
        read = 0
        while read < MAX_EVIDENCE_BYTES:
            chunk = os.read(fd, _CHUNK)
            if not chunk:
                return False
            read += len(chunk)
            data = tail + chunk
            if needle in data:
                return True
            tail = data[-len(needle) :]
        return False
    except OSError:
        return False
    finally:
        os.close(fd)


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
