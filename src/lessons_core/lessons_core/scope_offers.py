"""Project-scoped lessons seen in other projects too, offered for every project.

A lesson scoped to one project (a review's default, or ``lessons rescope --project``) may meet
its mistake in another: a scan folds that repeat into the lesson, and the lesson now knows two
projects. It is not a lesson of one project any more, but whether it should reach every
project is the user's call, never the scan's: the scan says so with the command that does it,
and ``lessons candidates`` and ``lessons review`` list every such offer until it is taken (or
the lesson is scoped to one project again, or removed).

Projects are compared by their project id (``lessons project-id``), so two checkouts of one
repository are one project.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from lessons_core.hot.project import path_id, project_id
from lessons_core.models import Lesson, Status

#: Distinct projects a scoped lesson must have been seen in to be offered for every project.
MIN_PROJECTS = 2


def project_key(project: str) -> str:
    """The project id of a project a lesson was seen in: a transcript gives its directory (the
    id of the repository there, or of the directory when it is gone from this machine); a
    value that is no path is an id already (a repository's lessons record theirs)."""
    directory = Path(project).expanduser()
    if not directory.is_absolute():
        return project
    return project_id(str(directory)) or path_id(str(directory))


def projects_seen(lesson: Lesson) -> tuple[str, ...]:
    """The distinct projects ``lesson`` was seen in, by project id, in the order first seen."""
    return tuple(dict.fromkeys(project_key(p) for p in lesson.provenance.projects if p))


def offered(lesson: Lesson) -> bool:
    """Whether ``lesson`` is scoped to one project and was seen in two or more."""
    return (
        lesson.scope is not None
        and lesson.status == Status.ACTIVE
        and len(lesson.provenance.projects) >= MIN_PROJECTS
        and len(projects_seen(lesson)) >= MIN_PROJECTS
    )


def command(lesson: Lesson) -> str:
    """The command that takes the offer."""
    return f"lessons rescope {lesson.id} --global"


def describe(lesson: Lesson) -> str:
    """One line saying what was seen and what to run."""
    count = len(projects_seen(lesson))
    return (
        f"Lesson {lesson.slug} is scoped to {lesson.scope} but was seen in {count} projects; "
        f"to deliver it in every project run: {command(lesson)}"
    )


def offers(lessons: Iterable[Lesson]) -> list[Lesson]:
    """The lessons of ``lessons`` offered for every project."""
    return [lesson for lesson in lessons if offered(lesson)]
