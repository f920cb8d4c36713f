"""Shared pieces of the recall tests: the fixture catalogue and the hook commands."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from lessons_core import serde

CATALOGUE = Path(__file__).resolve().parent / "catalogue.json"


def catalogue_lessons() -> list:
    """The fixture catalogue as model lessons."""
    return [serde.lesson_from_json(obj) for obj in json.loads(CATALOGUE.read_text("utf-8"))]


def hook_command(agent: str) -> str:
    """The installed console script of an agent's hook, next to the test interpreter."""
    return str(Path(sys.executable).parent / f"lessons-{agent}-hook")
