"""The incremental engine: discovery, offsets, context across scans, rotation, the lock."""

from __future__ import annotations

import builtins
import json
import os
import shutil
import threading
from pathlib import Path

import pytest

from lessons_core import services
from lessons_core.scan import engine, lock, planning


def _scan(*paths: Path, agent=None, wait=True):
    with services.session() as sess:
        return engine.run_scan(sess, paths=list(paths), agent=agent, wait=wait)


def _pending():
    with services.open_store() as store:
        return store.list_candidates(status="pending")


def _line(kind: str, **kw) -> str:
    rec = {"type": kind, "sessionId": "sess-1", "cwd": "/home/dev/app", **kw}
    return json.dumps(rec) + "\n"


def _bash(cid: str, command: str, output: str, error: bool = False) -> str:
    call = _line(
        "assistant",
        message={
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": cid, "name": "Bash", "input": {"command": command}}
            ],
        },
    )
    block = {"type": "tool_result", "tool_use_id": cid, "content": output}
    if error:
        block["is_error"] = True
    return call + _line("user", message={"role": "user", "content": [block]})


@pytest.fixture(name="claude_home")
def fixture_claude_home(fixtures, monkeypatch, tmp_path) -> Path:
    """A ~/.claude with our Claude fixtures, ~/.codex and ~/.gemini likewise."""
    home = Path(os.environ["HOME"])
    shutil.copytree(fixtures / "claude", home / ".claude")
    shutil.copytree(fixtures / "codex", home / ".codex")
    shutil.copytree(fixtures / "gemini", home / ".gemini")
    return home


def test_default_scan_reads_every_agents_roots(claude_home):
    """Without paths, every installed agent's transcript roots are scanned."""
    report = _scan()
    assert report.files_read == 7
    agents = {c.agent for c in report.new}
    assert agents == {"claude", "codex", "gemini"}
    assert report.promoted >= 4  # the #lesson blocks of all three agents
    assert report.bad_lines >= 2


def test_environment_variables_move_the_roots(fixtures, tmp_path, monkeypatch):
    """CLAUDE_CONFIG_DIR, CODEX_HOME and GEMINI_CLI_HOME are honoured."""
    shutil.copytree(fixtures / "claude", tmp_path / "cc")
    shutil.copytree(fixtures / "codex", tmp_path / "cx")
    shutil.copytree(fixtures / "gemini", tmp_path / "gh" / ".gemini")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cc"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "cx"))
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "gh"))
    assert _scan().files_read == 7
    assert _scan(agent="codex").files_read == 0


def test_second_scan_of_unchanged_files_opens_nothing(claude_home, monkeypatch):
    """Unchanged size, mtime and inode: the file is not even opened."""
    _scan()
    opened: list[str] = []
    real_open = builtins.open

    def spy(file, *args, **kwargs):
        opened.append(str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", spy)
    report = _scan()
    assert report.files_read == 0
    assert report.files_skipped == 7
    assert not [p for p in opened if p.startswith(str(claude_home))]


def test_appended_lines_are_read_once_with_context(tmp_path):
    """A failure read in one scan meets its fix appended later; nothing is counted twice."""
    path = tmp_path / "proj" / "sess-1.jsonl"
    path.parent.mkdir()
    path.write_text(
        _line("user", message={"role": "user", "content": "build it"})
        + _bash(
            "t1",
            "cargo build --relase",
            "Exit code 1\nerror: unexpected argument '--relase' found",
            error=True,
        )
    )
    first = _scan(path)
    assert first.new == []
    with open(path, "a") as fh:
        fh.write(_bash("t2", "cargo build --release", "Finished"))
    second = _scan(path)
    (candidate,) = second.new
    assert candidate.evidence[0].line == 3
    assert second.bytes_read < path.stat().st_size
    with open(path, "a") as fh:
        fh.write(_bash("t3", "ls", "a b"))
    third = _scan(path)
    assert third.new == [] and third.duplicates == 0
    assert len(_pending()) == 1


def test_partial_last_line_waits_for_its_end(tmp_path):
    """A line being written is not consumed; once complete it is read exactly once."""
    path = tmp_path / "p" / "sess-1.jsonl"
    path.parent.mkdir()
    text = _bash("t1", "npm test", "Exit code 1\nnpm ERR! missing script: test", error=True)
    fix = _bash("t2", "npm run test:unit", "ok")
    path.write_text(text + fix[:40])
    assert _scan(path).new == []
    with open(path, "a") as fh:
        fh.write(fix[40:])
    (candidate,) = _scan(path).new
    assert "npm run test:unit" in candidate.fix
    assert len(_pending()) == 1


def test_truncated_file_is_read_again_from_the_start(tmp_path):
    """A file smaller than the saved offset was replaced: read it from 0."""
    path = tmp_path / "p" / "sess-1.jsonl"
    path.parent.mkdir()
    path.write_text(_bash("t1", "ls", "a") * 20)
    _scan(path)
    path.write_text(
        _bash("t1", "make lint", "Exit code 2\nmake: *** No rule to make target", error=True)
        + _bash("t2", "make check", "ok")
    )
    report = _scan(path)
    assert report.bytes_read == path.stat().st_size
    assert len(report.new) == 1


def test_rotated_file_with_a_new_inode_is_read_from_the_start(tmp_path):
    """Same size or larger but a different inode: a new file, so offset 0."""
    path = tmp_path / "p" / "sess-1.jsonl"
    path.parent.mkdir()
    path.write_text(_bash("t1", "ls", "a"))
    _scan(path)
    fresh = tmp_path / "p" / "new.tmp"
    fresh.write_text(
        _bash("t1", "pytest -q", "Exit code 127\nbash: pytest: command not found", error=True)
        + _bash("t2", "uv run pytest -q", "ok")
    )
    os.replace(fresh, path)
    report = _scan(path)
    assert report.bytes_read == path.stat().st_size
    assert len(report.new) == 1


def test_gemini_document_rescans_by_message_count(fixtures, tmp_path):
    """A rewritten legacy Gemini session is resumed by messages, not bytes."""
    chats = tmp_path / ".gemini" / "tmp" / "h" / "chats"
    chats.mkdir(parents=True)
    src = next((fixtures / "gemini" / "tmp").iterdir()) / "chats"
    doc = json.loads((src / "session-2025-10-27T19-55-9a8b7c6d.json").read_text())
    whole = doc["messages"]
    doc["messages"] = whole[:2]
    path = chats / "session-2025-10-27T19-55-9a8b7c6d.json"
    path.write_text(json.dumps(doc))
    assert _scan(path, agent="gemini").new == []
    doc["messages"] = whole
    path.write_text(json.dumps(doc, indent=1))
    report = _scan(path, agent="gemini")
    # The #lesson block is new; the pip failure meeting its fix is the same lesson, found by
    # the heuristics in the same session, so it folds into it. The relative path the
    # directory listing refused is a lesson of its own.
    assert sorted((c.tier, c.summary) for c in report.new) == [
        (1, "pip is not on PATH in this project, only inside the virtualenv"),
        (2, "Glob: give the tool an absolute path"),
    ]
    assert report.duplicates == 1
    assert _scan(path, agent="gemini").files_read == 0


def test_gemini_document_under_a_jsonl_name_rescans_by_message_count(fixtures, tmp_path):
    """A legacy Gemini session saved as ``.jsonl`` is read as the document it is, and resumed
    by messages like one named ``.json``: its scan state says so."""
    src = next((fixtures / "gemini" / "tmp").iterdir()) / "chats"
    doc = json.loads((src / "session-2025-10-27T19-55-9a8b7c6d.json").read_text())
    whole = doc["messages"]
    doc["messages"] = whole[:2]
    path = tmp_path / "checkpoints" / "0" / "full.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(doc, indent=2))
    assert _scan(path, agent="gemini").new == []
    doc["messages"] = whole
    path.write_text(json.dumps(doc, indent=2))
    report = _scan(path, agent="gemini")
    assert sorted((c.tier, c.summary) for c in report.new) == [
        (1, "pip is not on PATH in this project, only inside the virtualenv"),
        (2, "Glob: give the tool an absolute path"),
    ]
    with services.open_store() as store:
        state = store.get_scan_state(str(path.resolve()))
    assert state is not None
    assert (state["document"], state["messages"], state["bad_lines"]) == (True, 9, 0)
    assert _scan(path, agent="gemini").files_read == 0


def test_busy_lock_makes_a_background_scan_leave(tmp_path):
    """With another scan holding the lock, a non-waiting scan raises ScanBusy at once."""
    home = Path(os.environ["LESSONS_HOME"])
    with lock.scan_lock(home), pytest.raises(lock.ScanBusy):
        _scan(tmp_path, wait=False)


def test_concurrent_scans_do_not_double_count(claude_home):
    """Two scans started together produce what one scan produces."""
    errors: list[BaseException] = []

    def run():
        try:
            _scan()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    pending = _pending()
    lines = [(e.file, e.line) for c in pending for e in c.evidence]
    assert len(lines) == len(set(lines))
    with services.open_store() as store:
        twice = sorted((x.summary, x.provenance.occurrences) for x in store.list_lessons())
    shutil.rmtree(os.environ["LESSONS_HOME"])
    _scan()
    with services.open_store() as store:
        once = sorted((x.summary, x.provenance.occurrences) for x in store.list_lessons())
    assert twice == once
    assert len(_pending()) == len(pending)


def test_explicit_missing_path_is_a_clear_error(tmp_path):
    """A path that does not exist is a user error, not a traceback."""
    from lessons_core.errors import LessonsError

    with pytest.raises(LessonsError, match="no such file"):
        _scan(tmp_path / "nope")


@pytest.mark.parametrize("pool", [False, True], ids=["split", "pool"])
def test_worker_processes_give_the_same_result(claude_home, monkeypatch, pool):
    """Reading in forked helpers (a split for medium scans, a pool for large ones) finds
    exactly what the in-process path finds."""
    if not planning.can_fork():
        pytest.skip("worker processes need fork")
    monkeypatch.setattr(planning, "PARALLEL_MIN_BYTES", 0 if pool else 1 << 40)
    with services.session() as sess:
        parallel = engine.run_scan(sess, workers=3 if pool else 2)
    found = sorted((c.tier, c.agent, c.trigger or "", c.evidence[0].line) for c in parallel.new)
    home = Path(os.environ["LESSONS_HOME"])
    shutil.rmtree(home)
    with services.session() as sess:
        serial = engine.run_scan(sess, workers=1)
    assert found == sorted(
        (c.tier, c.agent, c.trigger or "", c.evidence[0].line) for c in serial.new
    )
    assert parallel.files_read == serial.files_read == 7
    assert parallel.events == serial.events


@pytest.mark.parametrize("workers", [1, 2])
def test_a_new_homes_first_manifest_is_built_once_while_the_scan_reads(
    tmp_path, monkeypatch, workers
):
    """A new home has no manifest, so its first scan builds one. The build does not depend on
    what is read: it runs before the scanning process takes its first file (while a helper,
    when there is one, reads), and not a second time at the end when nothing was promoted."""
    if workers > 1 and not planning.can_fork():
        pytest.skip("worker processes need fork")
    for n in range(4):
        (tmp_path / f"s{n}.jsonl").write_text(
            "".join(_bash(f"c{n}-{i}", f"ls dir{i}", "listing") for i in range(50)),
            encoding="utf-8",
        )
    order: list[str] = []
    read_one = engine.Scanner._read_one

    def reading(self, job):
        order.append("read")
        return read_one(self, job)

    monkeypatch.setattr(engine.Scanner, "_read_one", reading)
    with services.session() as sess:
        build = sess.rebuild_manifest
        monkeypatch.setattr(sess, "rebuild_manifest", lambda: (order.append("build"), build())[1])
        report = engine.run_scan(sess, paths=[tmp_path], workers=workers)
        assert report.files_read == 4 and report.promoted == 0
        assert order.count("build") == 1
        assert order.index("build") == 0  # before this process read anything
        assert (Path(os.environ["LESSONS_HOME"]) / "lesson-manifest.json").is_file()
        order.clear()
        engine.run_scan(sess, paths=[tmp_path], workers=workers)  # nothing new: no build
        assert "build" not in order


def test_a_first_build_that_fails_leaves_the_scan_whole_and_is_tried_again(
    claude_home, monkeypatch
):
    """When the early build fails, reading goes on; the build is tried again at the end,
    where its error reaches the caller as it always did."""
    calls: list[str] = []
    with services.session() as sess:
        build = sess.rebuild_manifest

        def flaky():
            calls.append("build")
            if len(calls) == 1:
                raise OSError("disk full")
            return build()

        monkeypatch.setattr(sess, "rebuild_manifest", flaky)
        report = engine.run_scan(sess, workers=1)
    assert report.files_read == 7
    assert calls == ["build", "build"]
    assert (Path(os.environ["LESSONS_HOME"]) / "lesson-manifest.json").is_file()


def test_medium_scans_are_split_large_ones_pooled_small_ones_read_here(monkeypatch):
    """Forking pays only past a size and as far as the bytes pay for each helper, a pool only
    for large scans read by two helpers or more."""
    monkeypatch.setattr(planning, "can_fork", lambda: True)
    monkeypatch.setattr(planning, "usable_cpus", lambda: 8)
    monkeypatch.setattr(planning, "others_load", lambda cpus: 0.0)

    class Job:
        def __init__(self, todo: int) -> None:
            self.todo = todo

    scanner = engine.Scanner.__new__(engine.Scanner)
    scanner.workers = None
    mb = 1 << 20
    assert scanner._processes([Job(mb // 2), Job(mb // 2)]) == (1, False)
    assert scanner._processes([Job(5 * mb)]) == (1, False)  # a helper would not pay
    assert scanner._processes([Job(3 * mb)] * 5) == (1, False)
    assert scanner._processes([Job(8 * mb)] * 2) == (3, False)
    assert scanner._processes([Job(3 * mb)] * 9) == (planning.MAX_WORKERS, False)
    assert scanner._processes([Job(20 * mb), Job(20 * mb)]) == (planning.MAX_WORKERS, True)
    scanner.workers = 2
    assert scanner._processes([Job(40 * mb)] * 4) == (2, False)  # the scanner reads too
    scanner.workers = 1
    assert scanner._processes([Job(40 * mb)] * 4) == (1, False)
    monkeypatch.setattr(planning, "can_fork", lambda: False)
    scanner.workers = None
    assert scanner._processes([Job(20 * mb)] * 4) == (1, False)


def test_a_scan_of_a_few_megabytes_never_forks(monkeypatch, tmp_path):
    """Five megabytes of new lines, the auto-scan's usual share, are read by the scanning
    process itself, however idle the machine: a helper starts cold and hands its results
    back, and two processes read that much no faster than one."""
    monkeypatch.setattr(planning, "usable_cpus", lambda: 8)
    monkeypatch.setattr(planning, "others_load", lambda cpus: 0.0)

    def no_fork() -> int:
        raise AssertionError("a scan of 5 MB forked a helper")

    monkeypatch.setattr(os, "fork", no_fork)
    session = tmp_path / "long.jsonl"
    with session.open("w", encoding="utf-8") as out:
        n = 0
        while out.tell() < 5_000_000:
            n += 1
            out.write(_bash(f"c{n}", f"ls dir{n}", "x" * 2000))
    with services.session() as sess:
        report = engine.run_scan(sess, paths=[session])
    assert report.files_read == 1 and report.bytes_read >= 5_000_000


@pytest.mark.parametrize(
    ("cpus", "others", "count"),
    [(2, 0.0, 2), (2, 0.4, 2), (2, 0.6, 1), (2, 1.0, 1), (2, 3.5, 1), (1, 0.0, 1), (8, 5.4, 3)],
)
def test_a_helper_is_forked_only_for_a_cpu_that_others_leave_idle(monkeypatch, cpus, others, count):
    """On a busy machine a helper takes time from the work it shares: the count follows the
    CPUs left idle by other processes, and one CPU always reads alone."""
    monkeypatch.setattr(planning, "can_fork", lambda: True)
    monkeypatch.setattr(planning, "usable_cpus", lambda: cpus)
    monkeypatch.setattr(planning, "others_load", lambda n: others)

    class Job:
        todo = 200 << 20

    assert planning.processes([Job()], None)[0] == count


def test_the_load_of_others_is_read_from_the_machine():
    """A figure between no load and every CPU busy (this test itself is not counted)."""
    cpus = planning.usable_cpus()
    assert 0.0 <= planning.others_load(cpus) <= cpus


@pytest.mark.parametrize(
    ("loadavg", "cpus", "machine", "busy"),
    [
        ("0.10 0.50 0.70 2/300 4242", 2, 2, 1.0),  # a neighbour that just started
        ("1.60 0.90 0.40 1/300 4242", 2, 2, 1.6),  # between two bursts of a neighbour
        ("0.00 0.00 0.00 1/300 4242", 2, 2, 0.0),  # only this scan
        ("7.00 7.00 7.00 9/300 4242", 2, 2, 2.0),  # never more than every CPU
        ("4.00 4.00 4.00 5/300 4242", 2, 8, 1.0),  # pinned to 2 of 8 CPUs: a share of it
    ],
)
def test_the_load_of_others_is_the_larger_of_the_average_and_the_instant(
    monkeypatch, tmp_path, loadavg, cpus, machine, busy
):
    """The one-minute average lags a neighbour that just started, the running count misses
    one between bursts: a helper forked onto a busy CPU makes the scan slower than one
    process, so whichever sees more load counts."""
    path = tmp_path / "loadavg"
    path.write_text(loadavg + "\n", encoding="ascii")
    monkeypatch.setattr(os, "cpu_count", lambda: machine)
    monkeypatch.setattr(planning, "_mark", None)  # no window: the one-minute average stands in
    assert planning.others_load(cpus, str(path)) == pytest.approx(busy)


def _stat(path, busy: int, idle: int) -> str:
    """A ``/proc/stat`` whose CPUs have spent ``busy`` and ``idle`` ticks since boot."""
    user, system = busy // 2, busy - busy // 2
    path.write_text(
        f"cpu  {user} 0 {system} {idle} 0 0 0 0 0 0\ncpu0 1 0 1 1 0 0 0 0 0 0\n", encoding="ascii"
    )
    return str(path)


@pytest.mark.parametrize(
    ("loadavg", "ticks", "own", "busy"),
    [
        # Idle but for this scan's start-up (10 of 20 ticks, its own 0.1 s), after an install
        # that left the one-minute average at 1.3: the window sees no one else.
        ("1.30 0.90 0.40 1/300 4242", (10, 10), 0.10, 0.0),
        # A neighbour kept the other CPU busy through the window.
        ("0.20 0.10 0.00 1/300 4242", (20, 0), 0.10, 1.0),
        # A neighbour running at this instant, the window quiet: the instant counts.
        ("0.00 0.00 0.00 2/300 4242", (10, 10), 0.10, 1.0),
        # Half a neighbour through the window (bursts): half a CPU.
        ("0.00 0.00 0.00 1/300 4242", (15, 5), 0.10, 0.5),
    ],
)
def test_the_load_of_others_is_seen_over_the_scans_start_up(
    monkeypatch, tmp_path, loadavg, ticks, own, busy
):
    """With the counters noted when the scan command started, the CPUs' use since then, less
    this process's own, stands for the load of others (with the running tasks): the one-minute
    average would still report a build that finished a minute ago."""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "sysconf", lambda name: 100)
    clock = iter([1.0, 1.0 + own])
    monkeypatch.setattr(planning.time, "process_time", lambda: next(clock))
    planning.mark_start(_stat(tmp_path / "stat0", 1000, 1000))
    later = _stat(tmp_path / "stat1", 1000 + ticks[0], 1000 + ticks[1])
    path = tmp_path / "loadavg"
    path.write_text(loadavg + "\n", encoding="ascii")
    try:
        assert planning.others_load(2, str(path), later) == pytest.approx(busy)
    finally:
        planning._mark = None


def test_a_window_too_short_to_tell_leaves_the_average(monkeypatch, tmp_path):
    """Under two ticks per CPU the counters cannot tell a busy CPU from a tick: the one-minute
    average is used, as where the counters cannot be read at all."""
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "sysconf", lambda name: 100)
    clock = iter([1.0, 1.01])
    monkeypatch.setattr(planning.time, "process_time", lambda: next(clock))
    planning.mark_start(_stat(tmp_path / "stat0", 1000, 1000))
    later = _stat(tmp_path / "stat1", 1002, 1002)  # 20 ms of two CPUs
    path = tmp_path / "loadavg"
    path.write_text("1.20 0.50 0.20 1/300 4242\n", encoding="ascii")
    try:
        assert planning.others_load(2, str(path), later) == pytest.approx(1.2)
        planning.mark_start(str(tmp_path / "missing"))
        assert planning.others_load(2, str(path), later) == pytest.approx(1.2)
    finally:
        planning._mark = None


@pytest.mark.parametrize(
    ("cpu_max", "quota"),
    [("max 100000", None), ("150000 100000", 1.5), ("50000 100000", 0.5), ("garbage", None)],
)
def test_a_containers_cpu_quota_is_read(tmp_path, cpu_max, quota):
    """cgroup v2's ``cpu.max``: quota and period, or no limit."""
    path = tmp_path / "cpu.max"
    path.write_text(cpu_max + "\n", encoding="ascii")
    assert planning.cpu_quota(str(path)) == quota
    assert planning.cpu_quota(str(tmp_path / "missing")) is None


def test_usable_cpus_are_the_affinity_capped_by_the_quota(monkeypatch):
    """Allowed on 4 CPUs with the time of 1.5: two processes at most; never fewer than one."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(planning, "cpu_quota", lambda: 1.5)
    assert planning.usable_cpus() == 2
    monkeypatch.setattr(planning, "cpu_quota", lambda: 0.2)
    assert planning.usable_cpus() == 1
    monkeypatch.setattr(planning, "cpu_quota", lambda: None)
    assert planning.usable_cpus() == 4


def test_a_waiting_scan_says_so_and_runs_after(tmp_path):
    """A foreground scan waits for the running one (and says it waits), then scans."""
    home = Path(os.environ["LESSONS_HOME"])
    waited: list[bool] = []
    done = threading.Event()

    def second():
        with services.session() as sess:
            engine.run_scan(sess, paths=[tmp_path], on_wait=lambda: waited.append(True))
        done.set()

    with lock.scan_lock(home):
        thread = threading.Thread(target=second)
        thread.start()
        assert not done.wait(0.5)
    thread.join(30)
    assert done.is_set()
    assert waited == [True]


def test_file_rewritten_in_place_is_read_from_the_start(tmp_path):
    """Same inode, not smaller, different content before the offset: read it all again."""
    path = tmp_path / "p" / "sess-1.jsonl"
    path.parent.mkdir()
    path.write_text(_bash("t1", "ls", "a"))
    _scan(path)
    inode = path.stat().st_ino
    old_size = path.stat().st_size
    with open(path, "r+") as fh:  # rewrite in place: same inode
        fh.write(
            _bash(
                "t1",
                "make lint",
                "Exit code 2\nmake: *** No rule to make target 'lint'",
                error=True,
            )
            + _bash("t2", "make check", "ok")
        )
    assert path.stat().st_ino == inode
    assert path.stat().st_size > old_size
    report = _scan(path)
    assert report.bytes_read == path.stat().st_size
    assert len(report.new) == 1


def test_files_are_committed_in_the_jobs_order_however_their_reading_ends(claude_home, monkeypatch):
    """What a scan finds must not depend on which helper finished first: the intake merges a
    finding into the first alike candidate it holds, so the commit order is part of the
    result. Files read backwards are still committed in the order one process reads them."""
    from lessons_core.scan import split

    planned: list[str] = []
    plan = engine.Scanner.plan

    def planning_order(self, agent, path):
        job = plan(self, agent, path)
        if job is not None:
            planned.append(str(job.path))
        return job

    def backwards(jobs, read, size, *, on_forked=None, on_own_done=None):
        if on_forked is not None:
            on_forked()
        yield from (read(job) for job in reversed(jobs))

    committed: list[str] = []
    commit = engine.Scanner.commit

    def recording(self, result):
        committed.append(result.key)
        commit(self, result)

    monkeypatch.setattr(engine.Scanner, "plan", planning_order)
    monkeypatch.setattr(engine.Scanner, "_processes", lambda self, jobs: (2, False))
    monkeypatch.setattr(planning, "cut_pieces", lambda jobs, size, agents: jobs)
    monkeypatch.setattr(split, "read_split", backwards)
    monkeypatch.setattr(engine.Scanner, "commit", recording)
    with services.session() as sess:
        report = engine.run_scan(sess)
    assert report.files_read == len(planned) == 7
    assert committed == planned


@pytest.mark.corpus
def test_the_corpus_gives_the_same_candidates_with_and_without_helpers(shared_dir, monkeypatch):
    """On real transcripts, the whole candidates (texts, merged evidence, confidence) of a scan
    read by helpers equal those of a scan read by one process."""
    if not planning.can_fork():
        pytest.skip("worker processes need fork")
    home = Path(os.environ["LESSONS_HOME"])
    corpora = [shared_dir / "corpus" / "real", shared_dir / "corpus" / "real2"]

    def scanned(workers: int) -> list[tuple]:
        shutil.rmtree(home, ignore_errors=True)
        with services.session() as sess:
            engine.run_scan(sess, paths=corpora, workers=workers)
            found = sess.store.list_candidates(status=None)
        return sorted(
            (
                c.summary,
                c.trigger or "",
                c.confidence,
                sorted((e.file, e.line or 0, e.call_id or "") for e in c.evidence),
            )
            for c in found
        )

    monkeypatch.setattr(planning, "PARALLEL_MIN_BYTES", 1 << 40)  # split, this process reads too
    alone = scanned(1)
    assert len(alone) >= 10
    assert scanned(2) == alone
