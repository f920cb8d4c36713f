"""Helpers for the compiler tests."""

from __future__ import annotations

import itertools
from typing import Any

from lessons_core.models import Lesson, Triggers

_counter = itertools.count(1)


def make_lesson(**fields: Any) -> Lesson:
    """A lesson with sensible defaults; ``triggers`` may be given as a dict of keyword args."""
    n = next(_counter)
    triggers = fields.pop("triggers", {})
    if isinstance(triggers, dict):
        triggers = Triggers(**triggers)
    values: dict[str, Any] = {
        "id": f"01COMPILERTEST{n:012d}",
        "slug": f"lesson-{n}",
        "summary": f"summary {n}",
        "mistake": f"mistake {n}",
        "remediation": f"remediation {n}",
        "triggers": triggers,
    }
    values.update(fields)
    return Lesson(**values)
