"""Share a medium-sized scan between this process and a few forked helpers.

A worker pool pays for itself only on large scans: starting one imports the pool machinery,
starts threads and pickles every job and result one by one, which together cost about as much
as reading a few megabytes. The scan a session start usually triggers (a handful of grown
transcripts, a few megabytes of new lines) gains more from a cheaper split: fork one helper per
spare core, give each a fixed share of the files (balanced by bytes to read), read this
process's own share meanwhile, then take each helper's results as one pickle through a pipe.

The helpers only read and detect; they never touch the store (this process commits everything),
never flush this process's buffers and leave with ``os._exit``. Nothing is lost when a helper
fails: a share whose results do not arrive whole (the fork failed, the helper died or was
killed, the pickle was cut short) is read again here.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
from collections.abc import Callable, Iterator, Sequence
from typing import Protocol, TypeVar

R = TypeVar("R")


class Sized(Protocol):
    """A job that knows how many bytes it has to read."""

    @property
    def todo(self) -> int: ...


J = TypeVar("J", bound=Sized)


def shares(jobs: Sequence[J], count: int) -> list[list[J]]:
    """``jobs`` in ``count`` shares of about equal bytes (largest first, each to the lightest)."""
    bins: list[list[J]] = [[] for _ in range(max(1, count))]
    loads = [0] * len(bins)
    for job in sorted(jobs, key=lambda j: -j.todo):
        lightest = loads.index(min(loads))
        bins[lightest].append(job)
        loads[lightest] += job.todo
    return bins


def read_split(
    jobs: Sequence[J],
    read: Callable[[J], R],
    processes: int,
    *,
    on_own_done: Callable[[], None] | None = None,
) -> Iterator[R]:
    """``read(job)`` for every job, spread over ``processes`` processes (this one included).

    This process's own results come as they are read (so a caller can commit and report
    progress), each helper's once that helper is done; ``on_own_done`` is called in between,
    while the helpers may still be busy. ``read`` must not raise (wrap errors into its result)
    and its results must pickle.
    """
    own, *others = shares(jobs, processes)
    helpers: list[tuple[int, int, list[J]]] = []  # (pid, read end of its pipe, its share)
    try:
        for share in others:
            if not share:
                continue
            started = _fork(share, read)
            if started is None:
                own.extend(share)  # could not fork: read it here
            else:
                helpers.append((started[0], started[1], share))
        for job in own:
            yield read(job)
        if on_own_done is not None and helpers:
            on_own_done()
        while helpers:
            pid, fd, share = helpers.pop(0)
            results: list[R] | None = _collect(pid, fd)
            if results is None:
                results = [read(job) for job in share]
            yield from results
    finally:
        for pid, fd, _share in helpers:  # left early (an error, or the caller stopped)
            _stop(pid, fd)


def _fork(share: list[J], read: Callable[[J], R]) -> tuple[int, int] | None:
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
            data = pickle.dumps([read(job) for job in share], protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(wfd, "wb") as out:
                out.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(wfd)
    return pid, rfd


def _collect(pid: int, fd: int) -> list[R] | None:
    """The helper's results, or ``None`` when they did not arrive whole."""
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
        return None
    try:
        results = pickle.loads(data)  # noqa: S301 - written by our own fork a moment ago
    except Exception:  # a truncated or garbled pickle: read the share again instead
        return None
    return results if isinstance(results, list) else None


def _stop(pid: int, fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
