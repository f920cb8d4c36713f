"""A repeat with a large count walks that far from every start of the search: the probe's
subjects hold a run of the repeat's body, so the walk is measured and bounded.

``(?:[a-z]-){2500,3400}!`` is linear by the structural rules, yet on 32 KB of ``a-a-…`` each
start walks up to 3,400 pairs before the ``!`` fails: close to a second a search. None of the
subjects made of its units (``a``, ``-``, ``!``) held such a run, so it was accepted on the
hook's whole 32 KB.
"""

from __future__ import annotations

import signal

import pytest

from lessons_core.patterns import probe
from lessons_core.patterns.regex_safety import hot_source, judge
from search_timing import searched_ms

pytestmark = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM")


@pytest.mark.parametrize(
    ("source", "body"),
    [
        (r"(?:[a-z]-){400,500}!", "a-"),
        (r"(?:[a-z]-){2500,3400}!", "a-"),
        (r"(?:[a-z]-){3400}!", "a-"),  # a fixed count chooses nothing, and still walks
        (r"(?:[a-z]{2}-){400,500}!", "aa-"),  # a class with a count in the body
        (r"(?:[a-z][0-9]){400,500}!", "a0"),
        (r"(?:[^a-z]x){400,500}!", "0x"),  # a negated class: its sample must be a member
    ],
)
def test_a_long_walk_is_bounded_on_the_limit_it_is_given(source: str, body: str) -> None:
    """Refused, or given a limit on which the worst subject, a run of the body, is searched
    within the probe's budget (and the slack it forgives a busy machine)."""
    probe._measure.cache_clear()
    probe.forget()
    verdict = judge(source)
    if verdict.reason is not None:
        return
    hot = hot_source(source)
    worst = max(
        searched_ms(hot, subject)
        for subject in (
            (body * verdict.limit)[: verdict.limit],
            (body * verdict.limit)[: verdict.limit - 1] + "\x01",
        )
    )
    assert worst <= probe.budget_ms(verdict.limit) * probe.LOAD_SLACK, (verdict.limit, worst)


def test_a_walk_within_the_short_reach_is_measured_on_the_short_path() -> None:
    """``(?:[a-z]-){100,127}!`` reaches 255 characters, so the probe times it on 1 KB and scales
    (the cheap path for patterns proven linear). Its run of ``a-`` is among the 1 KB subjects:
    scaled, it is over the budget, so it is timed on 32 KB (28 ms there) and refused on it."""
    source = r"(?:[a-z]-){100,127}!"
    hot = hot_source(source)
    structural = judge(source, measure=False)
    assert structural.reason is None and structural.degree == 1
    assert probe.reach(list(probe.syntax.parse(hot))) <= probe.SCALABLE_SPAN
    probe._measure.cache_clear()
    probe.forget()
    assert probe.probe(hot, linear=True) is not None
    verdict = judge(source)
    assert verdict.reason is None and verdict.limit < probe.SUBJECT_LIMIT
    subject = ("a-" * verdict.limit)[: verdict.limit]
    assert searched_ms(hot, subject) <= probe.budget_ms(verdict.limit) * probe.LOAD_SLACK


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (r"(?:[a-z]-){400,500}!", ["a-"]),
        (r"(?:[a-z]{2}-){400,500}!", ["aa-", "a"]),  # the inner repeat's body too
        (r"x(?:ab|cd){0,3}(?:[0-9]\.)+y", ["0.", "ab"]),  # unbounded first, then by count
        (r"(?:[^a-z]x){400,500}!", ["0x"]),
        (r"(?>(?:q,)*)\d", ["q,"]),
        (r"(?=(?:[a-c]/){20})", ["a/"]),
        (r"(?:[a-z]-){0}!", []),  # a count of nought walks nowhere
        (r"kubectl\s+apply\b", [" "]),
        ("(", []),
    ],
)
def test_the_bodies_each_repeat_walks(source: str, expected: list[str]) -> None:
    assert probe.bodies(source) == expected


def test_a_run_of_each_body_is_a_subject_with_and_without_a_break() -> None:
    made = list(probe.subjects(["!", "-", "a"], 1024, walks=["a-"]))
    assert ("a-" * 512) in made
    assert ("a-" * 512)[:1023] + "\x01" in made
