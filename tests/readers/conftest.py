"""Fixtures for the transcript reader tests: our own sample sessions and the shared corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "transcripts"
CORPUS = REPO / ".." / "shared" / "corpus" / "real"
CORPUS2 = REPO / ".." / "shared" / "corpus" / "real2"


@pytest.fixture(name="fixtures")
def fixture_fixtures() -> Path:
    return FIXTURES


@pytest.fixture(name="corpus")
def fixture_corpus() -> Path:
    """The shared real-transcript corpus; the test is skipped when it is not beside the repo."""
    if not CORPUS.is_dir():
        pytest.skip("the shared corpus is not beside this checkout")
    return CORPUS.resolve()


@pytest.fixture(name="corpus2")
def fixture_corpus2() -> Path:
    """The second shared corpus (other people's sessions, OpenCode exports and Copilot logs
    among them); the test is skipped when it is not beside the repo."""
    if not CORPUS2.is_dir():
        pytest.skip("the second shared corpus is not beside this checkout")
    return CORPUS2.resolve()
