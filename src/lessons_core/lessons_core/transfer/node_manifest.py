"""Import the Node lessons-learned ``lesson-manifest.json`` (for people migrating from it).

The manifest is the Node implementation's compiled output: lessons keyed by ULID, each with its
slug, type, priority, tool names, ``{source, flags}`` regexes in JavaScript syntax, match target,
scope, tags and text (``summary``, ``problem``, ``solution`` and the pre-rendered ``message``).

What maps how, and why:

* the Node id (a ULID) stays the id and the slug stays the slug, so re-importing is idempotent and
  people's muscle memory (``lessons show <slug>``) carries over;
* ``problem`` / ``solution`` / ``message`` become ``mistake`` / ``remediation`` / ``injection``;
* regexes are translated from the JavaScript dialect (see :func:`js_to_python`);
* ``pathRegexSources`` are regexes, not globs, so they go to ``triggers.path_regexes`` unchanged
  in meaning rather than being approximated by globs;
* Node matches ``commandRegexSources`` against the command of a ``Bash`` call *and* against the
  text an ``Edit``/``Write`` introduces. Our model keeps those apart (a content pattern is a gate
  that a ``Bash`` call, having no content, never passes), so: a lesson for ``Bash`` only (or for
  no named tool) gets them as ``command_patterns``; a lesson for other tools only gets them as
  ``content_patterns`` (exactly Node's meaning); a lesson for ``Bash`` *and* other tools gets
  them as ``command_patterns``, so on its other tools it fires on its path regexes alone (or,
  without any, not at all) — listed in the report;
* ``scope`` is kept verbatim. Node derived project ids from the path (``Users-joe-src-app``);
  ours come from the git remote, so such a scope matches no project here: ``lessons import
  --scope global|here`` re-scopes them on the way in (:mod:`lessons_core.transfer.scopes`),
  otherwise the report counts them.

Anything that cannot be represented (an unknown type, a regex that Python cannot compile even
after translation, or what ``lessons add`` would refuse: :func:`lessons_core.validate.check_lesson`)
is left out and listed in the report with the reason; ``lessons import`` then leaves out what
the manifest compiler would refuse (:func:`lessons_core.authoring.refusal`), as for every
format.
"""

from __future__ import annotations

import re
from typing import Any

from lessons_core import ids, serde, validate
from lessons_core.errors import LessonsError, ValidationError
from lessons_core.models import (
    Lesson,
    LessonType,
    MatchTarget,
    Provenance,
    Triggers,
)
from lessons_core.tool_names import ToolVocabulary
from lessons_core.transfer.merge import ImportReport

NODE_MANIFEST_TYPE = "lessons-learned-manifest"
#: JavaScript flags with a Python inline equivalent.
_INLINE_FLAGS = {"i": "i", "m": "m", "s": "s"}
#: Flags that change nothing for a single ``test()``: global, indices, unicode (Python ``str``
#: patterns are Unicode already).
_HARMLESS_FLAGS = frozenset("gdu")
_NODE_PROJECT_SCOPE = re.compile(r"^(?:Users|home)-[^-]+(?:-|$)")
#: The report's heading for lessons whose command regexes Node also checked on edited text.
SPLIT_TOOLS_NOTE = (
    "for Bash and other tools: their command regexes are checked on Bash commands only, where "
    "Node also checked the text the other tools write"
)


def is_node_project_scope(scope: str | None) -> bool:
    """Whether ``scope`` is a Node path-derived project id (``Users-joe-src-app``): no project
    id computed here ever has that form."""
    return bool(scope) and _NODE_PROJECT_SCOPE.match(scope or "") is not None


class TranslationError(ValueError):
    """A JavaScript regex that has no faithful Python form."""


def is_node_manifest(obj: Any) -> bool:
    """True for a parsed Node ``lesson-manifest.json``."""
    if not isinstance(obj, dict) or not isinstance(obj.get("lessons"), dict):
        return False
    if obj.get("type") == NODE_MANIFEST_TYPE:
        return True
    sample = next(iter(obj["lessons"].values()), None)
    return isinstance(sample, dict) and "commandRegexSources" in sample


def _translate_body(source: str) -> str:
    """The pattern text, JavaScript → Python (flags are handled by the caller)."""
    out: list[str] = []
    i, n = 0, len(source)
    in_class = False
    while i < n:
        char = source[i]
        if char == "\\":
            nxt = source[i + 1 : i + 2]
            if not nxt:
                raise TranslationError("ends with a lone backslash")
            if nxt == "/":
                out.append("/")
                i += 2
                continue
            if nxt == "k" and not in_class and source[i + 2 : i + 3] == "<":
                end = source.find(">", i + 3)
                if end < 0:
                    raise TranslationError("unterminated \\k<name> back-reference")
                out.append(f"(?P={source[i + 3 : end]})")
                i = end + 1
                continue
            if nxt == "u" and source[i + 2 : i + 3] == "{":
                end = source.find("}", i + 3)
                if end < 0:
                    raise TranslationError("unterminated \\u{...} escape")
                out.append(f"\\U{int(source[i + 3 : end], 16):08x}")
                i = end + 1
                continue
            if nxt == "c":
                letter = source[i + 2 : i + 3]
                if letter.isalpha():
                    out.append(f"\\x{ord(letter.upper()) - 64:02x}")
                    i += 3
                    continue
            out.append(source[i : i + 2])
            i += 2
            continue
        if in_class:
            if char == "]":
                in_class = False
            elif char == "[":
                # Literal in both dialects, but Python warns about future set syntax.
                out.append("\\[")
                i += 1
                continue
            elif char in "&|~" and source[i + 1 : i + 2] == char:
                out.append(f"\\{char}\\{char}")
                i += 2
                continue
            out.append(char)
            i += 1
            continue
        if char == "[":
            if source.startswith("[^]", i):  # JavaScript: any character, newlines included
                out.append("[\\s\\S]")
                i += 3
                continue
            if source.startswith("[]", i):  # JavaScript: matches nothing
                out.append("(?!)")
                i += 2
                continue
            in_class = True
            out.append("[")
            i += 1
            # A ']' right after '[' or '[^' closed the class above; keep a leading '^'.
            if source[i : i + 1] == "^":
                out.append("^")
                i += 1
            continue
        if char == "(" and source.startswith("(?<", i) and source[i + 3 : i + 4] not in "=!":
            out.append("(?P<")
            i += 3
            continue
        out.append(char)
        i += 1
    if in_class:
        raise TranslationError("unterminated character class")
    return "".join(out)


def js_to_python(source: str, flags: str = "") -> str:
    """Translate a JavaScript regex (``source`` + ``flags``) to a Python pattern string.

    ``i``/``m``/``s`` become an inline ``(?ims)`` prefix; ``(?<name>`` becomes ``(?P<name>``,
    ``\\k<name>`` ``(?P=name)``, ``\\/`` ``/``, ``[^]`` ``[\\s\\S]``, ``\\u{…}`` ``\\U…``. ``\\d``,
    ``\\w`` and ``$`` differ only at the edges (Unicode digits, a final newline) and are kept.
    Raises :class:`TranslationError` when the result would not mean the same or not compile.
    """
    inline = ""
    for flag in flags:
        if flag in _INLINE_FLAGS:
            if _INLINE_FLAGS[flag] not in inline:
                inline += _INLINE_FLAGS[flag]
        elif flag not in _HARMLESS_FLAGS:
            raise TranslationError(f"flag {flag!r} has no Python equivalent")
    pattern = _translate_body(source)
    if inline:
        pattern = f"(?{inline}){pattern}"
    problem = validate.check_regex(pattern)
    if problem is not None:
        raise TranslationError(f"does not compile in Python: {problem}")
    return pattern


def _strings(entry: dict[str, Any], key: str, where: str) -> list[str]:
    value = entry.get(key) or []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValidationError("expected a list of strings", where=where, field=key)
    return value


def _regexes(entry: dict[str, Any], key: str, where: str) -> list[str]:
    value = entry.get(key) or []
    if not isinstance(value, list):
        raise ValidationError("expected a list of {source, flags}", where=where, field=key)
    out = []
    for index, item in enumerate(value):
        if isinstance(item, str):
            source, flags = item, ""
        elif isinstance(item, dict) and isinstance(item.get("source"), str):
            source, flags = item["source"], item.get("flags") or ""
        else:
            raise ValidationError("expected {source, flags}", where=where, field=f"{key}[{index}]")
        try:
            out.append(js_to_python(source, str(flags)))
        except TranslationError as exc:
            raise ValidationError(
                f"/{source}/{flags}: {exc}", where=where, field=f"{key}[{index}]"
            ) from None
    return out


def _text(entry: dict[str, Any], key: str, where: str, *, required: bool = True) -> str | None:
    value = entry.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value.strip()):
        raise ValidationError("expected non-empty text", where=where, field=key)
    return value


def lesson_from_node(
    lesson_id: str,
    entry: Any,
    tools: ToolVocabulary | None = None,
    warnings: list[str] | None = None,
) -> Lesson:
    """One Node manifest entry as a :class:`Lesson` (raises ValidationError if impossible);
    what only warns is added to ``warnings``."""
    where = f"lesson {lesson_id}"
    if not isinstance(entry, dict):
        raise ValidationError("expected an object", where=where)
    slug = entry.get("slug")
    if isinstance(slug, str) and slug:
        where = f"lesson {slug}"
    raw_type = entry.get("type", "hint")
    try:
        lesson_type = LessonType(raw_type)
    except ValueError:
        allowed = ", ".join(t.value for t in LessonType)
        raise ValidationError(
            f"type {raw_type!r} has no equivalent here (known: {allowed})",
            where=where,
            field="type",
        ) from None
    raw_target = entry.get("commandMatchTarget") or "full"
    try:
        target = MatchTarget(raw_target)
    except ValueError:
        raise ValidationError(
            f"{raw_target!r} is not full or executable", where=where, field="commandMatchTarget"
        ) from None
    priority = entry.get("priority", 5)
    if isinstance(priority, bool) or not isinstance(priority, int):
        raise ValidationError(
            f"expected an integer, got {priority!r}", where=where, field="priority"
        )
    scope = entry.get("scope")
    if scope is not None and not isinstance(scope, str):
        raise ValidationError(f"expected text or null, got {scope!r}", where=where, field="scope")

    named = _strings(entry, "toolNames", where)
    command_regexes = _regexes(entry, "commandRegexSources", where)
    as_content = bool(named) and "Bash" not in named
    triggers = Triggers(
        tool_names=named,
        command_patterns=() if as_content else command_regexes,
        content_patterns=command_regexes if as_content else (),
        path_regexes=_regexes(entry, "pathRegexSources", where),
        model_patterns=_regexes(entry, "modelRegexSources", where),
    )
    summary = _text(entry, "summary", where) or ""
    lesson = Lesson(
        id=lesson_id,
        slug=slug if isinstance(slug, str) and slug else ids.make_slug(summary),
        summary=summary,
        mistake=_text(entry, "problem", where) or "",
        remediation=_text(entry, "solution", where) or "",
        injection=_text(entry, "message", where, required=False),
        type=lesson_type,
        triggers=triggers,
        command_match_target=target,
        priority=priority,
        tags=_strings(entry, "tags", where),
        scope=scope,
        provenance=Provenance(source="import"),
        created_at=serde.now_iso(),
        updated_at=serde.now_iso(),
    )
    found = validate.check_lesson(lesson, where, tools=tools)
    if warnings is not None:
        warnings.extend(found)
    return lesson


def parse_node_manifest(
    obj: Any, *, source: str = "<input>", tools: ToolVocabulary | None = None
) -> tuple[list[Lesson], ImportReport]:
    """All representable lessons of a Node manifest, and a report listing what was not."""
    if not is_node_manifest(obj):
        raise LessonsError(f"{source}: not a Node lesson-manifest.json (no 'lessons' object)")
    report = ImportReport(source=source, format="Node lesson-manifest.json")
    lessons: list[Lesson] = []
    for lesson_id, entry in obj["lessons"].items():
        try:
            lesson = lesson_from_node(str(lesson_id), entry, tools, report.warnings)
        except ValidationError as exc:
            report.rejected.append(str(exc))
            continue
        tools_named = lesson.triggers.tool_names
        if "Bash" in tools_named and len(tools_named) > 1 and lesson.triggers.command_patterns:
            others = ", ".join(t for t in tools_named if t != "Bash")
            effect = (
                "fires on its path regexes alone"
                if lesson.triggers.path_regexes
                else "does not fire"
            )
            report.note(SPLIT_TOOLS_NOTE, lesson.slug, f"on {others} it {effect}")
        lessons.append(lesson)
    return lessons, report
