"""Discovery: which files a scan reads (each agent's transcript roots, named paths, ``scanPaths``).

Paths stay strings here: a scan lists thousands of files, mostly unchanged, and a ``Path`` for
each would cost more than checking whether it changed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lessons_core.errors import LessonsError
from lessons_core.logs import get_logger
from lessons_core.scan.walk import roots_of, walk_roots

if TYPE_CHECKING:
    from lessons_core.specs import AgentSpec

log = get_logger()


def sniff(path: Path) -> str | None:
    """Guess the agent that wrote a transcript from its first bytes (for explicit paths)."""
    parts = set(path.parts)
    if ".codex" in parts or path.name.startswith("rollout-"):
        return "codex"
    if ".gemini" in parts:
        return "gemini"
    if ".claude" in parts:
        return "claude"
    try:
        with open(path, "rb") as fh:
            head = fh.read(8192)
    except OSError:
        return None
    if b'"payload"' in head or b"session_meta" in head or b'"record_type"' in head:
        return "codex"
    if b'"projectHash"' in head or (path.suffix == ".json" and b'"messages"' in head):
        return "gemini"
    if path.suffix == ".json":
        return None  # Claude Code writes JSONL only; a stray JSON file is not a transcript
    if b'"sessionId"' in head or b'"parentUuid"' in head or b'"type":"user"' in head:
        return "claude"
    return None


def why_not(path: Path, agents: Mapping[str, AgentSpec]) -> str:
    """Why ``path``, named to ``lessons scan``, is not read as a transcript (for the message)."""
    agent = sniff(path)
    if agent is not None:
        return f"a {agent} transcript, but the lessons-{agent} adapter is not installed"
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
    return (
        "not a transcript: JSON, but with none of the marks of a Claude Code, Codex CLI or "
        "Gemini CLI transcript (sessionId or parentUuid; session_meta or payload; projectHash "
        "or messages)"
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
        agent = only or sniff(given)
        if agent is not None and agent in agents:
            # The scan state is keyed by the file, not by how it was named: a relative path,
            # a symlink or ``..`` must not make a read file new again.
            found.append((agent, os.path.realpath(given)))
        elif skipped is not None:
            skipped.append((str(given), why_not(given, agents)))
        return found
    files = sorted(p for ext in (".jsonl", ".json") for p in given.rglob(f"*{ext}"))
    for file in files:
        agent = only or sniff(file)
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
    found.extend(walk_roots(roots_of(agents, environ, only)))
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
