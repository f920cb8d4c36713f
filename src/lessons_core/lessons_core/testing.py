"""Contract test kits for plugins (import them from tests only; they need pytest).

The core registers this module as a pytest plugin (entry point ``pytest11``, name ``lessons``),
so the kits and the :func:`lessons_isolated_homes` fixture are there in any test suite of an
environment where lessons is installed. :class:`AdapterContract` (agent adapters) and
:class:`DetectorContract` (transcript detectors) are described in their modules,
:mod:`lessons_core.contracts.adapter` and :mod:`lessons_core.contracts.detector`.


A team that plugs in its own store (``lessons_register_stores``) inherits the behaviour the
scanner, the CLI and the compiler rely on by subclassing :class:`StoreContract` and providing a
``store`` fixture::

    from lessons_core.testing import StoreContract

    class TestMyStore(StoreContract):
        @pytest.fixture
        def store(self, tmp_path):
            with MyStore(tmp_path) as s:
                yield s

The SQLite store runs the same suite, so "passes the contract" means "behaves like the default".
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from lessons_core.contracts.adapter import AdapterContract as AdapterContract
from lessons_core.contracts.adapter import HookPayloads as HookPayloads
from lessons_core.contracts.detector import DetectorContract as DetectorContract
from lessons_core.errors import LessonsError
from lessons_core.models import (
    Candidate,
    Evidence,
    Lesson,
    Provenance,
    Sighting,
    Status,
    Triggers,
)
from lessons_core.store.base import Store


@pytest.fixture
def lessons_isolated_homes(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``LESSONS_HOME``, ``LESSONS_STATE_DIR`` and ``HOME`` under the test's ``tmp_path``, so a
    plugin's tests never touch the user's real stores (use it with ``autouse`` in a conftest)."""
    monkeypatch.setenv("LESSONS_HOME", str(tmp_path / "lessons-home"))
    monkeypatch.setenv("LESSONS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


def contract_lesson(n: int = 0, **overrides: Any) -> Lesson:
    """A lesson whose content (and so content hash) varies with ``n``."""
    fields: dict[str, Any] = {
        "id": "",
        "slug": "",
        "summary": f"contract lesson number {n}",
        "mistake": f"did the wrong thing {n}",
        "remediation": f"do the right thing {n}",
        "triggers": Triggers(tool_names=["Bash"], command_patterns=[rf"\bstep{n}\b"]),
        "error_lines": [f"error code E{n:04d} raised"],
        "provenance": Provenance(sessions=[f"session-{n}"], projects=["project"]),
    }
    fields.update(overrides)
    return Lesson(**fields)


def contract_candidate(n: int = 0, **overrides: Any) -> Candidate:
    fields: dict[str, Any] = {
        "id": "",
        "tier": 2,
        "agent": "example",
        "tool": "Bash",
        "trigger": f"step{n}",
        "mistake": f"step {n} failed",
        "fix": f"repair step {n}",
        "evidence": (Evidence(file=f"/transcripts/{n}.jsonl", line=n + 1),),
    }
    fields.update(overrides)
    return Candidate(**fields)


class StoreContract:
    """Behaviour every :class:`~lessons_core.store.base.Store` must show. Subclass it in a test."""

    def test_is_a_store(self, store: Store) -> None:
        """The backend satisfies the runtime-checkable protocol."""
        assert isinstance(store, Store)

    def test_add_assigns_identity(self, store: Store) -> None:
        """Missing id, slug and timestamps are filled in, and the lesson reads back equal."""
        (stored,) = store.add_lessons([contract_lesson(1)])
        assert stored.id and stored.slug and stored.created_at and stored.updated_at
        assert store.get_lesson(stored.id) == stored
        assert store.get_lesson(stored.slug) == stored

    def test_same_content_merges(self, store: Store) -> None:
        """A second copy of the same content merges counts instead of adding a row."""
        (first,) = store.add_lessons([contract_lesson(1, confidence=0.5)])
        (merged,) = store.add_lessons(
            [
                contract_lesson(
                    1, confidence=0.9, provenance=Provenance(sessions=["other"], occurrences=2)
                )
            ]
        )
        assert merged.id == first.id
        assert merged.confidence == 0.9
        assert merged.provenance.occurrences == first.provenance.occurrences + 2
        assert set(merged.provenance.sessions) == {"session-1", "other"}
        assert len(store.list_lessons()) == 1

    def test_where_a_lesson_was_seen_is_kept(self, store: Store) -> None:
        """Its sightings (file, line, call, session, project) read back as written, after an
        update too, and a second copy of its content adds the places the first did not have."""
        first = Sighting("/transcripts/a.jsonl", 4, None, "session-a", "/work/alpha")
        second = Sighting("/transcripts/b.jsonl", 9, "call-9", "session-b", "/work/beta")
        (stored,) = store.add_lessons(
            [contract_lesson(1, provenance=Provenance(sessions=["session-a"], evidence=(first,)))]
        )
        assert store.get_lesson(stored.id) == stored
        assert stored.provenance.evidence == (first,)
        seen = attrs.evolve(stored.provenance, evidence=(first, second), occurrences=2)
        updated = store.update_lesson(attrs.evolve(stored, provenance=seen))
        assert store.get_lesson(stored.id) == updated
        assert updated.provenance.evidence == (first, second)
        third = Sighting("/transcripts/c.jsonl", 2, None, "session-c", "/work/gamma")
        again = contract_lesson(1, provenance=Provenance(evidence=(second, third)))
        (merged,) = store.add_lessons([again])
        assert merged.provenance.evidence == (first, second, third)
        assert store.get_lesson(stored.id) == merged

    def test_prefix_lookup_and_ambiguity(self, store: Store) -> None:
        """Unique prefixes resolve; ambiguous ones raise a LessonsError."""
        a, _ = store.add_lessons(
            [contract_lesson(1, slug="alpha-one"), contract_lesson(2, slug="alpha-two")]
        )
        assert store.get_lesson("alpha-o") == a
        with pytest.raises(LessonsError):
            store.get_lesson("alpha-")

    def test_revision_moves_on_change(self, store: Store) -> None:
        """Adding, updating and removing a lesson each change the revision."""
        seen = [store.revision()]
        (stored,) = store.add_lessons([contract_lesson(1)])
        seen.append(store.revision())
        store.update_lesson(attrs.evolve(stored, priority=9))
        seen.append(store.revision())
        store.remove_lesson(stored.id)
        seen.append(store.revision())
        assert len(set(seen)) == len(seen)

    def test_list_filters(self, store: Store) -> None:
        """list_lessons filters by status."""
        store.add_lessons([contract_lesson(1), contract_lesson(2, status=Status.DISABLED)])
        assert len(store.list_lessons()) == 2
        assert len(store.list_lessons(status=Status.ACTIVE)) == 1

    def test_search_finds_error_lines(self, store: Store) -> None:
        """search_lessons finds an active lesson by a word of its error lines."""
        (a,) = store.add_lessons([contract_lesson(7)])
        store.add_lessons([contract_lesson(8)])
        assert store.search_lessons("E0007 raised")[0].id == a.id

    def test_candidates_merge_evidence(self, store: Store) -> None:
        """The same pending candidate found twice keeps one row with both pieces of evidence."""
        first = store.add_candidate(contract_candidate(1))
        again = store.add_candidate(
            contract_candidate(1, evidence=(Evidence(file="/transcripts/x.jsonl", line=4),))
        )
        assert again.id == first.id
        assert len(again.evidence) == 2
        assert store.get_candidate(first.id) == again
        assert len(store.list_candidates(status="pending")) == 1

    def test_scan_state_round_trip(self, store: Store) -> None:
        """Scan offsets come back as they were stored."""
        state = {"offset": 5, "size": 9, "mtime_ns": 1, "inode": 2}
        store.set_scan_state("/transcripts/a.jsonl", state)
        assert store.get_scan_state("/transcripts/a.jsonl") == state
        assert store.get_scan_state("/transcripts/none.jsonl") is None

    def test_transaction_is_atomic(self, store: Store) -> None:
        """An exception inside transaction() undoes every write made in it."""
        with pytest.raises(RuntimeError), store.transaction():
            store.add_lessons([contract_lesson(1)])
            raise RuntimeError("abort")
        assert store.list_lessons() == []
