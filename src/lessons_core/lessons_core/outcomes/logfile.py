"""Reading the hook's delivery log from where the last run stopped, and rotating it."""

from __future__ import annotations

import contextlib
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from lessons_core.verdicts.records import Delivery, delivery_from_json
from lessons_core.verdicts.state import LOG_STATE_KEY as LOG_STATE_KEY
from lessons_core.verdicts.state import ROTATE_BYTES as ROTATE_BYTES

#: Bytes of log read per run (the rest is read next time).
MAX_LOG_BYTES = 64 * 1024 * 1024


@attrs.define
class IngestReport:
    """What one :func:`~lessons_core.outcomes.loop.ingest` run did."""

    read: int = 0
    bad_lines: int = 0
    recorded: int = 0
    waiting: int = 0
    duplicates: int = 0
    orphans: int = 0
    outcomes: dict[str, int] = attrs.field(factory=dict)


def read_log(path: Path, offset: int = 0, limit: int = MAX_LOG_BYTES) -> tuple[list[Any], int]:
    """Parsed lines of ``path`` from ``offset``; returns ``(objects, next_offset)``.

    A partial last line (a hook still writing) is left for the next run; a line that is not JSON
    yields ``None`` in its place so the caller can count it.
    """
    import json

    try:
        with path.open("rb") as fh:
            fh.seek(offset)
            data = fh.read(limit)
    except FileNotFoundError:
        return [], offset
    end = data.rfind(b"\n")
    if end < 0:
        return [], offset
    out: list[Any] = []
    for raw in data[: end + 1].splitlines():
        if not raw.strip():
            continue
        try:
            out.append(json.loads(raw))
        except ValueError:
            out.append(None)
    return out, offset + end + 1


def read_new(store: Any, path: Path, report: IngestReport) -> list[Delivery]:
    """New deliveries of the live log and of a rotated one, advancing the stored offsets."""
    found: list[Delivery] = []
    state = store.get_scan_state(LOG_STATE_KEY) or {}
    files = dict(state.get("files") or {})
    for candidate in (path.with_name(path.name + ".1"), path):
        try:
            st = candidate.lstat()
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(st.st_mode):
            continue  # a link or a FIFO there is not the hooks' log (they never write through one)
        key = str(st.st_ino)
        offset = int(files.get(key, 0))
        if offset > st.st_size:
            offset = 0
        objects, offset = read_log(candidate, offset)
        files[key] = offset
        for obj in objects:
            report.read += 1
            delivery = delivery_from_json(obj)
            if delivery is None:
                report.bad_lines += 1
            else:
                found.append(delivery)
    live = [str(p.stat().st_ino) for p in (path, path.with_name(path.name + ".1")) if p.exists()]
    files = {k: v for k, v in files.items() if k in live}
    if files != state.get("files") or "files" not in state:
        # (Unchanged offsets are not written again: most scans find no new deliveries.)
        with store.transaction():
            store.set_scan_state(LOG_STATE_KEY, {"files": files})
    _maybe_rotate(path, files)
    return found


def _maybe_rotate(path: Path, files: Mapping[str, int]) -> None:
    """Move a fully read, large log aside (``.1``); hooks start a new one on their next write."""
    try:
        st = path.stat()
    except FileNotFoundError:
        return
    if st.st_size < ROTATE_BYTES or int(files.get(str(st.st_ino), 0)) < st.st_size:
        return
    with contextlib.suppress(OSError):
        path.replace(path.with_name(path.name + ".1"))
