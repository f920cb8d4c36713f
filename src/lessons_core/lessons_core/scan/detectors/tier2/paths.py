"""Where things live: a path the agent guessed, and the one the project has.

A call that named a path that is not there, fixed by the same kind of call on the file where it
really is (``Read src/utils/config.ts`` refused, ``Read src/config/config.ts`` worked), is a
fact of one repository, and once is no lesson: the next task looks elsewhere. The same wrong
guess in another session of the same project is one: the agent's picture of the repository is
wrong in a way it will repeat. So such a finding is written as a project lesson, held until the
guess comes back (:data:`lessons_core.scan.intake.RECURS_TAG`), with a trigger on the wrong path
alone, which the right path never matches.

Two paths are the same file looked for in two places when they share its name
(``utils/config.ts``, ``config/config.ts``) or its stem with another extension
(``config.js``, ``config.ts``). A fix on a file of another name is the next step of the task,
not the place of the one that was missing.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from lessons_core.patterns import kept_programs
from lessons_core.scan import events as ev
from lessons_core.scan.detectors import failures, triggers
from lessons_core.scan.detectors.tier2.calls import _FILE_TOOLS
from lessons_core.scan.detectors.tier2.finding import Finding

#: What an error says was not there (``cat: src/a.ts: No such file or directory``, ``ls: cannot
#: access 'x'``): the path, without its quotes.
_NOT_THERE = kept_programs.compile(
    r"""['"`]?([\w.~/@+-]*/[\w.@+-]+|[\w@+-]+\.[\w]+)['"`]?:? ?(?:no such file or directory"""
    r"""|not found|does not exist)|cannot access ['"`]?([^\s'"`:]+)""",
    re.IGNORECASE,
)


#: A line saying a path is missing, in the words of the class of such failures.
_MISSING = failures.mistake_class_named(failures.MISSING_PATH).pattern


def alike(wrong: str, right: str) -> bool:
    """Whether ``right`` is where the file ``wrong`` looked for lives: another path with the
    same file name, or the same stem with another extension."""
    if wrong == right:
        return False
    a, b = PurePosixPath(wrong), PurePosixPath(right)
    if not a.name or not b.name:
        return False
    return a.name == b.name or (bool(a.suffix) and bool(b.suffix) and a.stem == b.stem)


def relative(path: str, project: str | None, cwd: str | None = None) -> str:
    """``path`` from the project's root when it lies inside the project (given absolute, or
    relative to ``cwd``), else as it was given, without a leading ``./``."""
    if not path.startswith("/") and cwd:
        path = f"{cwd.rstrip('/')}/{path[2:] if path.startswith('./') else path}"
    if project and path.startswith(project.rstrip("/") + "/"):
        return path[len(project.rstrip("/")) + 1 :]
    return path[2:] if path.startswith("./") else path


def guessed(call: ev.Event, fix: ev.Event, error: str) -> tuple[str, str] | None:
    """The path ``call`` guessed and the one ``fix`` found the file at, both from the project's
    root, when the failure was that path not being there and the fix is the same kind of call
    on a path of the same file; else ``None``."""
    if not call.command:
        if call.tool not in _FILE_TOOLS or not call.paths or not fix.paths:
            return None
        wrong, right = call.paths[0], fix.paths[0]
        if not alike(wrong, right):
            return None
        return relative(wrong, call.project), relative(right, fix.project)
    given = set(_words(call.command))
    for m in _NOT_THERE.finditer(error[:1500]):
        wrong = m.group(1) or m.group(2)
        if wrong not in given:
            continue
        for right in _words(fix.command or ""):
            if right not in given and alike(wrong, right):
                return (
                    relative(wrong, call.project, call.cwd),
                    relative(right, fix.project, fix.cwd),
                )
    return None


def not_given(finding: Finding) -> bool:
    """Whether the paths an error says were missing are none the call gave: the program looked
    for a file of its own (a pager, the interpreter a shebang names, its configuration) and the
    fix made it do without, or showed it where. That is how the program is called here, not a
    guess at where a file of the project lives."""
    call, fix = finding.call, finding.fix
    if not call.command or fix is None or not fix.command:
        return False
    lines = missing_lines(finding.result.text)
    if not lines:
        return False
    given = [
        re.compile(rf"(?<![\w.-]){re.escape(word)}(?![\w.-])") for word in _given(call.command)
    ]
    return not any(word.search(line) for word in given for line in lines)


def missing_lines(error: str) -> list[str]:
    """The lines of the head of ``error`` that say a path is missing, in the words of the class
    of such failures."""
    return [line for line in error[:1500].splitlines() if _MISSING.search(line)]


def _given(command: str) -> set[str]:
    """Every word of ``command`` that may name a file: each argument and option's value (after
    ``=``), the program too where it was given by its path (``./run.sh``), and the last part of
    each."""
    out: set[str] = set()
    for seg in triggers.segments(command):
        for word in seg if "/" in seg[0] else seg[1:]:
            word = word.split("=", 1)[-1]
            out.update(part for part in (word, PurePosixPath(word).name) if part)
    return out


def _words(command: str) -> list[str]:
    """The words of a command that can name a file: no options, no operators."""
    return [w for seg in triggers.segments(command) for w in seg[1:] if not w.startswith("-")]


def guessed_trigger(call: ev.Event, wrong: str, right: str) -> str | None:
    """The pattern that fires on the wrong path again and never on the right one: the wrong
    path's shortest tail of two parts or more that is no tail of the right one (from whatever
    folder the next call gives it), as a glob for a file tool and as a whole word of a command
    line otherwise; ``None`` when every tail of it is one of the right path too."""
    parts = PurePosixPath(wrong).parts
    theirs = PurePosixPath(right).parts
    for n in range(min(2, len(parts)), len(parts) + 1):
        tail = parts[-n:]
        if tail != theirs[-n:] and "/" not in tail[0]:
            path = "/".join(tail)
            if not call.command:
                return f"**/{path}"
            return rf"(?<![\w.-]){re.escape(path)}(?![\w.-])"
    return None
