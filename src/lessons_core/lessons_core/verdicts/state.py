"""Where the outcome loop keeps its place in the store, and whether it has anything to do.

``lessons scan`` runs the loop after every scan. Most runs find no delivery log at all, or one
read to its end, and nothing waiting for judgement; importing the loop to learn that (its
records are attrs classes, its log reader a module of its own) cost several milliseconds of a
scan's start-up, while the answer takes two reads of the store's scan state and a ``stat`` per
log file. So :func:`idle` says, without importing the loop, when :func:`loop.ingest
<lessons_core.outcomes.loop.ingest>` would read, judge and write nothing, and the scan then
skips it. Any doubt (a state it does not recognise, a log that is not a plain file) answers
"not idle", and the loop runs as before.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

from lessons_core.hot.deliveries import LOG_NAME

#: The scan-state key (the store's key-value place for "how far did we read") of the log.
LOG_STATE_KEY = "lessons:deliveries-log"
#: The scan-state key of the queue of deliveries waiting for their session to settle.
PENDING_STATE_KEY = "lessons:deliveries-pending"
#: Rotate the log once it has been read completely and is larger than this.
ROTATE_BYTES = 8 * 1024 * 1024


def idle(store: Any, home: Path | str) -> bool:
    """True when the loop has nothing to do: every log file (the live one and a rotated one) is
    read to its end and recorded as such, none is due for rotation, and nothing waits."""
    try:
        return _idle(store, Path(home))
    except Exception:  # the loop runs, and reports what is wrong its own way
        return False


def _idle(store: Any, home: Path) -> bool:
    pending = store.get_scan_state(PENDING_STATE_KEY) or {}
    if not isinstance(pending, dict) or pending.get("items"):
        return False
    state = store.get_scan_state(LOG_STATE_KEY)
    files = state.get("files") if isinstance(state, dict) else None
    if not isinstance(files, dict):
        return False  # never run here: the first run records where it stands
    path = home / LOG_NAME
    live: dict[str, int] = {}
    for candidate in (path, path.with_name(path.name + ".1")):
        try:
            st = candidate.lstat()
        except FileNotFoundError:
            continue
        except OSError:
            return False
        if not stat.S_ISREG(st.st_mode):
            return False
        if candidate == path and st.st_size >= ROTATE_BYTES:
            return False
        live[str(st.st_ino)] = st.st_size
    return files == live
