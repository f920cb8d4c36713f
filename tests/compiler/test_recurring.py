"""Which hints the manifest lists as recurring: told at a session start as well as by trigger."""

from __future__ import annotations

from compiler_support import make_lesson

from lessons_core.compiler.build import RECURRING_LISTED, compile_manifest
from lessons_core.models import Config, LessonType, Provenance

COMMAND = {"tool_names": ["Bash"], "command_patterns": [r"^rtk\s+bun\b"]}


def _seen(*sessions: str, source: str = "scan:tier2", occurrences: int = 0) -> Provenance:
    return Provenance(source=source, sessions=sessions, occurrences=occurrences or len(sessions))


def _recurring(*lessons, failure_only=()) -> list[str]:
    manifest, refused, _, _ = compile_manifest(lessons, Config(), 1, failure_only=failure_only)
    assert not refused
    return manifest["recurring"]


def test_a_command_mistake_of_two_sessions_recurs():
    """Two sessions of the user's own are enough; one session, however often, is not."""
    twice = make_lesson(triggers=COMMAND, provenance=_seen("a", "b"))
    once = make_lesson(triggers=COMMAND, provenance=_seen("a", "a", occurrences=9))
    assert _recurring(twice, once) == [twice.id]


def test_only_the_users_own_scans_count():
    """A repository's, an import's, a plugin's or a hand-written lesson names sightings no
    scan here made: it never puts itself in front of a session."""
    lessons = [
        make_lesson(triggers=COMMAND, provenance=_seen("a", "b", source=source))
        for source in ("scan:tier1", "scan:tier2", "repo", "import", "manual", "plugin:x")
    ]
    assert _recurring(*lessons) == [lessons[0].id, lessons[1].id]


def test_not_a_hint_not_a_command_or_resting_is_left_to_its_trigger():
    """Guards and nudges act at the call; an Edit hint has nothing to say before a file is
    open; a hint the outcome loop rests until a failure stays resting."""
    seen = _seen("a", "b")
    guard = make_lesson(type=LessonType.GUARD, triggers=COMMAND, provenance=seen)
    nudge = make_lesson(type=LessonType.NUDGE, triggers=COMMAND, provenance=seen)
    edit = make_lesson(
        triggers={"tool_names": ["Edit"], "content_patterns": ["\t\t"]}, provenance=seen
    )
    resting = make_lesson(triggers=COMMAND, provenance=seen)
    kept = make_lesson(triggers=COMMAND, provenance=seen)
    assert _recurring(guard, nudge, edit, resting, kept, failure_only={resting.id}) == [kept.id]


def test_most_sessions_first_then_most_sightings_and_a_bounded_list():
    many = [
        make_lesson(
            triggers=COMMAND, provenance=_seen(*"ab", occurrences=2 + n), priority=9 - n % 3
        )
        for n in range(RECURRING_LISTED + 2)
    ]
    three = make_lesson(triggers=COMMAND, provenance=_seen("a", "b", "c"))
    listed = _recurring(*many, three)
    assert len(listed) == RECURRING_LISTED
    assert listed[0] == three.id
    assert listed[1:4] == [many[-1].id, many[-2].id, many[-3].id]
