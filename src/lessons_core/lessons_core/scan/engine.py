"""Incremental scanning: find transcripts, read only what is new, run every detector, admit.

Per file the store keeps a scan state: the byte offset just past the last complete line read,
the size, mtime and inode seen then, and a little context. A file whose size, mtime and inode are
unchanged is not even opened. A grown file is read from a short way before the old offset (the
*context*: the last few dozen events, so that a failure read last time can still meet the fix
written since); candidates already reported from that context are remembered and not reported
twice. A file that shrank or was replaced (new inode) is read again from the start. A partial
last line is never consumed, so a line being written while we read is picked up whole next time.
Gemini's legacy sessions are whole JSON documents rewritten in place; their resume point is a
message count instead of an offset.

Events are handed to detectors in bounded batches (with an overlap carrying the same context),
so memory stays flat whatever the size of a transcript.

Only one scan runs at a time: a lock file in ``LESSONS_HOME`` serialises them, so two scans
started together cannot both read the same new lines and count them twice.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import attrs

from lessons_core.errors import LessonsError
from lessons_core.logs import get_logger
from lessons_core.models import Candidate, Config
from lessons_core.scan import events as ev
from lessons_core.scan.intake import (
    DUPLICATE,
    NEW,
    PROMOTED,
    REJECTED,
    Intake,
    dedup_backend,
    prepare,
)
from lessons_core.specs import AgentSpec, DetectorSpec

log = get_logger()

LOCK_NAME = "scan.lock"
#: Events per detector batch, and how many of them are carried into the next batch as context.
BATCH = 4000
CONTEXT = 40  # > the Tier 2 window (30 events): a failure near the end still meets its fix
#: Files and bytes committed together in one store transaction.
GROUP_FILES = 256
GROUP_BYTES = 64 << 20
GROUP_SECONDS = 2.0
#: From this much to read on, the reading is shared with forked helpers (see
#: :mod:`lessons_core.scan.split`); below it, forking costs more than it saves.
SPLIT_MIN_BYTES = 2 << 20
#: From this much on, a worker pool instead: it balances the load file by file and hands results
#: over as they come, which is worth its start-up cost only on large scans.
PARALLEL_MIN_BYTES = 32 << 20
MAX_WORKERS = 4
#: A read is cut into pieces read by several processes (see :mod:`lessons_core.scan.pieces`)
#: when it is more than a process's fair share of the scan, in pieces of at least this much.
#: (Cutting finer balances better on paper, but every piece costs its overlap, and every
#: process pays once for warming up: measured, it did not pay.)
PIECE_MIN_BYTES = 1 << 20
#: How many messages of a legacy Gemini document are re-read as context.
MESSAGE_CONTEXT = 12

_EXTENSIONS = {
    "claude": (".jsonl",),
    # The spring-2025 TypeScript CLI's single-document ``rollout-*.json`` is not read.
    "codex": (".jsonl",),
    "gemini": (".json", ".jsonl"),
}


class ScanBusy(LessonsError):
    """Another scan holds the lock."""


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

    def count(self, agent: str, key: str) -> None:
        bucket = self.by_agent.setdefault(agent, {})
        bucket[key] = bucket.get(key, 0) + 1


# -- discovery --------------------------------------------------------------------------------


def _walk(root: Path, extensions: tuple[str, ...]) -> Iterator[str]:
    """Paths of files under ``root`` with one of ``extensions`` (``os.scandir``: nothing is
    opened, and directory entries carry their type, so no extra ``stat`` either)."""
    stack = [str(root)]
    while stack:
        current = stack.pop()
        try:
            with os.scandir(current) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.name.endswith(extensions) and entry.is_file():
                    yield entry.path
            except OSError:
                continue


def _wanted(agent: str, path: str) -> bool:
    """Transcript files of an agent among everything under its root."""
    name = path.rpartition(os.sep)[2]
    if agent == "gemini":
        return f"{os.sep}chats{os.sep}" in path and not name.startswith(("logs", "checkpoint"))
    if agent == "codex":
        return name.startswith("rollout-")
    if agent == "claude":
        return name != "journal.jsonl"
    return True


def sniff(path: Path) -> str | None:
    """Guess the agent that wrote a transcript from its first bytes (for explicit paths)."""
    parts = set(path.parts)
    if ".codex" in parts or path.name.startswith("rollout-"):
        return "codex"
    if ".gemini" in parts:
        return "gemini"
    if ".claude" in parts:
        return "claude"
    try:
        with open(path, "rb") as fh:
            head = fh.read(8192)
    except OSError:
        return None
    if b'"payload"' in head or b"session_meta" in head or b'"record_type"' in head:
        return "codex"
    if b'"projectHash"' in head or (path.suffix == ".json" and b'"messages"' in head):
        return "gemini"
    if path.suffix == ".json":
        return None  # Claude Code writes JSONL only; a stray JSON file is not a transcript
    if b'"sessionId"' in head or b'"parentUuid"' in head or b'"type":"user"' in head:
        return "claude"
    return None


def why_not(path: Path, agents: Mapping[str, AgentSpec]) -> str:
    """Why ``path``, named to ``lessons scan``, is not read as a transcript (for the message)."""
    agent = sniff(path)
    if agent is not None:
        return f"a {agent} transcript, but the lessons-{agent} adapter is not installed"
    try:
        with open(path, "rb") as fh:
            head = fh.read(8192)
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if not head.strip():
        return "not a transcript: the file is empty"
    first = head.lstrip().splitlines()[0] if head.lstrip() else b""
    if not first.startswith((b"{", b"[")):
        return "not a transcript: not JSON Lines or JSON (the first line is not a JSON object)"
    return (
        "not a transcript: JSON, but with none of the marks of a Claude Code, Codex CLI or "
        "Gemini CLI transcript (sessionId or parentUuid; session_meta or payload; projectHash "
        "or messages)"
    )


def _named(
    agents: Mapping[str, AgentSpec],
    given: Path,
    only: str | None,
    skipped: list[tuple[str, str]] | None,
) -> list[tuple[str, str]]:
    """The transcripts at one named path (a file, or every JSON/JSONL file under a folder)."""
    found: list[tuple[str, str]] = []
    if given.is_file():
        agent = only or sniff(given)
        if agent is not None and agent in agents:
            # The scan state is keyed by the file, not by how it was named: a relative path,
            # a symlink or ``..`` must not make a read file new again.
            found.append((agent, os.path.realpath(given)))
        elif skipped is not None:
            skipped.append((str(given), why_not(given, agents)))
        return found
    files = sorted(p for ext in (".jsonl", ".json") for p in given.rglob(f"*{ext}"))
    for file in files:
        agent = only or sniff(file)
        if agent is not None and agent in agents:
            found.append((agent, os.path.realpath(file)))
    if not found and skipped is not None:
        why = f"no transcript under it ({len(files)} JSON or JSON Lines file(s) of no known agent)"
        skipped.append((str(given), why))
    return found


def discover(
    agents: Mapping[str, AgentSpec],
    environ: Mapping[str, str],
    paths: Sequence[Path] = (),
    only: str | None = None,
    *,
    extra: Sequence[str] = (),
    skipped: list[tuple[str, str]] | None = None,
) -> list[tuple[str, str]]:
    """``(agent, file)`` pairs to scan: explicit paths, or every agent's transcript roots plus
    ``extra`` (``scanPaths`` of ``config.json``). A named file that is not a transcript, and an
    ``extra`` entry that does not exist, are added to ``skipped`` with the reason.

    Paths stay strings: a scan lists thousands of files, mostly unchanged, and a ``Path`` for
    each would cost more than checking whether it changed.
    """
    found: list[tuple[str, str]] = []
    if paths:
        for given in paths:
            given = given.expanduser()
            if not given.exists():
                raise LessonsError(f"no such file or directory: {given}")
            found.extend(_named(agents, given, only, skipped))
        return list(dict.fromkeys(found))
    for name, spec in agents.items():
        if only and name != only:
            continue
        if spec.transcript_roots is None or spec.reader is None:
            continue
        for root in spec.transcript_roots(environ):
            if not root.is_dir():
                continue
            root = Path(os.path.realpath(root))  # once per root: what is walked under it is too
            exts = spec.transcript_suffixes or _EXTENSIONS.get(name, (".jsonl", ".json"))
            found.extend((name, p) for p in sorted(_walk(root, exts)) if _wanted(name, p))
    if extra:
        seen = {os.path.realpath(p) for _, p in found}
        for entry in extra:
            given = Path(entry).expanduser()
            if not given.exists():
                if skipped is not None:
                    skipped.append((entry, "does not exist (listed in scanPaths of config.json)"))
                continue
            # Sniffed, not forced: ``--agent`` picks that agent's files among them.
            for agent, path in _named(agents, given, None, skipped):
                real = os.path.realpath(path)
                if (only is None or agent == only) and real not in seen:
                    seen.add(real)
                    found.append((agent, path))
    return list(dict.fromkeys(found))  # two roots resolving to one folder: each file once


# -- the lock ---------------------------------------------------------------------------------


@contextlib.contextmanager
def scan_lock(
    home: Path, *, wait: bool = True, on_wait: Callable[[], None] | None = None
) -> Iterator[None]:
    """Hold the scan lock (``fcntl.flock`` on ``LESSONS_HOME/scan.lock``) for a block.

    With ``wait`` false a held lock raises :class:`ScanBusy` at once (background scans just
    leave); otherwise the caller waits for the running scan to finish.
    """
    home.mkdir(parents=True, exist_ok=True)
    path = home / LOCK_NAME
    fh = _open_lock_file(path)
    try:
        if sys.platform != "win32":
            import fcntl

            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError as exc:
                if not wait:
                    raise ScanBusy("another scan is running") from exc
                if on_wait is not None:
                    on_wait()
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        yield
    finally:
        fh.close()


def _open_lock_file(path: Path) -> IO[str]:
    """The lock file, opened without following a link (it is truncated and written to)."""
    import stat

    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as exc:
        raise LessonsError(f"cannot open the scan lock {path}: {exc.strerror}") from exc
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
        os.close(fd)
        raise LessonsError(f"the scan lock {path} is not a plain file; remove it")
    return os.fdopen(fd, "r+")


# -- per-file reading -------------------------------------------------------------------------


def _legacy_gemini(agent: str, path: Path) -> bool:
    return agent == "gemini" and path.suffix == ".json"


def _plan(agent: str, path: Path, state: dict[str, Any] | None, st: os.stat_result) -> Any:
    """Where to start reading, or ``None`` when the file is unchanged.

    Returns ``(progress, reported_before_line, reported_lines, bytes_already_read)``.
    """
    if state is not None and (
        state.get("size") == st.st_size
        and state.get("mtime_ns") == st.st_mtime_ns
        and state.get("inode") == st.st_ino
    ):
        return None
    if _legacy_gemini(agent, path):
        messages = int(state.get("messages", 0)) if state else 0
        start = max(0, messages - MESSAGE_CONTEXT)
        prog = ev.Progress(
            0,
            0,
            messages=start,
            session_id=state.get("session_id") if state else None,
            project=state.get("project") if state else None,
        )
        reported = set(state.get("reported", ())) if state else set()
        return prog, messages, reported, 0
    fresh = (
        state is None
        or state.get("inode") != st.st_ino
        or st.st_size < int(state.get("offset", 0))
        or _tail_of(path, int(state.get("offset", 0))) != state.get("tail", "")
    )
    if fresh:
        return ev.Progress(0, 0), 0, set(), 0
    assert state is not None
    prog = ev.Progress(
        int(state.get("context_offset", state.get("offset", 0))),
        int(state.get("context_line", state.get("line", 0))),
        session_id=state.get("session_id"),
        project=state.get("project"),
    )
    old = int(state.get("offset", 0))
    return prog, int(state.get("line", 0)), set(state.get("reported", ())), old


#: Bytes before the saved offset whose digest must still match: a file rewritten in place (same
#: inode, not smaller) is caught this way rather than read from the middle of a line.
TAIL_BYTES = 64


def _tail_of(path: Path, offset: int) -> str:
    """A short digest of the ``TAIL_BYTES`` before ``offset`` ("" at the start of a file)."""
    if offset <= 0:
        return ""
    from lessons_core.hot.digest import hex_blake2b

    try:
        with open(path, "rb") as fh:
            fh.seek(max(0, offset - TAIL_BYTES))
            data = fh.read(min(offset, TAIL_BYTES))
    except OSError:
        return "?"
    return hex_blake2b(data, 8)


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


class Job:
    """One file to read: where to start and what was reported from its context before.

    A piece of a file read in pieces (see :func:`_cut`) also knows which piece it is and the
    line range whose findings it keeps: ``keep = (first, stop)``, lines ``first <= n < stop``
    (``None``: open-ended).
    """

    __slots__ = (
        "agent",
        "boundary",
        "keep",
        "path",
        "piece",
        "prog",
        "reported",
        "start_offset",
        "stat",
    )

    def __init__(self, agent: str, path: Path, st: os.stat_result, plan: Any) -> None:
        self.agent = agent
        self.path = path
        self.stat = (st.st_size, st.st_mtime_ns, st.st_ino)
        self.prog: ev.Progress = plan[0]
        self.boundary: int = plan[1]
        self.reported: set[int] = plan[2]
        self.start_offset: int = plan[3]
        self.piece: tuple[int, int] | None = None
        self.keep: tuple[int | None, int | None] = (None, None)

    def cut(
        self, index: int, count: int, prog: ev.Progress, keep: tuple[int | None, int | None]
    ) -> Job:
        """Piece ``index`` of ``count``: this job read with ``prog``, keeping lines in ``keep``."""
        piece = object.__new__(Job)
        for name in Job.__slots__:
            setattr(piece, name, getattr(self, name))
        piece.prog, piece.piece, piece.keep = prog, (index, count), keep
        return piece

    @property
    def todo(self) -> int:
        return max(0, self.stat[0] - self.start_offset)


def _detect(
    detectors: Sequence[DetectorSpec], config: Config, batch: Sequence[ev.Event], agent: str
) -> Iterator[Candidate | Exception]:
    for spec in detectors:
        try:
            found = list(spec.detect(batch, config=config))
        except Exception as exc:  # one broken detector must not stop the scan
            log.warning("scan.detector_failed", detector=spec.name, exc_info=True)
            yield exc
            continue
        for candidate in found:
            if not isinstance(candidate, Candidate):
                log.warning("scan.detector_bad_result", detector=spec.name)
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

    Touches no store, so it can run in a worker process; :meth:`Scanner.commit` writes the
    result.
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
    if _legacy_gemini(agent, path):
        state: dict[str, Any] = {
            "offset": size,
            "size": size,
            "mtime_ns": mtime_ns,
            "inode": inode,
            "messages": prog.messages,
            "line": prog.messages,
        }
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
        state["tail"] = _tail_of(path, prog.offset)
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


def _usable_cpus() -> int:
    """The CPUs this process may run on (a container or ``taskset`` may allow fewer than exist)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _can_fork() -> bool:
    """Forking is used on Linux only (macOS forbids it after some system frameworks loaded),
    and only from a single-threaded process: a lock another thread holds at the fork would stay
    held in the child for ever (the console command has one thread; a host may have more)."""
    if not (sys.platform.startswith("linux") and hasattr(os, "fork")):
        return False
    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() == 1


def active_detectors(detectors: Mapping[str, DetectorSpec], config: Config) -> list[DetectorSpec]:
    """The detectors a scan runs: ``deep`` ones only in a deep scan, and then instead of the
    detectors they replace.

    A deep scan without any deep detector is refused: the user asked for something that is
    not installed, and a plain scan in its place would look as if it had worked.
    """
    specs = list(detectors.values())
    if not config.deep.enabled:
        return [spec for spec in specs if not spec.deep]
    deep = [spec for spec in specs if spec.deep]
    if not deep:
        raise LessonsError(
            "a deep scan needs the lessons-llm plugin, which is not installed: "
            "pip install 'lessons[llm]' (or set deep.enabled to false in config.json)"
        )
    replaced = {name for spec in deep for name in spec.replaces}
    return [spec for spec in specs if spec.name not in replaced]


class Scanner:
    """One scan: the store, configuration, detectors and the report being filled."""

    def __init__(
        self,
        store: Any,
        config: Config,
        agents: Mapping[str, AgentSpec],
        detectors: Mapping[str, DetectorSpec] | Callable[[], Mapping[str, DetectorSpec]],
        *,
        dedup: Callable[..., Any] | None = None,
        home_dir: str | None = None,
        workers: int | None = None,
        lessons_home: Path | None = None,
    ) -> None:
        self.store = store
        self.lessons_home = lessons_home
        self.config = config
        self.agents = agents
        self._detector_source = detectors
        self._detectors: list[DetectorSpec] | None = None
        self.intake = Intake(store, config, dedup=dedup, home=home_dir)
        self.report = Report()
        self.workers = workers
        # One query for every file's size, mtime and inode when the store offers it (thousands
        # of files, most unchanged), the full state then only for files that changed; else one
        # query for every file's whole state.
        stamps = getattr(store, "list_scan_stamps", None)
        self._stamps: dict[str, tuple[int, int, int]] | None = (
            stamps() if callable(stamps) else None
        )
        bulk = getattr(store, "list_scan_states", None) if self._stamps is None else None
        self._states: dict[str, dict[str, Any]] | None = bulk() if callable(bulk) else None
        self._by_inode = self._inodes()
        #: States taken over by files found under a new name, to be stored under it.
        self._moved: list[tuple[str, dict[str, Any]]] = []

    def _inodes(self) -> dict[int, str]:
        """Inode -> key of every file with a scan state (see :meth:`_adopt`)."""
        if self._stamps is not None:
            return {v[2]: k for k, v in self._stamps.items() if v[2]}
        if self._states is not None:
            return {int(v.get("inode") or 0): k for k, v in self._states.items() if v.get("inode")}
        return {}

    def _adopt(self, key: str, inode: int) -> dict[str, Any] | None:
        """The state of the file with this inode kept under another name, for a file with no
        state under its own: the same file named otherwise before (by an earlier version, which
        kept the path as typed; moved, or linked twice) is not new. ``_plan`` still checks size,
        mtime, inode and the bytes before the offset, so another file reusing the inode is read
        from the start."""
        old = self._by_inode.pop(inode)
        if old == key:
            return None
        state = self._states.get(old) if self._states is not None else None
        if state is None and self._states is None:
            state = self.store.get_scan_state(old)
        return state

    @property
    def prepared(self) -> list[DetectorSpec]:
        """The detectors collected for this scan so far (none when nothing needed reading)."""
        return self._detectors or []

    @property
    def detectors(self) -> list[DetectorSpec]:
        """Collected on first use: a scan with nothing new never imports the detectors.

        Those with a ``prepare`` step are prepared here, in this process, before any helper
        is forked.
        """
        if self._detectors is None:
            source = self._detector_source
            chosen = active_detectors(source() if callable(source) else source, self.config)
            for spec in chosen:
                if spec.prepare is not None:
                    spec.prepare(config=self.config, home=self.lessons_home)
            self._detectors = chosen
        return self._detectors

    # -- planning ---------------------------------------------------------------------------

    def plan(self, agent: str, path: str | os.PathLike[str]) -> Job | None:
        """A job for ``path``, or ``None`` when it is unchanged since the last scan."""
        key = os.fspath(path)
        if not key.startswith(os.sep):
            key = os.path.realpath(key)  # keyed by the file, not by how it was named
        st = os.stat(key)  # noqa: PTH116 - a Path per unchanged file is what this avoids
        if self._stamps is not None:
            stamp = self._stamps.get(key)
            if stamp == (st.st_size, st.st_mtime_ns, st.st_ino):
                return None  # unchanged (the same test as in ``_plan``)
            state = None if stamp is None else self.store.get_scan_state(key)
        elif self._states is not None:
            state = self._states.get(key)
        else:
            state = self.store.get_scan_state(key)
        adopted = state is None and st.st_ino in self._by_inode
        if adopted:
            state = self._adopt(key, st.st_ino)
        changed = Path(key)
        plan = _plan(agent, changed, state, st)
        if plan is None and adopted and state is not None:
            self._moved.append((key, state))  # unchanged: its state now goes by this name
        return None if plan is None else Job(agent, changed, st, plan)

    def _processes(self, jobs: Sequence[Job]) -> tuple[int, bool]:
        """How many processes may read ``jobs``, and whether they form a worker pool (the
        caller caps the count at the number of jobs, once large ones are cut in pieces)."""
        todo = sum(j.todo for j in jobs)
        if self.workers is not None:
            count = self.workers
        elif todo < SPLIT_MIN_BYTES:
            count = 1
        else:
            count = min(MAX_WORKERS, _usable_cpus())
        if count > 1 and not _can_fork():
            count = 1
        return count, count > 1 and todo >= PARALLEL_MIN_BYTES

    # -- running ----------------------------------------------------------------------------

    def scan_files(
        self,
        files: Iterable[tuple[str, str | Path]],
        *,
        on_file: Callable[[str, int], None] | None = None,
        on_plan: Callable[[int], None] | None = None,
    ) -> Report:
        """Plan every file (``on_plan`` hears how many bytes are to be read), read the changed
        ones (in worker processes when there is a lot to read), and commit the results in
        groups: one transaction per file would cost more than reading a small transcript, and a
        group is still atomic (offsets move with their candidates)."""
        jobs: list[Job] = []
        for agent, path in files:
            self.report.files_seen += 1
            try:
                job = self.plan(agent, path)
            except OSError as exc:
                self.report.errors += 1
                log.warning("scan.file_error", path=os.fspath(path), error=str(exc))
                job = None
            if job is None:
                self.report.files_skipped += 1
                if on_file is not None:
                    on_file(os.fspath(path), 0)
                continue
            jobs.append(job)
        if self._moved:
            with self.store.transaction():
                for key, state in self._moved:
                    self.store.set_scan_state(key, state)
            self._moved.clear()
        if on_plan is not None:
            on_plan(sum(j.todo for j in jobs))
        if not jobs:
            return self.report
        size, use_pool = self._processes(jobs)
        if size > 1:
            jobs = _cut(jobs, size, self.agents)
            size = min(size, len(jobs))
        assembly = _Assembly(jobs)
        # Results are committed in groups, each in one short write transaction taken only once
        # the group is read: reading never holds the store's write lock, so hooks and other
        # commands are not kept waiting by a long scan.
        pending = _Pending(self._commit_group)
        results: Iterable[FileResult | ReadFailure]
        if size > 1:
            from lessons_core.scan import split

            _ = self.detectors  # collected (and imported) once, before the helpers fork
            if use_pool:
                results = split.read_pooled(jobs, self._read_one, size)
            else:
                # This process's share is committed while the helpers may still be reading.
                results = split.read_split(jobs, self._read_one, size, on_own_done=pending.flush)
        else:
            results = (self._read_one(job) for job in jobs)
        try:
            for part in results:
                result = assembly.add(part)
                if result is None:
                    continue  # a piece of a file whose other pieces are still being read
                if isinstance(result, ReadFailure):
                    self.report.errors += 1
                    log.warning("scan.file_error", path=result.key, error=result.error)
                    continue
                if on_file is not None:
                    on_file(result.key, result.read)
                pending.add(result)
            pending.flush()
        finally:
            # Left early (Ctrl-C, an error): stop the helpers now, not whenever the generator
            # is collected. What was committed stays; the rest is read again next time.
            close = getattr(results, "close", None)
            if close is not None:
                close()
        return self.report

    def _commit_group(self, group: list[FileResult]) -> None:
        if not group:
            return
        with self.store.transaction():
            for result in group:
                self.commit(result)

    def _read_one(self, job: Job) -> FileResult | ReadFailure:
        try:
            return read_file(job, self.agents, self.detectors, self.config, self.intake.home)
        except Exception as exc:  # one unreadable file must not end the scan; its offset stays
            return ReadFailure(str(job.path), f"{type(exc).__name__}: {exc}", job.piece)

    def scan_file(self, agent: str, path: str | Path) -> int:
        """Scan one transcript now; returns the number of new bytes read (0 when unchanged).

        Context re-read from before the old offset is not counted.
        """
        job = self.plan(agent, path)
        if job is None:
            self.report.files_skipped += 1
            return 0
        result = read_file(job, self.agents, self.detectors, self.config, self.intake.home)
        with self.store.transaction():
            self.commit(result)
        return result.read

    def commit(self, result: FileResult) -> None:
        """Admit a file's candidates and move its offset, in the caller's transaction."""
        for candidate, reason, _lines in result.found:
            if reason is None:
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

    def _count(self, candidate: Candidate, status: str, reason: str) -> None:
        self.report.count(candidate.agent, f"tier{candidate.tier}")
        if status == REJECTED:
            self.report.rejected += 1
            from lessons_core.privacy import redact_head

            mistake = redact_head(candidate.mistake, 80)[:80]  # rejected before its scrub
            log.debug("scan.rejected", reason=redact_head(reason, 300), mistake=mistake)
        elif status == DUPLICATE:
            self.report.duplicates += 1


def _cut(jobs: list[Job], processes: int, agents: Mapping[str, AgentSpec]) -> list[Job]:
    """``jobs`` with each that is more than a fair share of the work cut into pieces (at most
    one per process), when its agent's reader can start at any line (see
    :mod:`lessons_core.scan.pieces`)."""
    from lessons_core.scan import pieces

    share = max(PIECE_MIN_BYTES, sum(j.todo for j in jobs) // processes)
    out: list[Job] = []
    for job in jobs:
        count = min(processes, job.todo // share)
        spec = agents.get(job.agent)
        if count < 2 or spec is None or not spec.ranges or _legacy_gemini(job.agent, job.path):
            out.append(job)
            continue
        prog = job.prog
        cuts = pieces.cuts(str(job.path), prog.offset, prog.line, count)
        if not cuts:
            out.append(job)
            continue
        total = len(cuts) + 1
        first = ev.Progress(
            prog.offset,
            prog.line,
            messages=prog.messages,
            session_id=prog.session_id,
            project=prog.project,
            end=cuts[0].ahead_offset,
        )
        out.append(job.cut(0, total, first, (None, cuts[0].line + 1)))
        for index, cut in enumerate(cuts, start=1):
            after = cuts[index] if index < len(cuts) else None
            # Session and directory start unknown: every record of such a reader names its own,
            # and a piece that meets none leaves the file's to the pieces before (see _merge).
            piece = ev.Progress(
                cut.back_offset, cut.back_line, end=after.ahead_offset if after else None
            )
            keep = (cut.line + 1, after.line + 1 if after else None)
            out.append(job.cut(index, total, piece, keep))
    return out


class _Assembly:
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


class _Pending:
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


def run_scan(
    session: Any,
    *,
    paths: Sequence[Path] = (),
    agent: str | None = None,
    wait: bool = True,
    on_file: Callable[[str, int], None] | None = None,
    on_plan: Callable[[int], None] | None = None,
    files: Sequence[tuple[str, str | Path]] | None = None,
    workers: int | None = None,
    on_wait: Callable[[], None] | None = None,
) -> Report:
    """Scan under the lock with a :class:`lessons_core.services.Session`; rebuild the manifest
    when Tier 1 blocks were promoted."""
    environ = session.environ if session.environ is not None else os.environ
    agents = session.plugins.agents()
    if agent is not None and agent not in agents:
        known = ", ".join(sorted(agents)) or "none"
        raise LessonsError(f"no agent plugin named {agent!r} is installed (installed: {known})")
    if workers is None and environ.get("LESSONS_SCAN_WORKERS", "").strip().isdigit():
        workers = max(1, int(environ["LESSONS_SCAN_WORKERS"]))
    with scan_lock(session.home, wait=wait, on_wait=on_wait):
        todo = (
            files
            if files is not None
            else discover(agents, environ, paths, agent, extra=session.config.scan_paths)
        )
        scanner = Scanner(
            session.store,
            session.config,
            agents,
            session.plugins.detectors,
            dedup=dedup_backend(session.plugins),
            home_dir=environ.get("HOME"),
            workers=workers,
            lessons_home=session.home,
        )
        if session.config.deep.enabled:
            _ = scanner.detectors  # a deep scan that cannot run says so before reading anything
        report = scanner.scan_files(todo, on_file=on_file, on_plan=on_plan)
        hold_back(session.store, report, session.config.max_candidates_per_scan)
        for spec in scanner.prepared:
            line = spec.summary() if spec.summary is not None else ""
            if line:
                report.notes.append(line)
        if report.promoted:
            session.rebuild_manifest()
    return report


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
