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

The package is split by concern: :mod:`~.records` (what is recorded), :mod:`~.logfile` (the
hook's log), :mod:`~.transcripts` (finding a session's transcript), :mod:`~.judging` (one
verdict), :mod:`~.loop` (ingest and record), :mod:`~.stats` (figures and what the compiler makes
of them) and :mod:`~.transfer` (export and import). The names callers use are re-exported here.

The names are imported on first use: ``lessons scan`` runs the loop after every scan, and
with nothing new to judge it needs neither the judging nor the figures.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lessons_core.outcomes.judging import (
        SETTLE_SECONDS as SETTLE_SECONDS,
    )
    from lessons_core.outcomes.judging import (
        LessonProbe as LessonProbe,
    )
    from lessons_core.outcomes.judging import (
        judge as judge,
    )
    from lessons_core.outcomes.logfile import (
        LOG_STATE_KEY as LOG_STATE_KEY,
    )
    from lessons_core.outcomes.logfile import (
        MAX_LOG_BYTES as MAX_LOG_BYTES,
    )
    from lessons_core.outcomes.logfile import (
        ROTATE_BYTES as ROTATE_BYTES,
    )
    from lessons_core.outcomes.logfile import (
        read_log as read_log,
    )
    from lessons_core.outcomes.logfile import (
        read_new as read_new,
    )
    from lessons_core.outcomes.loop import (
        ingest as ingest,
    )
    from lessons_core.outcomes.loop import (
        run as run,
    )
    from lessons_core.outcomes.records import (
        DENYING as DENYING,
    )
    from lessons_core.outcomes.records import (
        MAX_PENDING as MAX_PENDING,
    )
    from lessons_core.outcomes.records import (
        NEEDLESS as NEEDLESS,
    )
    from lessons_core.outcomes.records import (
        OUTCOMES as OUTCOMES,
    )
    from lessons_core.outcomes.records import (
        PENDING_STATE_KEY as PENDING_STATE_KEY,
    )
    from lessons_core.outcomes.records import (
        PREVENTED as PREVENTED,
    )
    from lessons_core.outcomes.records import (
        QUIET as QUIET,
    )
    from lessons_core.outcomes.records import (
        RECURRED as RECURRED,
    )
    from lessons_core.outcomes.records import (
        UNKNOWN as UNKNOWN,
    )
    from lessons_core.outcomes.records import (
        WRONG as WRONG,
    )
    from lessons_core.outcomes.records import (
        Delivery as Delivery,
    )
    from lessons_core.outcomes.records import (
        IngestReport as IngestReport,
    )
    from lessons_core.outcomes.records import (
        delivery_from_json as delivery_from_json,
    )
    from lessons_core.outcomes.records import (
        existing_keys as existing_keys,
    )
    from lessons_core.outcomes.records import (
        parse_time as parse_time,
    )
    from lessons_core.outcomes.records import (
        pending_deliveries as pending_deliveries,
    )
    from lessons_core.outcomes.records import (
        timestamp as timestamp,
    )
    from lessons_core.outcomes.stats import (
        FAILING_MIN_RECURRED as FAILING_MIN_RECURRED,
    )
    from lessons_core.outcomes.stats import (
        FAILING_SHARE as FAILING_SHARE,
    )
    from lessons_core.outcomes.stats import (
        GUARD_DEMOTION_NEEDLESS as GUARD_DEMOTION_NEEDLESS,
    )
    from lessons_core.outcomes.stats import (
        MAX_ADJUSTMENT as MAX_ADJUSTMENT,
    )
    from lessons_core.outcomes.stats import (
        NOISY_MIN_JUDGED as NOISY_MIN_JUDGED,
    )
    from lessons_core.outcomes.stats import (
        NOISY_PRIORITY_PENALTY as NOISY_PRIORITY_PENALTY,
    )
    from lessons_core.outcomes.stats import (
        NOISY_RELEVANT_SHARE as NOISY_RELEVANT_SHARE,
    )
    from lessons_core.outcomes.stats import (
        NUDGE_DEMOTION_NEEDLESS as NUDGE_DEMOTION_NEEDLESS,
    )
    from lessons_core.outcomes.stats import (
        WRONG_PENALTY as WRONG_PENALTY,
    )
    from lessons_core.outcomes.stats import (
        LessonFigures as LessonFigures,
    )
    from lessons_core.outcomes.stats import (
        adjust as adjust,
    )
    from lessons_core.outcomes.stats import (
        confidence_delta as confidence_delta,
    )
    from lessons_core.outcomes.stats import (
        demotion as demotion,
    )
    from lessons_core.outcomes.stats import (
        doctor_line as doctor_line,
    )
    from lessons_core.outcomes.stats import (
        failure_only as failure_only,
    )
    from lessons_core.outcomes.stats import (
        figures as figures,
    )
    from lessons_core.outcomes.stats import (
        figures_or_none as figures_or_none,
    )
    from lessons_core.outcomes.stats import (
        stats_lines as stats_lines,
    )
    from lessons_core.outcomes.stats import (
        summary as summary,
    )
    from lessons_core.outcomes.transcripts import (
        MAX_CANDIDATES as MAX_CANDIDATES,
    )
    from lessons_core.outcomes.transcripts import (
        find_transcripts as find_transcripts,
    )
    from lessons_core.outcomes.transcripts import (
        read_events as read_events,
    )
    from lessons_core.outcomes.transcripts import (
        session_events as session_events,
    )
    from lessons_core.outcomes.transfer import (
        EXPORT_TYPE as EXPORT_TYPE,
    )
    from lessons_core.outcomes.transfer import (
        export_rows as export_rows,
    )
    from lessons_core.outcomes.transfer import (
        is_export_row as is_export_row,
    )
    from lessons_core.outcomes.transfer import (
        merge_rows as merge_rows,
    )

#: Each name this package offers -> the module that defines it.
_WHERE = {
    "SETTLE_SECONDS": "judging",
    "LessonProbe": "judging",
    "judge": "judging",
    "LOG_STATE_KEY": "logfile",
    "MAX_LOG_BYTES": "logfile",
    "ROTATE_BYTES": "logfile",
    "read_log": "logfile",
    "read_new": "logfile",
    "ingest": "loop",
    "run": "loop",
    "DENYING": "records",
    "MAX_PENDING": "records",
    "NEEDLESS": "records",
    "OUTCOMES": "records",
    "PENDING_STATE_KEY": "records",
    "PREVENTED": "records",
    "QUIET": "records",
    "RECURRED": "records",
    "UNKNOWN": "records",
    "WRONG": "records",
    "Delivery": "records",
    "IngestReport": "records",
    "delivery_from_json": "records",
    "existing_keys": "records",
    "parse_time": "records",
    "pending_deliveries": "records",
    "timestamp": "records",
    "FAILING_MIN_RECURRED": "stats",
    "FAILING_SHARE": "stats",
    "GUARD_DEMOTION_NEEDLESS": "stats",
    "MAX_ADJUSTMENT": "stats",
    "NOISY_MIN_JUDGED": "stats",
    "NOISY_PRIORITY_PENALTY": "stats",
    "NOISY_RELEVANT_SHARE": "stats",
    "NUDGE_DEMOTION_NEEDLESS": "stats",
    "WRONG_PENALTY": "stats",
    "LessonFigures": "stats",
    "adjust": "stats",
    "confidence_delta": "stats",
    "demotion": "stats",
    "doctor_line": "stats",
    "failure_only": "stats",
    "figures": "stats",
    "figures_or_none": "stats",
    "stats_lines": "stats",
    "summary": "stats",
    "MAX_CANDIDATES": "transcripts",
    "find_transcripts": "transcripts",
    "read_events": "transcripts",
    "session_events": "transcripts",
    "EXPORT_TYPE": "transfer",
    "export_rows": "transfer",
    "is_export_row": "transfer",
    "merge_rows": "transfer",
}
_MODULES = frozenset({"judging", "logfile", "loop", "records", "stats", "transcripts", "transfer"})


def __getattr__(name: str) -> Any:
    """A name of a submodule, imported (and kept here) when it is first asked for."""
    module = _WHERE.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    elif name in _MODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE, *_MODULES})
