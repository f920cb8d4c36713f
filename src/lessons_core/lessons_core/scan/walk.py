"""Walking the agents' transcript roots, with the standard library alone.

Shared by discovery and by the check that a re-scan has nothing to read
(:mod:`lessons_core.scan.unchanged`), which runs before anything else of the scanner is
imported: so this module imports nothing but ``os``.
"""

# ruff: noqa: PTH112 - strings and ``os``: ``pathlib`` is not imported here, for start-up

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

_EXTENSIONS = {
    "claude": (".jsonl",),
    # The spring-2025 TypeScript CLI's single-document ``rollout-*.json`` is not read.
    "codex": (".jsonl",),
    "gemini": (".json", ".jsonl"),
}


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


def _wanted(agent: str, path: str) -> bool:
    """Transcript files of an agent among everything under its root."""
    name = path.rpartition(os.sep)[2]
    if agent == "gemini":
        return f"{os.sep}chats{os.sep}" in path and not name.startswith(("logs", "checkpoint"))
    if agent == "codex":
        return name.startswith("rollout-")
    if agent == "claude":
        return name != "journal.jsonl"
    return True


def roots_of(
    agents: Mapping[str, Any], environ: Mapping[str, str], only: str | None = None
) -> list[tuple[str, str]]:
    """``(agent, root)`` for every transcript root of every agent with a reader (``only``: of
    that agent), whether the root exists or not."""
    out: list[tuple[str, str]] = []
    for name, spec in agents.items():
        if only and name != only:
            continue
        if spec.transcript_roots is None or spec.reader is None:
            continue
        out.extend((name, os.fspath(root)) for root in spec.transcript_roots(environ))
    return out


def walk_roots(roots: Iterable[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    """``(agent, file)`` for each transcript under the roots that exist, sorted per root."""
    for name, root in roots:
        if not os.path.isdir(root):
            continue
        real = os.path.realpath(root)  # once per root: what is walked under it is too
        exts = _EXTENSIONS.get(name, (".jsonl", ".json"))
        yield from ((name, p) for p in sorted(_walk(real, exts)) if _wanted(name, p))
