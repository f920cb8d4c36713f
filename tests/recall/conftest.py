"""Fixtures for recall: a private home holding our own fixture catalogue, store and manifest."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from recall_support import catalogue_lessons

from lessons_core import services
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


@pytest.fixture(name="catalogue")
def fixture_catalogue(home: Path) -> Path:
    """The catalogue stored in ``home`` with its manifest compiled; returns ``home``."""
    with services.open_store() as store:
        store.add_lessons(catalogue_lessons())
        services.rebuild_manifest(store)
    manifest_mod.clear_cache()
    return home
