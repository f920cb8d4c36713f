"""Open the hook's own files without following planted links or blocking (standard library only).

Every file the hook reads or writes by a fixed name (the manifest and its copies, the recall
index, ``config.json``, the stamps, the session state, the logs) goes through here, so one set
of rules holds everywhere:

* the last path component is never followed when it is a symbolic link (``O_NOFOLLOW``), so a
  link planted under one of those names cannot redirect a write to another file or a read to a
  device;
* only regular files are used: a FIFO, a socket or a device under one of those names is refused
  after ``fstat`` (opened ``O_NONBLOCK``, so opening a FIFO never waits for a writer);
* files whose content the hook trusts must belong to this user and not be writable by group
  or others (``trusted=True``), the rule the manifest's marshal copy already followed;
* a file appended to must belong to this user and have a single name (``st_nlink == 1``): a
  hard link to another file of this user would otherwise receive the appended lines (its mode
  is the user's business: a log made group-writable on purpose is still written);
* reads are bounded: at most ``limit`` bytes, from the start or from the end;
* a file is replaced at once (:func:`replace`), by the hook and by every command alike.

A refused file raises :class:`UnsafeFile`, an ``OSError``, so callers that already fail open on
``OSError`` stay as they are.
"""

import os
import stat

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
NONBLOCK = getattr(os, "O_NONBLOCK", 0)
CLOEXEC = getattr(os, "O_CLOEXEC", 0)
DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_BINARY = getattr(os, "O_BINARY", 0)
_UID = os.getuid() if hasattr(os, "getuid") else None

READ_FLAGS = os.O_RDONLY | NOFOLLOW | NONBLOCK | CLOEXEC | _BINARY
APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | NOFOLLOW | NONBLOCK | CLOEXEC | _BINARY
WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | NOFOLLOW | NONBLOCK | CLOEXEC | _BINARY
CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | NONBLOCK | CLOEXEC | _BINARY


class UnsafeFile(OSError):
    """A file that is not a regular file of ours (or is linked elsewhere) under a name we use."""


def check(st, path, trusted=True, single=False):
    """Raise :class:`UnsafeFile` unless ``st`` describes a file these rules accept."""
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeFile(f"{path} is not a regular file")
    if trusted:
        if _UID is not None and st.st_uid != _UID:
            raise UnsafeFile(f"{path} is owned by uid {st.st_uid}")
        if st.st_mode & 0o022:
            raise UnsafeFile(f"{path} is writable by group or others")
    if single and st.st_nlink != 1:
        raise UnsafeFile(f"{path} has {st.st_nlink} links")


def open_read(path, trusted=True, follow=False, dir_fd=None):
    """A read-only descriptor and its ``stat``; ``follow=True`` allows a link as the last part."""
    flags = READ_FLAGS & ~NOFOLLOW if follow else READ_FLAGS
    fd = os.open(path, flags, dir_fd=dir_fd) if dir_fd is not None else os.open(path, flags)
    try:
        st = os.fstat(fd)
        check(st, path, trusted)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read(path, limit, trusted=True, follow=False, tail=False):
    """At most ``limit`` bytes of the file at ``path`` (its last ones with ``tail=True``)."""
    fd, st = open_read(path, trusted, follow)
    try:
        if tail and st.st_size > limit:
            os.lseek(fd, st.st_size - limit, os.SEEK_SET)
        return read_fd(fd, limit)
    finally:
        os.close(fd)


def read_fd(fd, limit):
    """Read until end of file or ``limit`` bytes, whichever comes first."""
    chunks = []
    left = limit
    while left > 0:
        data = os.read(fd, min(left, 1 << 20))
        if not data:
            break
        chunks.append(data)
        left -= len(data)
    return b"".join(chunks)


def append(path, data, dir_fd=None):
    """Append ``data`` with one ``write`` to a private regular file (created 0600)."""
    kwargs = {} if dir_fd is None else {"dir_fd": dir_fd}
    fd = os.open(path, APPEND_FLAGS, 0o600, **kwargs)
    try:
        st = os.fstat(fd)
        check(st, path, trusted=False, single=True)
        if _UID is not None and st.st_uid != _UID:
            raise UnsafeFile(f"{path} is owned by uid {st.st_uid}")
        os.write(fd, data)
    finally:
        os.close(fd)


def overwrite(path, data):
    """Write ``data`` over the start of a private regular file (created 0600), cut to its size.

    For a small record rewritten on nearly every hook call (the transcript offset of
    :mod:`lessons_core.hot.catchup`): no scratch file and no rename, which ext4 follows with a
    flush of the new file's data. A reader may meet a record half old and half new, so it
    must be one whose damage costs nothing (a wrong offset is read again or skipped).
    """
    fd = os.open(path, WRITE_FLAGS, 0o600)
    try:
        st = os.fstat(fd)
        check(st, path, trusted=True, single=True)
        view = memoryview(data)
        while view:  # a descriptor opened without O_APPEND writes from the start
            view = view[os.write(fd, view) :]
        if st.st_size > len(data):
            os.ftruncate(fd, len(data))
    finally:
        os.close(fd)


def create(path, dir_fd=None):
    """Create a new private file (``O_EXCL``: never an existing one, never through a link)."""
    if dir_fd is None:
        return os.open(path, CREATE_FLAGS, 0o600)
    return os.open(path, CREATE_FLAGS, 0o600, dir_fd=dir_fd)


def replace(path, data, mode=0o600, keep_mode=False, durable=True):
    """Put the bytes ``data`` in place of ``path`` at once; the one atomic writer of the project.

    A reader sees the old file or the new one, never half of one, and a writer that dies at any
    point leaves the old file whole, because the bytes go to a scratch file beside ``path``
    (same directory, so the rename cannot cross a file system) that is renamed over it only
    once it is complete:

    * the scratch file is new (:func:`create`: never an existing file, never through a link); a
      leftover one of this process, or a link planted under its name, is removed, not followed
      (it is named for the process: each process writes from one thread);
    * its mode is ``mode`` (0600: most files hold the user's lessons), or with ``keep_mode`` the
      mode of the file it replaces, so a settings file someone made readable stays readable;
    * with ``durable`` the file is flushed to disk before the rename and the directory after
      it, so after a power cut the name holds the old bytes or the new ones, not an empty file.
      Caches and a session's notes pass ``durable=False``: they are checked when read and
      rebuilt when lost, and the hook must not wait for a disk.

    Returns the written file's ``stat`` (size, mtime and inode survive the rename). Raises
    ``OSError``, with the scratch file gone.
    """
    path = os.fspath(path)
    scratch = f"{path}.{os.getpid()}.tmp"
    if keep_mode:
        try:  # noqa: SIM105 - contextlib is not imported on the hot path
            mode = stat.S_IMODE(os.stat(path).st_mode)  # noqa: PTH116 - nor pathlib
        except FileNotFoundError:
            pass
    try:
        try:
            out = create(scratch)
        except FileExistsError:  # left over, or planted: the name goes, not its target
            unlink(scratch)
            out = create(scratch)
        try:
            if mode != 0o600:
                os.fchmod(out, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(out, view) :]
            if durable:
                os.fsync(out)
            written = os.fstat(out)
        finally:
            os.close(out)
        os.replace(scratch, path)  # noqa: PTH105 - no pathlib on the hot path
    except BaseException:
        unlink(scratch)
        raise
    if durable:
        _sync_directory(os.path.dirname(path) or ".")  # noqa: PTH120 - no pathlib here
    return written


def _sync_directory(directory):
    """Flush a directory's entries (the rename) to disk; a file system that cannot is no error."""
    try:
        fd = os.open(directory, os.O_RDONLY | DIRECTORY | CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def unlink(path, dir_fd=None):
    """Remove the name ``path`` (a link itself, never its target) if it is there."""
    try:
        if dir_fd is None:
            os.unlink(path)  # noqa: PTH108 - no pathlib on the hot path
        else:
            os.unlink(path, dir_fd=dir_fd)
    except OSError:
        pass
