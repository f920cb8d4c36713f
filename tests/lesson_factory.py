"""A maker of minimal, distinct lessons for tests that only care about triggers and types.

Imported as a plain module (``tests/`` is on ``sys.path`` because the suite's root
``conftest.py`` lives there). Each area gets its own id and slug prefix, so a failing assertion
shows where a lesson came from.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from lessons_core.models import Lesson, Triggers

#: Length of a ULID, which the made-up ids keep so they look like real ones.
_ID_LENGTH = 26


def lesson_factory(id_prefix: str, slug_prefix: str) -> Callable[..., Lesson]:
    """``make_lesson(**fields)``: numbered defaults; ``triggers`` may be a dict of keywords."""
    counter = itertools.count(1)

    def make_lesson(**fields: Any) -> Lesson:
        n = next(counter)
        triggers = fields.pop("triggers", {})
        if isinstance(triggers, dict):
            triggers = Triggers(**triggers)
        values: dict[str, Any] = {
            "id": f"{id_prefix}{n:0{_ID_LENGTH - len(id_prefix)}d}",
            "slug": f"{slug_prefix}-{n}",
            "summary": f"summary {n}",
            "mistake": f"mistake {n}",
            "remediation": f"remediation {n}",
            "triggers": triggers,
        }
        values.update(fields)
        return Lesson(**values)

    return make_lesson
