"""Deliver each lesson once per session, across concurrent hook processes (standard library only).

No agent lets one hook invocation pass state to the next, and agents run hooks for parallel tool
calls at the same time, so the record lives in files:

* ``<key>.seen`` — an append-only list of what this session has been given, read once per call
  to skip delivered lessons without one ``stat`` each;
* ``<key>.d/<name>`` — one claim file per delivered thing, created with ``O_CREAT | O_EXCL``.
  The kernel lets exactly one process create it, and only that process delivers, so sixteen
  parallel hooks that match the same lesson deliver it exactly once.

``key`` is the first 24 hex digits of the session id's SHA-256 (no user text in file names).
Claim names are lesson ids, ``nudge:<id>`` for a nudge's first denial and ``session`` for the
session-start block.

The directory (``LESSONS_STATE_DIR``) is created 0700. If it is a symlink, is owned by another
user, or is writable by group or others, it is refused: somebody else could pre-create claims to
silence lessons or plant files, so state-dependent delivery is skipped and the refusal logged.
"""

# os.path, not pathlib: importing pathlib costs the hook process more than these calls.
# ruff: noqa: PTH102, PTH103, PTH105, PTH106, PTH108, PTH110, PTH118, PTH120, PTH208, SIM105

import os
import stat
import time

from lessons_core.hot import paths
from lessons_core.hot.digest import sha256

PRUNE_AFTER_SECONDS = 7 * 24 * 3600


class UnsafeStateDir(Exception):
    """The state directory exists but must not be trusted."""


def session_key(session_id):
    return sha256((session_id or "").encode("utf-8", "replace")).hexdigest()[:24]


def _file_name(name):
    safe = name.replace(":", ".")
    if safe and all(c.isalnum() or c in "._-" for c in safe) and safe.isascii():
        return safe
    return "h-" + sha256(name.encode("utf-8", "replace")).hexdigest()[:32]


def ensure_state_dir(environ=None):
    """Return the state directory, created 0700 if missing; raise UnsafeStateDir if untrusted."""
    root = paths.state_dir(environ)
    try:
        os.mkdir(root, 0o700)
    except FileExistsError:
        pass
    except FileNotFoundError:
        os.makedirs(os.path.dirname(root), exist_ok=True)
        try:
            os.mkdir(root, 0o700)
        except FileExistsError:
            pass
    check_state_dir(root)
    return root


def check_state_dir(root):
    st = os.lstat(root)
    if stat.S_ISLNK(st.st_mode):
        raise UnsafeStateDir(f"state dir {root} is a symlink")
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeStateDir(f"state dir {root} is not a directory")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise UnsafeStateDir(f"state dir {root} is owned by uid {st.st_uid}")
    if st.st_mode & 0o022:
        raise UnsafeStateDir(f"state dir {root} is writable by group or others")


class SessionState:
    """The dedup record of one session."""

    def __init__(self, root, session_id):
        key = session_key(session_id)
        self.root = root
        self.seen_path = os.path.join(root, key + ".seen")
        self.claim_dir = os.path.join(root, key + ".d")
        self._seen = None

    def seen(self):
        """Names recorded as delivered (read once per process)."""
        if self._seen is None:
            try:
                with open(self.seen_path, encoding="utf-8", errors="replace") as fh:
                    self._seen = {line.strip() for line in fh if line.strip()}
            except OSError:
                self._seen = set()
        return self._seen

    def has(self, name):
        """True when ``name`` was delivered in this session (seen file or claim file)."""
        if name in self.seen():
            return True
        return os.path.exists(os.path.join(self.claim_dir, _file_name(name)))

    def claim(self, name):
        """Atomically take ``name``; True only for the one process that created the claim."""
        path = os.path.join(self.claim_dir, _file_name(name))
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:
            return False
        except FileNotFoundError:
            try:
                os.mkdir(self.claim_dir, 0o700)
            except FileExistsError:
                pass
            try:
                fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            except FileExistsError:
                return False
        os.close(fd)
        self._append(name)
        return True

    def _append(self, name):
        fd = os.open(self.seen_path, os.O_CREAT | os.O_APPEND | os.O_WRONLY, 0o600)
        try:
            os.write(fd, (name + "\n").encode("utf-8", "replace"))
        finally:
            os.close(fd)
        if self._seen is not None:
            self._seen.add(name)

    def wipe(self):
        """Forget everything this session was given (``/clear``)."""
        try:
            names = os.listdir(self.claim_dir)
        except OSError:
            names = []
        for entry in names:
            _unlink(os.path.join(self.claim_dir, entry))
        try:
            os.rmdir(self.claim_dir)
        except OSError:
            pass
        _unlink(self.seen_path)
        self._seen = set()

    def release(self, names):
        """Make ``names`` deliverable again (compaction dropped them from the context)."""
        names = set(names)
        if not names:
            return
        for name in names:
            _unlink(os.path.join(self.claim_dir, _file_name(name)))
        kept = [n for n in sorted(self.seen()) if n not in names]
        tmp = self.seen_path + f".{os.getpid()}.tmp"
        try:
            fd = os.open(tmp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600)
            try:
                os.write(fd, "".join(n + "\n" for n in kept).encode("utf-8", "replace"))
            finally:
                os.close(fd)
            os.replace(tmp, self.seen_path)
        except OSError:
            _unlink(tmp)
            _unlink(self.seen_path)
        self._seen = set(kept)


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def open_session(session_id, environ=None):
    """The session's state, or raise UnsafeStateDir / OSError when it cannot be trusted."""
    return SessionState(ensure_state_dir(environ), session_id)


def prune(root, now=None, max_age=PRUNE_AFTER_SECONDS):
    """Remove session records untouched for ``max_age`` seconds (called at session start)."""
    now = time.time() if now is None else now
    try:
        entries = os.listdir(root)
    except OSError:
        return 0
    removed = 0
    for entry in entries:
        if not entry.endswith((".seen", ".d")):
            continue
        path = os.path.join(root, entry)
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if now - st.st_mtime < max_age:
            continue
        if stat.S_ISDIR(st.st_mode):
            try:
                for name in os.listdir(path):
                    _unlink(os.path.join(path, name))
                os.rmdir(path)
            except OSError:
                continue
        else:
            _unlink(path)
        removed += 1
    return removed
