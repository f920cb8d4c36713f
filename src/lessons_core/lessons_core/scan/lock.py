"""The scan lock: only one scan runs at a time.

A lock file in ``LESSONS_HOME`` serialises scans, so two scans started together cannot both
read the same new lines and count them twice.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from lessons_core.errors import LessonsError
from lessons_core.logs import get_logger

log = get_logger()

LOCK_NAME = "scan.lock"


class ScanBusy(LessonsError):
    """Another scan holds the lock."""


@contextlib.contextmanager
def scan_lock(
    home: Path, *, wait: bool = True, on_wait: Callable[[], None] | None = None
) -> Iterator[None]:
    """Hold the scan lock (``fcntl.flock`` on ``LESSONS_HOME/scan.lock``) for a block.

    With ``wait`` false a held lock raises :class:`ScanBusy` at once (background scans just
    leave); otherwise the caller waits for the running scan to finish.
    """
    home.mkdir(parents=True, exist_ok=True)
    path = home / LOCK_NAME
    fh = _open_lock_file(path)
    try:
        if sys.platform != "win32":
            import fcntl

            try:
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError as exc:
                if not wait:
                    raise ScanBusy("another scan is running") from exc
                if on_wait is not None:
                    on_wait()
                fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        yield
    finally:
        fh.close()


def _open_lock_file(path: Path) -> IO[str]:
    """The lock file, opened without following a link (it is truncated and written to)."""
    import stat

    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as exc:
        raise LessonsError(f"cannot open the scan lock {path}: {exc.strerror}") from exc
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
        os.close(fd)
        raise LessonsError(f"the scan lock {path} is not a plain file; remove it")
    return os.fdopen(fd, "r+")
