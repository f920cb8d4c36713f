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

from lessons_core.compiler import globs, linearize, prefilter, regex_safety, render
from lessons_core.errors import LessonsError
from lessons_core.models import SESSION_TYPES, Lesson, LessonType, MatchTarget

LANG_PREFIXES = ("lang:", "language:")


@attrs.frozen
class Refusal:
    """A lesson left out of the manifest: which one, which pattern, and why."""

    lesson_id: str
    slug: str
    field: str
    pattern: str
    reason: str

    def message(self) -> str:
        return (
            f"{self.slug or self.lesson_id}: {self.field} pattern {self.pattern!r}: {self.reason}"
        )


def refusals(lessons: Iterable[Lesson]) -> list[Refusal]:
    """What ``build`` would refuse among ``lessons`` (``add`` and ``import`` store none of it)."""
    found: list[Refusal] = []
    for lesson in lessons:
        try:
            compile_lesson(lesson)
        except Refused as exc:
            found.append(exc.refusal)
    return found


def refusal_error(found: Sequence[Refusal]) -> LessonsError:
    """One error naming every refused lesson, for ``add`` and ``import``."""
    shown = "; ".join(r.message() for r in found)
    return LessonsError(f"{len(found)} lesson(s) would be left out of the manifest: {shown}")


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


def _patterns(lesson: Lesson, field: str, sources: Sequence[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for source in sources:
        reason = regex_safety.check_pattern(source)
        if reason:
            raise Refused(Refusal(lesson.id, lesson.slug, field, source, reason))
        hot = regex_safety.hot_source(source)
        pattern: dict[str, Any] = {"source": hot, "literal": prefilter.required_literal(source)}
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
    if not t.tool_names and not has_patterns:
        return f"{name}: a {lesson.type} lesson with no tool or pattern trigger never fires"
    if lesson.type == LessonType.GUARD and not t.command_patterns and not has_patterns:
        return f"{name}: a guard without patterns denies every call"
    return None
