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
* reads are bounded: at most ``limit`` bytes, from the start or from the end.

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


def create(path, dir_fd=None):
    """Create a new private file (``O_EXCL``: never an existing one, never through a link)."""
    if dir_fd is None:
        return os.open(path, CREATE_FLAGS, 0o600)
    return os.open(path, CREATE_FLAGS, 0o600, dir_fd=dir_fd)


def replace(path, data):
    """Put the bytes ``data`` in place of ``path`` at once, private to the user (0600): written
    to a new scratch file beside it (:func:`create`: never an existing file, never through a
    link), then renamed over it. Raises ``OSError``, with the scratch file gone.
    """
    scratch = f"{os.fspath(path)}.{os.getpid()}.tmp"
    try:
        try:
            out = create(scratch)
        except FileExistsError:  # left over, or planted: the name goes, not its target
            unlink(scratch)
            out = create(scratch)
        try:
            os.write(out, data)
        finally:
            os.close(out)
        os.replace(scratch, path)  # noqa: PTH105 - no pathlib on the hot path
    except OSError:
        unlink(scratch)
        raise


def unlink(path, dir_fd=None):
    """Remove the name ``path`` (a link itself, never its target) if it is there."""
    try:
        if dir_fd is None:
            os.unlink(path)  # noqa: PTH108 - no pathlib on the hot path
        else:
            os.unlink(path, dir_fd=dir_fd)
    except OSError:
        pass
