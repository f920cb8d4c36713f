"""The plugin interfaces, typed: what the core calls on a plugin, and what the hook process passes.

Cold-path plugins hand the core callables through their specs (:mod:`lessons_core.plugins.specs`);
the ``Protocol``\\ s here say what those callables take and return, so a type checker can hold a
plugin to them. The hook process cannot import ``typing`` (its start-up budget), so its side of the
seam is typed for checkers only: an adapter's hot module imports these names under a
``TYPE_CHECKING = False`` guard that never runs, and its ``plugin`` module states, in the same
kind of block, that the hot module is a :class:`HotAdapter`. Nothing here is imported at run time
by the hook.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

if TYPE_CHECKING:
    from lessons_core.installing import InstallResult, InstallStatus
    from lessons_core.models import Candidate, Config, Lesson
    from lessons_core.scan.events import Event, Progress
    from lessons_core.store.base import Store
    from lessons_core.team import SyncReport

# -- cold path --------------------------------------------------------------------------------


class TranscriptRoots(Protocol):
    """Where an agent keeps its transcripts, given an environment."""

    def __call__(self, environ: Mapping[str, str], /) -> list[Path]: ...


class TranscriptReader(Protocol):
    """One transcript file from ``offset`` (or message ``start_message`` of a whole-document
    transcript) as normalized events; ``progress`` is updated as lines are consumed. ``path``
    and ``offset`` are passed by position, so a reader may name them as it likes."""

    def __call__(
        self,
        path: Path,
        offset: int = 0,
        /,
        *,
        progress: Progress | None = None,
        start_message: int = 0,
    ) -> Iterator[Event]: ...


class Recognize(Protocol):
    """How sure an adapter is that a file is its agent's (0: not at all); ``head`` is ``None``
    while only the path is judged, else the file's first bytes."""

    def __call__(self, path: Path, head: bytes | None, /) -> int: ...


class Installer(Protocol):
    """An agent's installer (usually its ``install`` module): what ``lessons install``,
    ``uninstall`` and ``doctor`` call (see :mod:`lessons_core.installing`)."""

    def install(
        self, environ: Mapping[str, str], *, project: Path | None = ..., dry_run: bool = ...
    ) -> InstallResult: ...

    def uninstall(
        self, environ: Mapping[str, str], *, project: Path | None = ..., dry_run: bool = ...
    ) -> InstallResult: ...

    def status(
        self, environ: Mapping[str, str], *, project: Path | None = ...
    ) -> InstallStatus: ...


class Detect(Protocol):
    """A detector: one batch of events in, candidates out (more keyword arguments may come)."""

    def __call__(
        self, events: Sequence[Event], *, config: Config, **kwargs: Any
    ) -> Iterable[Candidate]: ...


class PrepareDetector(Protocol):
    """Run once before a scan that uses the detector; may refuse the scan with a LessonsError."""

    def __call__(self, *, config: Config, home: Path | None) -> None: ...


class FindDuplicate(Protocol):
    """The lesson ``item`` (a candidate or a lesson) duplicates, or ``None``."""

    def __call__(self, item: Candidate | Lesson, lessons: list[Lesson], /) -> Lesson | None: ...


class StoreFactory(Protocol):
    """Opens a store backend for ``config`` in ``home`` (``LESSONS_HOME``)."""

    def __call__(self, config: Config, home: Path, /) -> Store: ...


# -- the hook process (for type checkers only) -------------------------------------------------


class TeamSync(Protocol):
    """A team store's exchange with the local store (``lessons sync``, and after a background
    scan): lessons, candidates and deliveries both ways, and what happened."""

    def __call__(
        self,
        local: Store,
        *,
        config: Config,
        home: Path,
        environ: Mapping[str, str] | None = ...,
    ) -> SyncReport: ...


class HotEvent(TypedDict, total=False):
    """The agent-neutral event an adapter's ``normalize`` makes of its agent's payload
    (``lessons_core.hot.payload.new_event`` fills the common fields)."""

    agent: str
    event: str  # pre_tool, post_tool, post_failure, session_start, prompt, pre_compact, stop …
    native_event: str
    session_id: str | None
    cwd: str
    model: str | None
    call_id: str | None
    tool: str | None  # canonical tool name
    command: str | None
    paths: list[str]
    content: str | None
    url: str | None
    source: str | None
    prompt: str | None
    error: str | None
    interrupted: bool
    stop_active: bool
    transcript_path: str | None
    agent_type: str | None
    agent_id: str | None
    deliver_hints: bool


class HotDecision(TypedDict, total=False):
    """What the core decided for an event, handed to the adapter's ``render``."""

    deny: str | None  # the reason, when the call is denied
    context: str | None  # text for the model
    trailer: str | None  # the line that follows a lesson's context


class HotAdapter(Protocol):
    """An agent's hot module, as ``lessons_core.hot.runner.run`` uses it."""

    AGENT: str

    def normalize(self, payload: object, /) -> dict[str, object] | None: ...

    def render(
        self, event: dict[str, object] | None, decision: dict[str, object] | None, /
    ) -> Mapping[str, object] | None: ...
