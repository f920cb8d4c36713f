"""The scanner's own regular expressions, compiled once per Python and kept between scans.

``re.compile`` runs a parser and a compiler written in Python, which turn a pattern into a list
of integers, and hands that list to the C engine ``_sre``. The detectors, intake and the secret
rules compile about a hundred fixed patterns, some of them long caseless alternations: about
13 ms of every scan process that has something to read, spent producing the same lists again.

So the patterns compiled through :func:`compile` during a scan are kept, as those lists, in
``LESSONS_HOME/regex-programs.marshal`` (the same technique the manifest compiler uses for the
hook: :mod:`lessons_core.patterns.programs`), and the next scan hands them to ``_sre.compile``
and gets the very pattern objects ``re.compile`` would have built (equal to them: same source,
flags and code). The file is keyed by the Python that wrote it and the engine's version
(``_sre.MAGIC``), read only when it is ours and not a link; anything unreadable, foreign or
refused by the engine (which checks every program it is given) means ``re.compile``, as before.
Only fixed patterns of the project's own modules go through here, never a pattern built from
what a transcript holds. A pattern with no kept program yet (a fresh ``LESSONS_HOME``) is built
here the way ``re.compile`` builds it, once, and that program is what is kept: a first scan no
longer parses and compiles each of its patterns twice.

All of that leans on CPython internals (``re._parser``, ``re._compiler._code``, the arguments of
``_sre.compile``) that each release may change. So it runs only on the Pythons it was written
and tested against (:data:`RECOGNISED`); on any other :func:`compile` is ``re.compile`` and no
file is read or written: the scan is a few milliseconds slower, never wrong.

Measured against plain ``re.compile`` in the same run (interleaved pairs, 41 of each): an
incremental scan of one changed session spends about 14 ms (8%) more CPU and 23 ms more wall
time without the kept programs; a full scan, a re-scan with nothing new and a first scan from a
fresh ``LESSONS_HOME`` (which has nothing kept yet) are the same within the noise.
"""

from __future__ import annotations

import _sre
import marshal
import re
import sys
from pathlib import Path
from typing import Any

from lessons_core.hot import safefile

#: (implementation, major, minor) of the Pythons whose ``re`` internals this was checked on; on
#: any other the scanner's patterns are plain ``re.compile``. Add a version here only with this
#: module's tests passing on it.
RECOGNISED = frozenset({("cpython", 3, 11), ("cpython", 3, 12), ("cpython", 3, 13)})
#: The memory's file in ``LESSONS_HOME``.
MEMORY_NAME = "regex-programs.marshal"
#: Bump when what is stored changes.
FORMAT = 1
#: Programs kept at most (the project's patterns are about a hundred).
LIMIT = 1024
#: The most the file is read of.
MAX_BYTES = 4 << 20

#: (source, flags) -> the arguments ``_sre.compile`` takes after the source.
_programs: dict[tuple[str, int], tuple[Any, ...]] = {}
#: Patterns compiled by ``re`` in this process, to be kept by :func:`save`.
_missed: dict[tuple[str, int], None] = {}
#: Programs built in this process (not loaded), also to be kept by :func:`save`.
_built: dict[tuple[str, int], None] = {}


def recognised(implementation: str, version: tuple[object, ...]) -> bool:
    """Whether programs are built, kept and loaded on this Python (see :data:`RECOGNISED`)."""
    return (implementation, *version[:2]) in RECOGNISED


#: Decided once, at import: this process's Python.
ACTIVE = recognised(sys.implementation.name, sys.version_info[:2])


def _key() -> str:
    return f"{FORMAT}:{sys.implementation.name}:{sys.version}:{_sre.MAGIC}:{_sre.CODESIZE}"


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, from a kept program when there is one."""
    if not ACTIVE:
        return re.compile(pattern, flags)
    key = (pattern, int(flags))
    program = _programs.get(key)
    if program is not None:
        compiled = _engine(pattern, program)
        if compiled is not None:
            return compiled
        del _programs[key]  # refused by the engine: compile it as re does
    else:
        # Not kept yet: build the program the way ``re.compile`` does, once, so that keeping
        # it (:func:`save`) does not parse and compile the pattern a second time.
        from lessons_core.patterns.programs import program as build

        built = build(pattern, int(flags))
        fresh = _engine(pattern, built) if built is not None else None
        if built is not None and fresh is not None:
            _programs[key] = built
            _built[key] = None
            return fresh
    _missed[key] = None  # (a pattern the parser refused: re.compile raises its error)
    return re.compile(pattern, flags)


def _engine(pattern: str, program: tuple[Any, ...]) -> re.Pattern[str] | None:
    """The pattern ``_sre`` builds from ``program``, or ``None`` when it refuses it."""
    try:
        built: re.Pattern[str] = _sre.compile(pattern, *program)
    except Exception:  # refused: the caller compiles the pattern as re does
        return None
    return built


def load(home: Path | str) -> None:
    """Take the programs an earlier scan left in ``home`` (nothing, when there are none, or on
    a Python not :data:`RECOGNISED`)."""
    if not ACTIVE:
        return
    try:
        # Ours, private, never through a link: the trust the hook gives the manifest's marshal.
        data = marshal.loads(safefile.read(Path(home) / MEMORY_NAME, MAX_BYTES))  # noqa: S302
    except (OSError, ValueError, EOFError, TypeError):  # safefile.UnsafeFile is an OSError
        return
    if not isinstance(data, dict) or data.get("key") != _key():
        return
    found = data.get("programs")
    if not isinstance(found, dict):
        return
    for key, value in found.items():
        if (
            isinstance(key, tuple)
            and len(key) == 2
            and isinstance(key[0], str)
            and isinstance(key[1], int)
            and isinstance(value, tuple)
            and len(value) == 5
        ):
            _programs.setdefault(key, value)


def save(home: Path | str) -> bool:
    """Keep, with what was loaded, the programs of the patterns ``re`` compiled in this process;
    False when nothing needed writing or it could not be written (nothing is lost)."""
    if not ACTIVE or (not _missed and not _built):
        return False
    from lessons_core.patterns.programs import program  # the build's, for the hook's patterns

    for key in list(_missed):
        built = program(*key)  # (None only for a pattern re.compile did not take either)
        if built is not None:
            _programs[key] = built
    _missed.clear()
    _built.clear()
    kept = dict(list(_programs.items())[-LIMIT:])
    body = marshal.dumps({"key": _key(), "programs": kept})
    try:
        safefile.replace(Path(home) / MEMORY_NAME, body, durable=False)
    except OSError:
        return False
    return True


def forget() -> None:
    """Drop what this process holds (tests)."""
    _programs.clear()
    _missed.clear()
    _built.clear()
