"""Suite-wide fixtures: every test runs against scratch homes, never the user's real ones."""

from __future__ import annotations

import os
import sys
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from lessons_core.hot import manifest as manifest_mod

REPO_ROOT = Path(__file__).resolve().parents[1]
#: The shared material (real transcripts, the Node catalogue) lives beside the checkout.
SHARED = REPO_ROOT.parent / "shared"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Under ``LESSONS_STRICT_SKIPS=1`` (CI), a skipped test fails the run, saying why.

    A skip in CI means a dependency the project claims (an interpreter, an agent CLI,
    PostgreSQL, Chromium, the shared corpus) was not installed, and a green run would hide
    that the test never ran. ``xfail`` is not a skip and is left alone.
    """
    report = yield
    _fail_a_strict_skip(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """A module skipped whole (``importorskip`` at its top) fails under strict skips too."""
    report = yield
    _fail_a_strict_skip(report)
    return report


def _fail_a_strict_skip(report: pytest.TestReport | pytest.CollectReport) -> None:
    if (
        os.environ.get("LESSONS_STRICT_SKIPS") == "1"
        and report.skipped
        and not hasattr(report, "wasxfail")
    ):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = (
            f"skipped under LESSONS_STRICT_SKIPS=1: {reason}\n"
            "CI must install what this test needs (see .ci/run), or the test must not need it."
        )


def bin_path(name: str) -> str:
    """The console script ``name`` of the interpreter running the tests (venv or tox env)."""
    candidate = Path(sys.executable).parent / name
    return str(candidate) if candidate.exists() else name


@pytest.fixture(autouse=True)
def _isolated_homes(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Point LESSONS_HOME, LESSONS_STATE_DIR and the agents' homes at fresh directories.

    Every test runs under it: a test module needs no home fixture of its own to keep the
    user's store out of reach (one that needs the home inside ``tmp_path`` asks for ``home``).
    """
    base = tmp_path_factory.mktemp("homes")
    monkeypatch.setenv("LESSONS_HOME", str(base / "lessons-home"))
    monkeypatch.setenv("LESSONS_STATE_DIR", str(base / "state"))
    monkeypatch.setenv("HOME", str(base / "home"))
    for var in (
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "GEMINI_CLI_HOME",
        "QWEN_HOME",
        "QWEN_RUNTIME_DIR",
        "KILO_DB",
        "COPILOT_HOME",
        "XDG_DATA_HOME",
        "XDG_RUNTIME_DIR",
        "LESSONS_HOOK_LOG",
        "LESSONS_PLUGINS",
        "LESSONS_DISABLED_PLUGINS",
        "LESSONS_DISABLE_PLUGIN_AUTOLOAD",
        "LESSONS_DATABASE_URL",
    ):
        monkeypatch.delenv(var, raising=False)
    (base / "home").mkdir()
    # Session-start hooks run in-process and as processes all over the suite: no background
    # scans unless a test asks for one (the auto-scan tests remove this).
    monkeypatch.setenv("LESSONS_AUTO_SCAN", "0")
    # Each test starts as a fresh process would: no trigger remembered as accepted.
    from lessons_core.scan import trigger_checks

    trigger_checks.forget()


@pytest.fixture(name="fresh_probe")
def fixture_fresh_probe(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The timing probe as a fresh process has it: no pattern or shape remembered fast, nothing
    asked, no measurement cached (and none left behind for the next test)."""
    from lessons_core.patterns import probe

    monkeypatch.setattr(probe, "_fast", set())
    monkeypatch.setattr(probe, "_asked", set())
    monkeypatch.setattr(probe, "_fast_shapes", set())
    measure = probe._measure  # the cached function itself: a test may stand something in for it
    measure.cache_clear()
    yield
    measure.cache_clear()


@pytest.fixture(name="measured")
def fixture_measured(monkeypatch: pytest.MonkeyPatch, fresh_probe: None) -> list[str]:
    """Every source the probe really times, in order, from a fresh process's memory."""
    from lessons_core.patterns import probe

    seen: list[str] = []
    real = probe._measure.__wrapped__

    def counting(source: str, *args: object) -> str | None:
        seen.append(source)
        return real(source, *args)

    monkeypatch.setattr(probe, "_measure", counting)
    return seen


@pytest.fixture(name="shared_dir")
def fixture_shared_dir() -> Path:
    """The shared corpus folder beside the checkout; tests that need it skip without it."""
    if not SHARED.is_dir():
        pytest.skip("the shared corpus is not beside this checkout")
    return SHARED


@pytest.fixture(name="home")
def fixture_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """LESSONS_HOME (created), LESSONS_STATE_DIR and HOME inside this test's tmp_path.

    The hot path caches the manifest per process; it is cleared around each test that asks
    for a home, so in-process hook runs never see another test's lessons.
    """
    home = tmp_path / "lessons-home"
    home.mkdir()
    monkeypatch.setenv("LESSONS_HOME", str(home))
    monkeypatch.setenv("LESSONS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path))
    manifest_mod.clear_cache()
    yield home
    manifest_mod.clear_cache()


@pytest.fixture(name="store")
def fixture_store(home: Path) -> Iterator[object]:
    """A real SQLite store in ``home``, closed after the test."""
    from lessons_core.store.sqlite import open_sqlite_store

    store = open_sqlite_store(home)
    yield store
    store.close()
