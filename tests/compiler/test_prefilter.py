"""Literal prefilters: certain substrings, never a false negative."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lessons_core.compiler.prefilter import folds_case, required_literal


@pytest.mark.parametrize(
    ("pattern", "literal"),
    [
        (r"\bpytest\b", "pytest"),
        (r"\bgit\s+push\b", "push"),
        (r"npm\s+(install|i)\b", "npm"),
        (r"(?:docker)\s+run", "docker"),
        (r"(?i)Cargo\s+BUILD", "cargo"),
        (r"(?:abc)+def", "abc"),
        (r"terraform apply", "terraform apply"),
        (r"a|b", None),
        (r"(foo|bar)", None),
        (r"x?y?", None),
        (r"(?:abcd)?e", None),
        (r"\d+", None),
        (r"[", None),
    ],
)
def test_required_literal(pattern, literal):
    """The longest certain run of literal characters, lowercased, or None."""
    assert required_literal(pattern) == literal


def test_fold_detection():
    """Case-insensitive patterns, globally or in a scoped group, are marked."""
    assert folds_case("(?i)abc")
    assert folds_case("x(?i:abc)")
    assert not folds_case("abc")


PATTERNS = [
    r"\bpytest\b(?!.*no:cacheprovider)",
    r"git\s+(push|pull)\s+--force",
    r"(?:rm|mv)\s+-rf\s+/",
    r"(?i)DROP\s+TABLE",
    r"ab(cd)+ef",
    r"x(?:yz){2}w",
    r"(?i)kelvin",
]


@settings(max_examples=300, deadline=None)
@given(
    pattern=st.sampled_from(PATTERNS),
    prefix=st.text(max_size=12),
    middle=st.sampled_from(
        [
            "pytest",
            "git push --force",
            "rm -rf /",
            "drop table",
            "DROP  TABLE",
            "abcdcdef",
            "xyzyzw",
            "KELVIN",
            "\u212aelvin",
            "pytest -p no:cacheprovider",
        ]
    ),
    suffix=st.text(max_size=12),
)
def test_literal_never_rejects_a_match(pattern, prefix, middle, suffix):
    """Whenever the regex matches, the literal check (as the hook does it) lets it through."""
    text = prefix + middle + suffix
    literal = required_literal(pattern)
    if re.search(pattern, text) and literal is not None:
        fold = folds_case(pattern)
        assert literal in text.lower() or (fold and not text.isascii())
