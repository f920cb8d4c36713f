"""Build-time refusal of patterns prone to catastrophic backtracking."""

from __future__ import annotations

import pytest

from lessons_core.compiler.regex_safety import UnsafePatternError, check_pattern, ensure_safe

REFUSED = {
    "(a+)+": "nested quantifiers",
    "(.*)*": "nested quantifiers",
    r"(\w+\s?)*$": "nested quantifiers",
    "(x+x+)+y": "nested quantifiers",
    "(a+){2,50}": "nested quantifiers",
    r"(?:\d+)*": "nested quantifiers",
    "(a|a)*": "repeated alternation",
    r"(\w|\d)+": "repeated alternation",
    "(ab|ac)*": "repeated alternation",
    "(?i:(A|a)+)": "repeated alternation",
    "(a|b?)+": "empty",
    r"(a)(\1)*": "back-reference",
    r"(?P<q>['\"])(?:x(?P=q))+": "back-reference",
    "[": "does not compile",
    "(?<=a+)b": "does not compile",
    # Quadratic under search (rule 6): each took from 0.1 s to 3 s on 16 KB of their own text.
    r"(?:^|/)(?:.*/)?alembic/versions/[^/]*\.py$": "polynomial",
    "(a|b)*c": "polynomial",
    r"[\w.-]+@[\w.-]+": "polynomial",
    r"(\d+\.){3}\d+": "polynomial",
    r"(?i)curl\s+[^|]*\|\s*(sh|bash)": "polynomial",
}

ACCEPTED = [
    r"\bpytest\b(?!.*--no-header)",
    r"\bgit\s+push\s+(-f|--force)\b",
    "(foo|bar)+",
    r"(?>a+)+",
    r"(?:^|/)alembic/versions/[^/]*\.py$",
    r"(?i)curl\b[^|]*?\|\s*(sh|bash)",
    "(a+)++",
    r"x{1,5}(y+)",
    r"npm (install|i) ",
]


@pytest.mark.parametrize(("pattern", "why"), sorted(REFUSED.items()))
def test_refused(pattern, why):
    """Each known catastrophic shape is refused with a reason naming the rule."""
    reason = check_pattern(pattern)
    assert reason is not None
    assert why in reason


@pytest.mark.parametrize("pattern", ACCEPTED)
def test_accepted(pattern):
    """Ordinary lesson patterns pass."""
    assert check_pattern(pattern) is None


def test_ensure_safe_names_lesson_field_and_pattern():
    """The error message says which lesson, which field and which pattern."""
    with pytest.raises(UnsafePatternError) as info:
        ensure_safe("(a+)+b", "pytest-hangs-1a2b", "command")
    message = str(info.value)
    assert "pytest-hangs-1a2b" in message
    assert "command" in message
    assert "(a+)+b" in message


def test_seed_catalogue_patterns_are_judged_quickly(shared_dir):
    """Every pattern of the Node catalogue gets a verdict; most are accepted."""
    import json

    data = json.loads(
        (shared_dir / "corpus" / "seed-lessons" / "lesson-manifest.json").read_text("utf-8")
    )
    sources = [
        entry["source"]
        for lesson in data["lessons"].values()
        for key in ("commandRegexSources", "pathRegexSources", "modelRegexSources")
        for entry in lesson[key]
    ]
    verdicts = [check_pattern(s) for s in sources]
    assert len(sources) > 100
    accepted = sum(v is None for v in verdicts)
    assert accepted >= 0.9 * len(sources)
