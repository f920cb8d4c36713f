"""Committing: what a scan writes to the store, and the report of what it did.

Results are committed in groups, each in one short write transaction: one transaction per file
would cost more than reading a small transcript, and a group is still atomic (offsets move with
their candidates).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import attrs

from lessons_core.logs import get_logger
from lessons_core.models import Candidate, Lesson
from lessons_core.scan.intake import (
    DUPLICATE,
    NEW,
    PROMOTED,
    REJECTED,
    WAITING,
    Intake,
    note_accepted,
)
from lessons_core.scan.reading import FileResult

log = get_logger()

#: Files and bytes committed together in one store transaction.
GROUP_FILES = 256
GROUP_BYTES = 64 << 20
GROUP_SECONDS = 2.0


@attrs.define
class Report:
    """What one scan did (mutable while the scan runs)."""

    files_seen: int = 0
    files_read: int = 0
    files_skipped: int = 0
    bytes_read: int = 0
    events: int = 0
    bad_lines: int = 0
    errors: int = 0
    new: list[Candidate] = attrs.field(factory=list)
    duplicates: int = 0
    rejected: int = 0
    promoted: int = 0
    by_agent: dict[str, dict[str, int]] = attrs.field(factory=dict)
    #: Lines from the detectors that report what they spent (see ``DetectorSpec.summary``).
    notes: list[str] = attrs.field(factory=list)
    #: New candidates held back by ``maxCandidatesPerScan``, and held ones offered again.
    held: int = 0
    released: int = 0
    #: New findings that wait to come back in another session before review sees them.
    waiting: int = 0
    #: Lessons scoped to one project that this scan saw in another: offered for every project.
    offers: list[Lesson] = attrs.field(factory=list)

    def count(self, agent: str, key: str) -> None:
        bucket = self.by_agent.setdefault(agent, {})
        bucket[key] = bucket.get(key, 0) + 1


class Pending:
    """Read results waiting to be committed together (by count, bytes or age)."""

    def __init__(self, commit: Callable[[list[FileResult]], None]) -> None:
        self.commit = commit
        self.group: list[FileResult] = []
        self.bytes = 0
        self.since = time.monotonic()

    def add(self, result: FileResult) -> None:
        self.group.append(result)
        self.bytes += result.read
        if (
            len(self.group) >= GROUP_FILES
            or self.bytes >= GROUP_BYTES
            or time.monotonic() - self.since >= GROUP_SECONDS
        ):
            self.flush()

    def flush(self) -> None:
        group, self.group, self.bytes, self.since = self.group, [], 0, time.monotonic()
        if group:
            self.commit(group)


PENDING = "pending"
HELD = "held"


def hold_back(store: Any, report: Report, cap: int) -> None:
    """Keep at most ``cap`` new pending candidates from one scan (0: no limit).

    The new ones and those held back by earlier scans are ranked together, highest confidence
    (then priority, then evidence) first; the best ``cap`` are pending, the rest wait with
    status ``held``. Nothing is dropped: a later scan offers the held ones again, and
    ``lessons candidates --status held`` lists them.
    """
    waiting = store.list_candidates(status=HELD)
    fresh = [c for c in report.new if c.status == PENDING]
    if not waiting and (cap <= 0 or len(fresh) <= cap):
        return
    pool = fresh + waiting
    ranked = sorted(pool, key=lambda c: (c.confidence, c.priority, len(c.evidence)), reverse=True)
    keep, hold = (ranked, []) if cap <= 0 else (ranked[:cap], ranked[cap:])
    changed: dict[str, Candidate] = {}
    with store.transaction():
        for candidate in keep:
            if candidate.status == HELD:
                changed[candidate.id] = store.update_candidate(
                    attrs.evolve(candidate, status=PENDING)
                )
                report.released += 1
        for candidate in hold:
            if candidate.status == PENDING:
                changed[candidate.id] = store.update_candidate(attrs.evolve(candidate, status=HELD))
                report.held += 1
    fresh_ids = {c.id for c in fresh}
    report.new = [changed.get(c.id, c) for c in report.new] + [
        c for cid, c in changed.items() if cid not in fresh_ids
    ]


class Committer:
    """Writes read results to the store and counts them in the scan's report."""

    def __init__(self, store: Any, intake: Intake, report: Report) -> None:
        self.store = store
        self.intake = intake
        self.report = report

    def commit(self, result: FileResult) -> None:
        """Admit a file's candidates and move its offset, in the caller's transaction."""
        for candidate, reason, _lines in result.found:
            if reason is None:
                note_accepted(candidate)  # checked while reading, maybe in a helper
                self._admit(candidate)
            else:
                self._count(candidate, REJECTED, reason)
        self.store.set_scan_state(result.key, result.state)
        self.report.files_read += 1
        self.report.bytes_read += result.read
        self.report.events += result.events
        self.report.bad_lines += result.bad_lines
        self.report.errors += result.errors

    def _admit(self, candidate: Candidate) -> None:
        outcome = self.intake.admit(candidate, prepared=True)
        self._count(candidate, outcome.status, outcome.reason)
        if outcome.status in (NEW, PROMOTED):
            self.report.new.append(outcome.candidate)
            if outcome.status == PROMOTED:
                self.report.promoted += 1
        elif outcome.offer and outcome.lesson is not None:
            lesson = outcome.lesson  # (seen in a third project too: its latest counts shown)
            offers = [o for o in self.report.offers if o.id != lesson.id]
            self.report.offers = [*offers, lesson]

    def _count(self, candidate: Candidate, status: str, reason: str) -> None:
        self.report.count(candidate.agent, f"tier{candidate.tier}")
        if status == REJECTED:
            self.report.rejected += 1
            from lessons_core.privacy import redact_head

            mistake = redact_head(candidate.mistake, 80)[:80]  # rejected before its scrub
            log.debug("scan.rejected", reason=redact_head(reason, 300), mistake=mistake)
        elif status == DUPLICATE:
            self.report.duplicates += 1
        elif status == WAITING:
            self.report.waiting += 1
