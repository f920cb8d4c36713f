"""Read Kilo CLI's session database into normalized events.

Kilo CLI keeps its sessions in a SQLite database of OpenCode's schema (``kilo.db``; see
:mod:`lessons_kilo.roots`): the same ``session``, ``message`` and ``part`` tables, the same part
types and tool states. So this reader is OpenCode's
(:func:`lessons_opencode.reader.read_sessions`), stamping Kilo's agent name and reading its
tool names (:mod:`lessons_kilo.hot_names`); what it does with unfinished parts, a database
being written and the rowids it resumes after is told there.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lessons_core.api import events as ev
from lessons_kilo.hot_kilo import HOST
from lessons_kilo.roots import transcript_roots as transcript_roots
from lessons_opencode.reader import read_sessions

AGENT = HOST.agent


def read(
    path: str | Path,
    start_offset: int = 0,
    *,
    progress: ev.Progress | None = None,
    **_: Any,
) -> Iterator[ev.Event]:
    """Yield the events of every part added after ``progress.line`` (a part's rowid)."""
    prog = progress if progress is not None else ev.Progress(start_offset)
    yield from read_sessions(HOST, str(path), prog)
