"""Fixtures of the end-to-end tests; the helpers themselves live in agent_harness.py."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agent_harness import Scratch, make_scratch


@pytest.fixture
def scratch(tmp_path: Path) -> Iterator[Scratch]:
    """Scratch HOME, project, LESSONS_HOME and state dir for one agent run."""
    yield make_scratch(tmp_path)
