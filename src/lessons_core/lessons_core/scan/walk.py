"""Walking the agents' transcript roots, with the standard library alone.

Shared by discovery and by the check that a re-scan has nothing to read
(:mod:`lessons_core.scan.unchanged`), which runs before anything else of the scanner is
imported: so this module imports nothing but ``os``. Which file endings a root holds comes from
its adapter (``AgentSpec.transcript_extensions``) and travels with the root, so the check can
walk again without asking the adapter.
"""

# ruff: noqa: PTH112 - strings and ``os``: ``pathlib`` is not imported here, for start-up

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

#: ``(agent, root, file endings)``: one transcript root as walked.
Root = tuple[str, str, tuple[str, ...]]


def _walk(root: str, extensions: tuple[str, ...]) -> Iterator[str]:
    """Paths of files under ``root`` with one of ``extensions`` (``os.scandir``: nothing is
    opened, and directory entries carry their type, so no extra ``stat`` either)."""
    stack = [str(root)]
    while stack:
        current = stack.pop()
        try:
            with os.scandir(current) as it:
                entries = list(it)
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.name.endswith(extensions) and entry.is_file():
                    yield entry.path
            except OSError:
                continue


def roots_of(
    agents: Mapping[str, Any], environ: Mapping[str, str], only: str | None = None
) -> list[Root]:
    """Every transcript root of every agent with a reader (``only``: of that agent), whether
    the root exists or not, with the file endings its adapter walks."""
    out: list[Root] = []
    for name, spec in agents.items():
        if only and name != only:
            continue
        if spec.transcript_roots is None or spec.reader is None:
            continue
        exts = tuple(spec.transcript_extensions)
        out.extend((name, os.fspath(root), exts) for root in spec.transcript_roots(environ))
    return out


def walk_roots(roots: Iterable[Root]) -> Iterator[tuple[str, str]]:
    """``(agent, file)`` for each file with a root's endings under the roots that exist, sorted
    per root. Which of them are transcripts is the adapter's call (``is_transcript``)."""
    for name, root, exts in roots:
        if not os.path.isdir(root):
            continue
        real = os.path.realpath(root)  # once per root: what is walked under it is too
        yield from ((name, p) for p in sorted(_walk(real, exts)))
