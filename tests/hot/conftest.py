"""Fixtures for the hot-path tests: a private LESSONS_HOME and state dir, a clean cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lessons_core.hot import manifest as manifest_mod


@pytest.fixture(name="home")
def fixture_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """LESSONS_HOME, LESSONS_STATE_DIR and HOME inside this test's tmp_path."""
    home = tmp_path / "lessons-home"
    home.mkdir()
    monkeypatch.setenv("LESSONS_HOME", str(home))
    monkeypatch.setenv("LESSONS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("LESSONS_HOOK_LOG", raising=False)
    manifest_mod.clear_cache()
    yield home
    manifest_mod.clear_cache()


@pytest.fixture(name="state_dir")
def fixture_state_dir(home: Path, tmp_path: Path) -> Path:
    return tmp_path / "state"
