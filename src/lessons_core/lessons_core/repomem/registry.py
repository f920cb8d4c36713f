"""Which repositories a user's manifest includes, and what this user wrote in them.

Kept in ``LESSONS_HOME/repo-memory.json``::

    {"type": "lessons-repo-memory", "version": 1,
     "repositories": ["/home/dev/widgets"],
     "written": {"/home/dev/widgets/.lessons/pytest-hangs-k3f9.md": "<sha-256 of the bytes>"},
     "trusted": {"/home/dev/widgets/.lessons/pytest-hangs-k3f9.md": "<sha-256 of the bytes>"}}

A repository's lessons are text an agent is told, so a clone is never trusted by being present:
its lessons reach the manifest once the user includes it (``lessons repo add``, or writing a
lesson there with ``lessons promote --to-repo``). ``written`` is how a writer tells its own file
from someone else's: a file is replaced only while it still holds exactly the bytes this user
last wrote there. ``trusted`` is what the user accepted: a file is delivered only while it
holds the bytes it held when the user included the repository or last ran ``lessons repo
trust`` (or bytes this user wrote); a file a later pull added or changed waits until then. The
file is replaced atomically, under ``repo-memory.lock``.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from lessons_core.errors import LessonsError
from lessons_core.hot import safefile

NAME = "repo-memory.json"
LOCK_NAME = "repo-memory.lock"
TYPE = "lessons-repo-memory"
VERSION = 1


@attrs.frozen
class Registry:
    repositories: tuple[str, ...] = ()
    written: dict[str, str] = attrs.field(factory=dict)
    trusted: dict[str, str] = attrs.field(factory=dict)

    def accepts(self, path: Path, digest: str) -> bool:
        """Whether the file at ``path`` holding bytes of ``digest`` is one the user accepted."""
        key = str(path)
        return digest in (self.trusted.get(key), self.written.get(key))

    def with_trusted(self, files: dict[str, str], root: Path) -> Registry:
        """The registry trusting exactly ``files`` (path -> digest) among ``root``'s files."""
        prefix = str(root).rstrip(os.sep) + os.sep
        kept = {p: d for p, d in self.trusted.items() if not p.startswith(prefix)}
        return attrs.evolve(self, trusted={**kept, **files})

    def with_repository(self, root: Path) -> Registry:
        key = str(root)
        if key in self.repositories:
            return self
        return attrs.evolve(self, repositories=(*self.repositories, key))

    def without_repository(self, root: Path) -> Registry:
        key = str(root)
        prefix = key.rstrip(os.sep) + os.sep
        return Registry(
            tuple(r for r in self.repositories if r != key),
            {p: d for p, d in self.written.items() if not p.startswith(prefix)},
            {p: d for p, d in self.trusted.items() if not p.startswith(prefix)},
        )

    def with_written(self, path: Path, digest: str) -> Registry:
        return attrs.evolve(self, written={**self.written, str(path): digest})


def load(home: Path) -> Registry:
    """The registry in ``home`` (empty when there is none); a damaged one is an error."""
    path = home / NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Registry()
    except (OSError, UnicodeDecodeError) as exc:
        raise LessonsError(f"{path}: cannot read: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LessonsError(
            f"{path}: not valid JSON (line {exc.lineno}): remove it and add the repositories "
            "again with 'lessons repo add'"
        ) from None
    if not isinstance(data, dict) or data.get("type") != TYPE:
        raise LessonsError(f"{path}: not a repository-memory file of lessons")
    if not isinstance(data.get("version"), int) or data["version"] > VERSION:
        raise LessonsError(f"{path}: written by a newer lessons (version {data.get('version')})")
    repositories = data.get("repositories", [])
    written = data.get("written", {})
    trusted = data.get("trusted", {})
    if not (isinstance(repositories, list) and all(isinstance(r, str) for r in repositories)):
        raise LessonsError(f"{path}: 'repositories' must be a list of folders")
    if not (isinstance(written, dict) and all(isinstance(v, str) for v in written.values())):
        raise LessonsError(f"{path}: 'written' must map files to digests")
    if not (isinstance(trusted, dict) and all(isinstance(v, str) for v in trusted.values())):
        raise LessonsError(f"{path}: 'trusted' must map files to digests")
    return Registry(tuple(repositories), dict(written), dict(trusted))


def save(home: Path, registry: Registry) -> None:
    """Replace the registry file atomically (temporary file, ``fsync``, ``os.replace``)."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    body: dict[str, Any] = {
        "type": TYPE,
        "version": VERSION,
        "repositories": list(registry.repositories),
        "written": dict(sorted(registry.written.items())),
        "trusted": dict(sorted(registry.trusted.items())),
    }
    text = json.dumps(body, indent=2, ensure_ascii=False) + "\n"
    safefile.replace(home / NAME, text.encode("utf-8"))


@contextlib.contextmanager
def locked(home: Path) -> Iterator[None]:
    """Hold ``repo-memory.lock`` (an exclusive ``flock``) so two writers take turns."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(home / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if sys.platform != "win32":
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
