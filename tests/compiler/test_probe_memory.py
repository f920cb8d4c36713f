"""The build remembers which patterns the probe measured fast, so a rebuild does not re-time them.

Timing a pattern costs milliseconds; a team's ten thousand lessons made every rebuild after a
sync take a minute of probing. Only "fast" verdicts are kept, under the Python that measured
them, and a refusal is measured again every time.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from compiler_support import make_lesson

from lessons_core.compiler.build import build
from lessons_core.models import Config
from lessons_core.patterns import probe


@pytest.fixture(autouse=True)
def _no_shapes(monkeypatch):
    """Each pattern is timed on its own here: the memory is of sources, and the benchmark's
    patterns share one shape, which would spare all but the first a timing in any case
    (``tests/patterns/test_shapes.py``). ``measured`` (the shared conftest) records them."""
    monkeypatch.setattr(probe.shapes, "shape", lambda source: None)


def _lessons(n: int):
    return [
        make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": [rf"\btool{i}\s+run\b"]})
        for i in range(n)
    ]


def _new_process() -> None:
    probe._fast.clear()
    probe._fast_shapes.clear()


def test_a_rebuild_in_a_new_process_times_nothing_it_measured_before(store, home, measured):
    store.add_lessons(_lessons(3))
    build(store, Config(), home)
    assert len(measured) == 3
    saved = json.loads((Path(home) / probe.MEMORY_NAME).read_text(encoding="utf-8"))
    assert len(saved["fast"]) == 3
    assert oct(os.stat(Path(home) / probe.MEMORY_NAME).st_mode & 0o777) == "0o600"

    _new_process()
    measured.clear()
    result = build(store, Config(), home)
    assert measured == []
    assert len(result.manifest["lessons"]) == 3


def test_only_patterns_in_use_are_kept(store, home, measured):
    lessons = _lessons(2)
    store.add_lessons(lessons)
    build(store, Config(), home)
    store.remove_lesson(lessons[0].id)
    build(store, Config(), home)
    saved = json.loads((Path(home) / probe.MEMORY_NAME).read_text(encoding="utf-8"))
    assert len(saved["fast"]) == 1


def test_a_memory_from_another_python_is_ignored(store, home, measured):
    store.add_lessons(_lessons(2))
    build(store, Config(), home)
    path = Path(home) / probe.MEMORY_NAME
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**data, "key": "1:otherpython:(9, 9, 9)"}), encoding="utf-8")
    _new_process()
    measured.clear()
    build(store, Config(), home)
    assert len(measured) == 2


def test_a_refusal_is_measured_again_and_never_kept(home, measured):
    with probe.remembered(Path(home)):
        first = probe.probe(r"(a|aa)*b")
    assert first is not None
    _new_process()
    with probe.remembered(Path(home)):
        again = probe.probe(r"(a|aa)*b")
    assert again is not None
    assert measured.count(r"(a|aa)*b") == 2
    saved = json.loads((Path(home) / probe.MEMORY_NAME).read_text(encoding="utf-8"))
    assert saved["fast"] == []


def test_a_planted_link_is_neither_read_nor_written_through(store, home, measured, tmp_path):
    target = tmp_path / "elsewhere.json"
    target.write_text(json.dumps({"key": probe._memory_key(), "fast": [r"\btool0\s+run\b"]}))
    (Path(home) / probe.MEMORY_NAME).symlink_to(target)
    store.add_lessons(_lessons(1))
    build(store, Config(), home)
    assert len(measured) == 1  # the planted "fast" verdict was not believed
    assert json.loads(target.read_text())["fast"] == [r"\btool0\s+run\b"]  # nor overwritten


def test_a_damaged_memory_means_measuring_again(store, home, measured):
    (Path(home) / probe.MEMORY_NAME).write_text("{not json", encoding="utf-8")
    store.add_lessons(_lessons(1))
    build(store, Config(), home)
    assert len(measured) == 1
