"""Helpers for the hot-path tests: lessons, compiled manifests and a minimal adapter."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from lessons_core.compiler.build import compile_manifest, write_manifest
from lessons_core.models import Config, Lesson, Triggers

HERE = Path(__file__).resolve().parent
_counter = itertools.count(1)


def make_lesson(**fields: Any) -> Lesson:
    n = next(_counter)
    triggers = fields.pop("triggers", {})
    if isinstance(triggers, dict):
        triggers = Triggers(**triggers)
    values: dict[str, Any] = {
        "id": f"01HOTTEST{n:017d}",
        "slug": f"hot-lesson-{n}",
        "summary": f"summary {n}",
        "mistake": f"mistake {n}",
        "remediation": f"remediation {n}",
        "triggers": triggers,
    }
    values.update(fields)
    return Lesson(**values)


def manifest_for(*lessons: Lesson, **config: Any) -> dict[str, Any]:
    """The manifest the compiler makes for ``lessons`` (round-tripped through JSON)."""
    manifest, refused, _, _ = compile_manifest(lessons, Config(**config), 1)
    assert not refused, refused
    return json.loads(json.dumps(manifest))


def install_manifest(home: Path, *lessons: Lesson, **config: Any) -> dict[str, Any]:
    """Compile ``lessons`` and write the manifest into ``home`` as ``lessons build`` would."""
    manifest, refused, _, _ = compile_manifest(lessons, Config(**config), 1)
    assert not refused, refused
    write_manifest(manifest, home)
    return manifest


def pre_tool(**fields: Any) -> dict[str, Any]:
    event = {"agent": "test", "event": "pre_tool", "session_id": "s-1", "cwd": "/nowhere"}
    event.update(fields)
    return event
