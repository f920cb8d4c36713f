"""One lesson compiled into its manifest entry, or refused with the reason.

Apart from the build (which writes the manifest and acts on the outcome figures) so that what
only needs an entry — checking a lesson before it is stored, the outcome loop's probe of what
a recurrence looks like — does not load the build, nor the build the outcome loop's judging.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from lessons_core.compiler import render
from lessons_core.errors import LessonsError
from lessons_core.models import SESSION_TYPES, Lesson, LessonType, MatchTarget
from lessons_core.patterns import globs, linearize, prefilter, regex_safety

LANG_PREFIXES = ("lang:", "language:")


@attrs.frozen
class Refusal:
    """A lesson left out of the manifest: which one, which pattern, and why; with the part of
    the pattern at fault and an accepted rewrite when they are known."""

    lesson_id: str
    slug: str
    field: str
    pattern: str
    reason: str
    part: str | None = None
    rewrite: str | None = None

    def message(self) -> str:
        """One line, with the pattern as the user wrote it (backslashes not doubled)."""
        text = (
            f"{self.slug or self.lesson_id}: {self.field} pattern `{self.pattern}`: {self.reason}"
        )
        if self.part and self.part != self.pattern:
            text += f"; the problem is `{self.part}`"
        if self.rewrite:
            text += f"; accepted instead: `{self.rewrite}`"
        return text


def refusals(lessons: Iterable[Lesson]) -> list[Refusal]:
    """What ``build`` would refuse among ``lessons`` (``add`` and ``import`` store none of it)."""
    found: list[Refusal] = []
    for lesson in lessons:
        try:
            compile_lesson(lesson)
        except Refused as exc:
            found.append(exc.refusal)
    return found


def refusal_error(found: Sequence[Refusal], command: str = "add") -> LessonsError:
    """One error naming every refused lesson, for ``add`` and ``import``: nothing was stored,
    what is wrong with each pattern, and what to run next."""
    lines = [
        f"nothing was stored: {len(found)} lesson(s) have a pattern the hook cannot run safely",
        *(f"  {r.message()}" for r in found),
        f"Fix the pattern and run `lessons {command}` again, or run `lessons {command} --partial`"
        " to store the other lessons and skip these.",
    ]
    return LessonsError("\n".join(lines))


class Refused(Exception):
    """Raised by :func:`compile_lesson` for a lesson the manifest cannot hold."""

    def __init__(self, refusal: Refusal):
        super().__init__(refusal.message())
        self.refusal = refusal


def compile_lesson(lesson: Lesson) -> dict[str, Any]:
    """The compact, hot-path form of one lesson (empty fields are left out)."""
    t = lesson.triggers
    entry: dict[str, Any] = {
        "type": str(lesson.type),
        "priority": lesson.priority,
        "confidence": lesson.confidence,
        "slug": lesson.slug,
    }
    if lesson.scope:
        entry["scope"] = lesson.scope
    langs = sorted(
        {
            tag.split(":", 1)[1].strip().lower()
            for tag in lesson.tags
            if tag.lower().startswith(LANG_PREFIXES) and tag.split(":", 1)[1].strip()
        }
    )
    if langs:
        entry["lang"] = langs
    if lesson.type not in SESSION_TYPES:
        if t.tool_names:
            entry["tools"] = sorted(set(t.tool_names))
        commands = _patterns(lesson, "command", t.command_patterns)
        if commands:
            entry["commands"] = commands
            if lesson.command_match_target == MatchTarget.EXECUTABLE:
                entry["commandTarget"] = "executable"
        path_sources = [_glob(lesson, g) for g in t.path_patterns]
        path_sources += [_anchored(r) for r in getattr(t, "path_regexes", ())]
        paths = _patterns(lesson, "path", path_sources)
        if paths:
            entry["paths"] = paths
        content = _patterns(lesson, "content", t.content_patterns)
        if content:
            entry["content"] = content
    models = _patterns(lesson, "model", t.model_patterns)
    if models:
        entry["models"] = models
    entry["text"] = render.injection_text(lesson)
    entry["short"] = render.short_text(lesson)
    return entry


#: Lessons that act on a match (deny, or deny once): a pattern matching every call is refused.
_BLOCKING = frozenset({LessonType.GUARD, LessonType.NUDGE})


def _patterns(lesson: Lesson, field: str, sources: Sequence[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for source in sources:
        verdict = regex_safety.judge(source)
        if verdict.reason:
            raise Refused(
                Refusal(
                    lesson.id,
                    lesson.slug,
                    field,
                    source,
                    verdict.reason,
                    verdict.part,
                    verdict.rewrite,
                )
            )
        blocking = lesson.type in _BLOCKING and field in ("command", "content")
        if blocking and regex_safety.matches_everything(source):
            raise Refused(
                Refusal(
                    lesson.id,
                    lesson.slug,
                    field,
                    source,
                    f"it matches every {field}, so this {lesson.type} would stop every call"
                    " of its tools; make it require the text the lesson is about",
                )
            )
        hot = regex_safety.hot_source(source)
        pattern: dict[str, Any] = {"source": hot, "literal": prefilter.required_literal(source)}
        if verdict.limit < regex_safety.DEGREE_LIMITS[1]:
            pattern["limit"] = verdict.limit
        if hot != source:
            pattern["written"] = source
        if pattern["literal"] and prefilter.folds_case(source):
            pattern["fold"] = True
        out.append(pattern)
    return out


def _glob(lesson: Lesson, glob: str) -> str:
    try:
        return globs.glob_to_regex(glob)
    except globs.GlobError as exc:
        raise Refused(Refusal(lesson.id, lesson.slug, "path", glob, str(exc))) from exc


_LEADING_FLAGS = re.compile(r"^\(\?[aiLmsux]+\)")


def _anchored(source: str) -> str:
    """A path regex made to match the whole path (global inline flags stay in front)."""
    flags = _LEADING_FLAGS.match(source)
    head = flags.group(0) if flags else ""
    rest = source[len(head) :]
    if len(linearize.top_level_split(rest, "|")) == 1:
        return f"{head}^{rest}$"  # no alternation to hold together: ``.*`` stays top-level
    return f"{head}^(?:{rest})$"


def trigger_warning(lesson: Lesson) -> str | None:
    t = lesson.triggers
    if lesson.type in SESSION_TYPES:
        return None
    has_patterns = bool(
        t.command_patterns
        or t.path_patterns
        or getattr(t, "path_regexes", ())
        or t.content_patterns
    )
    name = lesson.slug or lesson.id
    if t.tool_names and not has_patterns:
        tools = ", ".join(sorted(t.tool_names))
        return f"{name}: only a tool gate ({tools}): it fires on every call of that tool"
    if not t.tool_names and not has_patterns and not lesson.error_lines:
        # With error lines it is a failure-time lesson: recall brings it back by them.
        return f"{name}: a {lesson.type} lesson with no tool or pattern trigger never fires"
    if lesson.type == LessonType.GUARD and not t.command_patterns and not has_patterns:
        return f"{name}: a guard without patterns denies every call"
    return None
