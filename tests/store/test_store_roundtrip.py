"""Property test: any lesson the model allows comes back from the store unchanged."""

from __future__ import annotations

import tempfile
from pathlib import Path

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lessons_core.models import (
    Lesson,
    LessonType,
    MatchTarget,
    Provenance,
    Status,
    Triggers,
)
from lessons_core.store.sqlite import SQLiteStore

text = st.text(min_size=1, max_size=40)
texts = st.lists(st.text(max_size=20), max_size=3).map(tuple)

lessons = st.builds(
    Lesson,
    id=st.just(""),
    slug=st.just(""),
    summary=text,
    mistake=text,
    remediation=text,
    type=st.sampled_from(LessonType),
    triggers=st.builds(
        Triggers,
        tool_names=texts,
        command_patterns=texts,
        path_patterns=texts,
        content_patterns=texts,
        model_patterns=texts,
        path_regexes=texts,
    ),
    command_match_target=st.sampled_from(MatchTarget),
    priority=st.integers(min_value=-(2**31), max_value=2**31),
    confidence=st.floats(min_value=0, max_value=1),
    tags=texts,
    scope=st.none() | text,
    injection=st.none() | st.text(max_size=60),
    status=st.sampled_from(Status),
    error_lines=texts,
    provenance=st.builds(
        Provenance,
        source=st.sampled_from(["manual", "import", "scan:tier1", "plugin:x"]),
        sessions=st.lists(text, max_size=3, unique=True).map(tuple),
        projects=st.lists(text, max_size=3, unique=True).map(tuple),
        occurrences=st.integers(min_value=1, max_value=1000),
    ),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lesson=lessons)
def test_any_lesson_round_trips(lesson: Lesson) -> None:
    """add → get by id, by slug and through list/search gives back an equal lesson."""
    with tempfile.TemporaryDirectory() as tmp, SQLiteStore(Path(tmp) / "lessons.db") as store:
        (stored,) = store.add_lessons([lesson])
        assert stored.id and stored.slug and stored.created_at
        expected = attrs.evolve(
            lesson,
            id=stored.id,
            slug=stored.slug,
            created_at=stored.created_at,
            updated_at=stored.updated_at,
        )
        assert stored == expected
        assert store.get_lesson(stored.id) == expected
        assert store.get_lesson(stored.slug) == expected
        assert store.list_lessons() == [expected]
        assert store.find_by_hash(lesson.content_hash) == expected
