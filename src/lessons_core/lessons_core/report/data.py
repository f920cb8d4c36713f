"""The figures behind ``lessons report``, as one JSON-ready dict.

Everything comes from what the store already keeps: the per-lesson verdicts of the outcome loop
(:func:`lessons_core.outcomes.figures` and :func:`~lessons_core.outcomes.summary`), the recorded
deliveries for the timeline and the per-agent split, and the scan's capture figures (what
``lessons stats`` computes). Nothing here draws or formats: the page and ``--json`` share it.

Deliveries do not record the project they happened in (a row keeps lesson, session, agent,
event, time and outcome), so the per-project view is about capture: the directory each
candidate's session ran in, and the lessons learned there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime, timedelta
from typing import Any

from lessons_core import outcomes
from lessons_core.models import Lesson, Status

#: Outcome columns in the order the page shows them (waiting: not judged yet).
COLUMNS = (*outcomes.OUTCOMES, "waiting")
#: The timeline is cut into days while it spans at most this many days, then weeks, then months.
DAYS_MAX = 21
WEEKS_MAX = 7 * 40


parse_time = outcomes.parse_time


def _zero() -> dict[str, int]:
    return dict.fromkeys(("fired", *COLUMNS), 0)


def _count(into: dict[str, int], outcome: str) -> None:
    into["fired"] += 1
    into[outcome] += 1


def _outcome(row: Mapping[str, Any]) -> str:
    found = row.get("outcome") or outcomes.UNKNOWN
    return found if found in outcomes.OUTCOMES else outcomes.UNKNOWN


def _unit(first: date, last: date) -> str:
    span = (last - first).days
    if span <= DAYS_MAX:
        return "day"
    return "week" if span <= WEEKS_MAX else "month"


def _period(day: date, unit: str) -> date:
    if unit == "day":
        return day
    if unit == "week":
        return day - timedelta(days=day.weekday())
    return day.replace(day=1)


def _next(start: date, unit: str) -> date:
    if unit == "day":
        return start + timedelta(days=1)
    if unit == "week":
        return start + timedelta(days=7)
    return (start.replace(day=28) + timedelta(days=4)).replace(day=1)


def timeline(items: Iterable[tuple[str, str, datetime]]) -> dict[str, Any]:
    """Deliveries per period (``(lesson id, outcome, time)`` items), gaps filled with zeros.

    Periods are days, weeks (starting on Monday) or months, whichever keeps the chart readable
    for the span the deliveries cover; ``perLesson`` holds each lesson's fires per period.
    """
    found = list(items)
    if not found:
        return {"unit": "day", "periods": [], "perLesson": {}}
    days = [when.astimezone(UTC).date() for _, _, when in found]
    unit = _unit(min(days), max(days))
    starts: list[date] = []
    cursor, end = _period(min(days), unit), _period(max(days), unit)
    while cursor <= end:
        starts.append(cursor)
        cursor = _next(cursor, unit)
    index = {start: i for i, start in enumerate(starts)}
    periods = [{"start": start.isoformat(), **_zero()} for start in starts]
    per_lesson: dict[str, list[int]] = {}
    for (lesson_id, outcome, _), day in zip(found, days, strict=True):
        i = index[_period(day, unit)]
        _count(periods[i], outcome)  # type: ignore[arg-type]
        per_lesson.setdefault(lesson_id, [0] * len(starts))[i] += 1
    return {"unit": unit, "periods": periods, "perLesson": per_lesson}


def _lesson_row(
    lesson: Lesson | None,
    lesson_id: str,
    fig: outcomes.LessonFigures | None,
    *,
    flags: Mapping[str, Any],
    seen: Mapping[str, Any],
) -> dict[str, Any]:
    counts = fig.as_json() if fig is not None else _zero() | {"sessions": 0}
    return {
        "id": lesson_id,
        "slug": (lesson.slug if lesson else None) or lesson_id,
        "summary": lesson.summary if lesson else "(no longer in the store)",
        "type": str(lesson.type) if lesson else None,
        "compiledAs": flags["demoted"].get(lesson_id),
        "status": str(lesson.status) if lesson else None,
        "scope": lesson.scope if lesson else None,
        "source": lesson.provenance.source if lesson else None,
        **{k: counts.get(k, 0) for k in ("fired", *COLUMNS, "sessions")},
        "noisy": lesson_id in flags["noisy"],
        "resting": lesson_id in flags["resting"],
        "failing": lesson_id in flags["failing"],
        "firstAt": seen.get("first"),
        "lastAt": seen.get("last"),
        "agents": dict(sorted(seen.get("agents", {}).items())),
    }


def _projects(store: Any, lessons: Iterable[Lesson]) -> list[dict[str, Any]]:
    """Capture per project directory: detections, candidates by status, lessons learned there."""
    table: dict[str, dict[str, Any]] = {}

    def entry(name: str) -> dict[str, Any]:
        fresh = {"project": name, "detections": 0, "tier1": 0, "tier2": 0, "plugins": 0,
                 "candidates": {}, "lessons": 0}  # fmt: skip
        return table.setdefault(name, fresh)

    for candidate in store.list_candidates():
        row = entry(candidate.project or "(unknown)")
        weight = max(1, len(candidate.evidence))
        row["detections"] += weight
        tier = {1: "tier1", 2: "tier2"}.get(candidate.tier, "plugins")
        row[tier] += weight
        row["candidates"][candidate.status] = row["candidates"].get(candidate.status, 0) + 1
    for lesson in lessons:
        for project in set(lesson.provenance.projects):
            entry(project)["lessons"] += 1
    return sorted(table.values(), key=lambda r: (-r["detections"], -r["lessons"], r["project"]))


def collect(store: Any, *, now: datetime | None = None) -> dict[str, Any]:
    """Every figure the page shows, JSON-ready (``lessons report --json`` prints it)."""
    from lessons_core.report.capture import compute_stats

    now = now or datetime.now(UTC)
    every = store.list_lessons()
    held = {lesson.id: lesson for lesson in every}
    active = [lesson for lesson in every if lesson.status is Status.ACTIVE]
    per = outcomes.figures(store)
    summary = outcomes.summary(store)
    flags = {
        "noisy": set(summary["noisy"]),
        "failing": set(summary["failingToPrevent"]),
        "demoted": summary["demoted"],
        "resting": set(outcomes.failure_only(active, per)),
    }

    items: list[tuple[str, str, datetime]] = []
    agents: dict[str, dict[str, int]] = {}
    seen: dict[str, dict[str, Any]] = {}
    sessions: dict[str, set[str]] = {}
    rows = [(r["lesson_id"], r["agent"], r["delivered_at"], _outcome(r), r["session_id"]) for r
            in store.list_deliveries()]  # fmt: skip
    rows += [(d.lesson_id, d.agent, d.at, "waiting", d.session_id) for d in
             outcomes.pending_deliveries(store)]  # fmt: skip
    for lesson_id, agent, at, outcome, session_id in rows:
        _count(agents.setdefault(agent or "(unknown)", _zero()), outcome)
        sessions.setdefault(agent or "(unknown)", set()).add(session_id)
        mark = seen.setdefault(lesson_id, {"agents": {}})
        mark["agents"][agent or "(unknown)"] = mark["agents"].get(agent or "(unknown)", 0) + 1
        when = parse_time(at)
        if when is None:
            continue
        stamp = when.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
        mark["first"] = min(mark.get("first") or stamp, stamp)
        mark["last"] = max(mark.get("last") or stamp, stamp)
        items.append((lesson_id, outcome, when))

    ids = sorted(set(per) | {lesson.id for lesson in active})
    per_lesson = [
        _lesson_row(held.get(i), i, per.get(i), flags=flags, seen=seen.get(i, {})) for i in ids
    ]
    per_lesson.sort(key=lambda r: (-r["fired"], -r["prevented"], r["slug"]))
    never = [r for r in per_lesson if r["id"] in set(summary["neverFired"])]
    capture = compute_stats(store)
    for name, figures in capture["agents"].items():
        figures["deliveries"] = agents.get(name, _zero())
    for name, counts in agents.items():
        fresh = {"tier1": 0, "tier2": 0, "plugins": 0, "detections": 0, "candidates": {},
                 "complianceRate": None}  # fmt: skip
        capture["agents"].setdefault(name, fresh)["deliveries"] = counts
    for name, figures in capture["agents"].items():
        # The protocol asks for #lesson blocks only in sessions the hooks reached: before any
        # such session a rate would judge transcripts that never saw it (a "0%" of nothing).
        figures["sessions"] = len(sessions.get(name, ()))
        if not figures["sessions"]:
            figures["complianceRate"] = None
    by_type: dict[str, int] = {}
    for lesson in active:
        by_type[str(lesson.type)] = by_type.get(str(lesson.type), 0) + 1
    pending = sum(c["candidates"].get("pending", 0) for c in capture["agents"].values())
    return {
        "generatedAt": now.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "totals": summary["totals"]
        | {
            "lessons": len(every),
            "active": len(active),
            "byType": dict(sorted(by_type.items())),
            "neverFired": len(never),
            "noisy": len(flags["noisy"]),
            "resting": len(flags["resting"]),
            "compiledSofter": len(flags["demoted"]),
            "failing": len(flags["failing"]),
            "pendingCandidates": pending,
        },
        "lessons": per_lesson,
        "neverFired": [r["id"] for r in never],
        "noise": {
            "noisy": sorted(flags["noisy"]),
            "resting": sorted(flags["resting"]),
            "compiledSofter": dict(sorted(flags["demoted"].items())),
            "failingToPrevent": sorted(flags["failing"]),
        },
        "timeline": timeline(items),
        "agents": dict(sorted(capture["agents"].items())),
        "capture": {"lessons": capture["lessons"]},
        "projects": _projects(store, every),
    }
