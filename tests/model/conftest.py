"""Model tests touch no store, but still run with private homes so nothing leaks out."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_homes(tmp_path, monkeypatch):
    monkeypatch.setenv("LESSONS_HOME", str(tmp_path / "lessons-home"))
    monkeypatch.setenv("LESSONS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
