"""Every file-system access to a repository's ``.lessons`` folder.

A repository is anybody's: a clone may hold a ``.lessons`` that is a link to ``~/.ssh``, a lesson
file that is a link to ``/etc/passwd``, or a FIFO that would stall a read. So the folder is
opened once, without following a link (``O_NOFOLLOW | O_DIRECTORY``), and every file in it is
reached through that descriptor (``dir_fd``), by a plain name that cannot step out of it: the
folder cannot be swapped for a link between a check and a use.

Writes never overwrite what someone else wrote:

* a new file is written to a temporary name, flushed, then *hard-linked* to its name, which
  fails if the name exists (``link`` never replaces), so two writers cannot both create it;
* replacing a file the caller wrote before (it says which digest it expects) first *renames*
  the current file aside, checks that the file moved aside is the expected one, and only then
  links the new one in. A file changed meanwhile is put back (or, if its name was taken again
  meanwhile, kept aside under a name the error gives); nothing is lost in any order of events.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import attrs

from lessons_core.errors import LessonsError
from lessons_core.hot.digest import hex_sha256
from lessons_core.ids import random_suffix
from lessons_core.repomem.names import FOLDER, MAX_FILE_BYTES, SUFFIX, is_slug

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class FolderError(LessonsError):
    """The folder, or a file in it, cannot be used safely; nothing was read or written."""


class Changed(LessonsError):
    """The file is not the one the writer expected (someone else wrote or edited it)."""


@attrs.frozen
class Entry:
    """A lesson file found in the folder (``problem`` set when it cannot be read)."""

    name: str
    slug: str
    problem: str | None = None
    #: Its size when listed (0 for what is not a regular file).
    size: int = 0


def digest(data: bytes) -> str:
    return hex_sha256(data)


class Folder:
    """The ``.lessons`` folder of the repository at ``root``, opened without following links."""

    def __init__(self, root: Path, *, create: bool = False):
        self.root = root
        self.path = root / FOLDER
        try:
            root_fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
        except OSError as exc:
            raise FolderError(f"{root}: cannot open the repository: {exc.strerror}") from None
        try:
            self.fd = self._open_folder(root_fd, create)
        finally:
            os.close(root_fd)

    def _open_folder(self, root_fd: int, create: bool) -> int:
        try:
            info = os.stat(FOLDER, dir_fd=root_fd, follow_symlinks=False)
        except FileNotFoundError:
            if not create:
                raise
            with contextlib.suppress(FileExistsError):
                os.mkdir(FOLDER, 0o755, dir_fd=root_fd)
            info = os.stat(FOLDER, dir_fd=root_fd, follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            raise FolderError(
                f"{self.path} is a symbolic link; repository lessons are read and written only "
                "in a real folder of the repository"
            )
        if not stat.S_ISDIR(info.st_mode):
            raise FolderError(f"{self.path} is not a folder")
        try:
            return os.open(FOLDER, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=root_fd)
        except OSError as exc:
            raise FolderError(f"{self.path}: cannot open: {exc.strerror}") from None

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- reading ---------------------------------------------------------------------------

    def entries(self) -> list[Entry]:
        """The ``*.md`` files, sorted by name; links, folders and bad names carry a problem.

        Hidden names (our temporary files among them) and ``README.md`` are not lessons.
        """
        found: list[Entry] = []
        with os.scandir(self.fd) as it:
            for item in it:
                name = item.name
                if name.startswith(".") or not name.endswith(SUFFIX) or name == "README.md":
                    continue
                slug = name[: -len(SUFFIX)]
                problem = None
                size = 0
                if item.is_symlink():
                    problem = "is a symbolic link; refused (a lesson file must be a real file)"
                elif not item.is_file(follow_symlinks=False):
                    problem = "is not a regular file"
                elif not is_slug(slug):
                    problem = (
                        "the file name is not a slug (lower-case letters, digits and '-'); "
                        "rename it"
                    )
                else:
                    size = item.stat(follow_symlinks=False).st_size
                found.append(Entry(name, slug, problem, size))
        return sorted(found, key=lambda e: e.name)

    def read(self, name: str) -> bytes:
        """The bytes of ``name``: a regular file of at most ``MAX_FILE_BYTES``, never a link."""
        _check_name(name)
        try:
            fd = os.open(name, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC, dir_fd=self.fd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise FolderError(f"{self.path / name} is a symbolic link; refused") from None
            raise
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise FolderError(f"{self.path / name} is not a regular file")
            if info.st_size > MAX_FILE_BYTES:
                raise FolderError(
                    f"{self.path / name} is {info.st_size} bytes; a lesson file holds at most "
                    f"{MAX_FILE_BYTES}"
                )
            chunks: list[bytes] = []
            size = 0
            while size <= MAX_FILE_BYTES:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            if size > MAX_FILE_BYTES:
                raise FolderError(f"{self.path / name} grew past {MAX_FILE_BYTES} bytes")
            return b"".join(chunks)
        finally:
            os.close(fd)

    def stat_key(self) -> Iterator[tuple[str, int, int, int, int]]:
        """(name, size, mtime_ns, ctime_ns, inode) of every entry: what changes when any file
        is written, renamed or removed (the source's revision)."""
        with os.scandir(self.fd) as it:
            for item in sorted(it, key=lambda e: e.name):
                if item.name.startswith("."):
                    continue
                info = item.stat(follow_symlinks=False)
                yield item.name, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino

    # -- writing ---------------------------------------------------------------------------

    def _temporary(self, name: str, data: bytes) -> str:
        """``data`` in a new hidden file of the folder, flushed to disk; returns its name."""
        for _ in range(16):
            temp = f".{name}.{random_suffix(8)}.tmp"
            try:
                fd = os.open(
                    temp,
                    os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC,
                    0o644,
                    dir_fd=self.fd,
                )
            except FileExistsError:
                continue
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            except BaseException:
                os.close(fd)
                os.unlink(temp, dir_fd=self.fd)
                raise
            os.close(fd)
            return temp
        raise FolderError(f"{self.path}: cannot make a temporary file")  # pragma: no cover

    def create(self, name: str, data: bytes) -> None:
        """Write a new file ``name``; :class:`Changed` if the name exists already."""
        _check_name(name)
        temp = self._temporary(name, data)
        try:
            os.link(temp, name, src_dir_fd=self.fd, dst_dir_fd=self.fd, follow_symlinks=False)
        except FileExistsError:
            raise Changed(
                f"{self.path / name} exists already (written by someone else); nothing was "
                "overwritten"
            ) from None
        finally:
            os.unlink(temp, dir_fd=self.fd)
        self._sync()

    def replace(self, name: str, data: bytes, expected: str) -> None:
        """Replace ``name`` by ``data`` if it still holds bytes of digest ``expected``."""
        _check_name(name)
        temp = self._temporary(name, data)
        aside = f".{name}.{random_suffix(8)}.old"
        try:
            try:
                os.rename(name, aside, src_dir_fd=self.fd, dst_dir_fd=self.fd)
            except FileNotFoundError:
                raise Changed(
                    f"{self.path / name} was removed meanwhile; nothing was written"
                ) from None
            if not self._holds(aside, expected):
                self._put_back(aside, name)
                raise Changed(
                    f"{self.path / name} was changed by someone else; nothing was overwritten"
                )
            try:
                os.link(temp, name, src_dir_fd=self.fd, dst_dir_fd=self.fd, follow_symlinks=False)
            except FileExistsError:
                raise Changed(
                    f"{self.path / name} was written by someone else meanwhile; the previous "
                    f"version is kept as {self.path / aside}"
                ) from None
            os.unlink(aside, dir_fd=self.fd)
        finally:
            os.unlink(temp, dir_fd=self.fd)
        self._sync()

    def _holds(self, name: str, expected: str) -> bool:
        try:
            return digest(self.read(name)) == expected
        except (OSError, FolderError):
            return False

    def _put_back(self, aside: str, name: str) -> None:
        try:
            os.link(aside, name, src_dir_fd=self.fd, dst_dir_fd=self.fd, follow_symlinks=False)
        except FileExistsError:
            raise Changed(
                f"{self.path / name} was changed by someone else meanwhile; the version found "
                f"there first is kept as {self.path / aside}"
            ) from None
        os.unlink(aside, dir_fd=self.fd)

    def _sync(self) -> None:
        with contextlib.suppress(OSError):
            os.fsync(self.fd)


def _check_name(name: str) -> None:
    """A plain file name in the folder: no separator, no ``..``, not empty."""
    if not name or "/" in name or "\\" in name or name in (".", "..") or "\0" in name:
        raise FolderError(f"{name!r} is not a file name inside the lessons folder")
