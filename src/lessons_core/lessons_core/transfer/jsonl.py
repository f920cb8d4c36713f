"""Our own interchange format: JSON Lines, one lesson per line.

Why JSONL: it diffs line by line, streams, and a broken line can be named by its number.

The export starts with a header line that says what the file is::

    {"$schema": "urn:lessons:schema:export:1", "type": "lessons-export", "version": 1,
     "exportedAt": "2026-11-29T19:00:00Z", "count": 143}

followed by one lesson per line in the export shape (:func:`lessons_core.serde.lesson_to_json`).
The header is optional on input, so hand-written JSONL (and ``lessons add``'s input) works too.
Text fields are exported through :func:`lessons_core.privacy.scrub` (secrets redacted, home
paths turned into ``~``); trigger patterns are not, because rewriting a regex changes what it
matches. Each line's ``contentHash`` is that of the lesson as exported.

Export writes only what import takes back (:func:`export_lines`). Reading is all-or-nothing by
default: if any line is invalid, nothing is imported and the error
names every bad line. ``partial=True`` imports the good lines and reports the rest.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

import attrs

from lessons_core import authoring, jsoninput, privacy, serde
from lessons_core.errors import LessonsError, ValidationError
from lessons_core.models import Lesson
from lessons_core.tool_names import ToolVocabulary

EXPORT_TYPE = "lessons-export"
EXPORT_VERSION = 1
EXPORT_SCHEMA_ID = "urn:lessons:schema:export:1"
#: What an all-or-nothing error suggests (``import`` is all-or-nothing only with ``--strict``).
PARTIAL_HINT = "`lessons add --partial` adds the valid ones"
STRICT_HINT = "leave out --strict to import the valid ones"
#: How many bad lines an all-or-nothing error lists before summarising.
MAX_LISTED_ERRORS = 10


@attrs.frozen
class Parsed:
    """Lessons read from a file: each with where it was (``line 3``, ``lesson 2``)."""

    lessons: tuple[tuple[str, Lesson], ...]
    rejected: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    header: dict[str, Any] | None = None


def is_header(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("type") == EXPORT_TYPE


#: Lines after the lessons carrying one lesson's delivery statistics (the outcome loop's rows).
STATISTICS_TYPE = "lesson-deliveries"


def is_statistics(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("type") == STATISTICS_TYPE


def statistics_lines(text: str) -> list[dict[str, Any]]:
    """The delivery-statistics lines of an export (merged by ``lessons_core.outcomes``)."""
    out: list[dict[str, Any]] = []
    for raw in jsoninput.json_lines(text):
        if STATISTICS_TYPE not in raw:
            continue
        try:
            obj = jsoninput.loads(raw)
        except json.JSONDecodeError:
            continue
        if is_statistics(obj):
            out.append(obj)
    return out


def check_header(obj: dict[str, Any], where: str) -> None:
    version = obj.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ValidationError(f"export header has no integer 'version' ({version!r})", where=where)
    if version > EXPORT_VERSION:
        raise ValidationError(
            f"export version {version} was written by a newer lessons (this one reads "
            f"version {EXPORT_VERSION}); upgrade lessons",
            where=where,
        )


def _lesson(obj: Any, where: str, warnings: list[str], tools: ToolVocabulary | None) -> Lesson:
    lesson = serde.lesson_from_json(obj, where=where)
    warnings.extend(authoring.check(lesson, where, tools=tools))
    return lesson


def _finish(
    found: list[tuple[str, Lesson]],
    errors: list[str],
    warnings: list[str],
    header: dict[str, Any] | None,
    *,
    source: str,
    partial: bool,
    hint: str = PARTIAL_HINT,
) -> Parsed:
    if errors and not partial:
        shown = errors[:MAX_LISTED_ERRORS]
        more = len(errors) - len(shown)
        lines = "\n  ".join(shown)
        tail = f"\n  … and {more} more" if more else ""
        count = f"{len(errors)} invalid lesson(s)" if len(errors) > 1 else "an invalid lesson"
        raise LessonsError(f"{source}: {count}; nothing was stored ({hint}):\n  {lines}{tail}")
    return Parsed(tuple(found), tuple(errors), tuple(warnings), header)


def parse_jsonl(
    text: str,
    *,
    source: str = "<input>",
    partial: bool = False,
    tools: ToolVocabulary | None = None,
    hint: str = PARTIAL_HINT,
) -> Parsed:
    """Parse JSON Lines (blank lines allowed, an optional export header first)."""
    found: list[tuple[str, Lesson]] = []
    errors: list[str] = []
    warnings: list[str] = []
    header: dict[str, Any] | None = None
    seen_content = False
    for number, raw in enumerate(jsoninput.json_lines(text), start=1):
        if not raw.strip():
            continue
        where = f"line {number}"
        try:
            try:
                obj = jsoninput.loads(raw)
            except json.JSONDecodeError as exc:
                raise ValidationError(
                    f"not valid JSON (column {exc.colno}: {exc.msg})", where=where
                ) from None
            if is_header(obj):
                if seen_content or header is not None:
                    raise ValidationError(
                        "an export header is only allowed as the first line", where=where
                    )
                check_header(obj, where)
                header = obj
            elif is_statistics(obj):
                pass  # delivery statistics: see statistics_lines()
            else:
                found.append((where, _lesson(obj, where, warnings, tools)))
            seen_content = True
        except ValidationError as exc:
            errors.append(str(exc))
    return _finish(found, errors, warnings, header, source=source, partial=partial, hint=hint)


def parse_lessons(
    text: str,
    *,
    source: str = "<input>",
    partial: bool = False,
    tools: ToolVocabulary | None = None,
    hint: str = PARTIAL_HINT,
) -> Parsed:
    """``lessons add`` input: one JSON object, a JSON array of them, or JSON Lines."""
    stripped = text.strip()
    if not stripped:
        raise LessonsError(f"{source}: no lessons in the input")
    try:
        whole = jsoninput.loads(text)  # the original text, so positions are the user's
    except json.JSONDecodeError as exc:
        if (
            len([line for line in jsoninput.json_lines(stripped) if line.strip()]) > 1
            and stripped[0] == "{"
        ):
            return parse_jsonl(text, source=source, partial=partial, tools=tools, hint=hint)
        raise LessonsError(
            f"{source}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    if isinstance(whole, list):
        found: list[tuple[str, Lesson]] = []
        errors: list[str] = []
        warnings: list[str] = []
        for index, obj in enumerate(whole, start=1):
            where = f"lesson {index}"
            try:
                found.append((where, _lesson(obj, where, warnings, tools)))
            except ValidationError as exc:
                errors.append(str(exc))
        return _finish(found, errors, warnings, None, source=source, partial=partial, hint=hint)
    if is_header(whole):
        raise LessonsError(f"{source}: an export header but no lessons")
    warnings = []
    where = "lesson 1"
    try:
        lesson = _lesson(whole, where, warnings, tools)
    except ValidationError as exc:
        return _finish([], [str(exc)], warnings, None, source=source, partial=partial, hint=hint)
    return Parsed(((where, lesson),), (), tuple(warnings))


def read_text(path: str | Path) -> str:
    """The text of ``path``, or stdin for ``-``; errors become :class:`LessonsError`."""
    if str(path) == "-":
        data = sys.stdin.buffer.read()  # bytes: the decoding is ours to check, not the locale's
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise LessonsError(
                f"<stdin>: not UTF-8 text ({exc.reason} at byte {exc.start})"
            ) from None
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LessonsError(f"{path}: no such file") from None
    except UnicodeDecodeError as exc:
        raise LessonsError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise LessonsError(f"{path}: cannot read: {exc.strerror}") from None


# -- export ------------------------------------------------------------------------------------


def scrubbed(lesson: Lesson, home: str | Path | None = None) -> Lesson:
    """``lesson`` with a secret in any field redacted (its triggers too, see
    :func:`lessons_core.privacy.redact_lesson`) and home paths in its texts normalised."""

    def clean(text: str) -> str:
        return privacy.normalize_home(text, home)

    try:
        lesson = privacy.redact_lesson(lesson)
    except ValidationError as exc:
        raise ValidationError(str(exc), where=f"lesson {lesson.id}") from None
    return attrs.evolve(
        lesson,
        summary=clean(lesson.summary),
        mistake=clean(lesson.mistake),
        remediation=clean(lesson.remediation),
        injection=None if lesson.injection is None else clean(lesson.injection),
        error_lines=tuple(clean(line) for line in lesson.error_lines),
        provenance=attrs.evolve(
            lesson.provenance,
            evidence=tuple(
                attrs.evolve(
                    s,
                    file=clean(s.file),
                    project=None if s.project is None else clean(s.project),
                )
                for s in lesson.provenance.evidence
            ),
        ),
    )


def export_header(count: int) -> dict[str, Any]:
    return {
        "$schema": EXPORT_SCHEMA_ID,
        "type": EXPORT_TYPE,
        "version": EXPORT_VERSION,
        "exportedAt": serde.now_iso(),
        "count": count,
    }


def export_lines(
    lessons: Iterable[Lesson],
    home: str | Path | None = None,
    statistics: Iterable[dict[str, Any]] = (),
    *,
    tools: ToolVocabulary | None = None,
    left_out: list[str] | None = None,
) -> list[str]:
    """The export, line by line (header first, delivery statistics last), no trailing newlines.

    A lesson is written only when ``import`` would take it back: each line is read back and
    checked as ``import`` checks it (a lesson stored before a check existed, say a priority of
    -3, would otherwise make a file ``import`` refuses). The others are left out and named in
    ``left_out``, with why.
    """
    written: list[str] = []
    for lesson in lessons:
        where = f"lesson {lesson.slug or lesson.id}"
        try:
            line = jsoninput.dumps_line(serde.lesson_to_json(scrubbed(lesson, home)))
            _lesson(json.loads(line), where, [], tools)
        except ValidationError as exc:
            if left_out is not None:
                left_out.append(str(exc))
            continue
        written.append(line)
    out = [jsoninput.dumps_line(export_header(len(written))), *written]
    out.extend(jsoninput.dumps_line(_redacted_row(row)) for row in statistics)
    return out


def _redacted_row(row: Any) -> Any:
    """A statistics row with every string in it redacted: it leaves the machine like the
    lessons do."""
    if isinstance(row, str):
        return privacy.redact(row)
    if isinstance(row, dict):
        return {k: _redacted_row(v) for k, v in row.items()}
    if isinstance(row, list):
        return [_redacted_row(v) for v in row]
    return row


def write_export(lessons: Iterable[Lesson], stream: IO[str], home: str | Path | None = None) -> int:
    """Write the export to ``stream``; returns the number of lessons written."""
    lines = export_lines(lessons, home)
    for line in lines:
        stream.write(line + "\n")
    return len(lines) - 1
