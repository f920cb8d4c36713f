"""Findings the user's words start: a call rejected with a reason that says what to do
instead, or a correction typed right after a call that did not fail, each paired with the next
call that followed it.
"""

from __future__ import annotations

import re

from lessons_core.patterns import kept_programs
from lessons_core.scan import events as ev
from lessons_core.scan import scoring
from lessons_core.scan.detectors import triggers
from lessons_core.scan.detectors.tier2.calls import _EDIT_TOOLS, _key, _same_input
from lessons_core.scan.detectors.tier2.finding import WINDOW, Finding
from lessons_core.scan.detectors.tier2.messages import _diagnoses, _first_sentence, _is_correction

#: A rejection's reason is a correction when it tells the agent what to do instead; a question
#: or a remark about the task ("do we even need this?") is not.
_DIRECTIVE = kept_programs.compile(
    r"^\W*(?:(?:use|try|prefer|avoid|always|only|run|call)\s+\S+"
    r"|I(?:'d|\s+would)\s+(?:actually\s+|much\s+)?(?:rather|prefer|like|love)\b)",
    re.IGNORECASE,
)
_REJECTION_REASON = kept_programs.compile(
    r"(?:reason for the rejection|the user said):\s*(?P<reason>\S.*)", re.IGNORECASE | re.DOTALL
)
#: The harness's own words when a call was declined (what follows them is the user's).
_REJECTION_HEAD = kept_programs.compile(
    r"\W*(?:The user doesn't want|User rejected|\[Operation Cancel|patch rejected)"
)


def _rejection(
    events: list[ev.Event], i: int, call: ev.Event, results: dict[int, ev.Event]
) -> Finding | None:
    """A call the user rejected with a reason that says what to do instead, and the next call
    that did it."""
    result = events[i]
    reason = _rejection_reason(events, i, result.text)
    if reason is None or not (_is_correction(reason) or _DIRECTIVE.match(reason)):
        return None
    finding = Finding(call, result)
    finding.user_text = reason
    finding.rejected = True
    finding.signals.add(scoring.USER_CORRECTION)
    for j in range(i + 1, min(len(events), i + 1 + WINDOW)):
        other = events[j]
        if other.kind != ev.TOOL_CALL or other.tool != call.tool:
            continue
        res = results.get(id(other))
        if res is None or res.failure is not None or _same_input(other, call):
            continue
        if _answers(other, call, reason) or (call.tool in _EDIT_TOOLS and not call.command):
            finding.fix = other
            return finding
        return None
    return None


def _rejection_reason(events: list[ev.Event], i: int, text: str) -> str | None:
    """The user's reason for a rejection: stated in the result, typed as the whole result
    (older Claude Code), or the user's next message before any other call."""
    m = _REJECTION_REASON.search(text)
    if m:
        return m.group("reason").strip()
    if not _REJECTION_HEAD.match(text):
        return text.strip() or None  # the typed feedback is the whole result
    for j in range(i + 1, min(len(events), i + 4)):
        other = events[j]
        if other.kind == ev.TOOL_CALL:
            return None
        if other.kind == ev.USER_TEXT:
            return other.text.strip() or None
    return None


def _user_correction(
    events: list[ev.Event], i: int, results: dict[int, ev.Event]
) -> Finding | None:
    """A user correction right after a call: the call before it is the mistake, the next
    call of the same tool the fix."""
    before = None
    for j in range(i - 1, max(-1, i - 6), -1):
        if events[j].kind == ev.TOOL_CALL:
            before = events[j]
            break
        if events[j].kind == ev.USER_TEXT:
            break
    if before is None:
        return None
    result = results.get(id(before))
    if result is None or result.failure in (ev.DENIED, ev.INTERRUPTED):
        return None
    finding = Finding(before, result)
    finding.user_text = events[i].text
    finding.signals.add(scoring.USER_CORRECTION)
    for j in range(i + 1, min(len(events), i + 1 + WINDOW)):
        other = events[j]
        if other.kind == ev.USER_TEXT:
            break
        if other.kind == ev.ASSISTANT_TEXT and finding.diagnosis is None and _diagnoses(other.text):
            finding.diagnosis = _first_sentence(other.text)
            finding.signals.add(scoring.SELF_DIAGNOSIS)
        if other.kind == ev.TOOL_CALL and other.tool == before.tool:
            res = results.get(id(other))
            if (
                res is not None
                and res.failure is None
                and not _same_input(other, before)
                and _answers(other, before, events[i].text)
            ):
                finding.fix = other
                if result.is_mistake:
                    finding.signals.add(scoring.ERROR_THEN_SUCCESS)
                return finding
            return None
    return None


def _answers(fix: ev.Event, before: ev.Event, said: str) -> bool:
    """Whether the call after a user's correction follows it: the same kind of call, or one
    the user named ("no, use uv add" → ``uv add …``). "Don't forget the tests" followed by
    ``pytest`` after a ``git commit`` is a new task, not a corrected commit."""
    if _key(fix)[:2] == _key(before)[:2] or (fix.paths and fix.paths == before.paths):
        return True
    words = set(re.findall(r"[\w.+-]+", said.lower()))
    if fix.command:
        return any(
            shape.exe.lower() in words or (shape.sub or "").lower() in words
            for shape in triggers.shapes(fix.command)
        )
    return False
