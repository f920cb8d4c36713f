"""Whether ``LESSONS_HOME`` is the user's own (standard library only: the hook process imports it).

Everything that steers what lessons does lives in ``LESSONS_HOME``: the store a build compiles
guards from, ``config.json``, the manifest a hook delivers, the cache naming which plugin
modules every command imports. A home that another user owns, or may write into, hands all of
that to them: a planted store becomes guards that deny the agent's calls, a planted plugin
cache makes each command import a module of their choice. So the home and each of those files
must belong to this user and be writable by nobody else, the rule the state directory follows
(:func:`lessons_core.hot.claims.check_state_dir`); a file's group or other write bit counts
only when the home lets that group or others in. Ownership and modes are only looked at, never
repaired: what such a home holds cannot be told from what its owner meant, so the user decides
(the message says how).

A home that does not exist yet has nothing to distrust. A name that is a link is judged by what
it reaches (a ``config.json`` kept with the user's dotfiles is fine when the user owns it).
"""

# ruff: noqa: PTH116, PTH118 - no pathlib on the hot path

import os
import stat

#: The files of ``LESSONS_HOME`` whose content steers behaviour: the store (and SQLite's
#: journal files beside it), the configuration, the manifest and its copies, and the caches and
#: memories commands act on without checking again.
STEERING = (
    "lessons.db",
    "lessons.db-wal",
    "lessons.db-shm",
    "config.json",
    "lesson-manifest.json",
    "lesson-manifest.marshal",
    "manifest.stamp",
    "plugin-entry-points.json",
    "pattern-probes.json",
    "regex-programs.marshal",
    "trigger-checks.json",
    "recall-index.bin",
    "recall-programs.marshal",
    "repo-memory.json",
    "scan-index.json",
    "skills.json",
)

_UID = os.getuid() if hasattr(os, "getuid") else None


def problem(home, names=STEERING):
    """Why ``home`` (or one of ``names`` in it) must not be trusted and what to do, as one
    message; ``None`` when it is this user's own (or is not there yet)."""
    found = check(home, names)
    return None if found is None else f"{found[0]}; it is not used. {found[1]}"


def check(home, names=STEERING):
    """``(what is wrong, what to do)`` for ``home`` and ``names`` in it, or ``None``."""
    try:
        st = os.stat(home)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"LESSONS_HOME {home} cannot be examined ({exc.strerror})", _ELSEWHERE
    if not stat.S_ISDIR(st.st_mode):
        return f"LESSONS_HOME {home} is not a directory", _ELSEWHERE
    found = _judge(home, st, "LESSONS_HOME ", 0o022)
    if found is not None:
        return found
    # A file's group or other write bit matters only to those who may enter the home: in a
    # 0700 home (how lessons makes it) nobody else can reach a file to write it.
    reach = (0o020 if st.st_mode & 0o010 else 0) | (0o002 if st.st_mode & 0o001 else 0)
    for name in names:
        path = os.path.join(home, name)
        try:
            st = os.stat(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            return f"{path} cannot be examined ({exc.strerror})", "Fix or remove it"
        found = _judge(path, st, "", reach)
        if found is not None:
            return found
    return None


_ELSEWHERE = "Set LESSONS_HOME to a directory of your own"


def _judge(path, st, label, writable):
    """Refuse ``path`` owned by someone else, or with any of the ``writable`` bits set."""
    if _UID is not None and st.st_uid != _UID:
        return (
            f"{label}{path} belongs to another user (uid {st.st_uid}; you are uid {_UID}), so "
            "what it holds may not be yours",
            f"If it is yours, take it back (chown {_UID} {path}); otherwise set LESSONS_HOME "
            "to a directory of your own",
        )
    bits = st.st_mode & writable
    if bits:
        who = {0o020: "its group", 0o002: "others"}.get(bits, "its group and others")
        return (
            f"{label}{path} is writable by {who} (mode {stat.S_IMODE(st.st_mode):04o}), so "
            "someone else may have changed what it holds",
            f"Check what it holds, then run: chmod go-w {path}",
        )
    return None
