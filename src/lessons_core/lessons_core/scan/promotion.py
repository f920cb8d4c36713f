"""Promoting candidates to lessons: the one path ``lessons promote``, ``lessons review`` and
``lessons repo promote`` share.

It sits below the commands so that neither command module imports the other: a candidate
becomes a lesson here, checked as ``lessons add`` checks one, scoped to its project or to all.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lessons_core.errors import LessonsError, NotFound

if TYPE_CHECKING:
    from lessons_core.models import Candidate
    from lessons_core.store.base import Store


def get_candidate(store: Store, key: str) -> Candidate:
    """The candidate ``key`` names, or a :class:`NotFound` that says where to look."""
    candidate: Candidate | None = store.get_candidate(key)
    if candidate is None:
        raise NotFound(f"no candidate {key!r} (see `lessons candidates --status all`)")
    return candidate


def proposed_scope(candidate: Candidate) -> str | None:
    """The scope a candidate's lesson gets by default: the project its evidence comes from
    (``lessons project-id`` of that directory), or ``None`` (every project) when it has none.

    A candidate keeps the project it was first seen in; repeats in other projects raise its
    confidence but are not listed, so the proposal is that first project's.
    """
    if not candidate.project:
        return None
    from lessons_core.hot.project import path_id, project_id

    directory = str(Path(candidate.project).expanduser())
    # A directory gone from this machine is still one project: the id the hook gives it.
    return project_id(directory) or path_id(directory)


#: ``--scope`` of ``review`` and ``promote``: the candidate's own project, or every project.
SCOPES = ("project", "global")


def check_promotion(candidate: Candidate, lesson_type: str, scope: str | None) -> None:
    """Refuse a promotion ``lessons add`` would refuse (a guard without a pattern, say)."""
    from lessons_core import authoring, tool_names
    from lessons_core.models import LessonType
    from lessons_core.scan.intake import to_lesson

    lesson = to_lesson(candidate, lesson_type=LessonType(lesson_type), scope=scope)
    authoring.check(lesson, f"candidate {candidate.id}", tools=tool_names.installed())


def promote(
    store: Store, keys: Iterable[str], *, lesson_type: str = "hint", scope: str = "project"
) -> list[tuple[Candidate, Any]]:
    """Promote each candidate as a ``lesson_type``, scoped to its project (``scope`` project,
    when it has one) or to every project (``global``)."""
    from lessons_core.models import Config, LessonType
    from lessons_core.scan.intake import Intake

    intake = Intake(store, Config())
    done = []
    for key in keys:
        candidate = get_candidate(store, key)
        if candidate.status == "promoted":
            raise LessonsError(f"candidate {candidate.id} is already promoted")
        where = proposed_scope(candidate) if scope == "project" else None
        check_promotion(candidate, lesson_type, where)
        done.append(
            (candidate, intake.promote(candidate, lesson_type=LessonType(lesson_type), scope=where))
        )
    return done
