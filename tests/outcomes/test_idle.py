"""``verdicts.state.idle``: the scan skips the outcome loop only when the loop would do nothing.

Each "idle" answer is checked against the loop itself: run anyway, it must read nothing, judge
nothing and leave the store's scan state as it was.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from lessons_core import outcomes, services
from lessons_core.hot import deliveries
from lessons_core.verdicts import state

_LINE = {
    "id": "01J0000000000000000000000A",
    "session": "s-1",
    "agent": "claude",
    "event": "PreToolUse",
    "kind": "hint",
    "at": "2026-01-01T00:00:00Z",
}


def _idle(home: Path) -> bool:
    with services.open_store() as store:
        return state.idle(store, home)


def _states() -> tuple[Any, Any]:
    with services.open_store() as store:
        return (
            store.get_scan_state(state.LOG_STATE_KEY),
            store.get_scan_state(state.PENDING_STATE_KEY),
        )


def _ingest(home: Path) -> outcomes.IngestReport:
    with services.open_store() as store:
        return outcomes.ingest(store, home, agents={})


def _loop_does_nothing(home: Path) -> None:
    before = _states()
    report = _ingest(home)
    assert (report.read, report.recorded, report.waiting) == (0, 0, 0)
    assert _states() == before


def _log(home: Path) -> Path:
    return home / deliveries.LOG_NAME


def _append(home: Path, text: str) -> None:
    with _log(home).open("a", encoding="utf-8") as out:
        out.write(text)


def test_a_store_the_loop_never_ran_on_is_not_idle(home: Path) -> None:
    """The first run records where the log stands, so it must run."""
    assert not _idle(home)
    _ingest(home)
    assert _idle(home)
    _loop_does_nothing(home)


def test_a_new_delivery_wakes_the_loop_and_a_read_log_lets_it_sleep(home: Path) -> None:
    _ingest(home)
    _append(home, json.dumps(_LINE) + "\n")
    assert not _idle(home)
    report = _ingest(home)
    assert (report.read, report.orphans) == (1, 1)  # no such lesson: counted, not kept waiting
    assert _idle(home)
    _loop_does_nothing(home)


def test_waiting_deliveries_keep_the_loop_awake(home: Path) -> None:
    _ingest(home)
    with services.open_store() as store:
        store.set_scan_state(state.PENDING_STATE_KEY, {"items": [_LINE]})
    assert not _idle(home)


def test_a_half_written_line_a_rotated_log_and_a_link_are_left_to_the_loop(
    home: Path, tmp_path: Path
) -> None:
    _ingest(home)
    _append(home, json.dumps(_LINE)[:20])  # a hook still writing
    assert not _idle(home)
    _log(home).replace(home / (deliveries.LOG_NAME + ".1"))  # rotated, never read under that name
    assert not _idle(home)
    _ingest(home)
    (home / (deliveries.LOG_NAME + ".1")).unlink()
    assert not _idle(home)  # the recorded offsets name a file that is gone
    _ingest(home)
    assert _idle(home)
    target = tmp_path / "elsewhere.jsonl"
    target.write_text("")
    os.symlink(target, _log(home))
    assert not _idle(home)


def test_a_large_log_read_to_its_end_is_due_for_rotation(home: Path) -> None:
    _ingest(home)
    with _log(home).open("wb") as out:
        out.truncate(state.ROTATE_BYTES)  # read to its end (no line), but large
    with services.open_store() as store:
        ino = str(_log(home).stat().st_ino)
        store.set_scan_state(state.LOG_STATE_KEY, {"files": {ino: state.ROTATE_BYTES}})
    assert not _idle(home)
    _ingest(home)
    assert not _log(home).exists()  # the loop rotated it


def test_the_keys_are_the_loops_own() -> None:
    """The loop reads and writes under the same keys (they are re-exported, not copied)."""
    from lessons_core.outcomes import logfile
    from lessons_core.verdicts import records

    assert logfile.LOG_STATE_KEY is state.LOG_STATE_KEY
    assert records.PENDING_STATE_KEY is state.PENDING_STATE_KEY
    assert logfile.ROTATE_BYTES == state.ROTATE_BYTES
