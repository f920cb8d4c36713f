"""What an import does with a lesson scoped to a project this machine cannot have.

A scope is compared with the project id of the hook's working directory
(:mod:`lessons_core.hot.project`). The Node implementation derived its ids from the path
(``Users-joe-src-app``), a form no project id here ever takes: such a lesson, imported as it is,
is stored and never fires. ``lessons import --scope`` says what to do with them on the way in:

* ``keep`` (the default) stores them as they are, and the report counts them, so the user can
  re-scope them later (``lessons rescope``);
* ``global`` opens them to every project;
* ``here`` scopes them to the current directory's project (``lessons project-id``).

Global lessons and scopes of this implementation's form are never changed.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from lessons_core.errors import LessonsError
from lessons_core.models import Lesson
from lessons_core.transfer.merge import ImportReport
from lessons_core.transfer.node_manifest import is_node_project_scope

KEEP, GLOBAL, HERE = "keep", "global", "here"
CHOICES = (KEEP, GLOBAL, HERE)
#: The report's headings, one per choice.
HEADINGS = {
    KEEP: "scoped to projects not on this machine; they fire nowhere until re-scoped "
    "(import with --scope global or --scope here, or 'lessons rescope ID --global')",
    GLOBAL: "scoped to projects not on this machine, imported for every project (--scope global)",
    HERE: "scoped to projects not on this machine, imported for this project (--scope here)",
}


def is_foreign(scope: str | None) -> bool:
    """Whether ``scope`` names a project no directory here can be."""
    return is_node_project_scope(scope)


def here_scope(directory: str) -> str:
    """The project id of ``directory``, as ``--scope here`` uses it."""
    from lessons_core.hot.project import project_id

    found = project_id(directory)
    if found is None:
        raise LessonsError(f"{directory}: cannot determine a project id for --scope here")
    return found


def rescope(
    lessons: Iterable[Lesson], how: str, report: ImportReport, *, here: str | None = None
) -> list[Lesson]:
    """``lessons`` with every foreign scope handled as ``how`` says; each one noted."""
    if how not in CHOICES:
        raise LessonsError(f"--scope {how!r}: choose keep, global or here")
    out = []
    for lesson in lessons:
        if is_foreign(lesson.scope):
            report.note(HEADINGS[how], lesson.slug or lesson.id)
            if how == GLOBAL:
                lesson = attrs.evolve(lesson, scope=None)
            elif how == HERE:
                lesson = attrs.evolve(lesson, scope=here)
        out.append(lesson)
    return out
