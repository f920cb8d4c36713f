"""Fixtures for the compiler tests: a private LESSONS_HOME with a real SQLite store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lessons_core.store.sqlite import SQLiteStore, open_sqlite_store


@pytest.fixture(name="home")
def fixture_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """LESSONS_HOME, LESSONS_STATE_DIR and HOME inside this test's tmp_path."""
    home = tmp_path / "lessons-home"
    home.mkdir()
    monkeypatch.setenv("LESSONS_HOME", str(home))
    monkeypatch.setenv("LESSONS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path))
    return home


@pytest.fixture(name="store")
def fixture_store(home: Path) -> Iterator[SQLiteStore]:
    store = open_sqlite_store(home)
    yield store
    store.close()
