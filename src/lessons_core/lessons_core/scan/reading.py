"""Reading: one file (or piece of one) from its resume point through every detector.

Events are handed to detectors in bounded batches (with an overlap carrying the same context),
so memory stays flat whatever the size of a transcript. Candidates already reported from the
context are remembered and not reported twice. A partial last line is never consumed, so a line
being written while we read is picked up whole next time. Nothing here touches the store, so it
runs in worker processes too.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import attrs

from lessons_core.logs import get_logger
from lessons_core.models import Candidate, Config
from lessons_core.plugins.specs import AgentSpec, DetectorSpec
from lessons_core.scan import events as ev
from lessons_core.scan.intake import prepare
from lessons_core.scan.planning import MESSAGE_CONTEXT, Job, tail_of, whole_document

log = get_logger()

#: Events per detector batch, and how many of them are carried into the next batch as context.
BATCH = 4000
CONTEXT = 40  # > the Tier 2 window (30 events): a failure near the end still meets its fix


class FileResult:
    """What reading one transcript produced, before anything is written to the store."""

    __slots__ = (
        "agent",
        "bad_lines",
        "context",
        "errors",
        "events",
        "found",
        "key",
        "piece",
        "read",
        "state",
    )

    def __init__(self, agent: str, key: str) -> None:
        self.agent = agent
        self.key = key
        #: What the detectors found, in order: ``(candidate, reason, lines)``. Without a reason
        #: the candidate is ready for the store (checked and scrubbed while reading, see
        #: ``intake.prepare``); with one it was refused and is only counted. ``lines`` are its
        #: evidence lines in this file.
        self.found: list[tuple[Candidate, str | None, frozenset[int]]] = []
        #: ``(index, count)`` when this is one piece of a file read in pieces.
        self.piece: tuple[int, int] | None = None
        #: ``(offset, line)`` of the last :data:`CONTEXT` events read (to put pieces together).
        self.context: list[tuple[int, int]] = []
        self.state: dict[str, Any] = {}
        self.events = 0
        self.read = 0
        self.bad_lines = 0
        self.errors = 0


class ReadFailure:
    """A file (or piece of one) that could not be read: the scan goes on, its offset stays."""

    __slots__ = ("error", "key", "piece")

    def __init__(self, key: str, error: str, piece: tuple[int, int] | None = None) -> None:
        self.key = key
        self.error = error
        self.piece = piece


def _detect(
    detectors: Sequence[DetectorSpec], config: Config, batch: Sequence[ev.Event], agent: str
) -> Iterator[Candidate | Exception]:
    for spec in detectors:
        try:
            # Typed as objects: a plugin's detector may yield anything, and is checked here.
            found: list[object] = list(spec.detect(batch, config=config))
        except Exception as exc:  # one broken detector must not stop the scan
            log.warning("scan.detector_failed", detector=spec.name, exc_info=True)
            yield exc
            continue
        for candidate in found:
            if not isinstance(candidate, Candidate):
                log.warning("scan.detector_bad_result", detector=spec.name)
                continue
            if candidate.agent and candidate.detector and candidate.tier:
                yield candidate  # (the built-in detectors fill all three)
                continue
            yield attrs.evolve(
                candidate,
                agent=candidate.agent or agent,
                detector=candidate.detector or spec.name,
                tier=candidate.tier or spec.tier,
            )


def _belongs(job: Job, lines: frozenset[int]) -> bool:
    """Whether a finding with these evidence lines is this piece's to report: each belongs to
    the piece its first line falls in (one without lines in this file, to the first piece)."""
    first, stop = job.keep
    if not lines:
        return first is None
    start = min(lines)
    return (first is None or start >= first) and (stop is None or start < stop)


def _block_key(candidate: Candidate, lines: frozenset[int]) -> tuple[Any, ...] | None:
    """What tells one ``#lesson`` block from another: a message can hold several, so their
    evidence line alone does not (``None`` for other findings, told apart by their lines)."""
    if candidate.tier != 1:
        return None
    return (tuple(sorted(lines)), candidate.mistake, candidate.fix)


def read_file(
    job: Job,
    agents: Mapping[str, AgentSpec],
    detectors: Sequence[DetectorSpec],
    config: Config,
    home: str | None = None,
) -> FileResult:
    """Read one transcript from its resume point, run every detector over the new events, and
    check and scrub what they found (``home`` is the directory made machine-independent).

    Touches no store, so it can run in a worker process;
    :class:`~lessons_core.scan.committing.Committer` writes the result.
    """
    agent, path, prog = job.agent, job.path, job.prog
    key = str(path)
    result = FileResult(agent, key)
    result.piece = job.piece
    spec = agents[agent]
    assert spec.reader is not None
    events = spec.reader(path, prog.offset, progress=prog, start_message=prog.messages)
    tail: list[ev.Event] = []
    new_reported: set[int] = set()
    blocks: set[tuple[Any, ...]] = set()
    for batch in _batches(events, tail):
        result.events += len(batch)
        for candidate in _detect(detectors, config, batch, agent):
            if isinstance(candidate, Exception):
                result.errors += 1
                continue
            lines = frozenset(e.line for e in candidate.evidence if e.file == key)
            if job.piece is not None and not _belongs(job, lines):
                continue  # the overlaps show a finding to two pieces; one of them keeps it
            if lines and (max(lines) <= job.boundary and lines <= job.reported):
                continue  # reported by an earlier scan from this context
            block = _block_key(candidate, lines)
            if block is not None:
                if block in blocks:
                    continue  # the same block again, in the overlap of two batches
                blocks.add(block)
            elif lines & new_reported:
                continue
            new_reported |= lines
            ready = prepare(candidate, home)
            if isinstance(ready, str):
                result.found.append((candidate, ready, lines))
            else:
                result.found.append((ready, None, lines))
    size, mtime_ns, inode = job.stat
    context = tail[-CONTEXT:] if tail else []
    if prog.document or whole_document(spec, path):
        state: dict[str, Any] = {
            "offset": size,
            "size": size,
            "mtime_ns": mtime_ns,
            "inode": inode,
            "messages": prog.messages,
            "line": prog.messages,
        }
        if prog.document:
            state["document"] = True  # (the next scan resumes it by messages too)
        floor = max(0, prog.messages - MESSAGE_CONTEXT)
        result.read = max(0, size - job.start_offset)
    else:
        first = context[0] if context else None
        state = {
            "offset": prog.offset,
            "size": size,
            "mtime_ns": mtime_ns,
            "inode": inode,
            "line": prog.line,
            "context_offset": first.offset if first else prog.offset,
            "context_line": first.line - 1 if first else prog.line,
        }
        floor = first.line if first else prog.line
        result.read = max(0, prog.offset - job.start_offset)
        result.context = [(e.offset, e.line) for e in context]
        state["tail"] = tail_of(path, prog.offset)
    keep = sorted(n for n in (job.reported | new_reported) if n >= floor)
    from lessons_core.privacy import normalize_home

    state.update(
        {
            "agent": agent,
            "session_id": prog.session_id,
            # Read from the transcript, so stored like everything else from it: home-free.
            "project": normalize_home(prog.project) if prog.project else None,
            "reported": keep[-500:],
            "bad_lines": prog.bad_lines,
        }
    )
    result.state = state
    result.bad_lines = prog.bad_lines
    return result


class Assembly:
    """Puts the pieces of a file read in pieces back together once all of them are in."""

    def __init__(self, jobs: Sequence[Job]) -> None:
        self.wholes = {str(j.path): j for j in jobs if j.piece is not None and j.piece[0] == 0}
        self.parts: dict[str, dict[int, FileResult | ReadFailure]] = {}

    def add(self, part: FileResult | ReadFailure) -> FileResult | ReadFailure | None:
        """The file's whole result once ``part`` completes it; ``None`` while pieces are due."""
        if part.piece is None:
            return part
        index, count = part.piece
        got = self.parts.setdefault(part.key, {})
        got[index] = part
        if len(got) < count:
            return None
        del self.parts[part.key]
        ordered = [got[i] for i in range(count)]
        for piece in ordered:
            if isinstance(piece, ReadFailure):
                return ReadFailure(piece.key, piece.error)  # the offset stays: read again next time
        return _merge([p for p in ordered if isinstance(p, FileResult)], self.wholes[part.key])


def _merge(parts: list[FileResult], whole: Job) -> FileResult:
    """One file's result from its pieces' (in order), as one read of the file would give it."""
    last = parts[-1]
    merged = FileResult(last.agent, last.key)
    seen: set[int] = set()
    blocks: set[tuple[Any, ...]] = set()
    for part in parts:
        merged.events += part.events
        merged.errors += part.errors
        merged.bad_lines += part.bad_lines
        for candidate, reason, lines in part.found:
            block = _block_key(candidate, lines)
            if block is not None:
                if block in blocks:
                    continue
                blocks.add(block)
            elif lines & seen:
                continue  # as in one read: evidence lines are reported once
            seen |= lines
            merged.found.append((candidate, reason, lines))
    state = dict(last.state)
    # The context for the next scan is the file's last events. A short last piece holds fewer
    # than that: the rest come from the pieces before, which read the same lines alike.
    context: list[tuple[int, int]] = []
    for part in reversed(parts):
        need = CONTEXT - len(context)
        if need <= 0:
            break
        before = context[0][0] if context else None
        context = [m for m in part.context if before is None or m[0] < before][-need:] + context
    if context:
        state["context_offset"], state["context_line"] = context[0][0], context[0][1] - 1
    for name in ("session_id", "project"):  # as last met in the file
        state[name] = next((p.state[name] for p in reversed(parts) if p.state.get(name)), None)
    floor = int(state.get("context_line", 0)) + 1
    state["reported"] = sorted(n for n in whole.reported | seen if n >= floor)[-500:]
    state["bad_lines"] = merged.bad_lines
    merged.state = state
    merged.read = max(0, int(state.get("offset", 0)) - whole.start_offset)
    return merged


def _batches(events: Iterable[ev.Event], tail: list[ev.Event]) -> Iterator[list[ev.Event]]:
    """Bounded batches of events, each starting with the last ``CONTEXT`` of the one before.

    ``tail`` is filled with the last batch, so the caller can record the context for the next
    incremental scan.
    """
    batch: list[ev.Event] = []
    fresh = 0
    for event in events:
        batch.append(event)
        fresh += 1
        if len(batch) >= BATCH:
            yield batch
            batch = batch[-CONTEXT:]
            fresh = 0
    if fresh:
        yield batch
    tail[:] = batch
