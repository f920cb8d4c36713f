"""Planning: where each changed file is read from, and how the reading is shared out.

Per file the store keeps a scan state: the byte offset just past the last complete line read,
the size, mtime and inode seen then, and a little context. A file whose size, mtime and inode are
unchanged is not even opened. A grown file is read from a short way before the old offset (the
*context*: the last few dozen events, so that a failure read last time can still meet the fix
written since). A file that shrank or was replaced (new inode) is read again from the start.
Some agents keep whole JSON documents rewritten in place (``AgentSpec.document_suffixes``, or a
document a reader found under a JSON Lines name, see ``Progress.document``); their resume point
is a message count instead of an offset.

Large reads are shared with forked helpers (see :mod:`lessons_core.scan.split`), and a read much
larger than a fair share is cut into pieces (see :mod:`lessons_core.scan.pieces`).
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lessons_core.logs import get_logger
from lessons_core.plugins.specs import AgentSpec
from lessons_core.scan import events as ev

log = get_logger()

#: From this much to read on, the reading is shared with forked helpers (see
#: :mod:`lessons_core.scan.split`); below it, forking costs more than it saves. A helper starts
#: cold (every pattern compiled again at its first use, every memory empty), hands its results
#: back as a pickle, and a piece re-reads its overlap: measured on an idle machine, two
#: processes read 5 MB no faster than one, and beside other work slower.
SPLIT_MIN_BYTES = 16 << 20
#: From this much on, a worker pool instead: it balances the load file by file and hands results
#: over as they come, which is worth its start-up cost only on large scans.
PARALLEL_MIN_BYTES = 32 << 20
MAX_WORKERS = 4
#: A read is cut into pieces read by several processes (see :mod:`lessons_core.scan.pieces`)
#: when it is more than a process's fair share of the scan, in pieces of at least this much.
#: (Cutting finer balances better on paper, but every piece costs its overlap, and every
#: process pays once for warming up: measured, it did not pay.)
PIECE_MIN_BYTES = 1 << 20
#: How many messages of a whole-document transcript are re-read as context.
MESSAGE_CONTEXT = 12


def whole_document(
    spec: AgentSpec | None, path: Path, state: Mapping[str, Any] | None = None
) -> bool:
    """Whether the agent rewrites this transcript whole (``AgentSpec.document_suffixes``, or a
    reader found a document under another name last time: ``document`` in its ``state``): its
    resume point is then a message count, not a byte offset."""
    if spec is None:
        return False
    return path.suffix in spec.document_suffixes or bool(state and state.get("document"))


def plan_read(
    spec: AgentSpec | None, path: Path, state: dict[str, Any] | None, st: os.stat_result
) -> Any:
    """Where to start reading, or ``None`` when the file is unchanged.

    Returns ``(progress, reported_before_line, reported_lines, bytes_already_read)``.
    """
    if state is not None and (
        state.get("size") == st.st_size
        and state.get("mtime_ns") == st.st_mtime_ns
        and state.get("inode") == st.st_ino
    ):
        return None
    if whole_document(spec, path, state):
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
        or tail_of(path, int(state.get("offset", 0))) != state.get("tail", "")
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


def tail_of(path: Path, offset: int) -> str:
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


class Job:
    """One file to read: where to start and what was reported from its context before.

    A piece of a file read in pieces (see :func:`cut_pieces`) also knows which piece it is and the
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


def usable_cpus() -> int:
    """The CPUs this process may run on: those its affinity allows (``taskset``, a container's
    cpuset), and no more than its CPU quota (a container's ``cpu.max``) pays for."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count() or 1
    quota = cpu_quota()
    if quota is not None:
        count = min(count, math.ceil(quota))
    return max(1, count)


#: Where cgroup v2 states the CPU quota of the processes inside it (a container sees its own).
CPU_MAX = "/sys/fs/cgroup/cpu.max"


def cpu_quota(path: str = CPU_MAX) -> float | None:
    """The CPUs' worth of time this process's cgroup may use (``cpu.max``: quota and period in
    microseconds, or ``max``), or ``None`` without a limit or where it cannot be read."""
    try:
        with open(path, "rb") as fh:
            fields = fh.read().split()
        if fields[0] == b"max":
            return None
        quota, period = int(fields[0]), int(fields[1]) if len(fields) > 1 else 100_000
    except (OSError, ValueError, IndexError):
        return None
    return quota / period if quota > 0 and period > 0 else None


def can_fork() -> bool:
    """Forking is used on Linux only (macOS forbids it after some system frameworks loaded),
    and only from a single-threaded process: a lock another thread holds at the fork would stay
    held in the child for ever (the console command has one thread; a host may have more)."""
    if not (sys.platform.startswith("linux") and hasattr(os, "fork")):
        return False
    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() == 1


def cut_pieces(jobs: list[Job], processes: int, agents: Mapping[str, AgentSpec]) -> list[Job]:
    """``jobs`` with each that is more than a fair share of the work cut into pieces (at most
    one per process), when its agent's reader can start at any line (see
    :mod:`lessons_core.scan.pieces`)."""
    from lessons_core.scan import pieces

    share = max(PIECE_MIN_BYTES, sum(j.todo for j in jobs) // processes)
    out: list[Job] = []
    for job in jobs:
        count = min(processes, job.todo // share)
        spec = agents.get(job.agent)
        if count < 2 or spec is None or not spec.ranges or whole_document(spec, job.path):
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
            # and a piece that meets none leaves the file's to the pieces before (see reading).
            piece = ev.Progress(
                cut.back_offset, cut.back_line, end=after.ahead_offset if after else None
            )
            keep = (cut.line + 1, after.line + 1 if after else None)
            out.append(job.cut(index, total, piece, keep))
    return out


class Planner:
    """The scan states a scan plans from, looked up as cheaply as the store allows."""

    def __init__(self, store: Any, agents: Mapping[str, AgentSpec]) -> None:
        self.store = store
        self.agents = agents
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
        self.moved: list[tuple[str, dict[str, Any]]] = []

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
        kept the path as typed; moved, or linked twice) is not new. ``plan_read`` still checks size,
        mtime, inode and the bytes before the offset, so another file reusing the inode is read
        from the start."""
        old = self._by_inode.pop(inode)
        if old == key:
            return None
        state = self._states.get(old) if self._states is not None else None
        if state is None and self._states is None:
            state = self.store.get_scan_state(old)
        return state

    def plan(self, agent: str, path: str | os.PathLike[str]) -> Job | None:
        """A job for ``path``, or ``None`` when it is unchanged since the last scan."""
        key = os.fspath(path)
        if not key.startswith(os.sep):
            key = os.path.realpath(key)  # keyed by the file, not by how it was named
        st = os.stat(key)  # noqa: PTH116 - a Path per unchanged file is what this avoids
        if self._stamps is not None:
            stamp = self._stamps.get(key)
            if stamp == (st.st_size, st.st_mtime_ns, st.st_ino):
                return None  # unchanged (the same test as in ``plan_read``)
            state = None if stamp is None else self.store.get_scan_state(key)
        elif self._states is not None:
            state = self._states.get(key)
        else:
            state = self.store.get_scan_state(key)
        adopted = state is None and st.st_ino in self._by_inode
        if adopted:
            state = self._adopt(key, st.st_ino)
        changed = Path(key)
        plan = plan_read(self.agents.get(agent), changed, state, st)
        if plan is None and adopted and state is not None:
            self.moved.append((key, state))  # unchanged: its state now goes by this name
        return None if plan is None else Job(agent, changed, st, plan)


#: Bytes each process beyond the first must have to read for a fork to pay (its start-up, its
#: warming up and handing its results back cost a few tens of milliseconds).
BYTES_PER_HELPER = 8 << 20


#: The kernel's load figures: the load averages, then running/all tasks.
LOADAVG = "/proc/loadavg"
#: The kernel's CPU time counters; the first line sums every CPU.
STAT = "/proc/stat"
#: The shortest window, in seconds, over which the CPUs' use is trusted: the counters move by
#: ticks of 10 ms, so a shorter one would mistake a tick for a busy CPU.
MIN_WINDOW = 0.04

#: The CPUs' counters when the scan command started (:func:`mark_start`), or ``None``.
_mark: tuple[float, float, float] | None = None


def _cpu_seconds(path: str = STAT) -> tuple[float, float, float] | None:
    """(busy, elapsed) CPU-seconds summed over the machine's CPUs since boot, and the CPU
    seconds of this process; ``None`` where the counters cannot be read."""
    try:
        with open(path, "rb") as fh:
            fields = fh.readline().split()
        # user nice system idle iowait irq softirq steal (guest time is counted in user)
        ticks = [int(value) for value in fields[1:9]]
        hertz = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    if len(ticks) < 5 or hertz <= 0:
        return None
    total = sum(ticks)
    idle = ticks[3] + ticks[4]
    return (total - idle) / hertz, total / hertz, time.process_time()


def mark_start(path: str = STAT) -> None:
    """Note the CPUs' counters now: the scan command does it first thing, and the start-up
    that follows (imports, plugins, the store, planning) is the window over which
    :func:`others_load` sees what other processes keep the CPUs doing."""
    global _mark
    _mark = _cpu_seconds(path)


def _recent_use(path: str) -> float | None:
    """How many CPUs other processes kept busy since :func:`mark_start` (this process's own
    CPU time taken out), or ``None`` without a window long enough to tell."""
    if _mark is None:
        return None
    now = _cpu_seconds(path)
    if now is None:
        return None
    machine = os.cpu_count() or 1
    window = (now[1] - _mark[1]) / machine  # the seconds that passed, from the counters
    if window < MIN_WINDOW:
        return None
    others = (now[0] - _mark[0]) - (now[2] - _mark[2])
    return max(0.0, others / window)


def others_load(cpus: int, path: str = LOADAVG, stat: str = STAT) -> float:
    """How many of this process's ``cpus`` other processes keep busy now: the larger of their
    use of the CPUs while this scan started up (:func:`mark_start`; without that window, the
    one-minute load average) and the tasks running at this instant (``/proc/loadavg``, this
    process left out), spread over the machine's CPUs.

    The larger, because a helper forked onto a CPU that turns out busy makes the scan slower
    than one process would, while a helper not forked only leaves it as fast as one: the
    instant misses a neighbour between two bursts, the window one that starts just now, and
    each sees what the other misses. The window replaces the one-minute average, which lags:
    for a minute after a build, an install or an earlier scan has finished, it reports a busy
    CPU that is idle, and a large scan then read alone. Where nothing is known, the machine is
    taken as idle.
    """
    average: float | None = None
    running = 0.0
    try:
        with open(path, "rb") as fh:
            fields = fh.read().split()
        average = float(fields[0])
        running = float(max(0, int(fields[3].split(b"/")[0]) - 1))
    except (OSError, ValueError, IndexError):
        with contextlib.suppress(AttributeError, OSError):  # else nothing is known of it
            average = os.getloadavg()[0]
    recent = _recent_use(stat)
    seen = recent if recent is not None else average
    busy = max(seen or 0.0, running)
    machine = os.cpu_count() or cpus
    if machine > cpus:
        busy = busy * cpus / machine  # the load is the whole machine's; ours is a share of it
    return min(busy, float(cpus))


def processes(jobs: Sequence[Job], workers: int | None) -> tuple[int, bool]:
    """How many processes may read ``jobs``, and whether they form a worker pool (the
    caller caps the count at the number of jobs, once large ones are cut in pieces).

    Without ``LESSONS_SCAN_WORKERS`` the count follows the work, the CPUs and the load: one
    process more for each CPU that other processes leave idle (rounded), and only as many as
    the bytes to read pay for. A helper on a CPU that is already busy only takes time from the
    work it shares: the kernel gives a session's processes one share between them (autogroup),
    and they add forking, copying and handing over to the same work.
    """
    todo = sum(j.todo for j in jobs)
    if workers is not None:
        count = workers
    elif todo < SPLIT_MIN_BYTES:
        count = 1
    else:
        cpus = usable_cpus()
        idle = round(cpus - others_load(cpus))
        count = max(1, min(MAX_WORKERS, idle, 1 + todo // BYTES_PER_HELPER))
    if count > 1 and not can_fork():
        count = 1
    # A pool whose coordinator reads nothing only pays with two helpers or more; with one, the
    # scanning process reads its share itself (one process fewer holding memory).
    return count, count > 2 and todo >= PARALLEL_MIN_BYTES
