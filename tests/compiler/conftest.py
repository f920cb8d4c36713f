"""Fixtures for the compiler tests: a private LESSONS_HOME with a real SQLite store."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lessons_core.models import Lesson, Triggers
from lessons_core.store.sqlite import SQLiteStore, open_sqlite_store

_counter = itertools.count(1)


def make_lesson(**fields: Any) -> Lesson:
    """A lesson with sensible defaults; ``triggers`` may be given as a dict of keyword args."""
    n = next(_counter)
    triggers = fields.pop("triggers", {})
    if isinstance(triggers, dict):
        triggers = Triggers(**triggers)
    values: dict[str, Any] = {
        "id": f"01COMPILERTEST{n:012d}",
        "slug": f"lesson-{n}",
        "summary": f"summary {n}",
        "mistake": f"mistake {n}",
        "remediation": f"remediation {n}",
        "triggers": triggers,
    }
    values.update(fields)
    return Lesson(**values)


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
