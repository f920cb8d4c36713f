"""Our JSONL format: all-or-nothing import, named lines, redacted export, schema."""

from __future__ import annotations

import io
import json
from pathlib import Path

import jsonschema
import pytest

from lessons_core import serde
from lessons_core.errors import LessonsError
from lessons_core.transfer import jsonl
from lessons_core.transfer.merge import ImportReport, import_lessons

SCHEMA = Path(jsonl.__file__).parents[1] / "schemas" / "export.schema.json"


def line(**extra) -> str:
    obj = {"summary": "s", "mistake": "m", "remediation": "r", **extra}
    return json.dumps(obj)


def test_blank_lines_are_skipped_and_lines_are_numbered():
    """Blank lines are fine; each lesson remembers its line."""
    parsed = jsonl.parse_jsonl("\n" + line(summary="a") + "\n\n" + line(summary="b") + "\n")
    assert [(where, lesson.summary) for where, lesson in parsed.lessons] == [
        ("line 2", "a"),
        ("line 4", "b"),
    ]


def test_a_bad_line_is_named_and_nothing_is_returned():
    """One bad line fails the whole file, and the message says which line and why."""
    text = "\n".join([line(), line(priority=42), "{not json", line(tirggers={})])
    with pytest.raises(LessonsError) as info:
        jsonl.parse_jsonl(text, source="team.jsonl")
    assert str(info.value) == (
        "team.jsonl: 3 invalid lesson(s); nothing was stored (`lessons add --partial` adds the "
        "valid ones):\n"
        "  line 2 field 'priority': must be between 1 and 10, got 42\n"
        "  line 3: not valid JSON (column 2: Expecting property name enclosed in double quotes)\n"
        "  line 4: unknown key 'tirggers' — did you mean 'triggers'?"
    )


def test_partial_keeps_the_good_lines_and_lists_the_rest():
    """--partial imports what it can and reports the rest."""
    parsed = jsonl.parse_jsonl("\n".join([line(), line(type="x"), line()]), partial=True)
    assert [where for where, _ in parsed.lessons] == ["line 1", "line 3"]
    assert parsed.rejected == (
        "line 2 field 'type': 'x' is not one of: hint, nudge, guard, protocol, directive",
    )


def test_nothing_reaches_the_store_when_a_line_is_bad(store):
    """All-or-nothing holds end to end: the store stays empty."""
    with pytest.raises(LessonsError):
        parsed = jsonl.parse_jsonl(line() + "\n" + line(confidence=2))
        import_lessons(store, [lesson for _, lesson in parsed.lessons], ImportReport())
    assert store.list_lessons() == []


def test_header_is_accepted_first_and_only_first():
    """The export header is optional, allowed once, on the first line."""
    header = json.dumps(jsonl.export_header(1))
    parsed = jsonl.parse_jsonl(header + "\n" + line())
    assert parsed.header is not None and len(parsed.lessons) == 1
    with pytest.raises(LessonsError, match="line 2: an export header is only allowed as the first"):
        jsonl.parse_jsonl(line() + "\n" + header)


def test_newer_export_version_is_refused():
    """A file from a newer lessons is refused with advice, not misread."""
    header = json.dumps({**jsonl.export_header(0), "version": 2})
    with pytest.raises(LessonsError, match="line 1: export version 2 was written by a newer"):
        jsonl.parse_jsonl(header)


@pytest.mark.parametrize(
    ("text", "count"),
    [
        (line(), 1),
        ("[" + line() + "," + line() + "]", 2),
        (line() + "\n" + line() + "\n" + line(), 3),
        ('  {\n  "summary": "s",\n "mistake": "m", "remediation": "r"}\n', 1),
    ],
)
def test_parse_lessons_accepts_object_array_and_jsonl(text, count):
    """lessons add takes a JSON object (even pretty-printed), an array or JSON Lines."""
    assert len(jsonl.parse_lessons(text).lessons) == count


def test_parse_lessons_names_array_items():
    """In an array, lessons are named by their 1-based position."""
    with pytest.raises(LessonsError, match=r"lesson 2 field 'summary': must not be empty"):
        jsonl.parse_lessons("[" + line() + "," + line(summary=" ") + "]")


def test_parse_lessons_reports_broken_json_with_position():
    """A truncated single object points at the spot."""
    with pytest.raises(LessonsError, match=r"<input>: not valid JSON at line 1, column 12"):
        jsonl.parse_lessons('{"summary":')


def test_empty_input_is_an_error():
    """Nothing to add is worth saying."""
    with pytest.raises(LessonsError, match="no lessons in the input"):
        jsonl.parse_lessons("  \n")


def lesson_with(text: str):
    return serde.lesson_from_json(
        {
            "summary": "deploy",
            "mistake": text,
            "remediation": "r",
            "injection": text,
            "triggers": {"pathPatterns": ["/home/zed/app/**"]},
            "errorLines": [text],
        }
    )


def test_export_redacts_secrets_and_home_paths_in_text_only():
    """Text fields are scrubbed; trigger patterns are left exactly as they are."""
    token = "ghp_" + "a1B2c3D4e5" * 4
    original = lesson_with(f"pushed with {token} from /home/zed/app")
    out = io.StringIO()
    assert jsonl.write_export([original], out, home="/home/zed") == 1
    header, body = (json.loads(x) for x in out.getvalue().splitlines())
    assert header["type"] == "lessons-export" and header["count"] == 1
    expected = "pushed with [REDACTED:github-token] from ~/app"
    assert body["mistake"] == body["injection"] == expected
    assert body["errorLines"] == [expected]
    assert body["triggers"]["pathPatterns"] == ["/home/zed/app/**"]
    assert token not in out.getvalue()
    assert body["contentHash"] == serde.lesson_from_json(body).content_hash


def test_export_lines_validate_against_the_schema():
    """Header and lesson lines both satisfy export.schema.json."""
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    lines = jsonl.export_lines([lesson_with("plain"), serde.lesson_from_json(json.loads(line()))])
    for text in lines:
        validator.validate(json.loads(text))
    assert not validator.is_valid({**json.loads(lines[1]), "extra": 1})
    assert not validator.is_valid({**json.loads(lines[1]), "priority": 0})


def test_export_round_trips_through_the_parser():
    """What export writes, the import parser reads back to equal lessons."""
    lessons = [lesson_with("a"), lesson_with("b")]
    parsed = jsonl.parse_jsonl("\n".join(jsonl.export_lines(lessons, home="/nowhere")))
    assert [lesson for _, lesson in parsed.lessons] == lessons


def test_where_a_lesson_was_seen_is_exported_valid_and_read_back(tmp_path):
    """The places a lesson was seen travel in its export (home paths made machine-independent),
    satisfy the schema, and the parser reads them back."""
    import attrs

    from lessons_core.models import Sighting

    home = str(tmp_path / "alice")
    seen = (
        Sighting(f"{home}/.claude/projects/p/s1.jsonl", 4, None, "s1", f"{home}/work/alpha"),
        Sighting("/srv/t/s2.jsonl", 9, "call-9", "s2", None),
    )
    lesson = lesson_with("seen")
    lesson = attrs.evolve(lesson, provenance=attrs.evolve(lesson.provenance, evidence=seen))
    (_, text) = jsonl.export_lines([lesson], home=home)
    body = json.loads(text)
    assert body["provenance"]["evidence"] == [
        {
            "file": "~/.claude/projects/p/s1.jsonl",
            "line": 4,
            "call_id": None,
            "session_id": "s1",
            "project": "~/work/alpha",
        },
        {
            "file": "/srv/t/s2.jsonl",
            "line": 9,
            "call_id": "call-9",
            "session_id": "s2",
            "project": None,
        },
    ]
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text())).validate(body)
    ((_, parsed),) = jsonl.parse_jsonl(text).lessons
    assert parsed.provenance.evidence[1] == seen[1]
    assert parsed.provenance.evidence[0].project == "~/work/alpha"
