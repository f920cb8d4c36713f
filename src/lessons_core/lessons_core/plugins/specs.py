"""What plugins register: small frozen descriptions, handed to ``register`` callbacks.

A spec names its contribution and points at the code (a callable in the cold path, or a
``"module:function"`` string where the hot path must call it after compilation).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from lessons_core.patterns import kept_programs

if TYPE_CHECKING:
    from lessons_core.installing import InstallResult
    from lessons_core.models import Lesson
    from lessons_core.plugins.seams import (
        Detect,
        FindDuplicate,
        Installer,
        PrepareDetector,
        Recognize,
        StoreFactory,
        TeamSync,
        TranscriptReader,
        TranscriptRoots,
    )

_TARGET = kept_programs.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


def _check_target(_inst: object, attribute: attrs.Attribute[str], value: str) -> None:
    if value and not _TARGET.match(value):
        msg = f"{attribute.name} must look like 'package.module:function', got {value!r}"
        raise ValueError(msg)


@attrs.frozen
class AgentSpec:
    """An agent adapter.

    ``reader`` turns one transcript file into normalized events (see
    :mod:`lessons_core.scan.events`); ``transcript_roots`` says where the agent keeps its
    transcripts given an environment; ``installer`` registers the hook command in the agent's
    configuration.

    ``ranges`` says the reader can start at any line of a file with nothing but the resume
    point's :class:`~lessons_core.scan.events.Progress` to go on (every line carries its own
    session and project) and honours ``Progress.end``; the engine may then read a large file in
    pieces, in several processes at once.

    The rest are the agent's facts the core asks for instead of knowing them (every one has a
    default an agent without that trait keeps):

    * ``label`` — the agent's name in messages (``"Example CLI"``);
    * ``transcript_extensions`` — the file name endings walked under ``transcript_roots``;
    * ``is_transcript(path)`` — whether a file found there is a transcript (``None``: all are);
    * ``recognize(path, head)`` — how sure the adapter is that a file named to ``lessons scan``
      is its agent's: called with ``head=None`` first (the path alone), then with the file's
      first 8 KB; 0 is "not ours", and the most certain adapter wins. ``marks`` says in words
      what it looks for (for the message about a file no adapter recognises);
    * ``document_suffixes`` — endings of whole-document transcripts, rewritten in place, whose
      resume point is a message count rather than a byte offset;
    * ``session_names(session_id)`` — the parts of a file name that name the session, to find
      a session's transcript under the roots when the hook was not told its path;
    * ``skill_roots(environ)`` — where the agent reads user skills (``lessons skills``);
    * ``demo()`` — an object for ``lessons demo`` (see :mod:`lessons_core.cli.demo_cmds`);
    * ``hook_packages`` — packages besides the adapter's and the core that the hook imports (an
      adapter that builds on another's hook code names that one's package): the ``file``-style
      hook command, whose interpreter runs without ``site``, passes their directories too.
    """

    name: str
    hook_command: str
    hook_module: str
    distribution: str = ""
    tool_names: Mapping[str, str] = attrs.field(factory=dict)
    transcript_roots: TranscriptRoots | None = None
    reader: TranscriptReader | None = None
    #: Returns the installer (imported on first use).
    installer: Callable[[], Installer] | None = None
    ranges: bool = False
    label: str = ""
    transcript_extensions: tuple[str, ...] = (".jsonl", ".json")
    is_transcript: Callable[[str], bool] | None = None
    recognize: Recognize | None = None
    marks: str = ""
    document_suffixes: tuple[str, ...] = ()
    session_names: Callable[[str], Sequence[str]] | None = None
    skill_roots: TranscriptRoots | None = None
    demo: Callable[[], Any] | None = None
    hook_packages: tuple[str, ...] = ()

    @property
    def title(self) -> str:
        """``label``, or the name when the adapter gives none."""
        return self.label or self.name


@attrs.frozen
class DetectorSpec:
    """A transcript detector: called with one session's normalized events, yields candidates.

    A ``deep`` detector runs only in deep scans (``lessons scan --deep``, or ``deep.enabled``
    in ``config.json``) and then stands in for the detectors it ``replaces`` (it calls them
    itself). ``prepare(config=..., home=...)``, when given, is called once in the scanning
    process before a scan that runs the detector, before any helper process is forked: it may
    set up what the scan shares (a budget, a cache) or raise a
    :class:`~lessons_core.errors.LessonsError` that refuses the scan with a clear message.
    ``summary()``, when given, returns a line for the scan's report once the scan is done
    (what a costly detector spent), or an empty string.
    """

    name: str
    detect: Detect
    tier: int = 3
    description: str = ""
    deep: bool = False
    replaces: tuple[str, ...] = ()
    prepare: PrepareDetector | None = None
    summary: Callable[[], str] | None = None


@attrs.frozen
class MatcherSpec:
    """Retired with ``lessons_register_matchers`` (see :mod:`lessons_core.plugins.hookspecs`): a
    matcher nothing calls, kept so that plugins registering one still load."""

    name: str
    target: str = attrs.field(validator=_check_target)
    description: str = ""


@attrs.frozen
class StoreSpec:
    """A store backend: ``factory(config, home)`` returns an object of the Store protocol.

    Selected by name with ``"store"`` in ``config.json``; check a backend with
    :class:`lessons_core.testing.StoreContract`.

    A store that can serve as a *team store* (``team.store`` in ``config.json``) also gives
    ``sync(local, config=..., home=..., environ=...)``: it exchanges lessons, candidates and
    deliveries between the local store and the shared one and returns a
    :class:`lessons_core.team.SyncReport` (``lessons sync``, and after every background scan).
    The hook never calls it: it reads the local manifest only.
    """

    name: str
    factory: StoreFactory
    description: str = ""
    sync: TeamSync | None = None


@attrs.frozen
class DedupSpec:
    """A deduplication backend: ``find(item, lessons)`` returns the lesson ``item`` duplicates.

    ``item`` is a candidate or a lesson; ``None`` means no duplicate.
    """

    name: str
    find: FindDuplicate
    description: str = ""


@attrs.frozen
class SourceLessons:
    """What a lesson source holds at one moment.

    ``revision`` is any text that changes whenever the lessons do (the manifest records it, so
    ``lessons doctor`` can tell a manifest built before the source changed); ``problems`` name
    what the source left out and why (a file it could not read), for ``lessons build`` to show.
    ``waiting`` names what the source holds that waits for the user's acceptance (a file
    changed since the user trusted it): not an error, but told at the next command.
    """

    lessons: tuple[Lesson, ...] = ()
    revision: str = ""
    problems: tuple[str, ...] = ()
    waiting: tuple[str, ...] = ()


@attrs.frozen
class InstallExtraSpec:
    """Something ``lessons install AGENT`` writes into the agent's configuration besides the
    hooks when asked (``--mcp``: the MCP server's entry), and ``lessons uninstall AGENT`` takes
    out again.

    ``install(agent, environ, *, project=None, dry_run=False)`` and ``uninstall`` (same
    arguments) return an :class:`~lessons_core.installing.InstallResult`. ``check()``, when
    given, is called before anything is written (the hooks included) and raises a
    :class:`~lessons_core.errors.LessonsError` saying what to do when the step cannot work (a
    library of its own is missing), so nothing is left half-installed.
    """

    name: str
    install: Callable[..., InstallResult]
    uninstall: Callable[..., InstallResult]
    #: What was written, as the install line names it ("MCP server 'lessons'").
    description: str = ""
    check: Callable[[], None] | None = None


@attrs.frozen
class LessonSourceSpec:
    """Lessons the compiler reads besides the store's: ``load(config=..., home=...)`` returns
    :class:`SourceLessons`; ``revision(config=..., home=...)``, when given, returns the same
    ``revision`` more cheaply (without reading the lessons), for staleness checks.

    A source's lessons are compiled as given (their ``scope`` included); the store keeps none
    of them. See ``lessons_register_lesson_sources`` for how they meet the store's lessons.
    """

    name: str
    load: Callable[..., SourceLessons]
    revision: Callable[..., str] | None = None
    description: str = ""
