"""The store interface every backend implements (SQLite is the built-in default).

The scanner, the CLI and the compiler talk to this protocol only, so a team can plug in a server
database through the ``lessons_register_stores`` / ``lessons_select_store`` hooks.

:class:`Store` lists what every backend must offer. A backend may also offer the methods of
:data:`OPTIONAL_METHODS` (each one a small protocol below): callers look them up with
``getattr`` and do without, more slowly or with less detail, when a store has none. The hook
never talks to a store at all: at every build the store publishes a recall index
(:mod:`lessons_core.store.recall_index`), from :meth:`RecallSource.recall_documents` when it
has it, else from :meth:`Store.list_lessons`, and failure-time and prompt-time recall read that
file, whatever the backend.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from lessons_core.models import Candidate, Lesson, Status

if TYPE_CHECKING:
    from lessons_core.store.recall_index import RecallDocument


@runtime_checkable
class Store(Protocol):
    """Persistent lessons, candidates, scan offsets and delivery records.

    Every write is atomic; several processes may write at once (one waits, none loses data).
    ``revision()`` grows with every change, so the compiler can tell a stale manifest.
    """

    # -- lessons -----------------------------------------------------------------------------
    def add_lessons(self, lessons: Iterable[Lesson]) -> list[Lesson]:
        """Insert new lessons; a lesson whose content hash is already stored merges its counts
        into the existing row instead. Returns the stored lessons, in input order."""

    def update_lesson(self, lesson: Lesson) -> Lesson:
        """Replace a lesson by id (``updated_at`` is refreshed)."""

    def get_lesson(self, key: str) -> Lesson | None:
        """Look a lesson up by id, slug or unambiguous id/slug prefix."""

    def find_by_hash(self, content_hash: str) -> Lesson | None: ...

    def list_lessons(
        self, *, status: Status | None = None, types: Sequence[str] | None = None
    ) -> list[Lesson]: ...

    def remove_lesson(self, key: str) -> Lesson | None:
        """Delete a lesson; returns what was removed, or ``None`` if nothing matched."""

    def search_lessons(
        self, text: str, *, limit: int = 5, status: Status | None = Status.ACTIVE
    ) -> list[Lesson]:
        """Lessons whose summary, mistake, remediation or error lines best match ``text``
        (failure-time recall); best first."""

    # -- candidates --------------------------------------------------------------------------
    def add_candidate(self, candidate: Candidate) -> Candidate:
        """Insert a candidate, or merge its evidence into an equal pending one."""

    def get_candidate(self, key: str) -> Candidate | None: ...

    def list_candidates(self, *, status: str | None = None) -> list[Candidate]: ...

    def update_candidate(self, candidate: Candidate) -> Candidate: ...

    # -- scanner offsets ---------------------------------------------------------------------
    def get_scan_state(self, path: str) -> dict[str, Any] | None: ...

    def set_scan_state(self, path: str, state: dict[str, Any]) -> None: ...

    # -- deliveries (the outcome loop) -------------------------------------------------------
    def record_delivery(
        self,
        lesson_id: str,
        session_id: str,
        agent: str,
        event: str,
        *,
        outcome: str | None = None,
        delivered_at: str | None = None,
    ) -> None:
        """Note that a lesson reached a session."""

    def list_deliveries(self, *, lesson_id: str | None = None) -> list[dict[str, Any]]: ...

    # -- housekeeping ------------------------------------------------------------------------
    def revision(self) -> int:
        """A number that changes whenever lessons change (used in the manifest fingerprint)."""

    def transaction(self) -> AbstractContextManager[Any]:
        """Group several writes into one atomic unit."""

    def close(self) -> None: ...


# -- optional methods ------------------------------------------------------------------------------


@runtime_checkable
class RecallSource(Protocol):
    """A store that lists what recall searches itself (the build publishes it for the hook)."""

    def recall_documents(self) -> Iterable[RecallDocument]:
        """Every lesson, every status (the hook keeps the active ones), in the order that
        breaks ties between equal scores. Without it the build takes ``list_lessons()``."""


@runtime_checkable
class ScanStateListing(Protocol):
    """A store that hands the scanner every file's state in one call (thousands of files)."""

    def list_scan_states(self) -> dict[str, dict[str, Any]]: ...

    def list_scan_stamps(self) -> dict[str, tuple[int, int, int]]:
        """``(size, mtime_ns, inode)`` per scanned path: enough to tell what changed."""


@runtime_checkable
class StoreDiagnostics(Protocol):
    """What ``lessons doctor`` shows of a store when it can."""

    def counts(self) -> dict[str, int]:
        """Rows per table."""

    def iter_rows(self) -> Iterator[dict[str, Any]]:
        """Raw lesson rows, JSON columns decoded."""


#: Methods a store may offer beyond :class:`Store`, with the protocol declaring each; callers
#: use them through ``getattr`` and manage without.
OPTIONAL_METHODS: dict[str, type] = {
    "recall_documents": RecallSource,
    "list_scan_states": ScanStateListing,
    "list_scan_stamps": ScanStateListing,
    "counts": StoreDiagnostics,
    "iter_rows": StoreDiagnostics,
}
