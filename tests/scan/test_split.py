"""Sharing a scan's reading with forked helpers: every job read once, whatever the helpers do."""

from __future__ import annotations

import os
import time

import pytest

from lessons_core.scan import planning, split
from lessons_core.scan.split import read_split

pytestmark = pytest.mark.skipif(not planning.can_fork(), reason="the split needs fork")


class Job:
    def __init__(self, name: str, todo: int) -> None:
        self.name = name
        self.todo = todo


def _jobs(count: int = 9) -> list[Job]:
    return [Job(f"j{i}", (i * 37) % 11 + 1) for i in range(count)]


def _names(jobs: list[Job]) -> list[str]:
    return sorted(j.name for j in jobs)


def test_every_job_is_read_once_and_the_helper_does_part_of_the_work():
    parent = os.getpid()

    def read(job: Job) -> tuple[str, bool]:
        time.sleep(0.005)  # long enough for both processes to take jobs
        return job.name, os.getpid() == parent

    results = list(read_split(_jobs(), read, 2))
    assert sorted(name for name, _ in results) == _names(_jobs())
    here = [name for name, local in results if local]
    assert here and len(here) < len(results)


def test_the_helpers_results_arrive_while_this_process_still_reads():
    parent = os.getpid()
    seen: list[str] = []

    def read(job: Job) -> str:
        time.sleep(0.01)
        return "here" if os.getpid() == parent else "helper"

    for result in read_split(_jobs(16), read, 2, on_own_done=lambda: seen.append("done")):
        seen.append(result)
    cut = seen.index("done")
    assert seen.count("done") == 1
    assert len(seen) == 16 + 1
    assert "here" not in seen[cut + 1 :]  # the callback comes once this process's share is read
    # Not one batch at the end: a helper's result comes before this process's last one.
    last_here = max(i for i, r in enumerate(seen) if r == "here")
    assert seen.index("helper") < last_here


def test_work_alongside_runs_once_while_the_helpers_read():
    parent = os.getpid()
    calls: list[float] = []

    def alongside() -> None:
        calls.append(time.monotonic())
        time.sleep(0.15)
        calls.append(time.monotonic())

    def read(job: Job) -> tuple[str, bool, float]:
        time.sleep(0.01)
        return job.name, os.getpid() == parent, time.monotonic()

    results = list(read_split(_jobs(12), read, 2, on_forked=alongside))
    assert sorted(name for name, *_ in results) == _names(_jobs(12))
    assert len(calls) == 2
    _started, ended = calls
    # The helper read while this process did the other work; this process read after it.
    assert any(not local and at < ended for _, local, at in results)
    assert all(at > ended for _, local, at in results if local)


def test_work_alongside_runs_once_when_reading_alone_too():
    calls: list[str] = []
    assert list(read_split(_jobs(3), lambda job: job.name, 1, on_forked=lambda: calls.append("x")))
    assert list(read_split(_jobs(1), lambda job: job.name, 3, on_forked=lambda: calls.append("y")))
    pooled = split.read_pooled([], lambda job: job, 2, on_forked=lambda: calls.append("z"))
    assert list(pooled) == []
    assert calls == ["x", "y", "z"]


@pytest.mark.parametrize("failure", ["raise", "exit", "kill"])
def test_a_failing_helper_costs_nothing_its_jobs_are_read_again(failure):
    parent = os.getpid()

    def read(job: Job) -> str:
        if os.getpid() != parent:
            if failure == "raise":
                raise RuntimeError("helper broke")
            if failure == "exit":
                os._exit(0)  # leaves without sending anything
            os.kill(os.getpid(), 9)
        time.sleep(0.002)
        return job.name

    assert sorted(read_split(_jobs(), read, 3)) == _names(_jobs())


def test_unpicklable_results_are_read_again_here():
    parent = os.getpid()

    def read(job: Job):
        if os.getpid() != parent:
            return lambda: job.name  # cannot be pickled: the helper fails
        return job.name

    assert sorted(read_split(_jobs(), read, 2)) == _names(_jobs())


def test_stopping_early_reaps_the_helpers():
    def read(job: Job) -> str:
        time.sleep(0.002)
        return job.name

    stream = read_split(_jobs(20), read, 3)
    next(stream)
    stream.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # no child left behind, not even a zombie


def test_one_process_or_one_job_is_read_here():
    parent = os.getpid()
    assert all(read_split(_jobs(), lambda job: os.getpid() == parent, 1))
    assert list(read_split(_jobs(1), lambda job: os.getpid() == parent, 4)) == [True]


def test_no_fork_while_other_threads_run():
    """A lock held by another thread at the fork would stay held in the helper for ever."""
    import threading

    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not planning.can_fork()
    finally:
        stop.set()
        thread.join()
    assert planning.can_fork()


# -- the large-scan path: helpers only, each result sent as soon as it is read ---------------


def test_pooled_reads_every_job_once_in_the_helpers_and_streams_results():
    parent = os.getpid()
    started = time.monotonic()

    def read(job: Job) -> tuple[str, bool, float]:
        time.sleep(0.02)
        return job.name, os.getpid() == parent, time.monotonic()

    arrived = []
    for name, local, at in split.read_pooled(_jobs(12), read, 2):
        arrived.append((name, local, at, time.monotonic()))
    assert sorted(name for name, *_ in arrived) == _names(_jobs(12))
    assert not any(local for _, local, *_ in arrived)
    # The first result is in hand long before the last is read (not one pickle at the end).
    assert arrived[0][3] < arrived[-1][2]
    assert arrived[0][3] - started < (arrived[-1][3] - started) / 2


@pytest.mark.parametrize("failure", ["raise", "exit", "kill", "unpicklable"])
def test_pooled_helpers_that_fail_midway_cost_nothing(failure):
    parent = os.getpid()

    def read(job: Job):
        if os.getpid() != parent and job.name in ("j3", "j7"):
            if failure == "raise":
                raise RuntimeError("helper broke")
            if failure == "exit":
                os._exit(0)
            if failure == "kill":
                os.kill(os.getpid(), 9)
            return lambda: job.name
        time.sleep(0.002)
        return job.name

    assert sorted(split.read_pooled(_jobs(), read, 2)) == _names(_jobs())
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def test_pooled_stopping_early_reaps_the_helpers():
    def read(job: Job) -> str:
        time.sleep(0.01)
        return job.name

    stream = split.read_pooled(_jobs(20), read, 2)
    next(stream)
    stream.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def test_the_helpers_take_the_largest_jobs_and_this_process_the_smallest():
    parent = os.getpid()

    def read(job: Job) -> tuple[int, bool]:
        time.sleep(0.003 * job.todo)
        return job.todo, os.getpid() == parent

    results = list(read_split(_jobs(30), read, 2))
    assert len(results) == 30
    first_here = next(todo for todo, local in results if local)
    assert first_here == min(j.todo for j in _jobs(30))
    assert max(j.todo for j in _jobs(30)) in [todo for todo, local in results if not local]


def test_helpers_die_with_the_scanning_process(tmp_path):
    """A scanning process killed outright (no clean-up runs) takes its helpers with it at
    once, even in the middle of a long read."""
    pids = tmp_path / "pids"
    started = tmp_path / "started"

    def read(job: Job) -> str:
        with open(pids, "a") as fh:
            fh.write(f"{os.getpid()}\n")
        started.touch()
        time.sleep(30)
        return job.name

    child = os.fork()
    if child == 0:  # the scanning process
        try:
            for _ in split.read_pooled(_jobs(4), read, 2):
                pass
        finally:
            os._exit(0)
    try:
        deadline = time.monotonic() + 10
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert started.exists()
        time.sleep(0.2)
        helpers = {int(line) for line in pids.read_text().split()}
        assert helpers
    finally:
        os.kill(child, 9)
        os.waitpid(child, 0)
    deadline = time.monotonic() + 2
    alive = helpers
    while alive and time.monotonic() < deadline:
        alive = {pid for pid in alive if _alive(pid)}
        time.sleep(0.02)
    assert not alive


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            state = fh.read().rpartition(b")")[2].split()[0]
    except OSError:
        return False
    return state != b"Z"
