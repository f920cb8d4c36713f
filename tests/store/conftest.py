"""Fixtures for the store tests: a private LESSONS_HOME and a lesson factory."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from store_factories import make_candidate, make_lesson

from lessons_core.models import Candidate, Lesson
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


@pytest.fixture(name="lesson_factory")
def fixture_lesson_factory() -> Callable[..., Lesson]:
    return make_lesson


@pytest.fixture(name="candidate_factory")
def fixture_candidate_factory() -> Callable[..., Candidate]:
    return make_candidate
