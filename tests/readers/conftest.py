"""Fixtures for the transcript reader tests: our own sample sessions and the shared corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "transcripts"
CORPUS = REPO / ".." / "shared" / "corpus" / "real"


@pytest.fixture(name="fixtures")
def fixture_fixtures() -> Path:
    return FIXTURES


@pytest.fixture(name="corpus")
def fixture_corpus() -> Path:
    """The shared real-transcript corpus; the test is skipped when it is not beside the repo."""
    if not CORPUS.is_dir():
        pytest.skip("the shared corpus is not beside this checkout")
    return CORPUS.resolve()
