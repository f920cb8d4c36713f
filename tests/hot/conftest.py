"""Fixtures for the hot-path tests (the private home and the manifest cache are suite-wide)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(name="state_dir")
def fixture_state_dir(home: Path, tmp_path: Path) -> Path:
    return tmp_path / "state"
