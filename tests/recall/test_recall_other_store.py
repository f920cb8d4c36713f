"""Recall through the published index works for any store, not only SQLite.

A store kept in memory (no SQLite anywhere, not even a file) is compiled by the real build; the
hook recalls its lessons from the index the build published, in-process and as a real hook
process, and sees every change to the lessons once the next build has run.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import attrs
from recall_support import catalogue_lessons, hook_command

from lessons_core.compiler import build
from lessons_core.hot import manifest as manifest_mod
from lessons_core.hot import recall
from lessons_core.models import Candidate, Config, Lesson, Status
from lessons_core.store.base import OPTIONAL_METHODS, RecallSource, Store

MODULE_ERROR = "Exit code 2\nE   ModuleNotFoundError: No module named 'requests'"
PUSH_PROMPT = "git push was rejected as non-fast-forward, please push my fix"


class MemoryStore:
    """The required :class:`Store` methods over a dict, and none of the optional ones."""

    name = "memory"

    def __init__(self) -> None:
        self.lessons: dict[str, Lesson] = {}
        self.rev = 0

    def add_lessons(self, lessons: Iterable[Lesson]) -> list[Lesson]:
        out = []
        for lesson in lessons:
            stored = attrs.evolve(lesson, id=lesson.id or f"mem-{len(self.lessons)}")
            self.lessons[stored.id] = stored
            self.rev += 1
            out.append(stored)
        return out

    def update_lesson(self, lesson: Lesson) -> Lesson:
        self.lessons[lesson.id] = lesson
        self.rev += 1
        return lesson

    def get_lesson(self, key: str) -> Lesson | None:
        return self.lessons.get(key)

    def find_by_hash(self, content_hash: str) -> Lesson | None:
        return None

    def list_lessons(
        self, *, status: Status | None = None, types: Sequence[str] | None = None
    ) -> list[Lesson]:
        return [x for x in self.lessons.values() if status is None or x.status == status]

    def remove_lesson(self, key: str) -> Lesson | None:
        self.rev += 1
        return self.lessons.pop(key, None)

    def search_lessons(
        self, text: str, *, limit: int = 5, status: Status | None = Status.ACTIVE
    ) -> list[Lesson]:
        return []

    def add_candidate(self, candidate: Candidate) -> Candidate:
        return candidate

    def get_candidate(self, key: str) -> Candidate | None:
        return None

    def list_candidates(self, *, status: str | None = None) -> list[Candidate]:
        return []

    def update_candidate(self, candidate: Candidate) -> Candidate:
        return candidate

    def get_scan_state(self, path: str) -> dict[str, Any] | None:
        return None

    def set_scan_state(self, path: str, state: dict[str, Any]) -> None:
        pass

    def record_delivery(self, lesson_id: str, session_id: str, agent: str, event: str,
                        **when: Any) -> None:  # fmt: skip
        pass

    def list_deliveries(self, *, lesson_id: str | None = None) -> list[dict[str, Any]]:
        return []

    def revision(self) -> int:
        return self.rev

    def transaction(self) -> contextlib.AbstractContextManager[Any]:
        return contextlib.nullcontext()

    def close(self) -> None:
        pass


def memory_home(home: Path) -> MemoryStore:
    store = MemoryStore()
    store.add_lessons(catalogue_lessons())
    build.build(store, Config(), home)
    manifest_mod.clear_cache()
    return store


def recall_in_process(event: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    stats: dict[str, Any] = {}
    decision = recall.handle(event, recall.load_index(os.environ), None, os.environ, stats)
    return decision, stats


def failure(error: str) -> dict[str, Any]:
    return {
        "agent": "claude",
        "event": "post_failure",
        "session_id": "m-1",
        "cwd": "/srv",
        "tool": "Bash",
        "command": "pytest -q",
        "paths": [],
        "error": error,
    }


def test_the_memory_store_is_a_store_without_optional_methods() -> None:
    store = MemoryStore()
    assert isinstance(store, Store)
    assert not isinstance(store, RecallSource)
    assert not any(hasattr(store, name) for name in OPTIONAL_METHODS)


def test_another_store_recalls_through_the_published_index(home: Path) -> None:
    """Exact, full-text and prompt recall all answer for a store that has no SQL at all."""
    memory_home(home)
    assert not (home / "lessons.db").exists()
    decision, stats = recall_in_process(failure(MODULE_ERROR))
    assert decision["delivered"][0] == "rc-missing-requests"
    assert stats["recall_exact"] == 1 and "recall_error" not in stats
    text = (
        "To github.com:acme/api.git\n ! [remote rejected] main -> main (fetch first)\n"
        "hint: Updates were rejected because the remote contains work that you do not have; "
        "non-fast-forward push refused\n"
    )
    decision, stats = recall_in_process({**failure(text), "command": "git push origin main"})
    assert stats["recall_exact"] == 0
    assert decision["delivered"][:1] == ["rc-git-non-fast-forward"]
    decision, _ = recall_in_process({"event": "prompt", "agent": "claude", "prompt": PUSH_PROMPT})
    assert decision["delivered"] == ["rc-git-non-fast-forward"]


def test_another_store_recalls_in_a_real_hook_process(home: Path, tmp_path: Path) -> None:
    memory_home(home)
    payload = {
        "session_id": "m-hook",
        "transcript_path": str(tmp_path / "t.jsonl"),
        "cwd": str(tmp_path),
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": "pytest -q"},
        "tool_use_id": "toolu_m",
        "error": MODULE_ERROR,
    }
    done = subprocess.run(
        [hook_command("claude")],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=30,
        check=True,
    )
    assert done.stderr == ""
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "injected=rc-missing-requests" in context


def test_the_index_follows_every_change_of_the_lessons(home: Path) -> None:
    """A lesson added, disabled or removed is recalled (or not) after the next build."""
    store = memory_home(home)
    added = Lesson(
        id="mem-new",
        slug="mem-new",
        summary="flux capacitor misaligned near the gizmo housing",
        mistake="Started the gizmo with a misaligned flux capacitor.",
        remediation="Realign the capacitor with gizmo align --flux.",
        error_lines=("zzfrob: quantum flux capacitor misaligned near gizmo 42",),
    )
    error = "Exit code 1\nzzfrob: quantum flux capacitor misaligned near gizmo 7\n"
    assert recall_in_process(failure(error))[0]["delivered"] == []
    store.add_lessons([added])
    # Until the build runs the manifest's stamp names the old revision: the index is current.
    build.build(store, Config(), home)
    assert recall_in_process(failure(error))[0]["delivered"] == ["mem-new"]
    store.update_lesson(attrs.evolve(added, status=Status.DISABLED))
    build.build(store, Config(), home)
    assert recall_in_process(failure(error))[0]["delivered"] == []
    store.update_lesson(added)
    build.build(store, Config(), home)
    assert recall_in_process(failure(error))[0]["delivered"] == ["mem-new"]
    store.remove_lesson("mem-new")
    build.build(store, Config(), home)
    assert recall_in_process(failure(error))[0]["delivered"] == []


def test_an_index_older_than_the_manifest_is_not_read(home: Path) -> None:
    """A build that wrote the manifest but not the index (a crash between): the old index is
    refused, so a lesson removed meanwhile is not recalled from it."""
    store = memory_home(home)
    kept = (home / recall.INDEX_NAME).read_bytes()
    store.remove_lesson("rc-missing-requests")
    build.build(store, Config(), home)
    (home / recall.INDEX_NAME).write_bytes(kept)  # the index of the revision before
    (home / recall.INDEX_NAME).chmod(0o600)
    decision, stats = recall_in_process(failure(MODULE_ERROR))
    assert decision["delivered"] == []
    assert "stale recall index" in stats["recall_error"]


def test_another_store_s_scoped_lesson_keeps_to_its_project(home: Path, tmp_path: Path) -> None:
    """A store without ``recall_documents()`` gives its lessons' scope to the index too."""
    import attrs

    from lessons_core.hot.project import project_id

    mine, other = tmp_path / "acme", tmp_path / "elsewhere"
    mine.mkdir()
    other.mkdir()
    store = memory_home(home)
    (lesson,) = [item for item in store.list_lessons() if item.id == "rc-missing-requests"]
    store.update_lesson(attrs.evolve(lesson, scope=project_id(str(mine))))
    build.build(store, Config(), home)
    manifest_mod.clear_cache()
    here, _ = recall_in_process({**failure(MODULE_ERROR), "cwd": str(mine)})
    assert here["delivered"][:1] == ["rc-missing-requests"]
    there, _ = recall_in_process({**failure(MODULE_ERROR), "cwd": str(other), "session_id": "m-2"})
    assert "rc-missing-requests" not in there["delivered"]
