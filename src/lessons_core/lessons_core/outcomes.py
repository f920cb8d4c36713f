"""The outcome loop: did a delivered lesson keep its mistake from happening again?

The hook appends one line per delivered lesson to ``deliveries.jsonl`` (see
:mod:`lessons_core.hot.deliveries`); nothing else on the hot path writes. This module, run by
``lessons scan`` and ``lessons stats``, does the rest:

1. **ingest** — read the log from where the last run stopped (offset and inode kept in the
   store's scan state, so a second run reads nothing twice) and queue each delivery;
2. **judge** — read the session's transcript with the agent's own reader and look at what
   happened *after* the delivery. The same mistake **recurred** when a later failing call
   matches the lesson's trigger patterns, or its output carries one of the lesson's error
   fingerprints. Otherwise the lesson **prevented** it if the mistake was live when the lesson
   arrived (a guard or nudge stopped the call, recall answered a failure, or the call the hint
   came with failed), and was **quiet** if nothing showed the mistake at all. A guard or nudge
   was **needless** when the call it denied, run as it was, then succeeded: the lesson stopped a
   call that had nothing wrong with it;
3. **record** — a judged delivery becomes a row of the store's ``deliveries`` table, with the
   event as ``<event>:<kind>`` and the outcome. A delivery whose session is still running waits
   (up to ``SETTLE_SECONDS``); one whose transcript cannot be found is recorded as ``unknown``.

Rows are keyed by lesson, session, event and delivery time, so recording is idempotent, and the
same key lets exported statistics merge into another store (:func:`merge_rows`).

From the rows come the per-lesson figures (:func:`figures`): fired, prevented, recurred, quiet,
and the lists ``lessons stats`` and ``lessons doctor`` show — lessons never fired, lessons that
keep failing to prevent their mistake, noisy ones (judged often, never relevant) and denials that
were needless. The manifest compiler acts on them (:func:`adjust`): confidence moves with what a
lesson prevented, a noisy lesson loses priority, and a guard whose denials were needless is
compiled as a nudge (and a nudge, after repeated needless denials, as a hint). The stored lesson
is never changed: the adjustment follows the figures, and a user's edit always wins.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs

from lessons_core.hot import deliveries as delivery_log
from lessons_core.hot import errnorm
from lessons_core.logs import get_logger
from lessons_core.models import Lesson, LessonType, Status

log = get_logger()

PREVENTED = "prevented"
RECURRED = "recurred"
QUIET = "quiet"
NEEDLESS = "needless"
UNKNOWN = "unknown"
#: Said by the model itself (the MCP server's ``feedback`` tool): the lesson is wrong.
WRONG = "wrong"
OUTCOMES = (PREVENTED, RECURRED, QUIET, NEEDLESS, UNKNOWN, WRONG)
#: Kinds of delivery that deny the call (the ones that can be needless).
DENYING = frozenset({"guard", "nudge"})

#: Scan-state keys (the store's key-value place for "how far did we read").
LOG_STATE_KEY = "lessons:deliveries-log"
PENDING_STATE_KEY = "lessons:deliveries-pending"
#: A delivery younger than this, whose session shows nothing after it yet, waits for more.
SETTLE_SECONDS = 6 * 3600
#: At most this many deliveries wait for judgement; the oldest are recorded as unknown.
MAX_PENDING = 5000
#: At most this many candidate transcripts are opened per session.
MAX_CANDIDATES = 4
#: Bytes of log read per run (the rest is read next time).
MAX_LOG_BYTES = 64 * 1024 * 1024
#: Rotate the log once it has been read completely and is larger than this.
ROTATE_BYTES = 8 * 1024 * 1024

#: Figures that make a lesson "failing to prevent" or "noisy".
FAILING_MIN_RECURRED = 2
FAILING_SHARE = 0.5
NOISY_MIN_JUDGED = 3
#: ... and relevant in fewer than this share of them (the seed catalogue, replayed on real
#: sessions, is relevant in about one delivery in five).
NOISY_RELEVANT_SHARE = 0.25
#: Needless denials that turn a guard into a nudge, and a nudge into a hint.
GUARD_DEMOTION_NEEDLESS = 1
NUDGE_DEMOTION_NEEDLESS = 2
#: Confidence a lesson loses at manifest build per ``wrong`` verdict (within MAX_ADJUSTMENT).
WRONG_PENALTY = 0.05
#: Largest confidence change outcomes may cause at manifest build.
MAX_ADJUSTMENT = 0.1
#: Priority a noisy lesson loses in the manifest (never below 1).
NOISY_PRIORITY_PENALTY = 2


@attrs.frozen
class Delivery:
    """One line of the delivery log."""

    lesson_id: str
    session_id: str
    agent: str
    event: str
    kind: str
    at: str
    call: str | None = None
    call_id: str | None = None
    transcript: str | None = None
    cwd: str | None = None

    @property
    def column_event(self) -> str:
        """What the ``deliveries.event`` column holds: the hook event and the kind."""
        return f"{self.event}:{self.kind}"

    def key(self) -> tuple[str, str, str, str]:
        return (self.lesson_id, self.session_id, self.column_event, self.at)

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.lesson_id,
            "session": self.session_id,
            "agent": self.agent,
            "event": self.event,
            "kind": self.kind,
            "at": self.at,
            "call": self.call,
            "callId": self.call_id,
            "transcript": self.transcript,
            "cwd": self.cwd,
        }


def delivery_from_json(obj: Any) -> Delivery | None:
    """A log line as a :class:`Delivery`, or ``None`` when it lacks what a delivery needs."""
    if not isinstance(obj, dict):
        return None
    needed = ("id", "session", "event", "at")
    if not all(isinstance(obj.get(k), str) and obj.get(k) for k in needed):
        return None

    def opt(key: str) -> str | None:
        value = obj.get(key)
        return value if isinstance(value, str) and value else None

    return Delivery(
        lesson_id=obj["id"],
        session_id=obj["session"],
        agent=opt("agent") or "",
        event=obj["event"],
        kind=opt("kind") or "hint",
        at=obj["at"],
        call=opt("call"),
        call_id=opt("callId"),
        transcript=opt("transcript"),
        cwd=opt("cwd"),
    )


@attrs.define
class IngestReport:
    """What one :func:`ingest` run did."""

    read: int = 0
    bad_lines: int = 0
    recorded: int = 0
    waiting: int = 0
    duplicates: int = 0
    orphans: int = 0
    outcomes: dict[str, int] = attrs.field(factory=dict)


# -- reading the log --------------------------------------------------------------------------


def read_log(path: Path, offset: int = 0, limit: int = MAX_LOG_BYTES) -> tuple[list[Any], int]:
    """Parsed lines of ``path`` from ``offset``; returns ``(objects, next_offset)``.

    A partial last line (a hook still writing) is left for the next run; a line that is not JSON
    yields ``None`` in its place so the caller can count it.
    """
    import json

    try:
        with path.open("rb") as fh:
            fh.seek(offset)
            data = fh.read(limit)
    except FileNotFoundError:
        return [], offset
    end = data.rfind(b"\n")
    if end < 0:
        return [], offset
    out: list[Any] = []
    for raw in data[: end + 1].splitlines():
        if not raw.strip():
            continue
        try:
            out.append(json.loads(raw))
        except ValueError:
            out.append(None)
    return out, offset + end + 1


def _read_new(store: Any, path: Path, report: IngestReport) -> list[Delivery]:
    """New deliveries of the live log and of a rotated one, advancing the stored offsets."""
    found: list[Delivery] = []
    state = store.get_scan_state(LOG_STATE_KEY) or {}
    files = dict(state.get("files") or {})
    for candidate in (path.with_name(path.name + ".1"), path):
        try:
            st = candidate.lstat()
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(st.st_mode):
            continue  # a link or a FIFO there is not the hooks' log (they never write through one)
        key = str(st.st_ino)
        offset = int(files.get(key, 0))
        if offset > st.st_size:
            offset = 0
        objects, offset = read_log(candidate, offset)
        files[key] = offset
        for obj in objects:
            report.read += 1
            delivery = delivery_from_json(obj)
            if delivery is None:
                report.bad_lines += 1
            else:
                found.append(delivery)
    live = [str(p.stat().st_ino) for p in (path, path.with_name(path.name + ".1")) if p.exists()]
    files = {k: v for k, v in files.items() if k in live}
    if files != state.get("files") or "files" not in state:
        # (Unchanged offsets are not written again: most scans find no new deliveries.)
        with store.transaction():
            store.set_scan_state(LOG_STATE_KEY, {"files": files})
    _maybe_rotate(path, files)
    return found


def _maybe_rotate(path: Path, files: Mapping[str, int]) -> None:
    """Move a fully read, large log aside (``.1``); hooks start a new one on their next write."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return
    if st.st_size < ROTATE_BYTES or int(files.get(str(st.st_ino), 0)) < st.st_size:
        return
    with contextlib.suppress(OSError):
        path.replace(path.with_name(path.name + ".1"))


# -- transcripts ------------------------------------------------------------------------------


def parse_time(text: str | None) -> datetime | None:
    """An ISO timestamp as an aware datetime (UTC when it names no zone), or ``None``."""
    if not text:
        return None
    try:
        stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)


def _parse_time(text: str | None) -> float | None:
    stamp = parse_time(text)
    return stamp.timestamp() if stamp is not None else None


def find_transcripts(
    delivery: Delivery, agents: Mapping[str, Any], environ: Mapping[str, str]
) -> list[Path]:
    """Candidate transcripts of the delivery's session, best first.

    The path the hook saw comes first. Codex and Gemini do not hand it to the hook, so files
    under the agent's transcript roots whose names carry the session id (Codex) or its first
    eight characters (Gemini) follow; the caller keeps the one whose events name the session.
    """
    found: list[Path] = []
    if delivery.transcript:
        path = Path(delivery.transcript)
        if path.is_file():
            found.append(path)
    spec = agents.get(delivery.agent)
    roots = getattr(spec, "transcript_roots", None)
    if roots is None or not delivery.session_id:
        return found
    names = [delivery.session_id]
    if len(delivery.session_id) > 8:
        names.append(delivery.session_id[:8])
    for root in roots(environ):
        if not root.is_dir():
            continue
        for name in names:
            for candidate in sorted(root.rglob(f"*{name}*")):
                path = Path(candidate)
                if path.suffix in (".jsonl", ".json") and path not in found and path.is_file():
                    found.append(path)
            if len(found) > 1:
                break
    return found[:MAX_CANDIDATES]


def session_events(
    delivery: Delivery, agents: Mapping[str, Any], environ: Mapping[str, str]
) -> list[Any]:
    """The events of the delivery's session (``[]`` when no transcript names it)."""
    for path in find_transcripts(delivery, agents, environ):
        events = read_events(agents, delivery.agent, path)
        if not events:
            continue
        ids = {e.session_id for e in events if e.session_id}
        if path == Path(delivery.transcript or "") or not ids or delivery.session_id in ids:
            return events
    return []


def read_events(agents: Mapping[str, Any], agent: str, path: Path) -> list[Any]:
    """Every event of one transcript through the agent's reader ([] when unreadable)."""
    spec = agents.get(agent)
    reader = getattr(spec, "reader", None)
    if reader is None:
        return []
    from lessons_core.scan import events as ev

    try:
        return list(reader(path, 0, progress=ev.Progress(0, 0), start_message=0))
    except (OSError, ValueError) as exc:
        log.warning("outcomes.transcript_unreadable", path=str(path), error=str(exc))
        return []


# -- judging ----------------------------------------------------------------------------------


class LessonProbe:
    """What recurrence of one lesson's mistake looks like: its trigger and its fingerprints."""

    def __init__(self, lesson: Lesson):
        from lessons_core.compiler.build import compile_lesson

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
        return None if now - (_parse_time(delivery.at) or 0) < SETTLE_SECONDS else UNKNOWN
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
    if not later and now - (_parse_time(delivery.at) or 0) < SETTLE_SECONDS:
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
        at = _parse_time(delivery.at)
        if matches and at is not None:
            timed = [i for i in matches if (_parse_time(events[i].time) or 0) <= at + 1]
            if timed:
                return timed[-1] + 1
        if matches:
            return matches[0] + 1
    at = _parse_time(delivery.at)
    if at is None:
        return None
    for index, event in enumerate(events):
        when = _parse_time(event.time)
        if when is not None and when >= at:
            return index
    return None


# -- the loop ---------------------------------------------------------------------------------


def _existing_keys(store: Any) -> set[tuple[str, str, str, str]]:
    return {
        (r["lesson_id"], r["session_id"], r["event"], r["delivered_at"])
        for r in store.list_deliveries()
    }


def ingest(
    store: Any,
    home: Path | str,
    *,
    agents: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
    now: float | None = None,
) -> IngestReport:
    """Read new log lines, judge what can be judged, record it; safe to run any number of times.

    ``agents`` are the agent specs (readers, transcript roots); without them nothing can be
    judged from transcripts and deliveries wait until they settle, then count as ``unknown``.
    """
    import time

    env = os.environ if environ is None else environ
    now = time.time() if now is None else now
    report = IngestReport()
    path = Path(home) / delivery_log.LOG_NAME
    fresh = _read_new(store, path, report)
    pending_state = store.get_scan_state(PENDING_STATE_KEY) or {}
    pending = [d for d in map(delivery_from_json, pending_state.get("items") or ()) if d]
    pending.extend(fresh)
    if not pending and not pending_state.get("items"):
        return report  # nothing new, nothing waiting: the usual case costs two reads
    known_lessons = {lesson.id: lesson for lesson in store.list_lessons()}
    existing = _existing_keys(store)
    waiting: list[Delivery] = []
    judged: list[tuple[Delivery, str]] = []
    by_session: dict[tuple[str, str, str], list[Delivery]] = {}
    for delivery in pending:
        if delivery.key() in existing:
            report.duplicates += 1
            continue
        if delivery.lesson_id not in known_lessons:
            report.orphans += 1
            continue
        group = (delivery.agent, delivery.session_id, delivery.transcript or "")
        by_session.setdefault(group, []).append(delivery)
    probes: dict[str, LessonProbe] = {}
    for items in by_session.values():
        events = session_events(items[0], agents or {}, env)
        for item in items:
            probe = probes.get(item.lesson_id)
            if probe is None:
                probe = probes[item.lesson_id] = LessonProbe(known_lessons[item.lesson_id])
            outcome = judge(item, events, probe, env, now) if events else None
            if outcome is None and now - (_parse_time(item.at) or 0) >= SETTLE_SECONDS:
                outcome = UNKNOWN
            if outcome is None:
                waiting.append(item)
            else:
                judged.append((item, outcome))
    if len(waiting) > MAX_PENDING:
        overflow, waiting = waiting[:-MAX_PENDING], waiting[-MAX_PENDING:]
        judged.extend((item, UNKNOWN) for item in overflow)
    with store.transaction():
        # Read again under the write lock: a concurrent run may have recorded the same lines.
        existing = _existing_keys(store)
        for item, outcome in judged:
            if item.key() in existing:
                report.duplicates += 1
                continue
            store.record_delivery(
                item.lesson_id,
                item.session_id,
                item.agent,
                item.column_event,
                outcome=outcome,
                delivered_at=item.at,
            )
            existing.add(item.key())
            report.recorded += 1
            report.outcomes[outcome] = report.outcomes.get(outcome, 0) + 1
        store.set_scan_state(PENDING_STATE_KEY, {"items": [d.as_json() for d in waiting]})
    report.waiting = len(waiting)
    return report


def pending_deliveries(store: Any) -> list[Delivery]:
    """Deliveries read from the log that still wait for their session to go on."""
    state = store.get_scan_state(PENDING_STATE_KEY) or {}
    return [d for d in map(delivery_from_json, state.get("items") or ()) if d]


# -- figures ----------------------------------------------------------------------------------


@attrs.frozen
class LessonFigures:
    """Outcome counts of one lesson."""

    lesson_id: str
    fired: int = 0
    prevented: int = 0
    recurred: int = 0
    quiet: int = 0
    needless: int = 0
    unknown: int = 0
    wrong: int = 0
    waiting: int = 0
    sessions: int = 0
    #: Judged deliveries made before the call's outcome was known (not at a failure), and how
    #: many of those were relevant: what says whether a lesson is worth its place before calls.
    ahead_judged: int = 0
    ahead_relevant: int = 0

    @property
    def judged(self) -> int:
        """Deliveries whose outcome was seen (not unknown, not still waiting)."""
        return self.prevented + self.recurred + self.quiet + self.needless + self.wrong

    @property
    def failing(self) -> bool:
        """Keeps failing to prevent its mistake: it recurred (or was called wrong) often, and in
        most of the judged cases where it was relevant."""
        against = self.recurred + self.wrong
        relevant = self.prevented + against
        return against >= FAILING_MIN_RECURRED and against >= FAILING_SHARE * relevant

    @property
    def noisy(self) -> bool:
        """Judged often, and relevant (prevented or recurred) in few of those judgements.

        Only outcomes that were seen count: an ``unknown`` delivery says nothing either way.
        Deliveries made at a failure are left out: those come with a call that failed by
        definition, and counting them would wake a resting hint (:func:`failure_only`) only for
        it to be noisy again.
        """
        judged, relevant = self.ahead_judged, self.ahead_relevant
        return judged >= NOISY_MIN_JUDGED and relevant < NOISY_RELEVANT_SHARE * judged

    @property
    def needlessly_denying(self) -> bool:
        """Its denials stopped working calls more often than they stopped a mistake."""
        return self.needless > self.prevented

    def as_json(self) -> dict[str, Any]:
        return {
            "fired": self.fired,
            "prevented": self.prevented,
            "recurred": self.recurred,
            "quiet": self.quiet,
            "needless": self.needless,
            "unknown": self.unknown,
            "wrong": self.wrong,
            "waiting": self.waiting,
            "sessions": self.sessions,
        }


def figures(store: Any) -> dict[str, LessonFigures]:
    """Per-lesson outcome counts from the recorded rows plus the deliveries still waiting."""
    counts: dict[str, dict[str, int]] = {}
    sessions: dict[str, set[str]] = {}
    for row in store.list_deliveries():
        c = counts.setdefault(row["lesson_id"], {})
        c["fired"] = c.get("fired", 0) + 1
        outcome = row.get("outcome") or UNKNOWN
        if outcome not in OUTCOMES:
            outcome = UNKNOWN
        c[outcome] = c.get(outcome, 0) + 1
        if outcome != UNKNOWN and not str(row.get("event") or "").startswith("post_failure"):
            c["ahead_judged"] = c.get("ahead_judged", 0) + 1
            if outcome in (PREVENTED, RECURRED):
                c["ahead_relevant"] = c.get("ahead_relevant", 0) + 1
        sessions.setdefault(row["lesson_id"], set()).add(row["session_id"])
    for item in pending_deliveries(store):
        c = counts.setdefault(item.lesson_id, {})
        c["fired"] = c.get("fired", 0) + 1
        c["waiting"] = c.get("waiting", 0) + 1
        sessions.setdefault(item.lesson_id, set()).add(item.session_id)
    return {
        lesson_id: LessonFigures(
            lesson_id=lesson_id,
            fired=c.get("fired", 0),
            prevented=c.get(PREVENTED, 0),
            recurred=c.get(RECURRED, 0),
            quiet=c.get(QUIET, 0),
            needless=c.get(NEEDLESS, 0),
            unknown=c.get(UNKNOWN, 0),
            wrong=c.get(WRONG, 0),
            waiting=c.get("waiting", 0),
            sessions=len(sessions.get(lesson_id, ())),
            ahead_judged=c.get("ahead_judged", 0),
            ahead_relevant=c.get("ahead_relevant", 0),
        )
        for lesson_id, c in counts.items()
    }


#: Lesson types delivered at session start: nothing afterwards can show them relevant or not,
#: so they are never called noisy, never-fired or failing.
_SESSION_TYPES = (LessonType.PROTOCOL, LessonType.DIRECTIVE)


def summary(store: Any) -> dict[str, Any]:
    """What ``lessons stats`` prints: totals, and the never-fired, failing and noisy lessons."""
    per = figures(store)
    active = store.list_lessons(status=Status.ACTIVE)
    judgeable = {lesson.id: lesson for lesson in active if lesson.type not in _SESSION_TYPES}
    names = {lesson.id: lesson.slug or lesson.id for lesson in judgeable.values()}
    keys = ("fired", "prevented", "recurred", "quiet", "needless", "unknown", "wrong", "waiting")
    totals = dict.fromkeys(keys, 0)
    for fig in per.values():
        for key in totals:
            totals[key] += getattr(fig, key)
    never = sorted(i for i in names if i not in per or per[i].fired == 0)
    failing = sorted(i for i, fig in per.items() if i in judgeable and fig.failing)
    noisy = sorted(i for i, fig in per.items() if i in judgeable and fig.noisy)
    demoted = {
        i: change
        for i, lesson in sorted(judgeable.items())
        if (change := demotion(lesson, per.get(i))) is not None
    }
    shown = set(never) | set(failing) | set(noisy) | set(demoted)
    return {
        "totals": totals,
        "lessons": {i: fig.as_json() for i, fig in sorted(per.items())},
        "neverFired": never,
        "failingToPrevent": failing,
        "noisy": noisy,
        "demoted": demoted,
        "slugs": {i: names[i] for i in sorted(shown) if i in names},
    }


def confidence_delta(fig: LessonFigures) -> float:
    """A small confidence change from outcomes: up when it prevents, down when it fails, nags or
    is called wrong."""
    delta = 0.02 * min(fig.prevented, 5) - 0.03 * min(fig.recurred, 5)
    delta -= WRONG_PENALTY * min(fig.wrong, 5)
    if fig.noisy:
        delta -= 0.05
    return max(-MAX_ADJUSTMENT, min(MAX_ADJUSTMENT, delta))


def demotion(lesson: Lesson, fig: LessonFigures | None) -> str | None:
    """The type a denying lesson is compiled as after needless denials (``None``: unchanged).

    A guard that stopped a call which then ran fine as it was gets one step softer: it becomes a
    nudge, which still stops the first such call of a session but lets the retry through. A
    nudge (born one, or a demoted guard) whose denials keep being needless becomes a hint: it
    still says what it knows, with the result, and stops nothing.
    """
    if fig is None or not fig.needlessly_denying:
        return None
    if lesson.type is LessonType.GUARD:
        if fig.needless >= GUARD_DEMOTION_NEEDLESS + NUDGE_DEMOTION_NEEDLESS:
            return LessonType.HINT.value
        if fig.needless >= GUARD_DEMOTION_NEEDLESS:
            return LessonType.NUDGE.value
    if lesson.type is LessonType.NUDGE and fig.needless >= NUDGE_DEMOTION_NEEDLESS:
        return LessonType.HINT.value
    return None


def figures_or_none(store: Any) -> dict[str, LessonFigures] | None:
    """:func:`figures`, or ``None`` when they cannot be read (they must never stop a build)."""
    try:
        return figures(store)
    except Exception as exc:
        log.warning("outcomes.figures_failed", error=str(exc))
        return None


def adjust(
    lessons: Iterable[Lesson],
    store: Any,
    per: Mapping[str, LessonFigures] | None = None,
    *,
    floor: float = 0.0,
) -> list[Lesson]:
    """``lessons`` as the manifest should carry them after what their deliveries achieved.

    Confidence moves a little with prevented and recurred mistakes (for ranking); a noisy lesson
    loses :data:`NOISY_PRIORITY_PENALTY` priority; a denying lesson whose denials were needless
    is compiled one type softer (:func:`demotion`). The stored lesson is left alone: this only
    changes what the manifest says, so the adjustment follows the figures instead of
    compounding build after build, and stops as soon as the figures change. ``per`` are the
    figures when the caller has read them already.

    Outcomes never push a lesson below the confidence ``floor`` of the manifest: one whose
    mistake keeps recurring is about a live mistake, and dropping it would deliver nothing;
    ``stats`` and ``doctor`` name it (failing to prevent) so that its text can be sharpened.
    """
    items = list(lessons)
    per = figures_or_none(store) if per is None else per
    if per is None:
        return items
    out: list[Lesson] = []
    for lesson in items:
        fig = per.get(lesson.id)
        if fig is None:
            out.append(lesson)
            continue
        changes: dict[str, Any] = {}
        value = round(min(1.0, max(0.0, lesson.confidence + confidence_delta(fig))), 4)
        if lesson.confidence >= floor:
            value = max(value, floor)
        if value != lesson.confidence:
            changes["confidence"] = value
        if fig.noisy and lesson.type not in _SESSION_TYPES:
            lowered = max(1, lesson.priority - NOISY_PRIORITY_PENALTY)
            if lowered != lesson.priority:
                changes["priority"] = lowered
        softer = demotion(lesson, fig)
        if softer is not None:
            changes["type"] = LessonType(softer)
        out.append(attrs.evolve(lesson, **changes) if changes else lesson)
    return out


def failure_only(
    lessons: Iterable[Lesson], per: Mapping[str, LessonFigures] | None
) -> frozenset[str]:
    """Ids of the hints to compile for failing calls only: the noisy ones.

    A hint that keeps arriving with calls that worked costs the agent context and teaches it to
    skim lessons. Pre-tool context reaches the model with the call's result anyway (Claude Code,
    Codex), so a hint that waits for its call to fail loses little: it still arrives with the
    result of the very call it is about, when that call goes wrong.
    """
    if not per:
        return frozenset()
    return frozenset(
        lesson.id
        for lesson in lessons
        if lesson.type is LessonType.HINT and (fig := per.get(lesson.id)) is not None and fig.noisy
    )


# -- export / import --------------------------------------------------------------------------

#: The export line type (``lessons_core.transfer.jsonl.STATISTICS_TYPE`` spells it too).
EXPORT_TYPE = "lesson-deliveries"


def export_rows(store: Any) -> Iterator[dict[str, Any]]:
    """One export line per lesson with recorded deliveries (JSONL ``type: lesson-deliveries``)."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in store.list_deliveries():
        grouped.setdefault(row["lesson_id"], []).append(
            {
                "session": row["session_id"],
                "agent": row["agent"],
                "event": row["event"],
                "at": row["delivered_at"],
                "outcome": row.get("outcome"),
            }
        )
    for lesson_id in sorted(grouped):
        yield {"type": EXPORT_TYPE, "lessonId": lesson_id, "deliveries": grouped[lesson_id]}


def is_export_row(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("type") == EXPORT_TYPE


def merge_rows(store: Any, rows: Iterable[Mapping[str, Any]]) -> tuple[int, int]:
    """Merge exported delivery statistics; returns ``(added, skipped)``. Idempotent.

    A row already present (same lesson, session, event and time) is skipped, as is one whose
    lesson this store does not hold.
    """
    existing = _existing_keys(store)
    held = {lesson.id: lesson for lesson in store.list_lessons()}
    added = skipped = 0
    with store.transaction():
        for row in rows:
            lesson_id = row.get("lessonId")
            lesson = held.get(lesson_id) if isinstance(lesson_id, str) else None
            items = row.get("deliveries")
            if lesson is None or not isinstance(items, list):
                skipped += len(items) if isinstance(items, list) else 1
                continue
            for item in items:
                if not isinstance(item, dict):
                    skipped += 1
                    continue
                session, event, at = item.get("session"), item.get("event"), item.get("at")
                if not all(isinstance(v, str) and v for v in (session, event, at)):
                    skipped += 1
                    continue
                key = (lesson.id, str(session), str(event), str(at))
                if key in existing:
                    skipped += 1
                    continue
                outcome = item.get("outcome")
                store.record_delivery(
                    lesson.id,
                    key[1],
                    str(item.get("agent") or ""),
                    key[2],
                    outcome=outcome if outcome in OUTCOMES else None,
                    delivered_at=key[3],
                )
                existing.add(key)
                added += 1
    return added, skipped


# -- command helpers --------------------------------------------------------------------------


def run(session: Any) -> IngestReport | None:
    """Ingest and judge with a :class:`lessons_core.services.Session` (``scan`` and ``stats``).

    A failure here is logged and swallowed: the figures are a by-product, never the reason a
    scan or a stats call fails.
    """
    try:
        return ingest(
            session.store,
            session.home,
            agents=session.plugins.agents(),
            environ=session.environ if session.environ is not None else os.environ,
        )
    except Exception as exc:
        log.warning("outcomes.ingest_failed", error=str(exc))
        return None


def stats_lines(figures: Mapping[str, Any], limit: int = 10) -> list[str]:
    """The human lines ``lessons stats`` prints for :func:`summary`'s result."""
    totals = figures["totals"]
    slugs = figures.get("slugs", {})
    lines = [
        f"deliveries: {totals['fired']} (prevented {totals['prevented']}, "
        f"recurred {totals['recurred']}, quiet {totals['quiet']}, "
        f"needless {totals.get('needless', 0)}, unknown {totals['unknown']}, "
        f"waiting {totals['waiting']})"
    ]
    if totals.get("wrong"):
        lines[0] = lines[0][:-1] + f", called wrong {totals['wrong']})"

    def named(ids: Sequence[str]) -> str:
        shown = ", ".join(slugs.get(i, i) for i in ids[:limit])
        return shown + (f" … and {len(ids) - limit} more" if len(ids) > limit else "")

    for key, label in (
        ("failingToPrevent", "keep failing to prevent their mistake"),
        ("noisy", "noisy (judged often, mistake never seen; priority lowered)"),
        ("neverFired", "never fired"),
    ):
        ids = figures.get(key) or []
        if ids:
            lines.append(f"{label}: {len(ids)}: {named(ids)}")
    demoted = figures.get("demoted") or {}
    for softer in sorted(set(demoted.values())):
        ids = sorted(i for i, t in demoted.items() if t == softer)
        lines.append(
            f"compiled as {softer}s (their denials stopped calls that then ran fine): "
            f"{len(ids)}: {named(ids)}"
        )
    return lines


def doctor_line(store: Any) -> str | None:
    """One line for ``lessons doctor`` when some lessons are noisy or keep failing, else None."""
    found = summary(store)
    parts = []
    if found["failingToPrevent"]:
        parts.append(f"{len(found['failingToPrevent'])} keep failing to prevent their mistake")
    if found["noisy"]:
        parts.append(f"{len(found['noisy'])} noisy")
    if found["demoted"]:
        parts.append(
            f"{len(found['demoted'])} denied calls that then ran fine (compiled one type softer)"
        )
    if found["totals"]["fired"] and found["neverFired"]:
        parts.append(f"{len(found['neverFired'])} never fired")
    if not parts:
        return None
    return "lessons outcomes: " + ", ".join(parts) + " (see `lessons stats`)"
