"""Helpers for the hot-path tests: lessons, compiled manifests and a minimal adapter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lesson_factory import lesson_factory
from lessons_core.compiler.build import compile_manifest, write_manifest
from lessons_core.models import Config, Lesson

HERE = Path(__file__).resolve().parent

make_lesson = lesson_factory("01HOTTEST", "hot-lesson")


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
