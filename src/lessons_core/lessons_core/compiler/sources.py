"""Lessons the build reads besides the store's: the ``lessons_register_lesson_sources`` hook.

Kept apart from the compiler so a scan can ask whether a source moved since the last build
(:func:`sources_changed`) without importing the compiler.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import attrs

from lessons_core.errors import LessonsError
from lessons_core.hot.paths import MANIFEST_NAME
from lessons_core.models import Config, Lesson, Status


@attrs.frozen
class Sourced:
    """What every lesson source gave one build: lessons, revisions by source, problems."""

    lessons: tuple[Lesson, ...] = ()
    revisions: dict[str, str] = attrs.field(factory=dict)
    problems: tuple[str, ...] = ()
    #: What waits for the user's acceptance (not an error: told, not failed).
    waiting: tuple[str, ...] = ()


def read_sources(plugins: Any, config: Config, home: Path) -> Sourced:
    """The lessons of every registered lesson source (none without ``plugins``).

    A source that fails is named among the problems; the build never fails because of one.
    """
    if plugins is None or not hasattr(plugins, "lesson_sources"):
        return Sourced()
    lessons: list[Lesson] = []
    revisions: dict[str, str] = {}
    problems: list[str] = []
    waiting: list[str] = []
    seen: dict[str, str] = {}
    try:
        specs = plugins.lesson_sources()
    except LessonsError as exc:
        return Sourced(problems=(str(exc),))
    for name, spec in specs.items():
        try:
            got = spec.load(config=config, home=home)
        except Exception as exc:
            problems.append(f"lesson source {name!r} failed: {type(exc).__name__}: {exc}")
            continue
        revisions[name] = got.revision
        problems.extend(got.problems)
        waiting.extend(getattr(got, "waiting", ()))
        for lesson in got.lessons:
            if lesson.id in seen:
                problems.append(
                    f"lesson {lesson.slug} ({lesson.id}) of source {name!r}: the id is taken "
                    f"by a lesson of source {seen[lesson.id]!r}; left out"
                )
                continue
            seen[lesson.id] = name
            lessons.append(lesson)
    return Sourced(tuple(lessons), revisions, tuple(problems), tuple(waiting))


def sources_changed(plugins: Any, config: Config, home: Path) -> list[str]:
    """Names of the lesson sources whose revision is not the one the manifest was built from
    (a merge or a checkout changed a repository's lesson files since the last build).

    Only sources that offer a cheap ``revision`` are asked; a manifest that cannot be read
    counts as built from nothing. Raises what a source raises.
    """
    try:
        manifest = json.loads((home / MANIFEST_NAME).read_text(encoding="utf-8"))
        built = manifest.get("sources", {}) if isinstance(manifest, dict) else {}
    except (OSError, ValueError):
        built = {}
    changed: list[str] = []
    for name, spec in plugins.lesson_sources().items():
        if spec.revision is None:
            continue
        if not isinstance(built, dict) or built.get(name, "") != spec.revision(
            config=config, home=home
        ):
            changed.append(name)
    return changed


def unscoped_hash(lesson: Lesson) -> str:
    """The content hash of ``lesson`` as if it were global."""
    if lesson.scope is None:
        return lesson.content_hash
    return attrs.evolve(lesson, scope=None).content_hash


@attrs.frozen
class Merged:
    """The lessons a build compiles, and what the sources asked of the user's own lessons."""

    lessons: list[Lesson]
    #: One line per source lesson left out because the user owns that lesson: what it asked.
    suggestions: tuple[str, ...] = ()


def with_sources(stored: Iterable[Lesson], sourced: Sequence[Lesson]) -> list[Lesson]:
    """The active store lessons, then the source lessons that do not touch them."""
    return merge(stored, sourced).lessons


def merge(stored: Iterable[Lesson], sourced: Sequence[Lesson]) -> Merged:
    """The store's active lessons, whole, then the source lessons that are not the user's.

    A lesson source is someone else's input (a repository anyone with push access writes), so
    it never overrides a lesson the user owns: a source lesson with the id of a store lesson
    (whatever its status), or with its content (scope aside) while the store's copy is global
    or scoped to the source lesson's own project, is left out. The user's copy is delivered as
    the user keeps it; where the source's says something else (another text, ``disabled``),
    that is a suggestion, named for ``lessons doctor`` and ``lessons list``, never applied.
    """
    mine = list(stored)
    if not sourced:
        return Merged([lesson for lesson in mine if lesson.status is Status.ACTIVE])
    by_id = {lesson.id: lesson for lesson in mine}
    by_content: dict[str, list[Lesson]] = {}
    for lesson in mine:
        by_content.setdefault(unscoped_hash(lesson), []).append(lesson)
    kept: list[Lesson] = []
    suggestions: list[str] = []
    for lesson in sourced:
        own = by_id.get(lesson.id)
        if own is None:
            own = next(
                (
                    m
                    for m in by_content.get(unscoped_hash(lesson), ())
                    if m.scope is None or m.scope == lesson.scope
                ),
                None,
            )
        if own is None:
            kept.append(lesson)
            continue
        asked = _asked(own, lesson)
        if asked:
            suggestions.append(
                f"{_origin(lesson)} asks to {asked} your lesson {own.slug} ({own.id}); yours "
                "is kept as it is (change it yourself with 'lessons edit' or 'lessons "
                "disable' if you agree)"
            )
    active = [lesson for lesson in mine if lesson.status is Status.ACTIVE]
    return Merged([*active, *kept], tuple(suggestions))


def _asked(own: Lesson, theirs: Lesson) -> str:
    """What ``theirs`` would change about the user's ``own`` lesson, in words ('' for nothing)."""
    if theirs.status is not Status.ACTIVE and own.status is Status.ACTIVE:
        return f"set to {theirs.status}"
    if unscoped_hash(own) != unscoped_hash(theirs):
        return "rewrite"
    return ""


def _origin(lesson: Lesson) -> str:
    where = lesson.provenance.projects[0] if lesson.provenance.projects else lesson.scope
    return f"the {lesson.provenance.source} lesson of {where}" if where else "a lesson source"
