"""The working directory gone wrong: a path that failed because an earlier ``cd`` left the
shell elsewhere, or because the call ran in another folder than its paths are relative to.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from lessons_core.patterns import kept_programs
from lessons_core.scan import events as ev
from lessons_core.scan.detectors import triggers
from lessons_core.scan.detectors.tier2.paths import missing_lines


def _cd_to_root(fix: ev.Event) -> bool:
    """Whether the fix starts by changing to an absolute directory (``cd /repo && …``)."""
    if not fix.persistent_shell or not fix.command:
        return False
    segs = triggers.segments(fix.command)
    return bool(segs) and len(segs[0]) >= 2 and segs[0][0] == "cd" and segs[0][1][:1] in "/~"


def _cd_target(command: str) -> str | None:
    """Where a command line ``cd``s for good: the first ``cd`` of its top level (none inside
    a subshell ``( … )``), relative or absolute."""
    if command.lstrip().startswith("("):
        return None
    for seg in triggers.segments(command):
        if len(seg) >= 2 and seg[0] == "cd":
            return seg[1]
    return None


def _workdir_drift(call: ev.Event, fix: ev.Event) -> str | None:
    """The working directory a call ran in when its relative paths belonged to another one:
    the fix ran the same command in another ``workdir``, or gave the paths without the part
    of them the working directory already was (``packages/api/src/x.ts`` run in
    ``packages/api/src``, fixed by ``x.ts``)."""
    if not call.command or not fix.command:
        return None
    if call.cwd and fix.cwd and call.cwd != fix.cwd:
        return call.cwd
    where = call.cwd or call.project
    if not where:
        return None
    parts = set(PurePosixPath(where).parts)
    fix_words = {w for seg in triggers.segments(fix.command) for w in seg}
    for seg in triggers.segments(call.command):
        for word in seg[1:]:
            if "/" not in word or word.startswith(("/", "~", "$", "-")):
                continue
            head = word.split("/", 1)[0]
            if head in parts and any(word.endswith("/" + f) for f in fix_words if f):
                return where
    return None


def _path_of_another_workdir(
    events: list[ev.Event], i: int, call: ev.Event, fix: ev.Event, results: dict[int, ev.Event]
) -> str | None:
    """The working directory a call ran in when a relative path its error names as missing
    (``rg: workers: No such file or directory``) is one an earlier call of the session used,
    and that worked, from another ``workdir``, without a ``cd`` of its own: the path belongs to
    that folder (a sibling repository of a session that works in two). The fix, run in the
    same folder, dropped the path; a fix run in the other folder is :func:`_workdir_drift`'s.
    """
    if not call.cwd or not call.command or not fix.command or fix.cwd != call.cwd:
        return None
    missing = _missing_words(call.command, events[i].text)
    fix_words = _words(fix.command)
    missing = [p for p in missing if not any(_under(w, p) for w in fix_words)]
    if not missing:
        return None
    for k in range(i - 1, -1, -1):
        other = events[k]
        if (
            other.kind != ev.TOOL_CALL
            or not other.command
            or not other.cwd
            or other.cwd == call.cwd
            or other.sidechain != call.sidechain
        ):
            continue
        res = results.get(id(other))
        if res is None or res.failure is not None or _cd_target(other.command) is not None:
            continue
        words = _words(other.command)
        if any(_under(w, p) for p in missing for w in words):
            return call.cwd
    return None


def _words(command: str) -> list[str]:
    return [w for seg in triggers.segments(command) for w in seg[1:]]


def _under(word: str, path: str) -> bool:
    """Whether ``word`` is the relative ``path`` or a path inside it."""
    return word == path or word.startswith(path + "/")


def _missing_words(command: str, error: str) -> list[str]:
    """The relative paths of ``command`` that the lines of ``error`` saying a path is missing
    name (``rg: workers: No such file or directory`` names ``workers``)."""
    lines = missing_lines(error)
    if not lines:
        return []
    out = []
    for word in dict.fromkeys(_words(command)):
        if word.startswith(("/", "~", "$", "-", ".")) or not _PATH_WORD.fullmatch(word):
            continue
        named = re.compile(rf"(?<![\w./-]){re.escape(word)}(?![\w/-])")
        if any(named.search(line) for line in lines):
            out.append(word)
    return out


#: A word that can be a relative path: letters, digits and ``._-/`` (no glob, no quoting).
_PATH_WORD = kept_programs.compile(r"\w[\w./-]*")


def _drift(
    events: list[ev.Event], i: int, call: ev.Event, fix: ev.Event, results: dict[int, ev.Event]
) -> str | None:
    """The directory an earlier ``cd`` left the shell in, when that is why a path failed.

    It is when the agent's shell keeps its directory, an earlier successful call of the session
    ``cd``-ed into a relative directory for good, and the fix reached the same thing by an
    absolute path or without the ``cd``; or the earlier ``cd`` went to a subdirectory by its
    absolute path and the fix went back to the folder above it.
    """
    if not call.persistent_shell or not call.command or not fix.command:
        return None
    moved = None
    root = _cd_to_root(fix) and triggers.segments(fix.command)[0][1].rstrip("/")
    for j in range(i - 1, -1, -1):
        other = events[j]
        if other.kind != ev.TOOL_CALL or not other.command or other.sidechain != call.sidechain:
            continue
        res = results.get(id(other))
        if res is None or res.failure is not None:
            continue
        target = _cd_target(other.command)
        if target is None:
            continue
        if target.startswith(("/", "~", "$", "-")):
            if root and target.rstrip("/").startswith(root + "/"):
                moved = target  # an absolute cd into a subdirectory of where the fix went
            break  # an absolute cd put the shell where it meant: an older cd no longer counts
        moved = target
        break
    if moved is None:
        return None
    own_cd = triggers.top_level_cd(call.command)
    if own_cd is not None and triggers.top_level_cd(fix.command) is None:
        return moved  # ``cd test && …`` failed where the same work without the ``cd`` worked
    if own_cd is None and _cd_to_root(fix):
        return moved  # the same work worked once the fix went back to an absolute directory
    fix_words = [w for seg in triggers.segments(fix.command) for w in seg]
    for seg in triggers.segments(call.command):
        for word in seg[1:]:
            if word.startswith(("-", "/", "~", "$")) or ("/" not in word and "." not in word):
                continue
            if any(f.startswith("/") and f.endswith("/" + word) for f in fix_words):
                return moved
    return None
