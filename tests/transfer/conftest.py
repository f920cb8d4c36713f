"""Fixtures for import/export tests: a fresh store in the isolated LESSONS_HOME, and the seed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

#: The shared material lives in the folder ``shared`` beside the repository checkout.
SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
SEED = SHARED / "corpus" / "seed-lessons" / "lesson-manifest.json"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """LESSONS_HOME, LESSONS_STATE_DIR and HOME inside this test's tmp_path."""
    monkeypatch.setenv("LESSONS_HOME", str(tmp_path / "lessons-home"))
    monkeypatch.setenv("LESSONS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    return tmp_path


@pytest.fixture
def store(isolated):
    from lessons_core import services

    with services.open_store() as opened:
        yield opened


@pytest.fixture
def seed_path() -> Path:
    if not SEED.is_file():
        pytest.skip("the shared seed catalogue is not beside this checkout")
    return SEED


@pytest.fixture
def seed(seed_path) -> dict:
    return json.loads(seed_path.read_text(encoding="utf-8"))
