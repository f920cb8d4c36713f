"""Build-time regex programs behave exactly like re.compile."""

from __future__ import annotations

import _sre
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lessons_core.patterns.programs import program

PATTERNS = [
    r"\bpytest\b(?!.*--no-header)",
    r"(?i)git\s+push\s+(-f|--force)",
    r"(?P<tool>npm|pnpm)\s+(?P=tool)?install",
    r"(?:^|/)(?:.*/)?alembic/versions/[^/]*\.py$",
    r"^(?:.*/[^/]*\.sh)$",
    r"(?i:drop)\s+TABLE",
    r"[\w.-]+@[\w.-]+\.\w{2,}",
    r"(?m)^\s*import\s+os$",
    r"(?s)BEGIN.*END",
    r"\d{3,5}",
    "é+",
]


@settings(max_examples=200, deadline=None)
@given(
    source=st.sampled_from(PATTERNS),
    text=st.text(alphabet="abcgitpushforce -/._@é\nDROPtable123BEGINEND", max_size=40),
)
def test_program_matches_like_re(source, text):
    """search() gives the same span and groups through either object."""
    prog = program(source)
    assert prog is not None
    ours = _sre.compile(source, *prog).search(text)
    theirs = re.compile(source).search(text)
    assert (ours and (ours.span(), ours.groups())) == (theirs and (theirs.span(), theirs.groups()))


@pytest.mark.parametrize("source", PATTERNS)
def test_program_object_equals_re_compile(source):
    """Same flags and group names as re.compile gives."""
    ours = _sre.compile(source, *program(source))
    theirs = re.compile(source)
    assert ours.flags == theirs.flags
    assert ours.groupindex == theirs.groupindex
    assert ours.pattern == theirs.pattern


def test_invalid_pattern_has_no_program():
    """A pattern re cannot compile gets no program (the hook then fails like re would)."""
    assert program("([") is None
