"""What plugins register: small frozen descriptions, handed to ``register`` callbacks.

A spec names its contribution and points at the code (a callable in the cold path, or a
``"module:function"`` string where the hot path must call it after compilation).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs

_TARGET = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


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

    ``transcript_suffixes`` are the endings of the file names a scan looks for under the
    transcript roots, for an agent whose transcripts are not JSON Lines or JSON files (one
    database holding every session, say); empty means the scanner's own choice.
    """

    name: str
    hook_command: str
    hook_module: str
    distribution: str = ""
    tool_names: Mapping[str, str] = attrs.field(factory=dict)
    transcript_roots: Callable[[Mapping[str, str]], list[Path]] | None = None
    reader: Callable[..., Iterator[Any]] | None = None
    installer: Any = None
    ranges: bool = False
    transcript_suffixes: tuple[str, ...] = ()


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
    detect: Callable[..., Iterable[Any]]
    tier: int = 3
    description: str = ""
    deep: bool = False
    replaces: tuple[str, ...] = ()
    prepare: Callable[..., None] | None = None
    summary: Callable[[], str] | None = None


@attrs.frozen
class MatcherSpec:
    """A matcher the hot path may call, referenced by a lesson's ``matcher`` name."""

    name: str
    target: str = attrs.field(validator=_check_target)
    description: str = ""


@attrs.frozen
class StoreSpec:
    """A store backend: ``factory(config, home)`` returns an object of the Store protocol.

    Selected by name with ``"store"`` in ``config.json``; check a backend with
    :class:`lessons_core.testing.StoreContract`.
    """

    name: str
    factory: Callable[..., Any]
    description: str = ""


@attrs.frozen
class DedupSpec:
    """A deduplication backend: ``find(item, lessons)`` returns the lesson ``item`` duplicates.

    ``item`` is a candidate or a lesson; ``None`` means no duplicate.
    """

    name: str
    find: Callable[..., Any]
    description: str = ""
