"""The one check a lesson passes before ``add``, ``edit`` or ``import`` stores it.

Each of the three once checked a little differently: ``edit`` let ``--priority -3`` through (the
compiler does not look at priorities) and ``export`` could then write a file ``import``
refused. Here is the whole judgement, in the order a user fixes things: the lesson's own fields
(:func:`lessons_core.validate.check_lesson`: texts, ranges, patterns that compile, tool names,
triggers that can fire), then whether the manifest compiler would keep it
(:func:`refusal`, whose text is the compiler's, passed on unchanged).

It judges the lesson as the store will keep it: with its secrets redacted
(:func:`lessons_core.privacy.redact_lesson`), patterns included. A pattern that spelt a secret
can become one the compiler refuses once redacted; judged before redaction it was stored, never
delivered, and exported into a file ``import`` refused. Judged after, the message shows no
secret either.
"""

from __future__ import annotations

from lessons_core import validate
from lessons_core.errors import ValidationError
from lessons_core.models import Lesson
from lessons_core.tool_names import ToolVocabulary


def check(
    lesson: Lesson, where: str | None = None, *, tools: ToolVocabulary | None = None
) -> list[str]:
    """Raise :class:`ValidationError` for what keeps ``lesson`` out; return the warnings."""
    from lessons_core.privacy import redact_lesson

    try:
        stored = redact_lesson(lesson)
    except ValidationError as exc:
        raise ValidationError(str(exc), where=where) from None
    try:
        warnings = validate.check_lesson(stored, where, tools=tools)
        refused = refusal(stored, where)
    except ValidationError as exc:
        refused = exc
    if refused is not None and stored.triggers != lesson.triggers:
        refused = ValidationError(f"{refused} (its patterns as stored: their secrets redacted)")
    if refused is not None:
        raise refused
    return warnings


def refusal(lesson: Lesson, where: str | None = None) -> ValidationError | None:
    """The error for a lesson the manifest compiler would leave out, or ``None``.

    Apart from :func:`check` for a translated format (the Node manifest) whose parser checks
    the fields itself and whose tests look at the translation alone.
    """
    from lessons_core.compiler import entries

    try:
        entries.compile_lesson(lesson)
    except entries.Refused as exc:
        # The refusal names the lesson itself; a position (``line 3``) is worth adding to it.
        position = where if where and not (lesson.slug and lesson.slug in where) else None
        return ValidationError(exc.refusal.message(), where=position)
    return None
