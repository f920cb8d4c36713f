"""The repositories' lessons as a lesson source for the compiler.

Registered by :mod:`lessons_core.builtin.repo_memory` through ``lessons_register_lesson_sources``.
Every build reads the ``.lessons`` folder of each repository the user included; the revision is
a digest of those folders' listings (names, sizes, times, inodes), so anything that changes a
file (a merge, a checkout, an edit) changes it and ``lessons doctor`` can tell the manifest is
behind. Reading the files is left to the build: a stat per file is all the check costs.

A file is delivered only at the bytes the user trusted (``lessons repo add`` or ``lessons repo
trust``) or wrote; one a pull added or changed since waits, and the source names it among its
``waiting``, which every rebuild tells the user.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lessons_core.errors import LessonsError
from lessons_core.hot.digest import hex_sha256
from lessons_core.plugins.specs import SourceLessons

if TYPE_CHECKING:
    from lessons_core.models import Lesson

NAME = "repo"
#: The registry's file in ``LESSONS_HOME`` (:data:`lessons_core.repomem.registry.NAME`).
_REGISTRY_NAME = "repo-memory.json"


def load(*, config: Any = None, home: Path) -> SourceLessons:
    """The lessons of every included repository, scoped to each; unusable files named."""
    from lessons_core.repomem import registry

    reg = registry.load(home)
    if not reg.repositories:
        return SourceLessons((), revision(home), ())
    from lessons_core.models import Config
    from lessons_core.repomem.repository import Bounds, read_lessons  # PyYAML: only now

    bounds = Bounds.of(config if isinstance(config, Config) else None)

    lessons: list[Lesson] = []
    problems: list[str] = []
    waiting: list[str] = []
    for root_text in reg.repositories:
        root = Path(root_text)
        if not root.is_dir():
            problems.append(
                f"{root}: an included repository that no longer exists; "
                f"'lessons repo forget {root}' stops reading it"
            )
            continue
        try:
            found = read_lessons(root, bounds)
        except (LessonsError, OSError) as exc:
            problems.append(f"{root}: {exc}")
            continue
        problems.extend(found.problems)
        new = 0
        for path, lesson in found.lessons:
            if reg.accepts(path, found.digests[path]):
                lessons.append(lesson)
            else:
                new += 1
        if new:
            waiting.append(
                f"{root}: {new} lesson file(s) added or changed since you trusted the "
                f"repository wait; 'lessons repo list {root}' shows them, 'lessons repo trust "
                f"{root}' delivers them"
            )
    return SourceLessons(tuple(lessons), revision(home), tuple(problems), tuple(waiting))


def revision(home: Path, *, config: Any = None) -> str:
    """A digest that changes whenever an included repository's lesson files change.

    A scan asks after every run; with no registry (no repository ever included) the answer is
    the digest of an empty listing, known without importing the registry.
    """
    listing: list[Any] = []
    if not (Path(home) / _REGISTRY_NAME).exists():
        return _digest(listing)
    from lessons_core.repomem import registry

    reg = registry.load(home)
    if reg.repositories:  # a scan asks after every run: without repositories, no more imports
        from lessons_core.repomem.folder import Folder, FolderError
    for root_text in reg.repositories:
        entry: list[Any] = [root_text]
        try:
            with Folder(Path(root_text)) as folder:
                entry.append(list(folder.stat_key()))
        except (FileNotFoundError, FolderError, OSError) as exc:
            entry.append(type(exc).__name__)
        listing.append(entry)
    return _digest(listing)


def _digest(listing: list[Any]) -> str:
    return hex_sha256(json.dumps(listing).encode())[:32]
