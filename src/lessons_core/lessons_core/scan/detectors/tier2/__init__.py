"""Tier 2: mistake → correction patterns found by heuristics, without the agent's help.

For every tool result that failed through the agent's own doing, a window of the events that
follow is searched for what happened next:

* a *similar* later call (same executable and subcommand, or same tool on the same file) that
  worked, with a different command or input — the correction (``error_then_success``);
* the user correcting the agent in between ("no, use …", "that's wrong", "don't …");
* the same failing call repeated three times or more (``retry_loop``);
* the failure being a hang or timeout;
* the agent explaining its own mistake ("I see the issue", "the problem was").

A user's rejection of a call *with a reason* ("use pnpm") is a detection too, and so is an
explicit user correction after a call that did not fail: the user's words say what was wrong.

Not every corrected failure is a lesson. A person calls a failure a mistake when it would
happen again elsewhere: a tool refusing the call (the file was not read, the text to replace
is stale, the path is relative), a command that is not on PATH, an option that does not exist,
a path the shell read as syntax, the working directory left elsewhere by an earlier ``cd``.
A test run that failed until the code was edited, a file that was not where the agent looked,
or a typo in one repository's names are one-off facts, and are dropped. The lesson says what
went wrong in general terms (:mod:`lessons_core.scan.detectors.failures`), what the fixing call
changed, and carries a trigger that fires on the wrong call but not on its fix
(:mod:`lessons_core.scan.detectors.triggers`). Confidence and priority follow
:mod:`lessons_core.scan.scoring`.

The modules of this package follow that pipeline, in the order a failure goes through them:
:mod:`.pairing` finds the call that fixed a failure (with :mod:`.calls`, which calls are of one
kind, and :mod:`.remedies`, what else made the failure go away), and :mod:`.user_corrections`
the findings the user's words start; :mod:`.judging` keeps the reusable mistakes and names
their class (with :mod:`.drift` and the pseudo-classes of :mod:`.classes`); :mod:`.recall`
gives the lesson its trigger, or none when it comes back at the failure; :mod:`.lesson` writes
it. :mod:`.finding` holds what is handed along and :mod:`.messages` what the words around a
failure say. This module walks each session and hands every place a finding may start to them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from lessons_core.models import Candidate, Config
from lessons_core.scan import events as ev
from lessons_core.scan.detectors.tier2.calls import _FILE_TOOLS, _META_TOOLS
from lessons_core.scan.detectors.tier2.classes import (
    CWD_DRIFT,
    DASH_ARGUMENT,
    EDIT_CAUSES,
    FAILURE_TIME_CLASSES,
    PREREQUISITE,
    SANDBOX,
    STALE_OUTPUT,
    WORKDIR_DRIFT,
    cannot_start,
    unknown_skill,
)
from lessons_core.scan.detectors.tier2.finding import NAME, RETRY_THRESHOLD, WINDOW, Finding
from lessons_core.scan.detectors.tier2.judging import _judge
from lessons_core.scan.detectors.tier2.lesson import _candidate
from lessons_core.scan.detectors.tier2.messages import (
    SELF_DIAGNOSIS,
    USER_CORRECTION,
    _is_correction,
)
from lessons_core.scan.detectors.tier2.pairing import (
    FALLBACK_TOOLS,
    _follow,
    _found_nothing,
    _link,
    _release_others,
    _stopped_by_a_lesson,
)
from lessons_core.scan.detectors.tier2.user_corrections import _rejection, _user_correction

__all__ = [
    "CWD_DRIFT",
    "DASH_ARGUMENT",
    "EDIT_CAUSES",
    "FAILURE_TIME_CLASSES",
    "FALLBACK_TOOLS",
    "NAME",
    "PREREQUISITE",
    "RETRY_THRESHOLD",
    "SANDBOX",
    "SELF_DIAGNOSIS",
    "STALE_OUTPUT",
    "USER_CORRECTION",
    "WINDOW",
    "WORKDIR_DRIFT",
    "Finding",
    "detect",
    "findings",
]


def _sessions(events: Sequence[ev.Event]) -> Iterator[list[ev.Event]]:
    if events:
        first = events[0].session_id
        if all(event.session_id == first for event in events):  # the usual batch: one session
            yield events if isinstance(events, list) else list(events)
            return
    groups: dict[str | None, list[ev.Event]] = {}
    for event in events:
        groups.setdefault(event.session_id, []).append(event)
    yield from groups.values()


def detect(
    events: Sequence[ev.Event], *, config: Config | None = None, **_: Any
) -> Iterable[Candidate]:
    """Heuristic candidates from one transcript's events (grouped by session)."""
    for _finding, candidate in findings(events, config=config):
        yield candidate


def findings(
    events: Sequence[ev.Event], *, config: Config | None = None
) -> Iterator[tuple[Finding, Candidate]]:
    """Each detection with the events it rests on (the failing call and its result, the fix,
    what the user said): for detectors that write the lesson of a finding another way."""
    cfg = config or Config()
    for session_events in _sessions(events):
        yield from _detect_session(session_events, cfg)


def _detect_session(events: list[ev.Event], cfg: Config) -> Iterator[tuple[Finding, Candidate]]:
    # Only failed results and user text can start a finding: the one pass that links calls
    # to their results also notes where those are, and the rest is not walked again.
    calls, results, starts = _link(events)
    consumed: set[int] = set()
    corrected: set[int] = set()
    for i in starts:
        event = events[i]
        if event.kind == ev.TOOL_RESULT and id(event) not in consumed:
            call = calls.get(id(event))
            if call is None or call.sidechain != event.sidechain:
                continue
            if _stopped_by_a_lesson(event):
                continue
            if not _actionable(call) and not _refused_itself(call, event.text):
                continue
            if event.is_mistake or (
                event.failure == ev.DENIED and call.command and not call.escalated
            ):
                if _found_nothing(event):
                    continue  # a probe that found nothing (grep, rg, test): not a mistake
                followed = dropped = _follow(events, i, call, calls, results, consumed)
                fixed = followed.fix is not None
                finding = _judge(followed, events, i, results) if fixed else None
            elif event.failure == ev.REJECTED:
                finding, dropped = _rejection(events, i, call, results), None
            else:
                continue
            if finding is not None and finding.fix is not None:
                candidate = _candidate(finding, cfg)
                if candidate is not None:
                    corrected.add(id(finding.fix))
                    yield finding, candidate
                    continue
            if dropped is not None:
                # A finding that came to nothing (no fix, the same call working on a second
                # try, or dropped once its fix was known) leaves the repeats that were another
                # command to be judged on their own (a probe in one folder, then the mistake in
                # another; a lint run, then the run given an option it does not have), and the
                # same command made again on edited code; the same command again on the same
                # code stays counted.
                _release_others(dropped, calls, consumed)
        elif event.kind == ev.USER_TEXT and _is_correction(event.text):
            finding = _user_correction(events, i, results)
            if finding is not None and finding.fix is not None and _actionable(finding.call):
                if id(finding.fix) in corrected:
                    continue
                candidate = _candidate(finding, cfg)
                if candidate is not None:
                    corrected.add(id(finding.fix))
                    yield finding, candidate


def _actionable(call: ev.Event) -> bool:
    """Only calls a lesson can be about: a command, a file, or a tool that refused its input.
    A rejected plan or a failed web fetch has nothing to match the next time."""
    if call.tool in _META_TOOLS or (call.tool or "").startswith("mcp__"):
        return False
    return bool(call.command) or bool(call.paths) or call.tool in _FILE_TOOLS


def _refused_itself(call: ev.Event, error: str) -> bool:
    """Whether a call with nothing a lesson could match (no command, no file) failed for a
    reason of the tool's own that its words state: the tool could not start, or the skill it
    was asked for does not exist. Such a failure is a lesson whatever the call was given."""
    return cannot_start(call, error) or unknown_skill(call, error) is not None
