"""The scan's capture figures (``lessons stats``, and the report's capture section).

Kept apart from both commands so the report reads them without importing the CLI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lessons_core.store.base import Store


def compute_stats(store: Store) -> dict[str, Any]:
    """Per agent: Tier 1 vs Tier 2 (and plugin) detections, the protocol-compliance rate
    tier1 / (tier1 + tier2), candidate counts by status; and lesson counts by source."""
    per_agent: dict[str, dict[str, Any]] = {}
    for candidate in store.list_candidates():
        agent = per_agent.setdefault(
            candidate.agent,
            {"tier1": 0, "tier2": 0, "plugins": 0, "candidates": {}, "detections": 0},
        )
        weight = max(1, len(candidate.evidence))
        if candidate.tier == 1:
            agent["tier1"] += weight
        elif candidate.tier == 2:
            agent["tier2"] += weight
        else:
            agent["plugins"] += weight
        agent["detections"] += weight
        counts = agent["candidates"]
        counts[candidate.status] = counts.get(candidate.status, 0) + 1
    for agent in per_agent.values():
        both = agent["tier1"] + agent["tier2"]
        agent["complianceRate"] = round(agent["tier1"] / both, 3) if both else None
    lessons = store.list_lessons()
    by_source: dict[str, int] = {}
    by_status: dict[str, int] = {}
    for lesson in lessons:
        by_source[lesson.provenance.source] = by_source.get(lesson.provenance.source, 0) + 1
        by_status[str(lesson.status)] = by_status.get(str(lesson.status), 0) + 1
    return {
        "agents": per_agent,
        "lessons": {"total": len(lessons), "bySource": by_source, "byStatus": by_status},
    }
