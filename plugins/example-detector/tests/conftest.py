"""Keep the plugin's tests away from the user's real homes."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_homes(tmp_path, monkeypatch):
    monkeypatch.setenv("LESSONS_HOME", str(tmp_path / "lessons-home"))
    monkeypatch.setenv("LESSONS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
