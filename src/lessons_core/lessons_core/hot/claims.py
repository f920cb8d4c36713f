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

Beside them a session may keep small notes, ``<key>.<kind>`` (:meth:`SessionState.note_path`):
the compaction handoff (``handoff``, :mod:`lessons_core.hot.handoff`) and the failures waiting
for a fix (``fails``, :mod:`lessons_core.hot.reminders`). They are written whole through a new
``O_EXCL`` file and a rename, read bounded, and pruned with the rest.

The directory (``LESSONS_STATE_DIR``) is created 0700. If it is a symlink, is owned by another
user, or is writable by group or others, it is refused: somebody else could pre-create claims to
silence lessons or plant files, so state-dependent delivery is skipped and the refusal logged. A
directory of ours that others may only read (0755) is tightened to 0700 and used.

Inside it nothing is followed: the seen file is read and appended to through
:mod:`lessons_core.hot.safefile` (``O_NOFOLLOW``, regular files of ours with one link only), the
claim directory is opened ``O_NOFOLLOW | O_DIRECTORY`` and its entries are created, looked up and
unlinked relative to that descriptor, and the rewrite at compaction goes through a new
``O_EXCL`` temporary file. A link planted under any of these names is removed, never followed.
See docs/security.md.
"""

# os.path, not pathlib: importing pathlib costs the hook process more than these calls.
# ruff: noqa: PTH101, PTH102, PTH103, PTH106, PTH108, PTH118, PTH120, PTH208, SIM105

import os
import stat
import time

from lessons_core.hot import paths, safefile
from lessons_core.hot.digest import sha256

PRUNE_AFTER_SECONDS = 7 * 24 * 3600
#: Suffixes of a session's files (what :func:`prune` removes when old).
NOTE_KINDS = ("handoff", "fails", "tail")
MAX_NOTE_BYTES = 64 * 1024
#: Beyond this the seen file is not a record of ours (a session delivers far fewer names).
MAX_SEEN_BYTES = 4 * 1024 * 1024

_UID = os.getuid() if hasattr(os, "getuid") else None
#: A directory, never through a link, never waiting (a FIFO under the name fails at once).
_DIR_FLAGS = os.O_RDONLY | safefile.DIRECTORY | safefile.NOFOLLOW | safefile.NONBLOCK
#: Claims are made relative to a descriptor of their directory where the platform allows it.
_AT = (
    {os.open, os.unlink, os.stat} <= os.supports_dir_fd
    and os.listdir in os.supports_fd
    and os.stat in os.supports_follow_symlinks
)


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
    """Refuse a state dir that is a link, not ours or writable by others; make it 0700.

    A directory of ours that only others may read or enter (0755, 0750 …) is tightened to 0700
    in place: nobody else could have written into it, so what it holds can still be trusted.
    """
    st = os.lstat(root)
    if stat.S_ISLNK(st.st_mode):
        raise UnsafeStateDir(f"state dir {root} is a symlink")
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeStateDir(f"state dir {root} is not a directory")
    if _UID is not None and st.st_uid != _UID:
        raise UnsafeStateDir(f"state dir {root} is owned by uid {st.st_uid}")
    if st.st_mode & 0o022:
        raise UnsafeStateDir(f"state dir {root} is writable by group or others")
    if st.st_mode & 0o077:
        _tighten(root, st)


def _tighten(root, st):
    """chmod 0700 through a descriptor of the very directory checked above."""
    fd = os.open(root, _DIR_FLAGS)
    try:
        now = os.fstat(fd)
        if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            raise UnsafeStateDir(f"state dir {root} changed while it was checked")
        if os.chmod in os.supports_fd:
            os.chmod(fd, 0o700)
        else:
            os.chmod(root, 0o700)
    finally:
        os.close(fd)


class SessionState:
    """The dedup record of one session."""

    def __init__(self, root, session_id):
        key = session_key(session_id)
        self.root = root
        self.seen_path = os.path.join(root, key + ".seen")
        self.claim_dir = os.path.join(root, key + ".d")
        self._seen = None
        self._claims = None  # a descriptor of the claim directory, once opened

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: S110 - at interpreter exit there may be no ``os`` left
            pass

    def close(self):
        fd, self._claims = getattr(self, "_claims", None), None
        if fd is not None and fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass

    def seen(self):
        """Names recorded as delivered (read once per process)."""
        if self._seen is None:
            try:
                data = safefile.read(self.seen_path, MAX_SEEN_BYTES)
                text = data.decode("utf-8", "replace")
                self._seen = {line.strip() for line in text.splitlines() if line.strip()}
            except OSError:
                self._seen = set()
        return self._seen

    def names(self):
        """The seen file's names in the order they were delivered (duplicates dropped)."""
        try:
            text = safefile.read(self.seen_path, MAX_SEEN_BYTES).decode("utf-8", "replace")
        except OSError:
            return []
        out = []
        for line in text.splitlines():
            line = line.strip()
            if line and line not in out:
                out.append(line)
        return out

    def note_path(self, kind):
        """``<key>.<kind>``: a small per-session note beside the seen file."""
        return self.seen_path[: -len(".seen")] + "." + kind

    def read_note(self, kind):
        """The note's JSON value, or ``None`` when there is none (or it is not ours)."""
        try:
            data = safefile.read(self.note_path(kind), MAX_NOTE_BYTES)
        except OSError:
            return None
        from lessons_core.hot import fastjson

        try:
            return fastjson.loads(data)
        except ValueError:
            return None

    def write_note(self, kind, value):
        """Replace the note with ``value`` (JSON) through a new file and a rename."""
        from lessons_core.hot import fastjson

        data = fastjson.dumps(value).encode("utf-8", "replace")
        safefile.replace(self.note_path(kind), data, durable=False)

    def drop_note(self, kind):
        safefile.unlink(self.note_path(kind))

    def has(self, name):
        """True when ``name`` was delivered in this session (seen file or claim file)."""
        if name in self.seen():
            return True
        fd = self._claim_dir(create=False)
        if fd is None:
            return False
        return _exists(_file_name(name), fd, self.claim_dir)

    def claim(self, name):
        """Atomically take ``name``; True only for the one process that created the claim."""
        fd = self._claim_dir(create=True)
        try:
            made = _create(_file_name(name), fd, self.claim_dir)
        except FileExistsError:
            return False
        os.close(made)
        self._append(name)
        return True

    def _claim_dir(self, create):
        """A descriptor of ``<key>.d`` (``None`` when missing and ``create`` is false).

        The directory is opened without following a link, and used only through that
        descriptor, so a link planted under its name never leads claims, look-ups or ``/clear``
        into another directory. Such a link (or a plain file there) is removed, never followed.
        """
        if self._claims is not None:
            return self._claims
        if not _AT:
            return self._claim_dir_by_name(create)
        for _ in range(3):  # a link removed, the directory made, then opened
            try:
                fd = os.open(self.claim_dir, _DIR_FLAGS)
            except FileNotFoundError:
                if not create:
                    return None
                try:
                    os.mkdir(self.claim_dir, 0o700)
                except FileExistsError:
                    pass
                continue
            except OSError:
                _remove_odd(self.claim_dir)
                continue
            st = os.fstat(fd)
            if not stat.S_ISDIR(st.st_mode) or (_UID is not None and st.st_uid != _UID):
                os.close(fd)
                raise UnsafeStateDir(f"claim dir {self.claim_dir} is not a directory of ours")
            if st.st_mode & 0o022:
                os.close(fd)
                raise UnsafeStateDir(f"claim dir {self.claim_dir} is writable by others")
            self._claims = fd
            return fd
        if not create:
            return None
        raise UnsafeStateDir(f"claim dir {self.claim_dir} cannot be opened")

    def _claim_dir_by_name(self, create):
        """Where descriptors of directories are not usable: the same checks on the name."""
        try:
            st = os.lstat(self.claim_dir)
        except FileNotFoundError:
            if not create:
                return None
            os.mkdir(self.claim_dir, 0o700)
            return -1
        if not stat.S_ISDIR(st.st_mode):
            _remove_odd(self.claim_dir)
            if not create:
                return None
            os.mkdir(self.claim_dir, 0o700)
        return -1

    def _append(self, name):
        """Record ``name`` in the seen file; the claim file alone suffices if that fails."""
        data = (name + "\n").encode("utf-8", "replace")
        try:
            safefile.append(self.seen_path, data)
        except OSError:
            # A link, a FIFO or a second name where the seen file should be: drop that name
            # (the target is untouched) and start a file of our own.
            _remove_odd(self.seen_path)
            try:
                fd = safefile.create(self.seen_path)
            except OSError:
                return
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
        if self._seen is not None:
            self._seen.add(name)

    def wipe(self):
        """Forget everything this session was given (``/clear``)."""
        fd = self._claim_dir(create=False)
        if fd is not None:
            _empty(fd, self.claim_dir)
            self.close()
            try:
                os.rmdir(self.claim_dir)  # fails on a link: only a real directory goes
            except OSError:
                pass
        safefile.unlink(self.seen_path)
        for kind in NOTE_KINDS:
            self.drop_note(kind)
        self._seen = set()

    def release(self, names):
        """Make ``names`` deliverable again (compaction dropped them from the context)."""
        names = set(names)
        if not names:
            return
        fd = self._claim_dir(create=False)
        if fd is not None:
            for name in names:
                _unlink(_file_name(name), fd, self.claim_dir)
        kept = [n for n in sorted(self.seen()) if n not in names]
        try:
            safefile.replace(
                self.seen_path,
                "".join(n + "\n" for n in kept).encode("utf-8", "replace"),
                durable=False,
            )
        except OSError:
            safefile.unlink(self.seen_path)
        self._seen = set(kept)


def _create(name, fd, directory):
    if _AT:
        return safefile.create(name, dir_fd=fd)
    return safefile.create(os.path.join(directory, name))


def _unlink(name, fd, directory):
    if _AT:
        safefile.unlink(name, fd)
    else:
        safefile.unlink(os.path.join(directory, name))


def _exists(name, fd, directory):
    try:
        if _AT:
            os.stat(name, dir_fd=fd, follow_symlinks=False)
        else:
            os.lstat(os.path.join(directory, name))
    except OSError:
        return False
    return True


def _empty(fd, directory):
    """Unlink every entry of the directory open as ``fd`` (entries only, never a link's target)."""
    try:
        names = os.listdir(fd if _AT else directory)
    except OSError:
        return
    for entry in names:
        if _AT:
            safefile.unlink(entry, fd)
        else:
            safefile.unlink(os.path.join(directory, entry))


def _remove_odd(path):
    """Unlink ``path`` if it is anything but a directory (a link is removed, not followed)."""
    try:
        if not stat.S_ISDIR(os.lstat(path).st_mode):
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
        if not entry.endswith((".seen", ".d", *("." + kind for kind in NOTE_KINDS))):
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
                fd = os.open(path, _DIR_FLAGS)
            except OSError:
                continue
            try:
                _empty(fd, path)
            finally:
                os.close(fd)
            try:
                os.rmdir(path)
            except OSError:
                continue
        else:
            safefile.unlink(path)
        removed += 1
    return removed
