"""Patterns of one shape share one timing; a pattern that only looks like another is timed.

A first build of ten thousand lessons timed each pattern, though most differ from another only
in their words (``\\btool1\\s+run\\b``, ``\\btool2\\s+run\\b``). A pattern whose literals can be
renamed into another's, keeping every test the engine makes of a character, takes the same
time on every subject; any other difference, however small it looks, is timed on its own.
"""

from __future__ import annotations

import random
import re
import signal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lessons_core.patterns import probe
from lessons_core.patterns.regex_safety import judge
from lessons_core.patterns.shapes import shape

needs_alarm = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM")


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (r"\btool1\s+run\b", r"\btool2\s+run\b"),  # a digit for a digit
        (r"\bkubectl\s+apply\b", r"\bkubeztl\s+apply\b"),  # a letter for a letter
        (r"x[^/]*/y", r"x[^-]*-y"),  # [^c] is a test of c alone: renamed with it
        (r"(?:ab|cd)x", r"(?:af|cd)x"),  # only the first of each alternative is pinned
        (r"^git\s+push\b.*--force", r"^git\s+pusk\b.*--force"),
    ],
)
def test_patterns_that_differ_only_in_renamed_words_share_a_shape(one: str, other: str) -> None:
    assert shape(one) is not None
    assert shape(one) == shape(other)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (r"\btool12\s+run\b", r"\btool11\s+run\b"),  # which characters are equal is kept
        (r"\btool1\s+run\b", r"\btoolA\s+run\b"),  # a digit is not a letter to \d or \w
        (r"\btool\s+run\b", r"\bto l\s+run\b"),  # a space is a member of \s
        (r"[a-z]{0,49}-[a-z]{0,19}!", r"[a-z]{0,49}a[a-z]{0,19}!"),  # in or out of a class
        ("x.y", "x.\n"),  # a newline is the one character . refuses
        (r"(?:ab|cd)x", r"(?:eb|cd)x"),  # the compiler's first-character set is by value
        (r"\btool1\s+run\b", r"\btool1\s+run\b\d"),  # a different tree
        (r"a{2,9}b", r"a{2,10}b"),  # counts are kept
        ("toolx", "tool\u00e9"),  # a wider character is never renamed
    ],
)
def test_what_the_engine_can_tell_apart_is_another_shape(one: str, other: str) -> None:
    assert shape(one) != shape(other)


@pytest.mark.parametrize("source", [r"(?i)\btool\b", r"(?i:tool)\s+run", r"(?s:a.b)", r"(?a:x)\w"])
def test_case_folding_and_scoped_flags_have_no_shape(source: str) -> None:
    """Folding a letter depends on the letter, and a scoped flag changes what a test inside it
    means: such a pattern is timed on its own."""
    assert shape(source) is None


@needs_alarm
def test_one_timing_serves_every_pattern_of_a_shape(measured: list[str]) -> None:
    sources = [rf"\btool{i}\s+run\b" for i in range(10)]
    verdicts = [judge(source) for source in sources]
    assert all(v.reason is None and v.limit == probe.SUBJECT_LIMIT for v in verdicts)
    assert measured == [sources[0]]


@needs_alarm
def test_a_hostile_pattern_that_looks_like_a_benign_one_is_still_timed(
    measured: list[str],
) -> None:
    """``[a-z]{0,49}a[a-z]{0,19}!`` differs from the benign ``[a-z]{0,49}-[a-z]{0,19}!`` in one
    literal, but that literal is a member of the class around it: on a run of ``a`` each start
    of the search tries every way of splitting its walk between the two repeats, already too
    slow on the 1 KB subjects for the hook's whole 32 KB. Judged after the benign one, it is
    timed on its own subjects and given a shorter limit, as it is when judged first."""
    benign, hostile = r"[a-z]{0,49}-[a-z]{0,19}!", r"[a-z]{0,49}a[a-z]{0,19}!"
    assert judge(benign).reason is None
    verdict = judge(hostile)
    assert hostile in measured
    assert verdict.limit < probe.SUBJECT_LIMIT
    assert probe.probe(hostile) is not None  # on the hook's whole subject: too slow


@needs_alarm
def test_a_refusal_is_never_shared(measured: list[str]) -> None:
    """Only a pattern measured fast speaks for its shape: a refusal is the pattern's own, and
    each of its shape is timed again (a busy moment is never passed on)."""
    one, other = r"[a-z]{0,49}a[a-z]{0,19}!", r"[a-z]{0,49}b[a-z]{0,19}!"
    assert shape(one) == shape(other)
    assert probe.probe(one) is not None
    assert probe.probe(other) is not None
    assert measured == [one, other]


@needs_alarm
def test_a_shape_is_shared_only_at_the_limit_and_path_it_was_measured_on(
    measured: list[str],
) -> None:
    """A pattern measured fast on a shorter subject, or with its times scaled from 1 KB, says
    nothing of another of its shape on the whole subject, or timed on every size."""
    assert probe.probe(r"\btool1\s+run\b", 4096) is None
    assert probe.probe(r"\btool2\s+run\b") is None
    assert probe.probe(r"\btool3\s+run\b", linear=True) is None
    assert measured == [r"\btool1\s+run\b", r"\btool2\s+run\b", r"\btool3\s+run\b"]


# -- the argument itself: renaming keeps every step of the search --------------------------------

_WORDS = ["git", "push", "tool", "run", "npm", "x", "aa", "ab", "--force", "42", "7", "v1"]
_TEMPLATES = [
    r"\b{0}\s+{1}\b",
    r"^{0}\s+{1}\b.*{2}",
    r"{0}[^/]*/{1}",
    r"(?<![\w-]){0}\s+{1}(?!\S)",
    r"[a-z]{{0,9}}{0}[0-9]+{1}",
    r"(?:{0}\s)+{1}{2}{3}",
]


def _renamed(source: str, mapping: dict[str, str]) -> str:
    """``source`` with every letter and digit outside its escapes, classes and counts mapped."""
    out: list[str] = []
    i = 0
    while i < len(source):
        ch = source[i]
        if ch == "\\":
            kept = source[i : i + 2]
        elif ch in "[{":
            kept = source[i : source.index("]" if ch == "[" else "}", i + 1) + 1]
        elif source.startswith("(?", i):
            kept = re.match(r"\(\?[:<!=]*", source[i:]).group(0)  # type: ignore[union-attr]
        else:
            kept = mapping.get(ch, ch)
        out.append(kept)
        i += max(1, len(kept)) if ch in "\\[{(" else 1
    return "".join(out)


@settings(max_examples=80, deadline=None)
@given(
    template=st.sampled_from(_TEMPLATES),
    words=st.lists(st.sampled_from(_WORDS), min_size=4, max_size=4),
    seed=st.integers(0, 2**16),
    subject=st.text(alphabet="abgtuxyz0123479 -/_\n!.", max_size=60),
)
def test_a_renaming_within_signatures_keeps_every_answer(
    template: str, words: list[str], seed: int, subject: str
) -> None:
    """The soundness argument, run: permute the letters among themselves and the digits among
    themselves (every test of these templates, ``\\w``, ``\\d``, ``\\s``, ``[a-z]``, ``[0-9]``,
    ``[^/]``, ``\\b``, passes a letter and a digit alike), and a pattern and its renaming have
    one shape, and the renamed pattern on the renamed subject finds exactly what the pattern
    finds on the subject."""
    source = template.format(*(re.escape(w) for w in words))
    rng = random.Random(seed)
    mapping: dict[str, str] = {}
    for group in ("abcdefghijklmnopqrstuvwxyz", "0123456789"):
        shuffled = list(group)
        rng.shuffle(shuffled)
        mapping.update(zip(group, shuffled, strict=True))
    renamed = _renamed(source, mapping)
    assert shape(source) is not None
    assert shape(source) == shape(renamed)
    mapped = "".join(mapping.get(ch, ch) for ch in subject)
    found, again = re.search(source, subject), re.search(renamed, mapped)
    assert (found is None) == (again is None)
    if found is not None and again is not None:
        assert found.span() == again.span()
