"""Reading and writing one lesson file: the round trip, and every error naming file and line."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lessons_core.models import Lesson, LessonType, MatchTarget, Status, Triggers
from lessons_core.repomem import fileformat as ff
from lessons_core.testing import contract_lesson

PATH = ".lessons/x-ab12.md"


def parse(text: str, slug: str = "x-ab12") -> Lesson:
    return ff.parse(text, path=PATH, slug=slug, default_id="repo-default")


def error(text: str, slug: str = "x-ab12") -> ff.FileError:
    with pytest.raises(ff.FileError) as info:
        parse(text, slug)
    return info.value


def comparable(lesson: Lesson) -> Lesson:
    """What a file keeps of a lesson: not its scope, provenance or update time."""
    return attrs.evolve(
        lesson, scope=None, provenance=attrs.fields(Lesson).provenance.default, updated_at=""
    )


GOOD = """---
id: 01JD3S0C6Z7H5V1F8Q2W4E9R6T
summary: pytest hangs without a TTY
type: guard
priority: 8
confidence: 0.9
triggers:
  toolNames: [Bash]
  commandPatterns: ['\\bpytest\\b']
createdAt: 2026-12-01
---

## Mistake

Running bare pytest stalls.

## Remediation

Use `python -m pytest`:

```sh
## a comment in a fence is not a heading
python -m pytest -p no:cacheprovider
```
"""


def test_reads_front_matter_and_sections() -> None:
    lesson = parse(GOOD)
    assert lesson.id == "01JD3S0C6Z7H5V1F8Q2W4E9R6T"
    assert lesson.slug == "x-ab12"
    assert lesson.type is LessonType.GUARD
    assert lesson.triggers.command_patterns == (r"\bpytest\b",)
    assert lesson.mistake == "Running bare pytest stalls."
    assert lesson.remediation.endswith("python -m pytest -p no:cacheprovider\n```")
    assert "## a comment in a fence" in lesson.remediation
    assert lesson.created_at == "2026-12-01"  # a date stays text


def test_file_without_id_gets_the_default_one() -> None:
    text = GOOD.replace("id: 01JD3S0C6Z7H5V1F8Q2W4E9R6T\n", "")
    assert parse(text).id == "repo-default"


def test_render_round_trips() -> None:
    lesson = contract_lesson(
        4,
        id="01JD3S0C6Z7H5V1F8Q2W4E9R6T",
        slug="x-ab12",
        type=LessonType.NUDGE,
        status=Status.DISABLED,
        command_match_target=MatchTarget.EXECUTABLE,
        injection="## looks like a heading\nso it goes in the front matter",
        tags=("tool:pytest", "yes", "null", "2026-01-01"),
        created_at="2026-12-01T10:00:00Z",
    )
    text = ff.render(lesson)
    assert "injection: " in text and "## Injection" not in text
    assert parse(text) == comparable(lesson)


_TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1
).filter(lambda s: s.strip())


@settings(max_examples=150, deadline=None)
@given(
    summary=_TEXT,
    mistake=_TEXT,
    remediation=_TEXT,
    injection=st.none() | _TEXT,
    tags=st.lists(_TEXT, max_size=3),
)
def test_any_text_round_trips(
    summary: str, mistake: str, remediation: str, injection: str | None, tags: list[str]
) -> None:
    """Whatever the texts hold (headings, fences, markers, YAML-looking words, blank space),
    the file reads back as the same lesson, from a section or from the front matter."""
    lesson = Lesson(
        id="01JD3S0C6Z7H5V1F8Q2W4E9R6T",
        slug="x-ab12",
        summary=summary,
        mistake=mistake,
        remediation=remediation,
        injection=injection,
        tags=tags,
        error_lines=tags[::-1],
        triggers=Triggers(tool_names=("Bash",), command_patterns=(r"\bx\b",)),
    )
    text = ff.render(lesson)
    assert ff.conflict_line(text) is None or ff.conflict_line(text) > text.index("\n---\n")
    assert parse(text) == comparable(lesson)


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("summary: x\n", 1, "starts with a '---' line"),
        ("---\nsummary: x\n", 1, "never closed"),
        ("---\n---\n", 2, "front matter is empty"),
        ("---\n- a\n---\n", 2, "must be a mapping"),
        ("---\nsummary: a\ntype: hint\nsummary: b\n---\n", 4, "'summary' is given twice"),
        ("---\nsummary: [a\n---\n", 3, "front matter:"),
        ("---\nsummary: &a x\nmistake: *a\n---\n", 3, "aliases"),
        ("---\nsummary: x\nscope: null\n---\n", 3, "scoped to the repository"),
        ("---\nsummary: x\nprovenance: {}\n---\n", 3, "provenance stays"),
        ("---\nsummary: x\nslug: other\n---\n", 3, "the file name is the slug"),
        ("---\nsummary: x\n---\nhello\n", 4, "text before the first section"),
        ("---\nsummary: x\n---\n## Notes\n", 4, "unknown section '## Notes'"),
        ("---\nsummary: x\n---\n## Fix\na\n## Remediation\nb\n", 6, "given twice"),
        ("---\nsummary: x\nmistake: a\n---\n## Mistake\nb\n", 5, "both in the front matter"),
        ("---\nsummary: x\npriority: 99\n---\n## Mistake\nm\n## Fix\nf\n", 3, "between 1 and 10"),
        ("---\nsummary: yes\n---\n## Mistake\nm\n## Fix\nf\n", 2, "summary"),
        ("---\nsummary: x\n---\n## Mistake\nm\n", None, "add a '## Remediation' section"),
        (
            "---\nsummary: x\ntriggers:\n  toolNames: [Bash]\n  commandPatterns:\n  - '('\n"
            "---\n## Mistake\nm\n## Fix\nf\n",
            6,
            "not a valid Python regex",
        ),
        (
            "---\nsummary: x\ncomandPatterns: [a]\n---\n## Mistake\nm\n## Fix\nf\n",
            3,
            "unknown key 'comandPatterns'",
        ),
        ("---\nsummary: x\n---\n## Mistake\n\n## Fix\nf\n", 4, "must not be empty"),
        ("---\nsummary: x\n<<<<<<< HEAD\ntype: hint\n=======\n", 3, "unresolved merge conflict"),
        ("---\nsummary: x\n---\n## Fix\na\n>>>>>>> team-b\n", 6, "unresolved merge conflict"),
    ],
)
def test_errors_name_file_and_line(text: str, line: int | None, words: str) -> None:
    exc = error(text)
    assert exc.path == PATH
    assert exc.line == line
    assert words in str(exc)
    assert str(exc).startswith(f"{PATH}:{line}:" if line else PATH)


def test_windows_line_endings_are_read() -> None:
    assert parse(GOOD.replace("\n", "\r\n")).mistake == "Running bare pytest stalls."


@pytest.mark.parametrize("slug", ["../etc/passwd", "a/b", ".hidden", "Upper", "", "a..b/c", "-x"])
def test_slugs_that_are_not_plain_names_are_refused(slug: str) -> None:
    assert not ff.is_slug(slug)
    with pytest.raises(Exception, match="cannot name a lesson file"):
        ff.check_slug(slug)
