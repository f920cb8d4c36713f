"""Share a medium-sized scan between this process and a few forked helpers.

A worker pool pays for itself only on large scans: starting one imports the pool machinery,
starts threads and pickles every job and result one by one, which together cost about as much
as reading a few megabytes. The scan a session start usually triggers (a few grown transcripts,
a few megabytes of new lines) gains more from a cheaper split: fork one helper per spare core
and let every process, this one included, take the next job from a shared queue until none are
left. The queue is a pipe filled before the fork with job numbers, largest job first; each
helper sends back its results, numbered, as one pickle through its own pipe.

Taking jobs from a queue rather than a fixed share matters: a file's reading cost follows its
content more than its size (tool output is skimmed, the agent's own messages are parsed), so
equal bytes are not equal work.

The helpers only read and detect; they never touch the store (this process commits everything),
never flush this process's buffers and leave with ``os._exit``. Nothing is lost when a helper
fails: a job whose result does not arrive (the fork failed, the helper died or was killed, the
pickle was cut short) is read again here.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import struct
from collections.abc import Callable, Iterator, Sequence
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
    on_own_done: Callable[[], None] | None = None,
) -> Iterator[R]:
    """``read(job)`` for every job, spread over ``processes`` processes (this one included).

    This process's own results come as they are read (so a caller can commit and report
    progress), the helpers' once the queue is empty; ``on_own_done`` is called in between,
    while the helpers may still be busy with their last job. ``read`` must not raise (wrap
    errors into its result) and its results must pickle.
    """
    if processes < 2 or len(jobs) < 2:
        yield from map(read, jobs)
        return
    entries = queue_entries(jobs)
    queue_r, queue_w = os.pipe()
    try:
        data = memoryview(b"".join(_ENTRY.pack(n) for n in range(len(entries))))
        while data:
            data = data[os.write(queue_w, data) :]
    finally:
        os.close(queue_w)  # before forking: at the end of the queue every reader sees EOF
    helpers: list[tuple[int, int]] = []  # (pid, read end of its result pipe)
    done: set[int] = set()
    try:
        for _ in range(processes - 1):
            started = _fork(jobs, entries, queue_r, read)
            if started is not None:
                helpers.append(started)
        for number in _take(queue_r, entries):
            done.add(number)
            yield read(jobs[number])
        if on_own_done is not None and helpers:
            on_own_done()
        while helpers:
            for number, result in _collect(*helpers.pop(0)):
                if number not in done:
                    done.add(number)
                    yield result
        for number in range(len(jobs)):  # taken by a helper that failed: read here
            if number not in done:
                done.add(number)
                yield read(jobs[number])
    finally:
        os.close(queue_r)
        for pid, fd in helpers:  # left early (an error, or the caller stopped)
            _stop(pid, fd)


def _take(queue: int, entries: list[list[int]]) -> Iterator[int]:
    """Job numbers from the shared queue, one entry at a time, until it is empty."""
    while True:
        try:
            raw = os.read(queue, _ENTRY.size)
        except InterruptedError:  # pragma: no cover - retried by Python itself since 3.5
            continue
        if len(raw) < _ENTRY.size:
            return
        yield from entries[_ENTRY.unpack(raw)[0]]


def _fork(
    jobs: Sequence[J], entries: list[list[int]], queue: int, read: Callable[[J], R]
) -> tuple[int, int] | None:
    try:
        rfd, wfd = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(rfd)
        os.close(wfd)
        return None
    if pid == 0:  # the helper: read, send, leave without running any exit handler
        code = 1
        try:
            os.close(rfd)
            out = [(number, read(jobs[number])) for number in _take(queue, entries)]
            data = pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(wfd, "wb") as pipe:
                pipe.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(wfd)
    return pid, rfd


def _collect(pid: int, fd: int) -> list[tuple[int, Any]]:
    """The helper's numbered results; none when they did not arrive whole."""
    try:
        with os.fdopen(fd, "rb") as pipe:
            data = pipe.read()
    except OSError:
        data = b""
    try:
        _pid, status = os.waitpid(pid, 0)
    except ChildProcessError:
        status = -1
    if status != 0 or not data:
        return []
    try:
        results = pickle.loads(data)  # noqa: S301 - written by our own fork a moment ago
    except Exception:  # a truncated or garbled pickle: its jobs are read again instead
        return []
    return results if isinstance(results, list) else []


def _stop(pid: int, fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
