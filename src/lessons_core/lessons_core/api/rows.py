"""Lesson and candidate rows, for a store plugin that keeps them in a relational database.

Used as a namespace (``from lessons_core.api import rows``): the column lists and the
conversions the SQLite store uses, so another store reads and writes the same shape.
"""

from __future__ import annotations

from lessons_core.store.rows import (
    CANDIDATE_COLUMNS,
    COUNT_COLUMNS,
    LESSON_COLUMNS,
    TRIGGER_KEYS,
    Row,
    candidate_from_row,
    candidate_params,
    lesson_from_row,
    lesson_json_from_row,
    lesson_values,
    union,
)

__all__ = [
    "CANDIDATE_COLUMNS",
    "COUNT_COLUMNS",
    "LESSON_COLUMNS",
    "TRIGGER_KEYS",
    "Row",
    "candidate_from_row",
    "candidate_params",
    "lesson_from_row",
    "lesson_json_from_row",
    "lesson_values",
    "union",
]
