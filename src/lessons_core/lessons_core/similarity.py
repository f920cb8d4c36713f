"""How alike two texts' word sets are: the one Jaccard index of the project.

The built-in dedup backend and the scan's fallback (when no backend is registered) both ask it,
so two findings are judged alike by the same measure whichever path they take.
"""

from __future__ import annotations

from collections.abc import Set

__all__ = ["jaccard"]


def jaccard(a: Set[str], b: Set[str]) -> float:
    """``|a ∩ b| / |a ∪ b|``: 1.0 for equal sets, 0.0 for sets with nothing in common.

    Two empty sets score 1.0. They are equal, and a set is as alike to itself as any set can
    be; answering 0.0 would make the empty set the one set unlike itself, and ``1 - jaccard``
    would no longer be a distance (zero between equal sets). One empty set against a non-empty
    one scores 0.0. Whether a text without words may be called a duplicate at all is its
    caller's question, not the measure's: the scan's fallback answers no before asking.
    """
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)
