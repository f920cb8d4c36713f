"""Built-in plugin: the lessons kept in repositories (``.lessons/<slug>.md``) as a lesson source.

Registered like any plugin, so ``LESSONS_DISABLED_PLUGINS=repo_memory`` switches repository
memory off without touching anything else. Its modules (and PyYAML) are imported only when a
build reads the source.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from lessons_core.plugin import hookimpl
from lessons_core.plugins.specs import LessonSourceSpec, SourceLessons

NAME = "repo"


def _load(*, config: Any = None, home: Path) -> SourceLessons:
    from lessons_core.repomem import source

    return source.load(config=config, home=home)


def _revision(*, config: Any = None, home: Path) -> str:
    from lessons_core.repomem import source

    return source.revision(home, config=config)


@hookimpl(trylast=True)
def lessons_register_lesson_sources(register: Callable[[LessonSourceSpec], None]) -> None:
    register(
        LessonSourceSpec(
            name=NAME,
            load=_load,
            revision=_revision,
            description="lessons in the .lessons folders of included repositories",
        )
    )
