"""Fixtures for recall: a private home holding our own fixture catalogue, store and manifest."""

from __future__ import annotations

from pathlib import Path

import pytest
from recall_support import catalogue_lessons

from lessons_core import services
from lessons_core.hot import manifest as manifest_mod


@pytest.fixture(name="catalogue")
def fixture_catalogue(home: Path) -> Path:
    """The catalogue stored in ``home`` with its manifest compiled; returns ``home``."""
    with services.open_store() as store:
        store.add_lessons(catalogue_lessons())
        services.rebuild_manifest(store)
    manifest_mod.clear_cache()
    return home
