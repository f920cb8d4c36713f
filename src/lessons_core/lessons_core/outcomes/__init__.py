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

The package is split by concern: :mod:`~.logfile` (the hook's log), :mod:`~.transcripts`
(finding a session's transcript), :mod:`~.judging` (one verdict), :mod:`~.loop` (ingest and
record) and :mod:`~.transfer` (export and import). What is recorded and the figures, which the
manifest build reads too, sit a floor below in :mod:`lessons_core.verdicts` (``state``,
``records``, ``stats``), so the build never imports the loop. The names callers use, from both,
are re-exported here.

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
        IngestReport as IngestReport,
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
    from lessons_core.verdicts.records import (
        DENYING as DENYING,
    )
    from lessons_core.verdicts.records import (
        MAX_PENDING as MAX_PENDING,
    )
    from lessons_core.verdicts.records import (
        NEEDLESS as NEEDLESS,
    )
    from lessons_core.verdicts.records import (
        OUTCOMES as OUTCOMES,
    )
    from lessons_core.verdicts.records import (
        PENDING_STATE_KEY as PENDING_STATE_KEY,
    )
    from lessons_core.verdicts.records import (
        PREVENTED as PREVENTED,
    )
    from lessons_core.verdicts.records import (
        QUIET as QUIET,
    )
    from lessons_core.verdicts.records import (
        RECURRED as RECURRED,
    )
    from lessons_core.verdicts.records import (
        UNKNOWN as UNKNOWN,
    )
    from lessons_core.verdicts.records import (
        WRONG as WRONG,
    )
    from lessons_core.verdicts.records import (
        Delivery as Delivery,
    )
    from lessons_core.verdicts.records import (
        delivery_from_json as delivery_from_json,
    )
    from lessons_core.verdicts.records import (
        existing_keys as existing_keys,
    )
    from lessons_core.verdicts.records import (
        parse_time as parse_time,
    )
    from lessons_core.verdicts.records import (
        pending_deliveries as pending_deliveries,
    )
    from lessons_core.verdicts.records import (
        timestamp as timestamp,
    )
    from lessons_core.verdicts.stats import (
        FAILING_MIN_RECURRED as FAILING_MIN_RECURRED,
    )
    from lessons_core.verdicts.stats import (
        FAILING_SHARE as FAILING_SHARE,
    )
    from lessons_core.verdicts.stats import (
        GUARD_DEMOTION_NEEDLESS as GUARD_DEMOTION_NEEDLESS,
    )
    from lessons_core.verdicts.stats import (
        MAX_ADJUSTMENT as MAX_ADJUSTMENT,
    )
    from lessons_core.verdicts.stats import (
        NOISY_MIN_JUDGED as NOISY_MIN_JUDGED,
    )
    from lessons_core.verdicts.stats import (
        NOISY_PRIORITY_PENALTY as NOISY_PRIORITY_PENALTY,
    )
    from lessons_core.verdicts.stats import (
        NOISY_RELEVANT_SHARE as NOISY_RELEVANT_SHARE,
    )
    from lessons_core.verdicts.stats import (
        NUDGE_DEMOTION_NEEDLESS as NUDGE_DEMOTION_NEEDLESS,
    )
    from lessons_core.verdicts.stats import (
        WRONG_PENALTY as WRONG_PENALTY,
    )
    from lessons_core.verdicts.stats import (
        LessonFigures as LessonFigures,
    )
    from lessons_core.verdicts.stats import (
        adjust as adjust,
    )
    from lessons_core.verdicts.stats import (
        confidence_delta as confidence_delta,
    )
    from lessons_core.verdicts.stats import (
        demotion as demotion,
    )
    from lessons_core.verdicts.stats import (
        doctor_line as doctor_line,
    )
    from lessons_core.verdicts.stats import (
        failure_only as failure_only,
    )
    from lessons_core.verdicts.stats import (
        figures as figures,
    )
    from lessons_core.verdicts.stats import (
        figures_or_none as figures_or_none,
    )
    from lessons_core.verdicts.stats import (
        stats_lines as stats_lines,
    )
    from lessons_core.verdicts.stats import (
        summary as summary,
    )

#: Each name this package offers -> the module that defines it.
_WHERE = {
    "SETTLE_SECONDS": "lessons_core.outcomes.judging",
    "LessonProbe": "lessons_core.outcomes.judging",
    "judge": "lessons_core.outcomes.judging",
    "LOG_STATE_KEY": "lessons_core.outcomes.logfile",
    "MAX_LOG_BYTES": "lessons_core.outcomes.logfile",
    "ROTATE_BYTES": "lessons_core.outcomes.logfile",
    "read_log": "lessons_core.outcomes.logfile",
    "read_new": "lessons_core.outcomes.logfile",
    "IngestReport": "lessons_core.outcomes.logfile",
    "ingest": "lessons_core.outcomes.loop",
    "run": "lessons_core.outcomes.loop",
    "DENYING": "lessons_core.verdicts.records",
    "MAX_PENDING": "lessons_core.verdicts.records",
    "NEEDLESS": "lessons_core.verdicts.records",
    "OUTCOMES": "lessons_core.verdicts.records",
    "PENDING_STATE_KEY": "lessons_core.verdicts.records",
    "PREVENTED": "lessons_core.verdicts.records",
    "QUIET": "lessons_core.verdicts.records",
    "RECURRED": "lessons_core.verdicts.records",
    "UNKNOWN": "lessons_core.verdicts.records",
    "WRONG": "lessons_core.verdicts.records",
    "Delivery": "lessons_core.verdicts.records",
    "delivery_from_json": "lessons_core.verdicts.records",
    "existing_keys": "lessons_core.verdicts.records",
    "parse_time": "lessons_core.verdicts.records",
    "pending_deliveries": "lessons_core.verdicts.records",
    "timestamp": "lessons_core.verdicts.records",
    "FAILING_MIN_RECURRED": "lessons_core.verdicts.stats",
    "FAILING_SHARE": "lessons_core.verdicts.stats",
    "GUARD_DEMOTION_NEEDLESS": "lessons_core.verdicts.stats",
    "MAX_ADJUSTMENT": "lessons_core.verdicts.stats",
    "NOISY_MIN_JUDGED": "lessons_core.verdicts.stats",
    "NOISY_PRIORITY_PENALTY": "lessons_core.verdicts.stats",
    "NOISY_RELEVANT_SHARE": "lessons_core.verdicts.stats",
    "NUDGE_DEMOTION_NEEDLESS": "lessons_core.verdicts.stats",
    "WRONG_PENALTY": "lessons_core.verdicts.stats",
    "LessonFigures": "lessons_core.verdicts.stats",
    "adjust": "lessons_core.verdicts.stats",
    "confidence_delta": "lessons_core.verdicts.stats",
    "demotion": "lessons_core.verdicts.stats",
    "doctor_line": "lessons_core.verdicts.stats",
    "failure_only": "lessons_core.verdicts.stats",
    "figures": "lessons_core.verdicts.stats",
    "figures_or_none": "lessons_core.verdicts.stats",
    "stats_lines": "lessons_core.verdicts.stats",
    "summary": "lessons_core.verdicts.stats",
    "MAX_CANDIDATES": "lessons_core.outcomes.transcripts",
    "find_transcripts": "lessons_core.outcomes.transcripts",
    "read_events": "lessons_core.outcomes.transcripts",
    "session_events": "lessons_core.outcomes.transcripts",
    "EXPORT_TYPE": "lessons_core.outcomes.transfer",
    "export_rows": "lessons_core.outcomes.transfer",
    "is_export_row": "lessons_core.outcomes.transfer",
    "merge_rows": "lessons_core.outcomes.transfer",
}
_MODULES = frozenset({"judging", "logfile", "loop", "transcripts", "transfer"})


def __getattr__(name: str) -> Any:
    """A name of a submodule, imported (and kept here) when it is first asked for."""
    module = _WHERE.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
    elif name in _MODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE, *_MODULES})
