"""Export writes only what import takes back, whatever shape the stored lessons have.

The store holds lessons that were never checked as ``add`` checks them now (an older release,
an old ``edit --priority -3``, a pattern refused since): export must leave those out and name
them, never write a file that import then refuses.
"""

from __future__ import annotations

import json

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lessons_core import authoring, ids
from lessons_core.errors import ValidationError
from lessons_core.models import Lesson, LessonType, MatchTarget, Triggers
from lessons_core.transfer import jsonl

TOOLS = ["Bash", "Edit", "Write", "Read", "bash", "run_shell_command", "ExitPlanMode", "mcp__x__y"]
COMMANDS = [r"\bgit\s+push\b", r"\bpytest\b(?!.*-p no:cacheprovider)", "(a+)+$", "([", "npm i"]
PATHS = ["**/*.py", "src/**/test_*.py", "a**b", "[x"]
TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20)


@st.composite
def lessons(draw: st.DrawFn) -> Lesson:
    """A lesson of any shape: every type, trigger mix, out-of-range numbers, scopes."""
    summary = draw(st.one_of(st.just(""), TEXT.filter(str.strip)))
    return Lesson(
        id=ids.new_id(),
        slug=ids.make_slug(summary or "x"),
        summary=summary,
        mistake=draw(st.sampled_from(["", "ran it wrong", "used ~/secret path"])),
        remediation=draw(st.sampled_from(["", "run it right"])),
        type=draw(st.sampled_from(list(LessonType))),
        triggers=Triggers(
            tool_names=draw(st.lists(st.sampled_from(TOOLS), max_size=2, unique=True)),
            command_patterns=draw(st.lists(st.sampled_from(COMMANDS), max_size=2, unique=True)),
            path_patterns=draw(st.lists(st.sampled_from(PATHS), max_size=1)),
        ),
        command_match_target=draw(st.sampled_from(list(MatchTarget))),
        priority=draw(st.integers(-5, 15)),
        confidence=draw(st.floats(-0.5, 1.5, allow_nan=False)),
        tags=draw(st.lists(st.sampled_from(["tool:git", "lang:python"]), max_size=2)),
        scope=draw(st.sampled_from([None, "github.com/acme/app", "Users-joe-src-app"])),
        injection=draw(st.one_of(st.none(), TEXT)),
    )


def _refused(lesson: Lesson) -> bool:
    try:
        authoring.check(lesson)
    except ValidationError:
        return True
    return False


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(lessons(), min_size=1, max_size=6))
def test_export_never_writes_what_import_refuses(stored: list[Lesson]) -> None:
    left_out: list[str] = []
    lines = jsonl.export_lines(stored, home="/nowhere", left_out=left_out)
    parsed = jsonl.parse_jsonl("\n".join(lines), source="export")  # all or nothing: no raise
    assert len(parsed.lessons) + len(left_out) == len(stored)
    assert json.loads(lines[0])["count"] == len(parsed.lessons)
    exported = {lesson.id for _, lesson in parsed.lessons}
    for lesson in stored:
        if lesson.id not in exported:
            continue
        assert not _refused(lesson)  # what went out is what add would take


def test_an_old_edit_priority_is_left_out_and_named() -> None:
    """The lesson the old `edit --priority -3` stored: named, not written."""
    good = Lesson(
        id=ids.new_id(),
        slug="pytest-hangs-ab12",
        summary="pytest hangs",
        mistake="bare pytest stalls",
        remediation="use -p no:cacheprovider",
        triggers=Triggers(tool_names=("Bash",), command_patterns=(r"\bpytest\b",)),
    )
    bad = attrs.evolve(good, id=ids.new_id(), slug="pytest-hangs-cd34", priority=-3)
    left_out: list[str] = []
    lines = jsonl.export_lines([good, bad], left_out=left_out)
    assert len(lines) == 2
    assert left_out == [
        "lesson pytest-hangs-cd34 field 'priority': must be between 1 and 10, got -3"
    ]


@pytest.mark.parametrize("separator", ["\x85", "\u2028", "\u2029", "\x0b", "\x1c"])
def test_a_line_separator_inside_a_text_stays_in_its_line(separator: str) -> None:
    """``str.splitlines`` breaks at U+0085, U+2028, U+2029 and some control characters, which
    JSON may hold in a string: a summary with one was cut in two and the export refused."""
    lesson = Lesson(
        id=ids.new_id(),
        slug="sep-ab12",
        summary=f"before{separator}after",
        mistake="ran it wrong",
        remediation="run it right",
    )
    lines = jsonl.export_lines([lesson])
    text = "\n".join(lines)
    assert len(text.splitlines()) == len(lines)  # one line for any reader
    (_, back), *_ = jsonl.parse_jsonl(text, source="export").lessons
    assert back.summary == lesson.summary
    # A file another program wrote, with the separator raw inside a string, reads too.
    raw = lines[1].replace("\\u0085", "\x85").replace("\\u2028", "\u2028")
    raw = raw.replace("\\u2029", "\u2029")
    (_, again), *_ = jsonl.parse_jsonl(raw + "\r\n", source="file").lessons
    assert again.summary == lesson.summary
