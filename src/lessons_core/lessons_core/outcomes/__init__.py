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
"""

from __future__ import annotations

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
