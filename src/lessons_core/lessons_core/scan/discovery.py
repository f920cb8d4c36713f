"""Discovery: which files a scan reads (each agent's transcript roots, named paths, ``scanPaths``).

Paths stay strings here: a scan lists thousands of files, mostly unchanged, and a ``Path`` for
each would cost more than checking whether it changed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lessons_core.errors import LessonsError
from lessons_core.logs import get_logger
from lessons_core.scan.walk import roots_of, walk_roots

if TYPE_CHECKING:
    from lessons_core.plugins.specs import AgentSpec

log = get_logger()


def sniff(path: Path, agents: Mapping[str, AgentSpec]) -> str | None:
    """The installed agent that most likely wrote ``path`` (for explicit paths), or ``None``.

    Each adapter's ``recognize`` judges the path first, and only when none claims it, the
    file's first bytes: the most certain adapter wins (the first one on a tie).
    """
    judges = [(name, spec.recognize) for name, spec in agents.items() if spec.recognize]
    best = _best(judges, path, None)
    if best is not None:
        return best
    try:
        with open(path, "rb") as fh:
            head = fh.read(8192)
    except OSError:
        return None
    return _best(judges, path, head)


def _best(
    judges: Sequence[tuple[str, Callable[[Path, bytes | None], int]]],
    path: Path,
    head: bytes | None,
) -> str | None:
    found, certainty = None, 0
    for name, recognize in judges:
        score = recognize(path, head)
        if score > certainty:
            found, certainty = name, score
    return found


def why_not(path: Path, agents: Mapping[str, AgentSpec]) -> str:
    """Why ``path``, named to ``lessons scan``, is not read as a transcript (for the message)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(8192)
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if not head.strip():
        return "not a transcript: the file is empty"
    first = head.lstrip().splitlines()[0] if head.lstrip() else b""
    if not first.startswith((b"{", b"[")):
        return "not a transcript: not JSON Lines or JSON (the first line is not a JSON object)"
    known = sorted((s for s in agents.values() if s.recognize is not None), key=lambda s: s.name)
    if not known:
        return "not a transcript of an installed agent: no agent adapter is installed"
    titles = [spec.title for spec in known]
    named = titles[0] if len(titles) == 1 else ", ".join(titles[:-1]) + " or " + titles[-1]
    marks = "; ".join(spec.marks for spec in known if spec.marks)
    return (
        f"not a transcript: JSON, but with none of the marks of a {named} transcript"
        + (f" ({marks})" if marks else "")
        + "; a transcript of another agent needs that agent's adapter installed"
    )


def _named(
    agents: Mapping[str, AgentSpec],
    given: Path,
    only: str | None,
    skipped: list[tuple[str, str]] | None,
) -> list[tuple[str, str]]:
    """The transcripts at one named path (a file, or every JSON/JSONL file under a folder)."""
    found: list[tuple[str, str]] = []
    if given.is_file():
        agent = only or sniff(given, agents)
        if agent is not None and agent in agents:
            # The scan state is keyed by the file, not by how it was named: a relative path,
            # a symlink or ``..`` must not make a read file new again.
            found.append((agent, os.path.realpath(given)))
        elif skipped is not None:
            skipped.append((str(given), why_not(given, agents)))
        return found
    files = sorted(p for ext in (".jsonl", ".json") for p in given.rglob(f"*{ext}"))
    for file in files:
        agent = only or sniff(file, agents)
        if agent is not None and agent in agents:
            found.append((agent, os.path.realpath(file)))
    if not found and skipped is not None:
        why = f"no transcript under it ({len(files)} JSON or JSON Lines file(s) of no known agent)"
        skipped.append((str(given), why))
    return found


def discover(
    agents: Mapping[str, AgentSpec],
    environ: Mapping[str, str],
    paths: Sequence[Path] = (),
    only: str | None = None,
    *,
    extra: Sequence[str] = (),
    skipped: list[tuple[str, str]] | None = None,
) -> list[tuple[str, str]]:
    """``(agent, file)`` pairs to scan: explicit paths, or every agent's transcript roots plus
    ``extra`` (``scanPaths`` of ``config.json``). A named file that is not a transcript, and an
    ``extra`` entry that does not exist, are added to ``skipped`` with the reason.

    Paths stay strings: a scan lists thousands of files, mostly unchanged, and a ``Path`` for
    each would cost more than checking whether it changed.
    """
    found: list[tuple[str, str]] = []
    if paths:
        for given in paths:
            given = given.expanduser()
            if not given.exists():
                raise LessonsError(f"no such file or directory: {given}")
            found.extend(_named(agents, given, only, skipped))
        return list(dict.fromkeys(found))
    for agent, path in walk_roots(roots_of(agents, environ, only)):
        wanted = agents[agent].is_transcript
        if wanted is None or wanted(path):
            found.append((agent, path))
    if extra:
        seen = {os.path.realpath(p) for _, p in found}
        for entry in extra:
            given = Path(entry).expanduser()
            if not given.exists():
                if skipped is not None:
                    skipped.append((entry, "does not exist (listed in scanPaths of config.json)"))
                continue
            # Sniffed, not forced: ``--agent`` picks that agent's files among them.
            for agent, path in _named(agents, given, None, skipped):
                real = os.path.realpath(path)
                if (only is None or agent == only) and real not in seen:
                    seen.add(real)
                    found.append((agent, path))
    return list(dict.fromkeys(found))  # two roots resolving to one folder: each file once
