"""Literal prefilters: certain substrings, never a false negative."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lessons_core.patterns.prefilter import folds_case, required_literal


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
        (r"(foo|bar)", ["bar", "foo"]),
        (r"\bcommand\s+-v\b|\bwhich\b", ["command", "which"]),
        (r"\b(node|npx|tsx)\b", ["node", "npx", "tsx"]),
        (r"grep.*settings\.json|config\.toml", ["config.toml", "settings.json"]),
        (r"(ab|c)d", None),
        (r"(abc|d)xy", "xy"),
        (r"x?y?", None),
        (r"(?:abcd)?e", None),
        (r"\d+", None),
        (r"[", None),
        ("caf\u00e9 au lait", " au lait"),
        ("\u0391\u03a3", None),
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
    r"\b(node|npx|tsx)\b",
    r"(?i)(drop|truncate)\s+table|delete\s+from",
    "\u0391\u03a3\u0392x",
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
            "npx tsc",
            "TRUNCATE  TABLE t",
            "delete from x",
            "\u0391\u03a3\u0392x",
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
        parts = [literal] if isinstance(literal, str) else literal
        assert any(p in text.lower() for p in parts) or (fold and not text.isascii())


@pytest.mark.parametrize(
    ("pattern", "literal"),
    [
        (r"(aa|bb|cc|dd|ee|ff|gg|hh)", ["aa", "bb", "cc", "dd", "ee", "ff", "gg", "hh"]),
        (r"(aa|bb|cc|dd|ee|ff|gg|hh|ii)", None),
        (r"(ab|cd)", ["ab", "cd"]),
        (r"(?:abcd)++x", "abcd"),
        (r"(?>abcd)x", "abcdx"),
        ("ab\x80cd", "ab"),
        ("ab\x7fcd", "ab\x7fcd"),
        (r"(x|abc|def)", None),
    ],
)
def test_required_literal_edges(pattern, literal):
    """Eight alternatives at most, two characters a branch suffice, one branch without a
    literal spoils the others, possessive repeats and atomic groups are walked, and the run
    stops at the first character beyond ASCII (127 is the last within)."""
    assert required_literal(pattern) == literal


@pytest.mark.parametrize(
    ("pattern", "folds"),
    [
        ("(?:abc)", False),
        ("(?m)^abc", False),
        ("x(?-i:abc)", False),
        ("(?s-i:abc)", False),
        ("(?i)[", False),
    ],
)
def test_fold_detection_ignores_groups_and_flags_turned_off(pattern, folds):
    """A plain group, another flag, ``i`` turned off, or a pattern that does not compile is not
    case-insensitive."""
    assert folds_case(pattern) is folds
