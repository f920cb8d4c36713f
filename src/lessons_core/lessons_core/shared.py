"""One gate for lessons the user did not write: a repository's ``.lessons`` files, a team
store's rows, an agent's ``record`` call through the MCP server, a model's deep-scan answer.

Each of these is someone else's input. A repository is written by whoever can push to it, a
team row by any teammate (or anyone holding the database password), an MCP call by an agent
that may have read a prompt injection, a model's answer by whatever text the model was shown.
So whatever they bring passes the same checks, in one place:

* it is validated exactly as ``lessons add`` validates its input (:func:`lessons_core.serde.
  lesson_from_json` for the shape, :func:`lessons_core.validate.check_lesson` for the meaning,
  :func:`lessons_core.compiler.entries.refusals` for the patterns the manifest would refuse):
  the same 64 KiB bound, the same id rule, the same regular expressions;
* a trigger that matches everything (:func:`matches_everything`) is refused: from a shared
  source it would put its text in front of every call, which is how a standing injection or a
  guard that denies every call would look;
* a lesson that acts on its own (:data:`ACTING_TYPES`: a guard or nudge denies calls, a
  directive or protocol speaks at every session start) is never made active by the source: it
  waits for the user to accept it (:func:`waits_for_acceptance`). A hint only adds context and
  may be delivered, within its scope.

A bad item is named and left out (``Refused`` carries the message); the others are read.
"""

from __future__ import annotations

import re
from typing import Any

from lessons_core.errors import ValidationError
from lessons_core.models import Lesson, LessonType

#: The shared sources, as messages name them.
REPO, TEAM, MCP = "repository", "team store", "MCP server"

#: Types whose lessons act without the model asking: denied calls, session-start text.
ACTING_TYPES = frozenset(
    {LessonType.GUARD, LessonType.NUDGE, LessonType.DIRECTIVE, LessonType.PROTOCOL}
)
#: Unrelated inputs (commands, paths, text in several scripts): a pattern that matches all of
#: them, or the empty string, matches every call in practice.
_PROBES = ("ls", "git status", "x", "cd ..", "C:\\Windows", "echo 1", "\u65e5\u672c", "README.md")
_REGEX_FIELDS = (
    ("command_patterns", "triggers.commandPatterns"),
    ("content_patterns", "triggers.contentPatterns"),
    ("model_patterns", "triggers.modelPatterns"),
    ("path_regexes", "triggers.pathRegexes"),
)
#: Types that fire on tool calls, so need a trigger narrower than "every call".
_CALL_TYPES = frozenset({LessonType.HINT, LessonType.NUDGE, LessonType.GUARD})


class Refused(ValidationError):
    """A shared lesson that is left out; the message names it, the field and what to do."""


def matches_everything(pattern: str) -> bool:
    """Whether the regular expression ``pattern`` matches the empty string, or every one of a
    handful of unrelated inputs: as a trigger it would fire on every call.

    ``pattern`` has passed :func:`lessons_core.validate.check_regex` and the compiler's
    pattern-safety rules, so searching a few short strings is cheap.
    """
    try:
        program = re.compile(pattern)
    except (re.error, RecursionError, OverflowError):
        return False  # not a pattern at all: validation names that
    if program.search("") is not None:
        return True
    return all(program.search(probe) is not None for probe in _PROBES)


def _glob_matches_everything(glob: str) -> bool:
    from lessons_core.patterns.globs import GlobError, glob_to_regex

    try:
        source = glob_to_regex(glob)
    except GlobError:
        return False
    paths = ("/a", "/home/u/x.py", "/srv/data/report.csv", "C:/Windows/win.ini", "/x/.env")
    program = re.compile(source)
    return all(program.search(path) is not None for path in paths)


def check(lesson: Lesson, source: str, where: str | None = None) -> list[str]:
    """Raise :class:`Refused` for a lesson from ``source`` that may not be used; return the
    warnings ``lessons add`` would print for it.

    The checks are ``lessons add``'s, then the shared-source rule on match-everything triggers.
    """
    from lessons_core import validate
    from lessons_core.compiler.entries import refusals

    name = validate.describe(lesson, where)
    try:
        warnings = validate.check_lesson(lesson, where=name)
    except ValidationError as exc:
        raise Refused(f"from the {source}: {exc}") from None
    try:
        refused = refusals([lesson])
    except Exception as exc:  # the safety probe failing (a stray timer on a busy machine)
        # is no verdict on the lesson: the build compiles it again and leaves out what it
        # refuses; refusing here would drop a good lesson for good.
        from lessons_core.logs import get_logger

        get_logger().warning("shared.check_unfinished", lesson=name, error=type(exc).__name__)
        refused = []
    if refused:
        raise Refused(f"from the {source}: {refused[0].message()}", where=name)
    triggers = lesson.triggers
    found = everything_in(lesson)
    if found is not None:
        raise _everything(source, name, *found)
    if (
        lesson.type in _CALL_TYPES
        and triggers.tool_names
        and not (
            triggers.command_patterns
            or triggers.path_patterns
            or triggers.content_patterns
            or triggers.path_regexes
        )
    ):
        # Tools and no pattern: every call of the tools. (No tools and no pattern is a lesson
        # failure-time recall brings back by its error lines; it fires on no call.)
        raise Refused(
            f"from the {source}: a {lesson.type} with no command, path or content pattern fires "
            "on every call of its tools; a shared lesson must say when it applies",
            where=name,
            field="triggers",
        )
    return warnings


def everything_in(lesson: Lesson) -> tuple[str, str] | None:
    """The first trigger of ``lesson`` that matches every call, as (field, pattern), if any."""
    triggers = lesson.triggers
    for attr, field in _REGEX_FIELDS:
        for index, pattern in enumerate(getattr(triggers, attr)):
            if matches_everything(pattern):
                return f"{field}[{index}]", pattern
    for index, glob in enumerate(triggers.path_patterns):
        if _glob_matches_everything(glob):
            return f"triggers.pathPatterns[{index}]", glob
    return None


def _everything(source: str, name: str, field: str, pattern: str) -> Refused:
    return Refused(
        f"from the {source}: pattern {_short(pattern)!r} matches every call; a shared lesson "
        "must say when it applies (a narrower pattern)",
        where=name,
        field=field,
    )


def from_json(obj: Any, source: str, where: str) -> Lesson:
    """The lesson in contract JSON ``obj`` from ``source``, checked as ``lessons add`` checks
    input plus the shared-source rules; :class:`Refused` (never another exception) when it
    cannot be used."""
    from lessons_core import serde

    try:
        lesson = serde.lesson_from_json(obj, where=where)
    except ValidationError as exc:
        raise Refused(f"from the {source}: {exc}") from None
    except (TypeError, ValueError, RecursionError) as exc:  # a shape cattrs did not foresee
        raise Refused(
            f"from the {source}: {where}: not a lesson ({type(exc).__name__}: {_short(str(exc))})"
        ) from None
    check(lesson, source, where)
    return lesson


def waits_for_acceptance(lesson: Lesson) -> bool:
    """Whether ``lesson``, from a shared source, must wait for the user before it is active."""
    return lesson.type in ACTING_TYPES


def _short(text: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters: a message never echoes a whole input back."""
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"
