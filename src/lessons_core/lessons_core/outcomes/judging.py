"""Judging one delivery from what happened after it in its session."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lessons_core.hot import deliveries as delivery_log
from lessons_core.hot import errnorm
from lessons_core.models import Lesson
from lessons_core.verdicts.records import (
    DENYING,
    NEEDLESS,
    PREVENTED,
    QUIET,
    RECURRED,
    UNKNOWN,
    Delivery,
    timestamp,
)

#: A delivery younger than this, whose session shows nothing after it yet, waits for more.
SETTLE_SECONDS = 6 * 3600


class LessonProbe:
    """What recurrence of one lesson's mistake looks like: its trigger and its fingerprints."""

    def __init__(self, lesson: Lesson):
        from lessons_core.compiler.entries import compile_lesson

        self.lesson = lesson
        try:
            self.entry: dict[str, Any] | None = compile_lesson(lesson)
        except Exception:  # a refused pattern: only the fingerprints remain
            self.entry = None
        self.fingerprints = set(errnorm.line_fingerprints(lesson.error_lines))

    def has_trigger(self) -> bool:
        entry = self.entry or {}
        return any(entry.get(k) for k in ("commands", "paths", "content"))

    def matches_call(self, call: Any, environ: Mapping[str, str]) -> bool:
        """True when the lesson's trigger patterns fire for a transcript tool call."""
        if self.entry is None or not self.has_trigger():
            return False
        from lessons_core.hot import match

        tools = self.entry.get("tools")
        listed = not tools or call.tool in tools
        event = {
            "tool": call.tool,
            "command": call.command,
            "paths": list(call.paths or ()),
            "content": None,
            "cwd": call.project,
            "model": None,
        }
        return match.check(self.entry, match.Subject(event), listed, environ) is None

    def matches_output(self, text: str) -> bool:
        """True when a failure output carries one of the lesson's error fingerprints."""
        if not self.fingerprints or not text:
            return False
        return bool(self.fingerprints.intersection(errnorm.fingerprints(errnorm.key_lines(text))))


def _call_fingerprint(call: Any) -> str | None:
    found = delivery_log.call_fingerprint(
        {"tool": call.tool, "command": call.command, "paths": list(call.paths or ())}
    )
    return str(found) if found else None


def judge(
    delivery: Delivery,
    events: Sequence[Any],
    probe: LessonProbe,
    environ: Mapping[str, str],
    now: float,
) -> str | None:
    """The outcome of one delivery given its session's events; ``None`` means "wait"."""
    from lessons_core.scan import events as ev

    start = _position(delivery, events)
    if start is None:
        return None if now - (timestamp(delivery.at) or 0) < SETTLE_SECONDS else UNKNOWN
    calls: dict[str, Any] = {}
    for event in events[:start]:
        if event.kind == ev.TOOL_CALL and event.call_id:
            calls[event.call_id] = event
    live = delivery.kind in ("guard", "nudge", "recall")
    denying = delivery.kind in DENYING
    later = 0
    for event in events[start:]:
        if event.kind == ev.TOOL_CALL:
            later += 1
            if event.call_id:
                calls[event.call_id] = event
            continue
        if event.kind != ev.TOOL_RESULT:
            continue
        call = calls.get(event.call_id or "")
        if event.call_id and event.call_id == delivery.call_id:
            if denying and event.failure is None:
                # A denied call shows up as refused; this one ran and worked as it was.
                return NEEDLESS
            # The call the lesson came with: its own failure shows the mistake was live, and so
            # does the user turning it down (a rejection never reaches a failure hook).
            rejected = event.failure == ev.REJECTED
            if rejected or (
                event.is_mistake
                and (
                    (call is not None and probe.matches_call(call, environ))
                    or probe.matches_output(event.text)
                )
            ):
                live = True
            continue
        if (
            denying
            and event.failure is None
            and call is not None
            and delivery.call
            and _call_fingerprint(call) == delivery.call
        ):
            return NEEDLESS  # the denied call, run again unchanged, succeeded
        if not event.is_mistake:
            continue
        if (call is not None and probe.matches_call(call, environ)) or probe.matches_output(
            event.text
        ):
            return RECURRED
    if not later and now - (timestamp(delivery.at) or 0) < SETTLE_SECONDS:
        return None  # the session has not gone on yet
    return PREVENTED if live else QUIET


def _position(delivery: Delivery, events: Sequence[Any]) -> int | None:
    """Index of the first event after the delivery, or ``None`` when it cannot be placed.

    The delivering call is found by id, else by the call fingerprint; a delivery without a call
    (session start, prompt) is placed by time.
    """
    from lessons_core.scan import events as ev

    if delivery.call_id:
        for index, event in enumerate(events):
            if event.kind == ev.TOOL_CALL and event.call_id == delivery.call_id:
                return index + 1
    if delivery.call:
        matches = [
            i
            for i, e in enumerate(events)
            if e.kind == ev.TOOL_CALL and _call_fingerprint(e) == delivery.call
        ]
        at = timestamp(delivery.at)
        if matches and at is not None:
            timed = [i for i in matches if (timestamp(events[i].time) or 0) <= at + 1]
            if timed:
                return timed[-1] + 1
        if matches:
            return matches[0] + 1
    at = timestamp(delivery.at)
    if at is None:
        return None
    for index, event in enumerate(events):
        when = timestamp(event.time)
        if when is not None and when >= at:
            return index
    return None
