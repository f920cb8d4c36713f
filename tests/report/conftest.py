"""Fixtures for the report: a private home, empty or holding a history worth a report."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lessons_core.hot import manifest as manifest_mod

# The transcript writer of the outcome-loop tests is shared, not copied.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "outcomes"))


@pytest.fixture(name="home")
def fixture_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """LESSONS_HOME, LESSONS_STATE_DIR and HOME inside this test's tmp_path."""
    home = tmp_path / "lessons-home"
    home.mkdir()
    monkeypatch.setenv("LESSONS_HOME", str(home))
    monkeypatch.setenv("LESSONS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    (tmp_path / "user").mkdir()
    monkeypatch.delenv("LESSONS_HOOK_LOG", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    manifest_mod.clear_cache()
    yield home
    manifest_mod.clear_cache()


@pytest.fixture(name="history_home")
def fixture_history_home(home: Path, tmp_path: Path) -> Path:
    """``home`` with lessons, judged deliveries over six weeks and candidates."""
    from report_support import populate

    populate(home, tmp_path / "transcripts")
    return home
