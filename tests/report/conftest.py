"""Fixtures for the report: a private home, empty or holding a history worth a report."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# The transcript writer and the private home of the outcome-loop tests are shared, not copied.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "outcomes"))

from outcome_support import private_home


@pytest.fixture(name="home")
def fixture_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """LESSONS_HOME, LESSONS_STATE_DIR and HOME inside this test's tmp_path."""
    yield from private_home(tmp_path, monkeypatch)


@pytest.fixture(name="history_home")
def fixture_history_home(home: Path, tmp_path: Path) -> Path:
    """``home`` with lessons, judged deliveries over six weeks and candidates."""
    from report_support import populate

    populate(home, tmp_path / "transcripts")
    return home
