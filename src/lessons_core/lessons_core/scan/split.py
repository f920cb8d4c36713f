"""Share a scan's reading between this process and forked helpers, on the standard library's
process pool.

Every job goes to a :class:`concurrent.futures.ProcessPoolExecutor` (``fork`` context: the
helpers inherit the jobs, the detectors and the compiled patterns, so only a job's number goes
out and its result comes back), largest first, :data:`AHEAD` per helper; each finished job hands
its helper the next one (from the pool's own thread), so a helper never waits for this process.
Each result is handed over as soon as it is read, and this process picks up what has arrived
between its own jobs: the helpers' results are committed while they go on reading.

A medium scan (from ``planning.SPLIT_MIN_BYTES``) is read by this process too
(:func:`read_split`): it takes the smallest job left while the helpers take the largest. Taking
jobs from a shared queue rather than a fixed share matters: a file's reading cost follows its
content more than its size (tool output is skimmed, the agent's own messages are parsed), so
equal bytes are not equal work. A pending future is never cancelled while the pool runs: on
Python 3.11 a pool that breaks then fails on the cancelled future in its own thread. Large scans
use :func:`read_pooled`: the same pool, and this process only collects and commits.

The pool replaced a hand-made one (a pipe of job numbers, a result pipe per helper read with
``selectors``) about 240 lines long: measured paired, whole scans took 0.99-1.08 times as
long on a 2-CPU machine, idle, beside a neighbour and on one CPU (see ``docs/scanner.md``).

The helpers only read and detect; they never touch the store (this process commits
everything). Nothing is lost when a helper fails: a job whose result does not arrive (no helper
could start, a helper died or was killed, a result would not pickle) is read again here.

Interrupts: a helper dies at once on SIGINT (the default action, no Python handler: Ctrl-C
reaches the whole process group), and dies with this process (``PR_SET_PDEATHSIG``: an idle one
waits on the pool's queue and would otherwise wait for ever). This process gets
``KeyboardInterrupt`` wherever it is, and on the way out cancels what is pending and waits for
the pool to wind down with SIGINT held back, so a second Ctrl-C cannot cut the clean-up short
and leave a helper behind.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Protocol, TypeVar

R = TypeVar("R")

#: Jobs handed to the pool ahead per helper: enough that a helper never waits for this process
#: to top the pool up between two of its own reads, few enough that most jobs stay to be taken
#: by whichever process is free first.
AHEAD = 2

#: What a helper reads: the jobs and the function that reads one, inherited through the fork.
_work: tuple[Sequence[Any], Callable[[Any], Any]] | None = None


class Sized(Protocol):
    """A job that knows how many bytes it has to read."""

    @property
    def todo(self) -> int: ...


J = TypeVar("J", bound=Sized)


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
    have sent meanwhile. ``on_forked`` is called once the helpers are started, before this
    process takes a job: work that does not depend on what is read runs while they read.
    ``on_own_done`` is called when no job is left for this process to take, while the helpers
    may still be busy. ``read`` must not raise (wrap errors into its result) and its results
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
    helpers: int,
    on_forked: Callable[[], None] | None,
    *,
    reads_here: bool,
    on_own_done: Callable[[], None] | None = None,
) -> Iterator[R]:
    """The jobs read by ``helpers`` pooled helpers and, when ``reads_here``, this process too.

    Jobs go to the pool a few at a time (:data:`AHEAD` per helper), largest first, topped up
    as results come in, and this process takes the smallest left: a pending future is never
    cancelled while the pool runs (on Python 3.11 a pool that breaks then fails on it).
    """
    import collections
    import multiprocessing

    left = collections.deque(sorted(range(len(jobs)), key=lambda i: -jobs[i].todo))
    inbox = _Inbox()
    sent: list[int] = []
    done: set[int] = set()
    pool: ProcessPoolExecutor | None = None
    interruptible = signal.getsignal(signal.SIGINT) is not signal.SIG_IGN

    def send() -> bool:
        """Hand the largest job left to the pool; ``False`` when none is left or the pool takes
        no more (a helper could not start or died: what is left is read here)."""
        try:
            number = left.popleft()
        except IndexError:
            return False
        try:
            future = pool.submit(_read_at, number)  # type: ignore[union-attr]
        except (OSError, RuntimeError):  # BrokenProcessPool is a RuntimeError
            left.appendleft(number)
            return False
        sent.append(number)
        future.add_done_callback(lambda f: finished(number, f))
        return True

    def finished(number: int, future: Future[Any]) -> None:
        """A helper is free (in the pool's thread): its next job first, then the result."""
        if not future.cancelled() and future.exception() is None:
            send()
        inbox.put(number, future)

    try:
        pool = ProcessPoolExecutor(
            helpers,
            mp_context=multiprocessing.get_context("fork"),
            initializer=_start,
            initargs=(jobs, read, interruptible, os.getpid()),
        )
        for _ in range(AHEAD * helpers):
            if not send():
                break
        if on_forked is not None:
            on_forked()
        if reads_here:
            while True:
                try:
                    number = left.pop()  # smallest first: the helpers take the largest
                except IndexError:
                    break
                done.add(number)
                yield read(jobs[number])
                yield from inbox.results(done, wait=False)
            if on_own_done is not None and sent:
                on_own_done()
        while inbox.seen < len(sent):
            yield from inbox.results(done, wait=True, expected=inbox.seen + 1)
        # Taken by a helper that failed, or never sent: read here.
        for number in [*sent, *left]:
            if number not in done:
                done.add(number)
                yield read(jobs[number])
    finally:  # left early (an error, an interrupt, or the caller stopped): no helper stays
        if pool is not None:
            held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            try:
                pool.shutdown(wait=True, cancel_futures=True)
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)


class _Inbox:
    """The helpers' futures as they finish (each reports once: read, failed or cancelled)."""

    def __init__(self) -> None:
        import queue

        self.queue: queue.SimpleQueue[tuple[int, Future[Any]]] = queue.SimpleQueue()
        self.seen = 0

    def put(self, number: int, future: Future[Any]) -> None:
        self.queue.put((number, future))

    def results(self, done: set[int], *, wait: bool, expected: int = 0) -> Iterator[Any]:
        """The results of jobs not yielded yet that have arrived; with ``wait``, until
        ``expected`` futures in all have reported. A job cancelled to be read here, or whose
        helper failed, is left to the caller."""
        import queue

        while not (wait and self.seen >= expected):
            try:
                number, future = self.queue.get(block=wait)
            except queue.Empty:
                return
            self.seen += 1
            if future.cancelled() or future.exception() is not None or number in done:
                continue
            done.add(number)
            yield future.result()


def _start(
    jobs: Sequence[Any], read: Callable[[Any], Any], interruptible: bool, parent: int
) -> None:
    """In a helper, once: keep what it reads, die on Ctrl-C and with the scanning process."""
    global _work
    _work = (jobs, read)
    if interruptible:  # Ctrl-C ends a helper at once, without a traceback
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    _die_with(parent)


def _die_with(parent: int) -> None:
    """Ask the kernel to kill this helper when the scanning process is gone (Linux's
    ``PR_SET_PDEATHSIG``): an idle helper waits on the pool's queue and would otherwise wait
    for ever."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - Linux has it; elsewhere no fork
        return
    if os.getppid() != parent:  # gone already, before the request took effect
        os._exit(1)


def _read_at(number: int) -> Any:
    """In a helper: read job ``number``."""
    assert _work is not None
    jobs, read = _work
    return read(jobs[number])
