"""JSON ↔ model conversion at the I/O boundaries (files, stdin, command output).

The JSON spelling is the contract's camelCase (``commandPatterns``, ``injectionBudgetBytes``); the
model's is snake_case. Input is strict on purpose: a misspelt key would otherwise silently drop a
trigger, and a lesson that never fires looks exactly like a lesson that works. So unknown keys are
rejected with a "did you mean" hint, strings are not coerced into numbers, and every error names
the lesson (``where``), the field and the reason.

A few input aliases keep hand-written and migrated lessons working: ``problem`` for ``mistake``,
``solution`` or ``fix`` for ``remediation``, ``message`` for ``injection``. Keys starting with
``//`` are comments and are ignored.
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, TypeVar

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override
from cattrs.v import format_exception

from lessons_core import ids
from lessons_core.errors import ValidationError
from lessons_core.models import (
    Candidate,
    Config,
    DeepScan,
    Evidence,
    Lesson,
    LessonType,
    MatchTarget,
    McpSettings,
    Provenance,
    ScoringWeights,
    Sighting,
    Status,
    TeamSettings,
    Triggers,
)

JSONDict = dict[str, Any]

#: Input-only spellings of lesson fields (JSON key → canonical JSON key).
LESSON_ALIASES: Mapping[str, str] = {
    "problem": "mistake",
    "solution": "remediation",
    "fix": "remediation",
    "message": "injection",
}
#: Keys we write but recompute on input, so they are accepted and dropped.
LESSON_DERIVED = frozenset({"contentHash"})


def camel(name: str) -> str:
    """``injection_budget_bytes`` → ``injectionBudgetBytes``."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def now_iso() -> str:
    """The current time as ISO 8601 UTC with a ``Z``, to the second."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# -- strict primitive hooks --------------------------------------------------------------------


class _InvalidValueError(ValueError):
    """A value of the wrong shape; the message is already phrased for the user."""


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list | tuple):
        return "a list"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _structure_str(value: Any, _: type) -> str:
    if not isinstance(value, str):
        raise _InvalidValueError(f"expected a string, got {_describe(value)}")
    return value


def _structure_int(value: Any, _: type) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise _InvalidValueError(f"expected an integer, got {_describe(value)}")
    return value


def _structure_float(value: Any, _: type) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _InvalidValueError(f"expected a number, got {_describe(value)}")
    return float(value)


def _structure_bool(value: Any, _: type) -> bool:
    if not isinstance(value, bool):
        raise _InvalidValueError(f"expected true or false, got {_describe(value)}")
    return value


def _structure_str_tuple(value: Any, _: type) -> tuple[str, ...]:
    if not isinstance(value, list | tuple):
        raise _InvalidValueError(f"expected a list of strings, got {_describe(value)}")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise _InvalidValueError(f"item {index}: expected a string, got {_describe(item)}")
    return tuple(value)


def _structure_enum(value: Any, tp: type[enum.Enum]) -> enum.Enum:
    allowed = [str(member.value) for member in tp]
    if isinstance(value, str) and value in allowed:
        return tp(value)
    raise _InvalidValueError(f"{_describe(value)} is not one of: {', '.join(allowed)}")


# -- the converter ------------------------------------------------------------------------------

#: Classes whose JSON spelling keeps the Python (snake_case) names: the contract's evidence shape.
_SNAKE_CLASSES: tuple[type, ...] = (Evidence, Sighting)
_CLASSES: tuple[type, ...] = (
    Triggers,
    Sighting,
    Provenance,
    Lesson,
    Evidence,
    Candidate,
    ScoringWeights,
    DeepScan,
    McpSettings,
    TeamSettings,
    Config,
)


def json_name(cls: type, attr_name: str) -> str:
    return attr_name if cls in _SNAKE_CLASSES else camel(attr_name)


def _make_converter() -> cattrs.Converter:
    conv = cattrs.Converter(detailed_validation=True, forbid_extra_keys=True)
    conv.register_structure_hook(str, _structure_str)
    conv.register_structure_hook(int, _structure_int)
    conv.register_structure_hook(float, _structure_float)
    conv.register_structure_hook(bool, _structure_bool)
    conv.register_structure_hook_func(lambda tp: tp == tuple[str, ...], _structure_str_tuple)
    # StrEnums are str subclasses: register them by class so the str hook does not win.
    for enum_cls in (LessonType, MatchTarget, Status):
        conv.register_structure_hook(enum_cls, _structure_enum)
    for cls in _CLASSES:
        attrs.resolve_types(cls)
        renames: dict[str, Any] = {
            a.name: override(rename=json_name(cls, a.name)) for a in attrs.fields(cls)
        }
        conv.register_structure_hook(
            cls, make_dict_structure_fn(cls, conv, _cattrs_forbid_extra_keys=True, **renames)
        )
        conv.register_unstructure_hook(cls, make_dict_unstructure_fn(cls, conv, **renames))
    return conv


CONVERTER = _make_converter()


def _format(exc: BaseException, tp: type | None) -> str:
    if isinstance(exc, _InvalidValueError):
        return str(exc)
    if isinstance(exc, KeyError):
        return "is required"
    if tp is not None and attrs.has(tp):
        return "expected a JSON object"
    return format_exception(exc, tp)


_SNAKE_KEYS = frozenset(a.name for cls in _SNAKE_CLASSES for a in attrs.fields(cls))


def _json_path(path: str) -> str:
    """``$.triggers.command_patterns[0]`` → ``triggers.commandPatterns[0]``."""
    parts = path.removeprefix("$").removeprefix(".").split(".")
    out = []
    for part in parts:
        name, bracket, rest = part.partition("[")
        out.append((name if name in _SNAKE_KEYS else camel(name)) + bracket + rest)
    return ".".join(out)


def _errors_of(exc: Exception) -> list[tuple[str, str]]:
    """(field path, message) pairs from a cattrs validation error, paths in JSON spelling."""
    pairs = []
    for line in cattrs.transform_error(exc, path="$", format_exception=_format):
        message, _, path = line.rpartition(" @ ")
        pairs.append((_json_path(path), message))
    return pairs


def _raise_for(exc: Exception, where: str | None) -> None:
    errors = _errors_of(exc)
    if len(errors) == 1:
        field, message = errors[0]
        raise ValidationError(message, where=where, field=field or None) from None
    text = "; ".join(f"field {f!r}: {m}" if f else m for f, m in errors)
    raise ValidationError(text, where=where) from None


# -- key checking (before cattrs: aliases, comments, hints) ------------------------------------


def unknown_key_message(key: str, known: list[str]) -> str:
    """``unknown key 'comandPatterns' — did you mean 'commandPatterns'?``"""
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f" — did you mean {close[0]!r}?" if close else f" (known keys: {', '.join(known)})"
    return f"unknown key {key!r}{hint}"


@attrs.frozen
class _Shape:
    """What a JSON object of one class may contain, for the key check."""

    cls: type
    aliases: Mapping[str, str] = attrs.field(factory=dict)
    derived: frozenset[str] = frozenset()
    #: JSON key → (nested shape, whether the value is a list of them)
    nested: Mapping[str, tuple[_Shape, bool]] = attrs.field(factory=dict)

    def keys(self) -> list[str]:
        return [json_name(self.cls, a.name) for a in attrs.fields(self.cls)]


_TRIGGERS = _Shape(Triggers)
_SIGHTING = _Shape(Sighting)
_PROVENANCE = _Shape(Provenance, nested={"evidence": (_SIGHTING, True)})
_LESSON = _Shape(
    Lesson,
    aliases=LESSON_ALIASES,
    derived=LESSON_DERIVED,
    nested={"triggers": (_TRIGGERS, False), "provenance": (_PROVENANCE, False)},
)
_EVIDENCE = _Shape(Evidence)
_CANDIDATE = _Shape(Candidate, nested={"evidence": (_EVIDENCE, True)})
_SCORING = _Shape(ScoringWeights)
_DEEP = _Shape(DeepScan)
_MCP = _Shape(McpSettings)
_TEAM = _Shape(TeamSettings)
_CONFIG = _Shape(
    Config,
    nested={
        "scoring": (_SCORING, False),
        "deep": (_DEEP, False),
        "mcp": (_MCP, False),
        "team": (_TEAM, False),
    },
)


def _object(value: Any, where: str | None, field: str | None) -> JSONDict:
    if not isinstance(value, dict):
        raise ValidationError(
            f"expected a JSON object, got {_describe(value)}", where=where, field=field
        )
    return value


def _check_keys(obj: Any, shape: _Shape, where: str | None, path: str = "") -> JSONDict:
    """Return a copy of ``obj`` with aliases resolved and comments dropped; reject unknown keys."""
    source = _object(obj, where, path or None)
    known = shape.keys()
    out: JSONDict = {}
    spelled: dict[str, str] = {}
    for key, value in source.items():
        field = f"{path}.{key}" if path else key
        if key.startswith("//") or key in shape.derived:
            continue
        canonical = shape.aliases.get(key, key)
        if canonical not in known:
            raise ValidationError(
                unknown_key_message(key, known + sorted(shape.aliases)), where=where
            )
        if canonical in out and out[canonical] != value:
            raise ValidationError(
                f"{spelled[canonical]!r} and {key!r} both given, with different values "
                f"(they are the same field)",
                where=where,
            )
        if canonical in shape.nested and value is not None:
            nested, is_list = shape.nested[canonical]
            if is_list and isinstance(value, list):
                value = [
                    _check_keys(item, nested, where, f"{field}[{i}]")
                    for i, item in enumerate(value)
                ]
            elif not is_list:
                value = _check_keys(value, nested, where, field)
        out[canonical] = value
        spelled[canonical] = key
    return out


_T = TypeVar("_T")


def _structure(data: JSONDict, cls: type[_T], where: str | None) -> _T:
    """``CONVERTER.structure`` with cattrs' validation errors turned into our messages."""
    try:
        return CONVERTER.structure(data, cls)
    except (cattrs.ClassValidationError, cattrs.IterableValidationError) as exc:
        _raise_for(exc, where)
        raise  # pragma: no cover - _raise_for always raises


# -- lessons -----------------------------------------------------------------------------------


def lesson_from_json(obj: Any, where: str | None = None) -> Lesson:
    """Build a :class:`Lesson` from contract JSON (an input lesson or an exported one).

    Missing ``id``, ``slug`` and timestamps are filled in (a new ULID, a slug made from the
    summary, now). Only the shape is checked here; :func:`lessons_core.validate.check_lesson`
    checks the meaning (non-empty text, ranges, regexes).
    """
    data = _check_keys(obj, _LESSON, where)
    if "id" not in data:
        data["id"] = ids.new_id()
    fill_slug = "slug" not in data
    if fill_slug:
        data["slug"] = ""
    stamp = now_iso()
    data.setdefault("createdAt", stamp)
    data.setdefault("updatedAt", data["createdAt"])
    lesson = _structure(data, Lesson, where)
    if fill_slug:
        lesson = attrs.evolve(lesson, slug=ids.make_slug(lesson.summary))
    return lesson


def lesson_to_json(lesson: Lesson) -> JSONDict:
    """The export shape: every field in camelCase, plus the derived ``contentHash``."""
    data: JSONDict = CONVERTER.unstructure(lesson)
    data["contentHash"] = lesson.content_hash
    return data


# -- candidates --------------------------------------------------------------------------------


def candidate_from_json(obj: Any, where: str | None = None) -> Candidate:
    """Build a :class:`Candidate` from the contract's candidate line."""
    return _structure(_check_keys(obj, _CANDIDATE, where), Candidate, where)


def candidate_to_json(candidate: Candidate) -> JSONDict:
    """One ``lessons candidates --json`` line (evidence keys stay snake_case, per the contract)."""
    data: JSONDict = CONVERTER.unstructure(candidate)
    return data


# -- config ------------------------------------------------------------------------------------


def config_from_json(obj: Any, where: str | None = None) -> Config:
    """Build a :class:`Config`; absent keys take the defaults. File metadata is the caller's."""
    return _structure(_check_keys(obj, _CONFIG, where), Config, where)


def config_to_json(config: Config) -> JSONDict:
    data: JSONDict = CONVERTER.unstructure(config)
    return data
