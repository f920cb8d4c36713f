"""Delivery statistics in an export, and merging them into another store."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from lessons_core.verdicts.records import OUTCOMES, existing_keys

EXPORT_TYPE = "lesson-deliveries"


def export_rows(store: Any) -> Iterator[dict[str, Any]]:
    """One export line per lesson with recorded deliveries (JSONL ``type: lesson-deliveries``)."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in store.list_deliveries():
        grouped.setdefault(row["lesson_id"], []).append(
            {
                "session": row["session_id"],
                "agent": row["agent"],
                "event": row["event"],
                "at": row["delivered_at"],
                "outcome": row.get("outcome"),
            }
        )
    for lesson_id in sorted(grouped):
        yield {"type": EXPORT_TYPE, "lessonId": lesson_id, "deliveries": grouped[lesson_id]}


def is_export_row(obj: Any) -> bool:
    return isinstance(obj, dict) and obj.get("type") == EXPORT_TYPE


def merge_rows(store: Any, rows: Iterable[Mapping[str, Any]]) -> tuple[int, int]:
    """Merge exported delivery statistics; returns ``(added, skipped)``. Idempotent.

    A row already present (same lesson, session, event and time) is skipped, as is one whose
    lesson this store does not hold.
    """
    existing = existing_keys(store)
    held = {lesson.id: lesson for lesson in store.list_lessons()}
    added = skipped = 0
    with store.transaction():
        for row in rows:
            lesson_id = row.get("lessonId")
            lesson = held.get(lesson_id) if isinstance(lesson_id, str) else None
            items = row.get("deliveries")
            if lesson is None or not isinstance(items, list):
                skipped += len(items) if isinstance(items, list) else 1
                continue
            for item in items:
                if not isinstance(item, dict):
                    skipped += 1
                    continue
                session, event, at = item.get("session"), item.get("event"), item.get("at")
                if not all(isinstance(v, str) and v for v in (session, event, at)):
                    skipped += 1
                    continue
                key = (lesson.id, str(session), str(event), str(at))
                if key in existing:
                    skipped += 1
                    continue
                outcome = item.get("outcome")
                store.record_delivery(
                    lesson.id,
                    key[1],
                    str(item.get("agent") or ""),
                    key[2],
                    outcome=outcome if outcome in OUTCOMES else None,
                    delivered_at=key[3],
                )
                existing.add(key)
                added += 1
    return added, skipped
