"""Importing the Node lessons-learned manifest, on the real 143-lesson seed catalogue."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from lessons_core.compiler.entries import refusals
from lessons_core.errors import LessonsError, ValidationError
from lessons_core.models import LessonType, MatchTarget
from lessons_core.transfer import jsonl
from lessons_core.transfer.merge import ImportReport, import_lessons
from lessons_core.transfer.node_manifest import (
    TranslationError,
    is_node_manifest,
    js_to_python,
    lesson_from_node,
    parse_node_manifest,
)


@pytest.mark.parametrize(
    ("source", "flags", "expected"),
    [
        (r"\beval\s+", "", r"\beval\s+"),
        (r".*/[^/]*\.sh", "i", r"(?i).*/[^/]*\.sh"),
        (r"a\/b", "", "a/b"),
        (r"(?<year>\d{4})-\k<year>", "", r"(?P<year>\d{4})-(?P=year)"),
        (r"(?<=x)y(?<!z)", "", r"(?<=x)y(?<!z)"),
        ("a[^]b", "s", r"(?s)a[\s\S]b"),
        ("a[]b", "", "a(?!)b"),
        ("[[:alpha:]]", "", r"[\[:alpha:]]"),
        ("[a&&b]", "", r"[a\&\&b]"),
        (r"\u{1F600}", "u", r"\U0001f600"),
        (r"\cJ", "", r"\x0a"),
        ("^x$", "gim", "(?im)^x$"),
    ],
)
def test_js_regex_dialect_is_translated(source, flags, expected):
    """Flags become an inline prefix and JS-only syntax becomes Python's."""
    translated = js_to_python(source, flags)
    assert translated == expected
    re.compile(translated)


def test_translated_patterns_keep_their_meaning():
    """Named groups, back-references and flags still match what JS matched."""
    assert re.search(js_to_python(r"(?<w>\w+)-\k<w>", ""), "ab-ab")
    assert not re.search(js_to_python(r"(?<w>\w+)-\k<w>$", ""), "ab-cd")
    assert re.search(js_to_python(r"\.SH$", "i"), "/x/run.sh")
    assert re.search(js_to_python("a[^]b", ""), "a\nb")


@pytest.mark.parametrize(
    ("source", "flags", "why"),
    [
        ("x", "y", "flag 'y' has no Python equivalent"),
        ("[abc", "", "unterminated character class"),
        ("a\\", "", "ends with a lone backslash"),
        ("(?<=a+)b", "", "does not compile in Python: look-behind requires fixed-width pattern"),
    ],
)
def test_untranslatable_regexes_are_explained(source, flags, why):
    """What cannot be carried over says why."""
    with pytest.raises(TranslationError) as info:
        js_to_python(source, flags)
    assert why in str(info.value)


def entry(**extra):
    return {
        "slug": "x-abcd",
        "type": "hint",
        "priority": 5,
        "toolNames": ["Bash"],
        "commandRegexSources": [],
        "pathRegexSources": [],
        "modelRegexSources": [],
        "commandMatchTarget": "full",
        "tags": [],
        "scope": None,
        "summary": "s",
        "problem": "p",
        "solution": "f",
        "message": "m",
        **extra,
    }


def test_command_regexes_go_where_our_model_checks_them():
    """Bash-only → commands; edit-only → content (Node's meaning); mixed → commands."""
    rx = [{"source": "eval", "flags": ""}]
    bash = lesson_from_node("01KNH2FRACBQMQWX29GPYE47D8", entry(commandRegexSources=rx))
    assert (bash.triggers.command_patterns, bash.triggers.content_patterns) == (("eval",), ())
    edit = lesson_from_node(
        "01KNH2FRACBQMQWX29GPYE47D8", entry(toolNames=["Edit", "Write"], commandRegexSources=rx)
    )
    assert (edit.triggers.command_patterns, edit.triggers.content_patterns) == ((), ("eval",))
    mixed = lesson_from_node(
        "01KNH2FRACBQMQWX29GPYE47D8", entry(toolNames=["Bash", "Edit"], commandRegexSources=rx)
    )
    assert mixed.triggers.command_patterns == ("eval",)


def test_unrepresentable_lessons_are_reported_not_imported():
    """An unknown type or a bad regex leaves that lesson out, with the reason."""
    manifest = {
        "type": "lessons-learned-manifest",
        "lessons": {
            "01KNH2FRACBQMQWX29GPYE47D8": entry(),
            "01KNH2FRACBQMQWX29GPYE47D9": entry(slug="bad-type", type="reminder"),
            "01KNH2FRACBQMQWX29GPYE47DA": entry(
                slug="bad-rx", commandRegexSources=[{"source": "(?<=a+)b", "flags": ""}]
            ),
        },
    }
    lessons, report = parse_node_manifest(manifest, source="m.json")
    assert [lesson.slug for lesson in lessons] == ["x-abcd"]
    assert report.rejected[0] == (
        "lesson bad-type field 'type': type 'reminder' has no equivalent here "
        "(known: hint, nudge, guard, protocol, directive)"
    )
    assert report.rejected[1].startswith(
        "lesson bad-rx field 'commandRegexSources[0]': /(?<=a+)b/: does not compile in Python"
    )


def test_not_a_manifest_is_refused():
    """Our own export or random JSON is not mistaken for a Node manifest."""
    assert not is_node_manifest({"type": "lessons-export"})
    with pytest.raises(LessonsError, match=r"not a Node lesson-manifest\.json"):
        parse_node_manifest([], source="x")


def test_missing_text_is_named():
    """A lesson without its problem text cannot be imported."""
    with pytest.raises(ValidationError, match="lesson x-abcd field 'problem': expected non-empty"):
        lesson_from_node("01KNH2FRACBQMQWX29GPYE47D8", entry(problem=""))


# -- the real seed catalogue --------------------------------------------------------------------


def test_every_seed_lesson_comes_in_faithfully(seed):
    """All 143: id, slug, type, priority, scope, text, tags and every pattern, translated."""
    lessons, report = parse_node_manifest(seed, source="seed")
    assert report.rejected == []
    assert len(lessons) == len(seed["lessons"]) == 143
    assert Counter(str(lesson.type) for lesson in lessons) == {
        "hint": 104,
        "directive": 18,
        "protocol": 13,
        "guard": 8,
    }
    for lesson in lessons:
        node = seed["lessons"][lesson.id]
        assert lesson.slug == node["slug"]
        assert lesson.type is LessonType(node["type"])
        assert lesson.priority == node["priority"]
        assert lesson.scope == node["scope"]
        assert lesson.command_match_target is MatchTarget(node["commandMatchTarget"])
        assert (lesson.summary, lesson.mistake, lesson.remediation, lesson.injection) == (
            node["summary"],
            node["problem"],
            node["solution"],
            node["message"],
        )
        assert lesson.tags == tuple(node["tags"])
        assert lesson.triggers.tool_names == tuple(node["toolNames"])
        t = lesson.triggers
        commands = t.command_patterns or t.content_patterns
        assert len(commands) == len(node["commandRegexSources"])
        assert len(t.path_regexes) == len(node["pathRegexSources"])
        assert len(t.model_patterns) == len(node["modelRegexSources"])
        for pattern in (*commands, *t.path_regexes, *t.model_patterns):
            re.compile(pattern)
        for rx, pattern in zip(node["pathRegexSources"], t.path_regexes, strict=True):
            assert pattern.startswith("(?i)") == ("i" in rx["flags"])


def test_seed_patterns_still_match_what_they_were_written_for(seed):
    """Spot checks: the eval lesson fires on eval, its path regex on .sh files."""
    lessons, _ = parse_node_manifest(seed, source="seed")
    by_slug = {lesson.slug: lesson for lesson in lessons}
    evil = by_slug["eval-on-user-supplied-command-strings-en-702a"]
    assert re.search(evil.triggers.command_patterns[0], 'eval "$cmd"')
    assert re.search(evil.triggers.path_regexes[0], "/repo/scripts/RUN.SH")
    assert not re.search(evil.triggers.path_regexes[0], "/repo/run.py")


def test_seed_report_lists_what_is_not_exact(seed):
    """Node path-derived scopes and mixed Bash/edit lessons are counted, each under one note."""
    from lessons_core.transfer import scopes

    lessons, report = parse_node_manifest(seed, source="seed")
    scopes.rescope(lessons, scopes.KEEP, report)
    scoped = report.groups[scopes.HEADINGS[scopes.KEEP]]
    assert len(scoped) == sum(1 for v in seed["lessons"].values() if v["scope"])
    (split,) = [n for n in report.grouped_notes() if "checked on Bash commands only" in n]
    mixed = [
        v
        for v in seed["lessons"].values()
        if "Bash" in v["toolNames"] and len(v["toolNames"]) > 1 and v["commandRegexSources"]
    ]
    assert split.startswith(f"{len(mixed)} lessons for Bash and other tools")
    assert report.notes == []


def test_seed_import_is_idempotent(store, seed):
    """Importing the catalogue twice adds 143, then changes nothing."""
    lessons, report = parse_node_manifest(seed, source="seed")
    import_lessons(store, lessons, report)
    assert len(report.added) == 143
    lessons, again = parse_node_manifest(seed, source="seed")
    import_lessons(store, lessons, again)
    assert (len(again.added), len(again.unchanged), again.changed()) == (0, 143, False)


def test_round_trip_seed_export_fresh_home(seed, isolated, monkeypatch):
    """seed → store → export → a fresh home: the same lessons, hashes and all."""
    from lessons_core import services

    lessons, report = parse_node_manifest(seed, source="seed")
    with services.open_store() as first:
        import_lessons(first, lessons, report)
        before = {lesson.id: lesson for lesson in first.list_lessons()}
        left_out: list[str] = []
        lines = jsonl.export_lines(first.list_lessons(), left_out=left_out)
    # What the compiler refuses was stored here past the check import makes; export leaves it
    # out (and names it) rather than write a file import would refuse.
    refused = {r.lesson_id for r in refusals(before.values())}
    before = {k: v for k, v in before.items() if k not in refused}
    assert len(left_out) == len(refused)
    monkeypatch.setenv("LESSONS_HOME", str(isolated / "second-home"))
    parsed = jsonl.parse_jsonl("\n".join(lines), source="export")
    with services.open_store() as second:
        result = import_lessons(second, [lesson for _, lesson in parsed.lessons], ImportReport())
        after = {lesson.id: lesson for lesson in second.list_lessons()}
    assert len(result.added) == 143 - len(refused)
    assert after.keys() == before.keys()
    for lesson_id, old in before.items():
        new = after[lesson_id]
        assert new.content_hash == old.content_hash
        assert (new.slug, new.type, new.priority, new.scope, new.triggers) == (
            old.slug,
            old.type,
            old.priority,
            old.scope,
            old.triggers,
        )
        assert (new.summary, new.mistake, new.remediation, new.injection) == (
            old.summary,
            old.mistake,
            old.remediation,
            old.injection,
        )
        assert json.dumps(new.tags) == json.dumps(old.tags)
