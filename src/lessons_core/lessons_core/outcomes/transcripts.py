"""Finding and reading the transcript of the session a lesson was delivered in."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lessons_core.logs import get_logger
from lessons_core.verdicts.records import Delivery

log = get_logger()

#: At most this many candidate transcripts are opened per session.
MAX_CANDIDATES = 4


def find_transcripts(
    delivery: Delivery, agents: Mapping[str, Any], environ: Mapping[str, str]
) -> list[Path]:
    """Candidate transcripts of the delivery's session, best first.

    The path the hook saw comes first. Not every agent hands it to the hook, so files under
    the agent's transcript roots whose names carry the session (its adapter's
    ``session_names``) follow; the caller keeps the one whose events name the session.
    """
    found: list[Path] = []
    if delivery.transcript:
        path = Path(delivery.transcript)
        if path.is_file():
            found.append(path)
    spec = agents.get(delivery.agent)
    roots = getattr(spec, "transcript_roots", None)
    if roots is None or not delivery.session_id:
        return found
    naming = getattr(spec, "session_names", None)
    names = list(naming(delivery.session_id)) if naming is not None else [delivery.session_id]
    for root in roots(environ):
        if not root.is_dir():
            continue
        for name in names:
            for candidate in sorted(root.rglob(f"*{name}*")):
                path = Path(candidate)
                if path.suffix in (".jsonl", ".json") and path not in found and path.is_file():
                    found.append(path)
            if len(found) > 1:
                break
    return found[:MAX_CANDIDATES]


def session_events(
    delivery: Delivery, agents: Mapping[str, Any], environ: Mapping[str, str]
) -> list[Any]:
    """The events of the delivery's session (``[]`` when no transcript names it)."""
    for path in find_transcripts(delivery, agents, environ):
        events = read_events(agents, delivery.agent, path)
        if not events:
            continue
        ids = {e.session_id for e in events if e.session_id}
        if path == Path(delivery.transcript or "") or not ids or delivery.session_id in ids:
            return events
    return []


def read_events(agents: Mapping[str, Any], agent: str, path: Path) -> list[Any]:
    """Every event of one transcript through the agent's reader ([] when unreadable)."""
    spec = agents.get(agent)
    reader = getattr(spec, "reader", None)
    if reader is None:
        return []
    from lessons_core.scan import events as ev

    try:
        return list(reader(path, 0, progress=ev.Progress(0, 0), start_message=0))
    except (OSError, ValueError) as exc:
        log.warning("outcomes.transcript_unreadable", path=str(path), error=str(exc))
        return []
