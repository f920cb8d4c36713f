"""Fixtures for the store tests: lesson and candidate factories (home and store are suite-wide)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from store_factories import make_candidate, make_lesson

from lessons_core.models import Candidate, Lesson


@pytest.fixture(name="lesson_factory")
def fixture_lesson_factory() -> Callable[..., Lesson]:
    return make_lesson


@pytest.fixture(name="candidate_factory")
def fixture_candidate_factory() -> Callable[..., Candidate]:
    return make_candidate
