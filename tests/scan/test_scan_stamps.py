"""The scanner's quick "which files changed" check against the store's stamps."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lessons_core import services
from lessons_core.scan import engine


def _session_file(tmp_path: Path, lines: int) -> Path:
    path = tmp_path / "proj" / "sess-1.jsonl"
    path.parent.mkdir(exist_ok=True)
    with open(path, "a") as fh:
        for n in range(lines):
            record = {
                "type": "user",
                "sessionId": "sess-1",
                "cwd": "/home/dev/app",
                "message": {"role": "user", "content": f"step {n}"},
            }
            fh.write(json.dumps(record) + "\n")
    return path


class _WholeStates:
    """The store seen by a scanner that only knows ``list_scan_states``."""

    def __init__(self, store: Any) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        if name == "list_scan_stamps":
            raise AttributeError(name)
        return getattr(self._store, name)


def _plans(store: Any, files: list[tuple[str, Path]]) -> list[tuple[str, int, int, int]]:
    scanner = engine.Scanner(store, services.load_config(services.home_dir()), {}, {})
    out = []
    for agent, path in files:
        job = scanner.plan(agent, path)
        if job is not None:
            out.append((str(job.path), job.prog.offset, job.prog.line, job.start_offset))
    return out


def test_stamps_match_the_stored_states_and_the_files(tmp_path):
    """After a scan, each file's stamp is its size, mtime and inode, as in its full state."""
    path = _session_file(tmp_path, 3)
    with services.session() as sess:
        engine.run_scan(sess, paths=[path])
    with services.open_store() as store:
        stamps = store.list_scan_stamps()
        states = store.list_scan_states()
    st = path.stat()
    assert stamps[str(path)] == (st.st_size, st.st_mtime_ns, st.st_ino)
    state = states[str(path)]
    assert stamps[str(path)] == (state["size"], state["mtime_ns"], state["inode"])


def test_stamps_plan_the_same_reads_as_whole_states(tmp_path):
    """Unchanged files are skipped and grown ones resume at the same place either way."""
    grown = _session_file(tmp_path, 60)
    other = tmp_path / "proj" / "sess-2.jsonl"
    other.write_text(grown.read_text())
    with services.session() as sess:
        engine.run_scan(sess, paths=[grown, other])
    _session_file(tmp_path, 5)  # appends to sess-1 only
    new = tmp_path / "proj" / "sess-3.jsonl"
    new.write_text(grown.read_text())
    files = [("claude", grown), ("claude", other), ("claude", new)]
    with services.open_store() as store:
        quick = _plans(store, files)
        whole = _plans(_WholeStates(store), files)
    assert quick == whole
    assert [p for p, *_ in quick] == [str(grown), str(new)]
    resumed = quick[0]
    assert 0 < resumed[1] < grown.stat().st_size  # from the context before the old end
