"""Fixtures for the outcome loop: a private home and a store holding one lesson."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from outcome_support import PYTEST_LESSON, private_home

from lessons_core import serde, services
from lessons_core.hot import manifest as manifest_mod


@pytest.fixture(name="home")
def fixture_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """LESSONS_HOME, LESSONS_STATE_DIR and HOME inside this test's tmp_path."""
    yield from private_home(tmp_path, monkeypatch)


@pytest.fixture(name="lesson_home")
def fixture_lesson_home(home: Path) -> Path:
    """``home`` with the pytest lesson stored and compiled."""
    with services.open_store() as store:
        store.add_lessons([serde.lesson_from_json(PYTEST_LESSON)])
        services.rebuild_manifest(store)
    manifest_mod.clear_cache()
    return home
