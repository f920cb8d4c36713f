"""What a parsed pattern can take, and where a character class ends, asked by both the safety
rules and the rewriter of ``.*`` chains: a wrong answer here shifts every judgement above it."""

from __future__ import annotations

import pytest

from lessons_core.patterns import syntax
from lessons_core.patterns.charsets import chars_in, skip_class


@pytest.mark.parametrize(
    ("source", "start", "end"),
    [
        ("[ab]c", 0, 4),
        ("x[ab]", 1, 5),
        ("[a]b]", 0, 3),  # the first ] after a member closes the class
        ("[]a]b", 0, 4),  # a ] first in the class is a member
        ("[]]x]", 0, 3),
        ("[^]a]b", 0, 5),  # and so is one first after the ^
        ("[^a]b]", 0, 4),
        ("[\\]x]y", 0, 5),  # an escaped ] is a member
        ("[\\\\]x]", 0, 4),  # an escaped backslash is not an escape of the ]
        ("[", 0, 2),  # an unterminated class runs to the end of the text
        ("[^", 0, 3),
        ("a[]", 1, 4),
    ],
)
def test_a_class_ends_just_past_its_closing_bracket(source, start, end):
    assert skip_class(source, start) == end


def _chars(source: str, fold: bool = False) -> frozenset[str]:
    return chars_in(list(syntax.parse(source)), fold)


def test_a_group_takes_both_cases_only_under_its_own_or_an_outer_ignorecase():
    assert _chars("(?:a)") == {"a"}
    assert _chars("(?i:a)") == {"a", "A"}
    assert _chars("(?:a)", fold=True) == {"a", "A"}


def test_a_groups_number_is_not_read_as_its_flags():
    """The second group's number has the bit of ``re.IGNORECASE``; it folds nothing."""
    assert _chars("(a)(b)") == {"a", "b"}


def test_a_possessive_repeat_takes_its_bodys_characters():
    assert _chars("a*+b") == {"a", "b"}


def test_a_range_takes_both_of_its_ends() -> None:
    from lessons_core.patterns.charsets import class_members

    ((_, items),) = list(syntax.parse("[b-d]"))
    assert class_members(items) == frozenset("bcd")
