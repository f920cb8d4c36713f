"""The one Jaccard index: its edges, and the same answer for the dedup backend and the scan."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lessons_core.builtin import dedup
from lessons_core.similarity import jaccard

words = st.frozensets(st.sampled_from(["npm", "test", "jest", "watch", "exit", "pytest"]))


@pytest.mark.parametrize(
    ("a", "b", "score"),
    [
        (set(), set(), 1.0),  # equal sets, the empty one included
        (set(), {"npm"}, 0.0),
        ({"npm"}, set(), 0.0),
        ({"npm", "test"}, {"npm", "test"}, 1.0),
        ({"npm"}, {"yarn"}, 0.0),
        ({"npm", "test"}, {"npm", "jest"}, 1 / 3),
        ({"npm"}, {"npm", "test", "jest", "watch"}, 1 / 4),
    ],
)
def test_edges(a, b, score):
    assert jaccard(frozenset(a), frozenset(b)) == pytest.approx(score)
    assert jaccard(set(a), set(b)) == pytest.approx(score)  # any set, not only frozen ones


@given(words, words)
def test_symmetric_bounded_and_one_only_for_equal_sets(a, b):
    score = jaccard(a, b)
    assert score == jaccard(b, a)
    assert 0.0 <= score <= 1.0
    assert (score == 1.0) == (a == b)


def test_the_dedup_backend_measures_with_the_same_function():
    """One measure: the backend's name for it is this very function, not a second copy."""
    assert dedup.jaccard is jaccard
