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
from lessons_core.models import Config, Lesson


@attrs.frozen
class Sourced:
    """What every lesson source gave one build: lessons, revisions by source, problems."""

    lessons: tuple[Lesson, ...] = ()
    revisions: dict[str, str] = attrs.field(factory=dict)
    problems: tuple[str, ...] = ()


def read_sources(plugins: Any, config: Config, home: Path) -> Sourced:
    """The lessons of every registered lesson source (none without ``plugins``).

    A source that fails is named among the problems; the build never fails because of one.
    """
    if plugins is None or not hasattr(plugins, "lesson_sources"):
        return Sourced()
    lessons: list[Lesson] = []
    revisions: dict[str, str] = {}
    problems: list[str] = []
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
        for lesson in got.lessons:
            if lesson.id in seen:
                problems.append(
                    f"lesson {lesson.slug} ({lesson.id}) of source {name!r}: the id is taken "
                    f"by a lesson of source {seen[lesson.id]!r}; left out"
                )
                continue
            seen[lesson.id] = name
            lessons.append(lesson)
    return Sourced(tuple(lessons), revisions, tuple(problems))


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


def with_sources(stored: Iterable[Lesson], sourced: Sequence[Lesson]) -> list[Lesson]:
    """The store's lessons less those a source lesson stands in for, then the source's.

    A store lesson gives way to a source lesson with its id, or with its content (scope aside)
    when the store's copy is global or scoped to the source lesson's own project: the user's
    own copy of a shared lesson is not delivered a second time beside it.
    """
    if not sourced:
        return list(stored)
    ids = {lesson.id for lesson in sourced}
    scopes: dict[str, set[str | None]] = {}
    for lesson in sourced:
        scopes.setdefault(unscoped_hash(lesson), set()).add(lesson.scope)
    kept = []
    for lesson in stored:
        if lesson.id in ids:
            continue
        shared = scopes.get(unscoped_hash(lesson))
        if shared is not None and (lesson.scope is None or lesson.scope in shared):
            continue
        kept.append(lesson)
    return [*kept, *sourced]
