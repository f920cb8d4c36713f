"""Lessons and candidates as table rows, for every store that keeps them in SQL columns.

The SQLite store and the PostgreSQL team store lay out the same columns; they differ only in
how a list or a mapping is held in one (JSON text, ``jsonb``). So the mapping lives here once,
and each store passes its own ``encode`` (a value to what its driver binds) and ``decode``
(what its driver returns to a value), and picks the columns it has.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

import attrs

from lessons_core.models import (
    Candidate,
    Evidence,
    Lesson,
    LessonType,
    MatchTarget,
    Provenance,
    Sighting,
    Status,
    Triggers,
)

Encode = Callable[[Any], Any]
Decode = Callable[[Any], Any]


class Row(Protocol):
    """A fetched row read by column name (``sqlite3.Row``, a ``dict_row``)."""

    def __getitem__(self, key: str, /) -> Any: ...


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


#: (attribute, JSON key) of every trigger list, read off the model so a new list is stored too.
TRIGGER_KEYS = tuple((f.name, _camel(f.name)) for f in attrs.fields(Triggers))

#: The columns every store keeps a lesson in.
LESSON_COLUMNS = (
    "id",
    "slug",
    "content_hash",
    "status",
    "type",
    "summary",
    "mistake",
    "remediation",
    "injection",
    "triggers",
    "command_match_target",
    "priority",
    "confidence",
    "tags",
    "scope",
    "error_lines",
    "source",
    "sessions",
    "projects",
    "occurrences",
    "evidence",
    "created_at",
    "updated_at",
)
#: The counts of a lesson's sessions and projects, for a store that sorts or filters on them.
COUNT_COLUMNS = ("session_count", "project_count")

CANDIDATE_COLUMNS = (
    "id",
    "content_key",
    "tier",
    "agent",
    "tool",
    "trigger",
    "mistake",
    "fix",
    "summary",
    "tags",
    "confidence",
    "priority",
    "status",
    "evidence",
    "error_lines",
    "project",
    "detector",
    "created_at",
)


def union(first: Iterable[str], second: Iterable[str]) -> tuple[str, ...]:
    """Both, in order, each once (merging the evidence of one lesson found twice)."""
    return tuple(dict.fromkeys([*first, *second]))


def _evidence_column(row: Row, decode: Decode) -> list[dict[str, Any]]:
    """A lesson's sightings as stored; none from a row of a schema before them (a store being
    repaired is read as it is)."""
    try:
        raw = row["evidence"]
    except (KeyError, IndexError):
        return []
    return list(decode(raw) or []) if raw is not None else []


def sightings_json(sightings: Iterable[Sighting]) -> list[dict[str, Any]]:
    """A lesson's sightings as the JSON list its ``evidence`` column holds."""
    return [
        {
            "file": s.file,
            "line": s.line,
            "call_id": s.call_id,
            "session_id": s.session_id,
            "project": s.project,
        }
        for s in sightings
    ]


def sightings_from_json(items: Iterable[dict[str, Any]] | None) -> tuple[Sighting, ...]:
    return tuple(
        Sighting(
            file=item["file"],
            line=int(item["line"]),
            call_id=item.get("call_id"),
            session_id=item.get("session_id"),
            project=item.get("project"),
        )
        for item in items or ()
    )


def lesson_values(lesson: Lesson, digest: str, encode: Encode) -> dict[str, Any]:
    """Every column a lesson fills, by name (``digest``: its content hash)."""
    t = lesson.triggers
    p = lesson.provenance
    return {
        "id": lesson.id,
        "slug": lesson.slug,
        "content_hash": digest,
        "status": str(lesson.status),
        "type": str(lesson.type),
        "summary": lesson.summary,
        "mistake": lesson.mistake,
        "remediation": lesson.remediation,
        "injection": lesson.injection,
        "triggers": encode({key: list(getattr(t, attr)) for attr, key in TRIGGER_KEYS}),
        "command_match_target": str(lesson.command_match_target),
        "priority": lesson.priority,
        "confidence": lesson.confidence,
        "tags": encode(list(lesson.tags)),
        "scope": lesson.scope,
        "error_lines": encode(list(lesson.error_lines)),
        "source": p.source,
        "sessions": encode(list(p.sessions)),
        "projects": encode(list(p.projects)),
        "occurrences": p.occurrences,
        "evidence": encode(sightings_json(p.evidence)),
        "session_count": len(p.sessions),
        "project_count": len(p.projects),
        "created_at": lesson.created_at,
        "updated_at": lesson.updated_at,
    }


def lesson_json_from_row(row: Row, decode: Decode) -> dict[str, Any]:
    """A row as contract JSON, untouched: for a row someone else wrote (a team store's), to be
    checked as ``lessons add`` checks its input before it becomes a :class:`Lesson`."""
    return {
        "id": row["id"],
        "slug": row["slug"],
        "summary": row["summary"],
        "mistake": row["mistake"],
        "remediation": row["remediation"],
        "type": row["type"],
        "triggers": decode(row["triggers"]) or {},
        "commandMatchTarget": row["command_match_target"],
        "priority": row["priority"],
        "confidence": row["confidence"],
        "tags": decode(row["tags"]),
        "scope": row["scope"],
        "injection": row["injection"],
        "status": row["status"],
        "errorLines": decode(row["error_lines"]),
        "provenance": {
            "source": row["source"],
            "sessions": decode(row["sessions"]),
            "projects": decode(row["projects"]),
            "occurrences": row["occurrences"],
            "evidence": _evidence_column(row, decode),
        },
        "createdAt": row["created_at"],
        "updatedAt": row["updated_at"],
    }


def lesson_from_row(row: Row, decode: Decode) -> Lesson:
    trig = decode(row["triggers"]) or {}
    return Lesson(
        id=row["id"],
        slug=row["slug"],
        summary=row["summary"],
        mistake=row["mistake"],
        remediation=row["remediation"],
        type=LessonType(row["type"]),
        triggers=Triggers(**{attr: trig.get(key, ()) for attr, key in TRIGGER_KEYS}),
        command_match_target=MatchTarget(row["command_match_target"]),
        priority=row["priority"],
        confidence=row["confidence"],
        tags=decode(row["tags"]),
        scope=row["scope"],
        injection=row["injection"],
        status=Status(row["status"]),
        error_lines=decode(row["error_lines"]),
        provenance=Provenance(
            source=row["source"],
            sessions=decode(row["sessions"]),
            projects=decode(row["projects"]),
            occurrences=row["occurrences"],
            evidence=sightings_from_json(_evidence_column(row, decode)),
        ),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def candidate_params(candidate: Candidate, key: str, encode: Encode) -> list[Any]:
    """A candidate's values in :data:`CANDIDATE_COLUMNS` order (``key``: its content key)."""
    evidence = [
        {"file": e.file, "line": e.line, "call_id": e.call_id, "session_id": e.session_id}
        for e in candidate.evidence
    ]
    return [
        candidate.id,
        key,
        candidate.tier,
        candidate.agent,
        candidate.tool,
        candidate.trigger,
        candidate.mistake,
        candidate.fix,
        candidate.summary,
        encode(list(candidate.tags)),
        candidate.confidence,
        candidate.priority,
        candidate.status,
        encode(evidence),
        encode(list(candidate.error_lines)),
        candidate.project,
        candidate.detector,
        candidate.created_at,
    ]


def candidate_from_row(row: Row, decode: Decode) -> Candidate:
    return Candidate(
        id=row["id"],
        tier=row["tier"],
        agent=row["agent"],
        tool=row["tool"],
        trigger=row["trigger"],
        mistake=row["mistake"],
        fix=row["fix"],
        summary=row["summary"],
        tags=decode(row["tags"]),
        confidence=row["confidence"],
        priority=row["priority"],
        status=row["status"],
        evidence=tuple(
            Evidence(
                file=e["file"],
                line=int(e["line"]),
                call_id=e.get("call_id"),
                session_id=e.get("session_id"),
            )
            for e in decode(row["evidence"])
        ),
        error_lines=decode(row["error_lines"]),
        project=row["project"],
        detector=row["detector"],
        created_at=row["created_at"],
    )
