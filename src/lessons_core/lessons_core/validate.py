"""Semantic checks on a lesson, after :mod:`lessons_core.serde` has checked its shape.

A lesson with an empty remediation, a priority of 42 or a regex that does not compile would be
stored fine and then fail quietly in the hook process (which must fail open). Catching it at
``add`` / ``edit`` / ``import`` time, with a message naming the lesson, the field and the
pattern, is the only place the user can still be told. So is a lesson that can never fire: a
tool name that is a known one misspelt (``bash``: "did you mean 'Bash'?", from the vocabulary of
every installed adapter, :mod:`lessons_core.tool_names`), or a guard or nudge with no pattern
(it would deny every call of its tools, or none). A tool name like no known one is only a
warning: plugins and MCP servers add tools we cannot know about.

Whether a regex can backtrack catastrophically is the compiler's question
(``lessons_core.patterns.regex_safety``), not this module's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lessons_core.errors import ValidationError
from lessons_core.logs import get_logger
from lessons_core.models import Candidate, Lesson, LessonType
from lessons_core.patterns import kept_programs
from lessons_core.tool_names import ToolVocabulary

log = get_logger()

PRIORITY_RANGE = (1, 10)
#: The most text one lesson may hold, in UTF-8 bytes, counting every string it carries (texts,
#: tags, error lines, tool names, patterns, scope). A lesson is delivered into an agent's context
#: within a budget of a few KiB, so this is generous; it keeps a runaway paste (or a transcript
#: block never closed) out of the store, and every lesson far inside what the manifest's index
#: can address.
MAX_LESSON_TEXT_BYTES = 64 * 1024
#: Ids we mint are ULIDs; imported ones are kept as they are if they are at least sane.
_ID = kept_programs.compile(r"^[A-Za-z0-9._-]{1,64}$")

_REGEX_FIELDS = (
    ("command_patterns", "triggers.commandPatterns"),
    ("content_patterns", "triggers.contentPatterns"),
    ("model_patterns", "triggers.modelPatterns"),
    ("path_regexes", "triggers.pathRegexes"),
)


def is_canonical_tool(name: str) -> bool:
    return ToolVocabulary().knows(name)


def describe(lesson: Lesson, where: str | None = None) -> str:
    """How error messages name a lesson: the caller's position if any, else its slug."""
    return where or (f"lesson {lesson.slug!r}" if lesson.slug else "lesson")


def check_regex(pattern: str) -> str | None:
    """The ``re.error`` text if ``pattern`` does not compile as a Python regex, else ``None``."""
    try:
        re.compile(pattern)
    except re.error as exc:
        return str(exc)
    except (RecursionError, OverflowError) as exc:  # absurd nesting or repeat counts
        return type(exc).__name__
    return None


def check_glob(glob: str) -> str | None:
    """Why a path glob is unusable, or ``None``.

    Globs are matched against absolute paths with ``**`` crossing directories, so we reject the
    forms that can never match what was meant: empty, NUL bytes, unbalanced ``[``, and ``**``
    glued to other characters inside a path segment (``a**b`` means ``a*b`` in most glob dialects
    and is almost always a typo).
    """
    if not glob.strip():
        return "empty glob"
    if "\x00" in glob:
        return "contains a NUL byte"
    i = 0
    while i < len(glob):
        char = glob[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":
            close = glob.find("]", i + 2 if glob[i + 1 : i + 2] == "]" else i + 1)
            if close < 0:
                return f"unclosed '[' at position {i}"
            i = close
        i += 1
    for segment in re.split(r"[/\\]", glob):
        if "**" in segment and segment != "**":
            return f"'**' must be a whole path segment (found {segment!r})"
    return None


def _strings_size(values: Iterable[str | None]) -> int:
    return sum(len(v.encode("utf-8", "surrogatepass")) for v in values if v)


def lesson_text_bytes(lesson: Lesson) -> int:
    """The UTF-8 size of every string ``lesson`` carries (what :data:`MAX_LESSON_TEXT_BYTES`
    bounds)."""
    t = lesson.triggers
    return _strings_size(
        (
            lesson.summary,
            lesson.mistake,
            lesson.remediation,
            lesson.injection,
            lesson.scope,
            *lesson.tags,
            *lesson.error_lines,
            *t.tool_names,
            *t.command_patterns,
            *t.path_patterns,
            *t.content_patterns,
            *t.model_patterns,
            *t.path_regexes,
        )
    )


def candidate_text_bytes(candidate: Candidate) -> int:
    """The same measure for a scan candidate (what its lesson would carry)."""
    return _strings_size(
        (
            candidate.summary,
            candidate.mistake,
            candidate.fix,
            candidate.trigger,
            candidate.tool,
            candidate.project,
            *candidate.tags,
            *candidate.error_lines,
        )
    )


def size_problem(size: int) -> str | None:
    """The message for a lesson of ``size`` bytes of text, or ``None`` when it is within limits."""
    if size <= MAX_LESSON_TEXT_BYTES:
        return None
    return (
        f"holds {size} bytes of text, more than the {MAX_LESSON_TEXT_BYTES // 1024} KiB a lesson "
        "may hold; shorten it or split it into several lessons"
    )


def check_lesson(
    lesson: Lesson, where: str | None = None, *, tools: ToolVocabulary | None = None
) -> list[str]:
    """Raise :class:`ValidationError` for the first real problem; return warnings (also logged).

    ``where`` names the lesson in messages (``"line 3"``, ``"lesson 2"``); without it the slug
    does. ``tools`` is the vocabulary tool names are checked against (default: the canonical
    names alone; the commands pass every installed adapter's, :func:`tool_names.installed`).
    """
    name = describe(lesson, where)
    too_big = size_problem(lesson_text_bytes(lesson))
    if too_big:
        raise ValidationError(too_big, where=name)
    for attr, field in (
        ("summary", "summary"),
        ("mistake", "mistake"),
        ("remediation", "remediation"),
    ):
        if not getattr(lesson, attr).strip():
            raise ValidationError("must not be empty", where=name, field=field)
    if not _ID.match(lesson.id):
        raise ValidationError(
            f"{lesson.id!r} is not a usable id (1-64 letters, digits, '-', '_' or '.'; "
            "leave it out to get a new ULID)",
            where=name,
            field="id",
        )
    low, high = PRIORITY_RANGE
    if not low <= lesson.priority <= high:
        raise ValidationError(
            f"must be between {low} and {high}, got {lesson.priority}", where=name, field="priority"
        )
    if not 0.0 <= lesson.confidence <= 1.0:
        raise ValidationError(
            f"must be between 0 and 1, got {lesson.confidence}", where=name, field="confidence"
        )
    if lesson.provenance.occurrences < 0:
        raise ValidationError("must not be negative", where=name, field="provenance.occurrences")
    triggers = lesson.triggers
    for attr, field in _REGEX_FIELDS:
        for index, pattern in enumerate(getattr(triggers, attr)):
            problem = check_regex(pattern)
            if problem is not None:
                raise ValidationError(
                    f"pattern {pattern!r} is not a valid Python regex: {problem}",
                    where=name,
                    field=f"{field}[{index}]",
                )
    for index, glob in enumerate(triggers.path_patterns):
        problem = check_glob(glob)
        if problem is not None:
            raise ValidationError(
                f"glob {glob!r} is not usable: {problem}",
                where=name,
                field=f"triggers.pathPatterns[{index}]",
            )
    problem = never_fires(lesson)
    if problem is not None:
        raise ValidationError(problem, where=name, field="triggers")
    vocabulary = tools or ToolVocabulary()
    warnings = []
    for index, tool in enumerate(triggers.tool_names):
        if vocabulary.knows(tool):
            continue
        meant = vocabulary.suggestion(tool)
        if meant is not None:
            raise ValidationError(
                f"tool name {tool!r} is not one any agent reports; did you mean {meant}?",
                where=name,
                field=f"triggers.toolNames[{index}]",
            )
        message = (
            f"{name}: tool name {tool!r} is not a canonical tool name; it only matches if an "
            "adapter reports exactly that name"
        )
        log.warning("unknown tool name", lesson=name, tool=tool)
        warnings.append(message)
    return warnings


#: Lesson types that deny the call they match.
_DENYING = (LessonType.GUARD, LessonType.NUDGE)


def never_fires(lesson: Lesson) -> str | None:
    """Why a guard or nudge without a pattern cannot do its work, or ``None``.

    Such a lesson denies on its tool names alone: every call of those tools (a guard for ever,
    a nudge once a session), or, with no tool name either, nothing the user meant.
    """
    if lesson.type not in _DENYING:
        return None
    t = lesson.triggers
    if t.command_patterns or t.path_patterns or t.path_regexes or t.content_patterns:
        return None
    tools = ", ".join(t.tool_names)
    effect = f"it would deny every {tools} call" if tools else "it has nothing to match"
    return (
        f"a {lesson.type} needs a command, path or content pattern: without one {effect}; "
        "add triggers.commandPatterns (or pathPatterns), or make it a hint"
    )
