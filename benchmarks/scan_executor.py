"""The scanner's fork pool against ``concurrent.futures.ProcessPoolExecutor``, in the same run.

``lessons_core.scan.split`` shares a scan's reading between this process and forked helpers
with a hand-made queue (a pipe of job numbers) and result pipes. This benchmark holds the
alternative on the standard library's process pool (below: the same ``read_split`` and
``read_pooled``, ``fork`` context, every job's result handed over as soon as its helper has read
it, cancellation of what is pending on an error or an interrupt) and times whole ``lessons scan``
processes of the same corpus as ``benchmarks/scan.py`` with one and the other, interleaved, each
round's pairs in a turning order, as paired ratios (executor time / fork pool time, medians):

- two processes (the scanning one reads too: ``read_split``) and three (helpers only:
  ``read_pooled``), and the default count;
- on an idle machine, beside a CPU-bound neighbour, and pinned to one CPU.

Both sides run through this file (``--scan``), which puts the executor in place of
``lessons_core.scan.split`` or leaves it, so both pay the same start-up.

Run: ``python benchmarks/scan_executor.py [--mb 200] [--rounds 5]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any, Protocol, TypeVar

# -- the alternative: a scan's reading shared on ``concurrent.futures.ProcessPoolExecutor`` ---
#
# Jobs go to the pool largest first, ``AHEAD`` per helper, and each finished job hands its
# helper the next one (from the pool's own thread), so a helper never waits for this process.
# When this process reads too, it takes the smallest job left: a pending future is never
# cancelled while the pool runs (on Python 3.11 a pool that breaks then fails on the cancelled
# future in its own thread, with a traceback). A job whose result does not arrive (a helper
# died or was killed, a result would not pickle) is read again here. A helper resets SIGINT to
# its default action and dies with the scanning process (``PR_SET_PDEATHSIG``: an idle one
# waits on the pool's queue and would otherwise wait for ever).

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


# -- the benchmark -------------------------------------------------------------------------

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import scan as corpus  # noqa: E402 - the scan benchmark's corpus and timing, beside this file

#: A CPU-bound neighbour: what a build, a test run or another agent does to the machine.
_BUSY = "while True:\n    pass\n"


def _scan_with(pool: str) -> None:
    """``lessons scan`` with the executor in place of the fork pool (``pool == "executor"``),
    or as it is."""
    if pool == "executor":
        import lessons_core.scan as package

        this = sys.modules[__name__]
        sys.modules["lessons_core.scan.split"] = this
        package.split = this  # type: ignore[attr-defined]
    from lessons_core.cli.main import main as lessons

    sys.argv = ["lessons", "scan"]
    sys.exit(lessons())


def _time(env: dict[str, str], workers: str | None, pool: str, cpus: set[int] | None) -> float:
    where = env["LESSONS_HOME"]
    shutil.rmtree(where, ignore_errors=True)
    env = dict(env)
    env.pop("LESSONS_SCAN_WORKERS", None)
    if workers is not None:
        env["LESSONS_SCAN_WORKERS"] = workers
    return corpus.measure([sys.executable, __file__, "--scan", pool], env, cpus=cpus)[0]


def _phase(
    label: str,
    env: dict[str, str],
    rounds: int,
    settings: list[str | None],
    cpus: set[int] | None,
) -> None:
    """Paired rounds: per worker setting, the fork pool and the executor one after the other
    (which goes first turns from round to round)."""
    times: dict[tuple[str | None, str], list[float]] = {}
    for r in range(rounds):
        for w in settings:
            pair = ["fork", "executor"] if r % 2 == 0 else ["executor", "fork"]
            for pool in pair:
                times.setdefault((w, pool), []).append(_time(env, w, pool, cpus))
    print(f"{label} ({rounds} paired rounds; {corpus._load()}):")
    for w in settings:
        fork, executor = times[(w, "fork")], times[(w, "executor")]
        ratios = [e / f for e, f in zip(executor, fork, strict=True)]
        name = "default" if w is None else f"LESSONS_SCAN_WORKERS={w}"
        print(
            f"  {name}: fork pool {statistics.median(fork):.2f} s, executor "
            f"{statistics.median(executor):.2f} s; executor / fork pool "
            f"{statistics.median(ratios):.3f} (rounds {min(ratios):.2f}-{max(ratios):.2f})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=200.0, help="corpus size in MB")
    parser.add_argument("--rounds", type=int, default=5, help="paired rounds per phase")
    parser.add_argument("--scan", choices=("fork", "executor"), help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.scan:
        _scan_with(opts.scan)
    tmp = Path(tempfile.mkdtemp(prefix="lessons-executor-bench-"))
    env = {
        **os.environ,
        "HOME": str(tmp / "home"),
        "LESSONS_HOME": str(tmp / "lessons-home"),
        "LESSONS_STATE_DIR": str(tmp / "state"),
    }
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_CONFIG_HOME"):
        env.pop(var, None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: bytecode compiled once
    try:
        size, files = corpus.build_corpus(tmp / "home", opts.mb)
        print(f"corpus: {size / 1e6:.1f} MB in {len(files)} files; {corpus._load()}")
        settings: list[str | None] = ["2", "3", None]
        _phase("full scans", env, opts.rounds, settings, None)
        neighbour = subprocess.Popen([sys.executable, "-c", _BUSY])
        try:
            _phase("beside one CPU-bound neighbour", env, opts.rounds, settings, None)
        finally:
            neighbour.kill()
            neighbour.wait()
        one = {min(os.sched_getaffinity(0))}
        _phase("on one CPU", env, opts.rounds, ["2"], one)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
