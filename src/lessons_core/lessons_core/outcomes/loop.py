"""The loop that runs it all: ingest the log, judge what has settled, record the verdicts."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lessons_core.hot import deliveries as delivery_log
from lessons_core.logs import get_logger
from lessons_core.outcomes.logfile import IngestReport, read_new
from lessons_core.verdicts.records import (
    MAX_PENDING,
    PENDING_STATE_KEY,
    UNKNOWN,
    Delivery,
    delivery_from_json,
    existing_keys,
    timestamp,
)

log = get_logger()


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
    fresh = read_new(store, path, report)
    pending_state = store.get_scan_state(PENDING_STATE_KEY) or {}
    pending = [d for d in map(delivery_from_json, pending_state.get("items") or ()) if d]
    pending.extend(fresh)
    if not pending and not pending_state.get("items"):
        return report  # nothing new, nothing waiting: the usual case costs two reads
    # Only now: a scan with nothing to judge does not import the judging.
    from lessons_core.outcomes.judging import SETTLE_SECONDS, LessonProbe, judge
    from lessons_core.outcomes.transcripts import session_events

    known_lessons = {lesson.id: lesson for lesson in store.list_lessons()}
    existing = existing_keys(store)
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
            if outcome is None and now - (timestamp(item.at) or 0) >= SETTLE_SECONDS:
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
        existing = existing_keys(store)
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


def run(session: Any) -> IngestReport | None:
    """Ingest and judge with a :class:`lessons_core.services.Session` (``scan``, ``stats`` and
    ``report``), and rebuild the manifest when a verdict was recorded.

    A failure here is logged and swallowed: the figures are a by-product, never the reason a
    scan or a stats call fails.
    """
    try:
        report = ingest(
            session.store,
            session.home,
            agents=session.plugins.agents(),
            environ=session.environ if session.environ is not None else os.environ,
        )
    except Exception as exc:
        log.warning("outcomes.ingest_failed", error=str(exc))
        return None
    if report.recorded:
        # The build acts on the verdicts (ranking, a hint resting until its call fails, a
        # guard demoted): the hooks get them now, not at whatever command builds next.
        try:
            session.rebuild_manifest()
        except Exception as exc:  # `lessons doctor` says the manifest is behind, and why
            log.warning("outcomes.rebuild_failed", error=str(exc))
    return report
