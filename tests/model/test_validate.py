"""Semantic checks: what a lesson says must be usable, and errors say exactly why."""

from __future__ import annotations

import attrs
import pytest
from structlog.testing import capture_logs

from lessons_core import serde, validate
from lessons_core.errors import ValidationError
from lessons_core.models import Triggers

GOOD = serde.lesson_from_json(
    {
        "id": "01KNH2FRACBQMQWX29GPYE47D8",
        "slug": "good-abcd",
        "summary": "s",
        "mistake": "m",
        "remediation": "r",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"\bgit\b"]},
    }
)


def error_of(lesson, where=None):
    with pytest.raises(ValidationError) as info:
        validate.check_lesson(lesson, where=where)
    return str(info.value)


def test_a_good_lesson_passes_without_warnings():
    """The baseline: nothing to report."""
    assert validate.check_lesson(GOOD) == []


@pytest.mark.parametrize("field", ["summary", "mistake", "remediation"])
def test_text_must_not_be_blank(field):
    """Whitespace-only text is as useless as none."""
    message = error_of(attrs.evolve(GOOD, **{field: "  \n"}), where="line 4")
    assert message == f"line 4 field {field!r}: must not be empty"


def test_without_where_the_slug_names_the_lesson():
    """Errors found after parsing name the lesson by slug."""
    assert error_of(attrs.evolve(GOOD, priority=11)) == (
        "lesson 'good-abcd' field 'priority': must be between 1 and 10, got 11"
    )


@pytest.mark.parametrize("priority", [0, -1, 11])
def test_priority_range(priority):
    """Priorities run from 1 to 10."""
    assert "must be between 1 and 10" in error_of(attrs.evolve(GOOD, priority=priority))


@pytest.mark.parametrize("confidence", [-0.1, 1.01])
def test_confidence_range(confidence):
    """Confidence is a probability."""
    message = error_of(attrs.evolve(GOOD, confidence=confidence), where="lesson 1")
    assert message == f"lesson 1 field 'confidence': must be between 0 and 1, got {confidence}"


def test_boundaries_are_allowed():
    """1, 10, 0.0 and 1.0 are valid."""
    validate.check_lesson(attrs.evolve(GOOD, priority=1, confidence=0.0))
    validate.check_lesson(attrs.evolve(GOOD, priority=10, confidence=1.0))


@pytest.mark.parametrize(
    ("field", "attr"),
    [
        ("commandPatterns", "command_patterns"),
        ("contentPatterns", "content_patterns"),
        ("modelPatterns", "model_patterns"),
        ("pathRegexes", "path_regexes"),
    ],
)
def test_bad_regex_names_the_pattern_and_the_re_error(field, attr):
    """Every regex list is compiled; the message quotes the pattern and Python's reason."""
    triggers = Triggers(**{attr: ["ok", "(unclosed"]})
    message = error_of(attrs.evolve(GOOD, triggers=triggers), where="line 2")
    assert message == (
        f"line 2 field 'triggers.{field}[1]': pattern '(unclosed' is not a valid Python regex: "
        "missing ), unterminated subpattern at position 0"
    )


def test_javascript_named_group_is_reported():
    """A JS-only construct fails with Python's own explanation."""
    message = error_of(attrs.evolve(GOOD, triggers=Triggers(command_patterns=["(?<n>x)"])))
    assert "pattern '(?<n>x)' is not a valid Python regex" in message


@pytest.mark.parametrize(
    ("glob", "why"),
    [
        ("", "empty glob"),
        ("src/[abc.py", "unclosed '[' at position 4"),
        ("src/a**b/*.py", "'**' must be a whole path segment (found 'a**b')"),
        ("a\x00b", "contains a NUL byte"),
    ],
)
def test_bad_globs(glob, why):
    """Globs that cannot mean what was intended are rejected with the reason."""
    message = error_of(attrs.evolve(GOOD, triggers=Triggers(path_patterns=["**/*.py", glob])))
    assert message.endswith(f"field 'triggers.pathPatterns[1]': glob {glob!r} is not usable: {why}")


@pytest.mark.parametrize("glob", ["**/*.py", "src/**/test_*.py", "*.[ch]", "[]]x", r"a\[b"])
def test_sane_globs_pass(glob):
    """Ordinary globs, classes and escapes are fine."""
    assert validate.check_glob(glob) is None


def test_unknown_tool_is_a_warning_not_an_error():
    """Plugins add tools we cannot know, so an unknown name only warns (through structlog)."""
    lesson = attrs.evolve(GOOD, triggers=Triggers(tool_names=["Bash", "ExitPlanMode"]))
    with capture_logs() as logs:
        warnings = validate.check_lesson(lesson, where="line 1")
    assert warnings == [
        "line 1: tool name 'ExitPlanMode' is not a canonical tool name; it only matches if an "
        "adapter reports exactly that name"
    ]
    assert logs == [
        {
            "event": "unknown tool name",
            "lesson": "line 1",
            "tool": "ExitPlanMode",
            "log_level": "warning",
        }
    ]


@pytest.mark.parametrize(
    "tool", ["mcp__serena__find_symbol", "NotebookEdit", "TodoWrite", "Task", "WebSearch"]
)
def test_canonical_and_mcp_tools_do_not_warn(tool):
    """Claude Code's names and any mcp__ tool are canonical."""
    assert validate.check_lesson(attrs.evolve(GOOD, triggers=Triggers(tool_names=[tool]))) == []


def test_mcp_prefix_alone_is_not_a_tool():
    """'mcp__' with nothing after it is not a tool name."""
    assert not validate.is_canonical_tool("mcp__")


def test_ids_must_be_sane():
    """Imported ids are kept if sane; spaces or empty ids are refused."""
    validate.check_lesson(attrs.evolve(GOOD, id="01JQSEED00000000000000001"))
    assert "is not a usable id" in error_of(attrs.evolve(GOOD, id="has space"))
    assert "is not a usable id" in error_of(attrs.evolve(GOOD, id=""))
