"""The hook-side auto-scan starter: interval, claim, detached spawn, never failing the hook."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import ClassVar

import pytest

from lessons_core.hot import autoscan


@pytest.fixture(autouse=True)
def _auto_scan_allowed(monkeypatch):
    """The suite turns auto-scan off by default; these tests are about it."""
    monkeypatch.delenv("LESSONS_AUTO_SCAN", raising=False)


class FakePopen:
    """Records the spawn instead of running it."""

    calls: ClassVar[list[tuple[list[str], dict]]] = []

    def __init__(self, args, **kwargs):
        FakePopen.calls.append((args, kwargs))


def _home() -> Path:
    home = Path(os.environ["LESSONS_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    return home


def test_starts_a_detached_background_scan_when_due():
    """First call starts ``lessons scan --background`` detached, without any standard streams."""
    _home()
    FakePopen.calls = []
    assert autoscan.maybe_start(dict(os.environ), popen=FakePopen) is True
    ((args, kwargs),) = FakePopen.calls
    assert args[0] == sys.executable
    assert args[-2:] == ["scan", "--background"]
    assert kwargs["start_new_session"] is True
    for stream in ("stdin", "stdout", "stderr"):
        assert kwargs[stream] == subprocess.DEVNULL


def test_at_most_once_per_interval():
    """Within the interval nothing is started; after it, again."""
    _home()
    FakePopen.calls = []
    now = time.time()
    env = dict(os.environ)
    assert autoscan.maybe_start(env, now=now, popen=FakePopen)
    assert not autoscan.maybe_start(env, now=now + 60, popen=FakePopen)
    assert autoscan.maybe_start(env, now=now + 3601, popen=FakePopen)
    assert len(FakePopen.calls) == 2


def test_interval_and_switch_come_from_config():
    """``autoScanIntervalHours`` and ``autoScan`` in config.json are honoured."""
    home = _home()
    env = dict(os.environ)
    FakePopen.calls = []
    (home / "config.json").write_text(json.dumps({"autoScanIntervalHours": 0.01}))
    now = time.time()
    assert autoscan.maybe_start(env, now=now, popen=FakePopen)
    assert autoscan.maybe_start(env, now=now + 40, popen=FakePopen)
    (home / "config.json").write_text(json.dumps({"autoScan": False}))
    assert not autoscan.maybe_start(env, now=now + 99999, popen=FakePopen)


def test_a_held_claim_stops_a_second_starter():
    """Two hooks at once: the one that finds a fresh claim file does not spawn."""
    home = _home()
    (home / autoscan.CLAIM_NAME).write_text("")
    FakePopen.calls = []
    assert not autoscan.maybe_start(dict(os.environ), popen=FakePopen)
    assert FakePopen.calls == []


def test_failures_never_reach_the_hook():
    """A spawn that fails, or a missing home, is just "no scan this time"."""
    _home()

    def broken(*_a, **_k):
        raise OSError("no such interpreter")

    assert autoscan.maybe_start(dict(os.environ), popen=broken) is False
    assert autoscan.maybe_start({"LESSONS_HOME": "/nonexistent/dir"}) is False


def test_the_module_imports_only_the_standard_library():
    """Imported alone in a fresh interpreter, it pulls in no third-party module."""
    code = (
        "import sys; import lessons_core.hot.autoscan; "
        "bad = [m for m in ('attrs','cattrs','structlog','pluggy','click','typing','logging') "
        "if m in sys.modules]; print(','.join(bad))"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""


def test_real_background_scan_runs_detached(fixtures):
    """End to end: the spawned process scans the transcripts and records when it finished."""
    import shutil

    from lessons_core import services

    home = _home()
    shutil.copytree(fixtures / "claude", Path(os.environ["HOME"]) / ".claude")
    started: list[subprocess.Popen] = []

    def keep(*args, **kwargs):
        proc = subprocess.Popen(*args, **kwargs)
        started.append(proc)
        return proc

    before = time.time()
    assert autoscan.maybe_start(dict(os.environ), popen=keep)
    (proc,) = started
    assert proc.wait(timeout=120) == 0
    with services.open_store() as store:
        assert store.list_candidates()
    assert (home / autoscan.STAMP_NAME).stat().st_mtime >= before


def test_default_spawn_leaves_no_child_behind(fixtures):
    """Without a test double the scan is daemonised through /bin/sh: the hook waits only for
    the shell, keeps no child process, and the scan still runs to the end."""
    import shutil

    from lessons_core import services

    if not Path(autoscan._SH).exists():
        pytest.skip("needs /bin/sh")
    home = _home()
    shutil.copytree(fixtures / "claude", Path(os.environ["HOME"]) / ".claude")
    started = time.perf_counter()
    assert autoscan.maybe_start(dict(os.environ)) is True
    assert time.perf_counter() - started < 2.0
    spawned = time.time()
    # The scan stamps the interval once it has committed and let go of the scan lock, so the
    # stamp alone says it is done. The test never takes the lock itself: a background scan
    # that finds the lock held leaves at once, so a test that took it while the scan was still
    # starting (a slow, busy machine) would send the scan away and then find nothing.
    stamp = home / autoscan.STAMP_NAME
    deadline = time.time() + 300
    while stamp.stat().st_mtime <= spawned:
        if time.time() > deadline:
            pytest.fail("the daemonised scan did not stamp its end within 300 s")
        time.sleep(0.2)
    with services.open_store() as store:  # WAL: reading needs no lock the scan could meet
        assert store.list_candidates()


def test_the_environment_switch_turns_it_off():
    """``LESSONS_AUTO_SCAN=0`` wins over a due interval, without reading config.json."""
    _home()
    FakePopen.calls = []
    env = dict(os.environ, LESSONS_AUTO_SCAN="0")
    assert autoscan.maybe_start(env, popen=FakePopen) is False
    assert FakePopen.calls == []
