"""Share a medium-sized scan between this process and a few forked helpers.

A worker pool pays for itself only on large scans: starting one imports the pool machinery,
starts threads and pickles every job and result one by one, which together cost about as much
as reading a few megabytes. A medium scan (from ``planning.SPLIT_MIN_BYTES``; the few
megabytes a session start usually brings are read by this process alone, since a helper starts
cold) gains more from a cheaper split: fork one helper per spare core and let every process,
this one included, take the next job from a shared queue until none are left. The queue is a
pipe filled before the fork with job numbers, largest job first. Each helper sends every result
as soon as it is read, numbered, as a length-prefixed pickle through its own pipe, and this
process picks up what has arrived between its own jobs: the helpers' results are committed while
they go on reading, not all at once after the last one is read, when every other process would
be idle.

Taking jobs from a queue rather than a fixed share matters: a file's reading cost follows its
content more than its size (tool output is skimmed, the agent's own messages are parsed), so
equal bytes are not equal work.

Large scans use :func:`read_pooled` instead: the same queue and helpers, but this process reads
nothing itself, and only collects and commits. It takes the place of a ``multiprocessing``
pool, which cannot be stopped cleanly: on Ctrl-C its workers die holding the queue's lock and
``Pool.join`` (or ``terminate``) waits on them for ever.

The helpers only read and detect; they never touch the store (this process commits everything),
never flush this process's buffers and leave with ``os._exit``. Nothing is lost when a helper
fails: a job whose result does not arrive (the fork failed, the helper died or was killed, a
result would not pickle) is read again here.

Interrupts: a helper dies at once on SIGINT (the default action, no Python handler: Ctrl-C
reaches the whole process group), and leaves by itself when this process is gone. This process
gets ``KeyboardInterrupt`` wherever it is, and on the way out kills and reaps every helper with
SIGINT held back, so a second Ctrl-C cannot cut the clean-up short and leave a helper behind.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import struct
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol, TypeVar

R = TypeVar("R")

#: A pipe holds at least 64 KiB; the queue is written whole before anyone reads, so it must fit.
#: Past this many jobs, consecutive ones share a queue entry.
_MAX_ENTRIES = 4096
_ENTRY = struct.Struct("<I")


class Sized(Protocol):
    """A job that knows how many bytes it has to read."""

    @property
    def todo(self) -> int: ...


J = TypeVar("J", bound=Sized)


def queue_entries(jobs: Sequence[J]) -> list[list[int]]:
    """The queue: job numbers, largest job first, grouped so there are at most
    :data:`_MAX_ENTRIES` entries."""
    order = sorted(range(len(jobs)), key=lambda i: -jobs[i].todo)
    per = -(-len(order) // _MAX_ENTRIES) or 1
    return [order[i : i + per] for i in range(0, len(order), per)]


def read_split(
    jobs: Sequence[J],
    read: Callable[[J], R],
    processes: int,
    *,
    on_forked: Callable[[], None] | None = None,
    on_own_done: Callable[[], None] | None = None,
) -> Iterator[R]:
    """``read(job)`` for every job, spread over ``processes`` processes (this one included).

    This process's own results come as they are read, and between them whatever the helpers
    have sent meanwhile, so a caller commits the helpers' work while they go on reading instead
    of all of it once they are done. ``on_forked`` is called once the helpers are started,
    before this process takes a job: work that does not depend on what is read runs while they
    read. ``on_own_done`` is called when the queue is empty, while the helpers may still be busy
    with their last job. ``read`` must not raise (wrap errors into its result) and its results
    must pickle.
    """
    if processes < 2 or len(jobs) < 2:
        return _here(jobs, read, on_forked)
    return _shared(jobs, read, processes - 1, on_forked, reads_here=True, on_own_done=on_own_done)


def read_pooled(
    jobs: Sequence[J],
    read: Callable[[J], R],
    processes: int,
    *,
    on_forked: Callable[[], None] | None = None,
) -> Iterator[R]:
    """``read(job)`` for every job, in ``processes`` forked helpers, each result as soon as it
    is read (in no set order); this process only collects. Same contract as :func:`read_split`.
    """
    if processes < 1 or not jobs:
        return _here(jobs, read, on_forked)
    return _shared(jobs, read, processes, on_forked, reads_here=False)


def _here(
    jobs: Sequence[J], read: Callable[[J], R], on_forked: Callable[[], None] | None
) -> Iterator[R]:
    """Every job read by this process (no helper would pay)."""
    if on_forked is not None:
        on_forked()
    yield from map(read, jobs)


def _shared(
    jobs: Sequence[J],
    read: Callable[[J], R],
    helpers_wanted: int,
    on_forked: Callable[[], None] | None,
    *,
    reads_here: bool,
    on_own_done: Callable[[], None] | None = None,
) -> Iterator[R]:
    """The jobs shared through the queue by ``helpers_wanted`` forked helpers and, when
    ``reads_here``, this process too (see :func:`read_split`)."""
    entries = queue_entries(jobs)
    queue_r = _queue(entries)
    helpers: list[tuple[int, int]] = []  # (pid, read end of its result pipe)
    done: set[int] = set()
    inbox: _Inbox | None = None
    try:
        for _ in range(helpers_wanted):
            started = _fork(jobs, entries, queue_r, read)
            if started is not None:
                helpers.append(started)
        forked = bool(helpers)
        inbox = _Inbox(helpers)
        if on_forked is not None:
            on_forked()
        if reads_here:
            for number in _take(queue_r, entries):
                done.add(number)
                yield read(jobs[number])
                yield from _unseen(inbox.arrived(wait=False), done)
            if on_own_done is not None and forked:
                on_own_done()
        yield from _unseen(inbox.arrived(wait=True), done)
        # Taken by a helper that failed (or none could be forked): read here.
        yield from _unseen(((n, read(jobs[n])) for n in range(len(jobs)) if n not in done), done)
    finally:  # left early (an error, an interrupt, or the caller stopped): no helper stays
        if inbox is not None:
            inbox.close()
        os.close(queue_r)
        _stop(helpers)


def _unseen(results: Iterable[tuple[int, R]], done: set[int]) -> Iterator[R]:
    """The results of jobs not yielded yet (a job a helper read may also be read here)."""
    for number, result in results:
        if number not in done:
            done.add(number)
            yield result


class _Inbox:
    """The helpers' result pipes, read as frames arrive.

    A helper that is done (or died) is reaped when its pipe ends, and taken off ``helpers``
    (the list :func:`_stop` cleans up after), so nothing is waited for twice.
    """

    def __init__(self, helpers: list[tuple[int, int]]) -> None:
        import selectors

        self.helpers = helpers
        self.selector = selectors.DefaultSelector()
        self.buffers: dict[int, bytearray] = {}
        for pid, fd in helpers:
            self.selector.register(fd, selectors.EVENT_READ, pid)
            self.buffers[fd] = bytearray()

    def arrived(self, *, wait: bool) -> Iterator[tuple[int, Any]]:
        """The numbered results the helpers have sent; with ``wait``, every one still to come
        (until each helper is done), else only those already in the pipes."""
        while self.buffers:
            ready = self.selector.select(None if wait else 0)
            if not ready:
                return
            for key, _mask in ready:
                fd, pid = key.fd, key.data
                buffer = self.buffers[fd]
                chunk = os.read(fd, 1 << 20)
                if not chunk:  # the helper is done (or died): reap it
                    self.selector.unregister(fd)
                    del self.buffers[fd]
                    at = self.helpers.index((pid, fd))
                    self.helpers[at] = (pid, -1)  # closed here, from now on
                    os.close(fd)
                    _reap(pid)
                    self.helpers.remove((pid, -1))
                    continue
                buffer += chunk
                yield from _frames(buffer)

    def close(self) -> None:
        self.selector.close()


_FRAME = struct.Struct("<Q")


def _frames(buffer: bytearray) -> Iterator[tuple[int, Any]]:
    """The complete ``(number, result)`` frames at the start of ``buffer``, removed from it."""
    while len(buffer) >= _FRAME.size:
        (size,) = _FRAME.unpack_from(buffer)
        end = _FRAME.size + size
        if len(buffer) < end:
            return
        data = bytes(buffer[_FRAME.size : end])
        del buffer[:end]
        try:
            frame = pickle.loads(data)  # noqa: S301 - written by our own fork a moment ago
        except Exception:  # pragma: no cover - a frame is written whole or not at all
            frame = None  # its job is read again here
        if isinstance(frame, tuple) and len(frame) == 2:
            yield frame


def _queue(entries: list[list[int]]) -> int:
    """The read end of a pipe holding every queue entry (closed for writing: EOF at its end)."""
    queue_r, queue_w = os.pipe()
    try:
        data = memoryview(b"".join(_ENTRY.pack(n) for n in range(len(entries))))
        while data:
            data = data[os.write(queue_w, data) :]
    finally:
        os.close(queue_w)  # before forking: at the end of the queue every reader sees EOF
    return queue_r


def _take(queue: int, entries: list[list[int]], parent: int | None = None) -> Iterator[int]:
    """Job numbers from the shared queue, one entry at a time, until it is empty (or, in a
    helper, until the process that forked it is gone: nobody would collect the results)."""
    while True:
        if parent is not None and os.getppid() != parent:
            return
        try:
            raw = os.read(queue, _ENTRY.size)
        except InterruptedError:  # pragma: no cover - retried by Python itself since 3.5
            continue
        if len(raw) < _ENTRY.size:
            return
        yield from entries[_ENTRY.unpack(raw)[0]]


def _fork(
    jobs: Sequence[J],
    entries: list[list[int]],
    queue: int,
    read: Callable[[J], R],
) -> tuple[int, int] | None:
    try:
        rfd, wfd = os.pipe()
    except OSError:
        return None
    parent = os.getpid()
    # A background job's SIGINT stays ignored; otherwise the helper gets the default action.
    interruptible = signal.getsignal(signal.SIGINT) is not signal.SIG_IGN
    try:
        pid = os.fork()
    except OSError:
        os.close(rfd)
        os.close(wfd)
        return None
    if pid == 0:  # the helper: read, send, leave without running any exit handler
        code = 1
        try:
            if interruptible:  # Ctrl-C ends a helper at once, without a traceback
                signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.close(rfd)
            _stream(wfd, ((n, read(jobs[n])) for n in _take(queue, entries, parent)))
            code = 0
        finally:
            os._exit(code)
    os.close(wfd)
    return pid, rfd


def _stream(fd: int, results: Iterator[tuple[int, Any]]) -> None:
    """Send each result as a frame as soon as it is read, without waiting for the reader.

    The scanning process commits between reads, and a pipe holds only 64 KiB: a helper writing
    in blocking mode would wait out every commit. So the pipe is non-blocking while there is
    reading to do, frames the pipe cannot take yet wait here, and the rest goes out at the end.
    """
    pending = bytearray()
    os.set_blocking(fd, False)
    try:
        for result in results:
            data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
            pending += _FRAME.pack(len(data))
            pending += data
            with contextlib.suppress(BlockingIOError):
                while pending:
                    del pending[: os.write(fd, pending)]
        os.set_blocking(fd, True)
        while pending:
            del pending[: os.write(fd, pending)]
    finally:
        os.close(fd)


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _stop(helpers: list[tuple[int, int]]) -> None:
    """Kill and reap every helper still listed, with SIGINT held back meanwhile (a second
    Ctrl-C then arrives once they are gone, instead of leaving one behind)."""
    if not helpers:
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        for pid, fd in helpers:
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid, _fd in helpers:
            _reap(pid)
        helpers.clear()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
