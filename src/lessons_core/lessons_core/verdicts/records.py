"""What the outcome loop records: a delivery, its verdicts, and the pending queue."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import attrs

from lessons_core.verdicts.state import PENDING_STATE_KEY as PENDING_STATE_KEY

PREVENTED = "prevented"
RECURRED = "recurred"
QUIET = "quiet"
NEEDLESS = "needless"
UNKNOWN = "unknown"
#: Said by the model itself (the MCP server's ``feedback`` tool): the lesson is wrong.
WRONG = "wrong"
OUTCOMES = (PREVENTED, RECURRED, QUIET, NEEDLESS, UNKNOWN, WRONG)
#: Kinds of delivery that deny the call (the ones that can be needless).
DENYING = frozenset({"guard", "nudge"})

#: At most this many deliveries wait for judgement; the oldest are recorded as unknown.
MAX_PENDING = 5000


@attrs.frozen
class Delivery:
    """One line of the delivery log."""

    lesson_id: str
    session_id: str
    agent: str
    event: str
    kind: str
    at: str
    call: str | None = None
    call_id: str | None = None
    transcript: str | None = None
    cwd: str | None = None

    @property
    def column_event(self) -> str:
        """What the ``deliveries.event`` column holds: the hook event and the kind."""
        return f"{self.event}:{self.kind}"

    def key(self) -> tuple[str, str, str, str]:
        return (self.lesson_id, self.session_id, self.column_event, self.at)

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.lesson_id,
            "session": self.session_id,
            "agent": self.agent,
            "event": self.event,
            "kind": self.kind,
            "at": self.at,
            "call": self.call,
            "callId": self.call_id,
            "transcript": self.transcript,
            "cwd": self.cwd,
        }


def delivery_from_json(obj: Any) -> Delivery | None:
    """A log line as a :class:`Delivery`, or ``None`` when it lacks what a delivery needs."""
    if not isinstance(obj, dict):
        return None
    needed = ("id", "session", "event", "at")
    if not all(isinstance(obj.get(k), str) and obj.get(k) for k in needed):
        return None

    def opt(key: str) -> str | None:
        value = obj.get(key)
        return value if isinstance(value, str) and value else None

    return Delivery(
        lesson_id=obj["id"],
        session_id=obj["session"],
        agent=opt("agent") or "",
        event=obj["event"],
        kind=opt("kind") or "hint",
        at=obj["at"],
        call=opt("call"),
        call_id=opt("callId"),
        transcript=opt("transcript"),
        cwd=opt("cwd"),
    )


def parse_time(text: str | None) -> datetime | None:
    """An ISO timestamp as an aware datetime (UTC when it names no zone), or ``None``."""
    if not text:
        return None
    try:
        stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)


def timestamp(text: str | None) -> float | None:
    stamp = parse_time(text)
    return stamp.timestamp() if stamp is not None else None


def existing_keys(store: Any) -> set[tuple[str, str, str, str]]:
    return {
        (r["lesson_id"], r["session_id"], r["event"], r["delivered_at"])
        for r in store.list_deliveries()
    }


def pending_deliveries(store: Any) -> list[Delivery]:
    """Deliveries read from the log that still wait for their session to go on."""
    state = store.get_scan_state(PENDING_STATE_KEY) or {}
    return [d for d in map(delivery_from_json, state.get("items") or ()) if d]
