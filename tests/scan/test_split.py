"""Sharing a scan's reading with forked helpers: every job read once, whatever the helpers do."""

from __future__ import annotations

import os

import pytest

from lessons_core.scan import engine
from lessons_core.scan.split import read_split, shares

pytestmark = pytest.mark.skipif(not engine._can_fork(), reason="the split needs fork")


class Job:
    def __init__(self, name: str, todo: int) -> None:
        self.name = name
        self.todo = todo


def _jobs(count: int = 9) -> list[Job]:
    return [Job(f"j{i}", (i * 37) % 11 + 1) for i in range(count)]


def test_shares_cover_every_job_once_and_balance_bytes():
    jobs = _jobs(30)
    bins = shares(jobs, 3)
    assert sorted(j.name for b in bins for j in b) == sorted(j.name for j in jobs)
    loads = [sum(j.todo for j in b) for b in bins]
    assert max(loads) - min(loads) <= max(j.todo for j in jobs)


def test_more_shares_than_jobs_leaves_some_empty():
    bins = shares(_jobs(2), 4)
    assert [len(b) for b in bins].count(0) == 2


def test_every_result_arrives_and_helpers_do_part_of_the_work():
    parent = os.getpid()

    def read(job: Job) -> tuple[str, bool]:
        return job.name, os.getpid() == parent

    results = list(read_split(_jobs(), read, 2))
    assert sorted(name for name, _ in results) == sorted(j.name for j in _jobs())
    here = {name for name, local in results if local}
    assert here and len(here) < len(results)  # some read here, some by the helper


def test_own_results_come_first_then_the_callback_then_the_helpers():
    parent = os.getpid()
    seen: list[str] = []

    def read(job: Job) -> str:
        return "here" if os.getpid() == parent else "helper"

    for result in read_split(_jobs(), read, 2, on_own_done=lambda: seen.append("done")):
        seen.append(result)
    cut = seen.index("done")
    assert set(seen[:cut]) == {"here"}
    assert set(seen[cut + 1 :]) == {"helper"}


@pytest.mark.parametrize("failure", ["raise", "exit", "kill"])
def test_a_failing_helper_costs_nothing_its_share_is_read_again(failure):
    parent = os.getpid()

    def read(job: Job) -> str:
        if os.getpid() != parent:
            if failure == "raise":
                raise RuntimeError("helper broke")
            if failure == "exit":
                os._exit(0)  # leaves without sending anything
            os.kill(os.getpid(), 9)
        return job.name

    results = list(read_split(_jobs(), read, 3))
    assert sorted(results) == sorted(j.name for j in _jobs())


def test_unpicklable_results_are_read_again_here():
    parent = os.getpid()

    def read(job: Job):
        if os.getpid() != parent:
            return lambda: job.name  # cannot be pickled: the helper fails
        return job.name

    assert sorted(read_split(_jobs(), read, 2)) == sorted(j.name for j in _jobs())


def test_stopping_early_reaps_the_helpers():
    def read(job: Job) -> str:
        return job.name

    stream = read_split(_jobs(20), read, 3)
    next(stream)
    stream.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # no child left behind, not even a zombie


def test_one_process_reads_everything_here():
    parent = os.getpid()
    results = list(read_split(_jobs(), lambda job: os.getpid() == parent, 1))
    assert all(results) and len(results) == len(_jobs())
