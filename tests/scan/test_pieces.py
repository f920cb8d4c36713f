"""Reading one large transcript in pieces: the cuts, the bounded reads, and the same result as
one sequential read."""

from __future__ import annotations

import itertools
import json
import os
import random
import shutil
from pathlib import Path

import pytest

from lessons_core import services
from lessons_core.scan import engine, pieces, planning, reading
from lessons_core.scan.events import Progress
from lessons_core.scan.lines import iter_lines

N = pieces.OVERLAP_LINES


def _numbered(path: Path, count: int, seed: int = 3, tail: bytes = b"") -> list[int]:
    """Write ``count`` lines of random lengths (plus ``tail``); returns every line's start."""
    rnd = random.Random(seed)
    starts, data = [], bytearray()
    for i in range(count):
        starts.append(len(data))
        data += f"{i:06d} ".encode() + b"x" * rnd.choice((0, 5, 80, 700, 3000)) + b"\n"
    path.write_bytes(bytes(data) + tail)
    return starts


def test_cuts_fall_on_line_starts_with_exact_line_numbers_and_overlaps(tmp_path):
    path = tmp_path / "t.jsonl"
    starts = _numbered(path, 2000, tail=b"partial line, not yet complete")
    found = pieces.cuts(str(path), 0, 0, 4)
    assert len(found) == 3
    for cut in found:
        line = starts.index(cut.offset)  # a line start, and this many lines come before it
        assert cut.line == line
        assert (cut.back_offset, cut.back_line) == (starts[line - N], line - N)
        assert cut.ahead_offset == starts[line + N]
    bounds = [0] + [c.offset for c in found]
    sizes = [b - a for a, b in itertools.pairwise(bounds)]
    assert max(sizes) < 2 * min(sizes)  # about equal bytes


def test_cuts_count_lines_from_a_resume_point(tmp_path):
    path = tmp_path / "t.jsonl"
    starts = _numbered(path, 1000)
    (cut,) = pieces.cuts(str(path), starts[300], 300, 2)
    assert cut.line == starts.index(cut.offset)
    assert cut.back_offset >= starts[300]


def test_overlaps_stop_at_the_ends(tmp_path):
    path = tmp_path / "t.jsonl"
    _numbered(path, 60)  # fewer lines than an overlap
    (cut,) = pieces.cuts(str(path), 0, 0, 2)
    assert (cut.back_offset, cut.back_line) == (0, 0)
    assert cut.ahead_offset is None  # the piece before reads to the end


def test_nothing_to_cut(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"x" * 5000 + b"\n")  # one line
    assert pieces.cuts(str(path), 0, 0, 3) == []
    path.write_bytes(b"no newline at all")
    assert pieces.cuts(str(path), 0, 0, 2) == []
    assert pieces.cuts(str(path), 0, 0, 1) == []


def test_a_bounded_read_stops_before_the_first_line_at_or_past_its_end(tmp_path):
    path = tmp_path / "t.jsonl"
    starts = _numbered(path, 500)
    for end in (starts[100], starts[100] + 1, starts[101] - 1):
        prog = Progress(starts[40], 40, end=end)
        lines = list(iter_lines(path, prog, chunk_size=4096))
        first, last = lines[0], lines[-1]
        assert (first[0], first[1]) == (41, starts[40])
        # A line starting before ``end`` is read whole, the next one is not read at all.
        expected = 101 if end > starts[100] else 100
        assert last[0] == expected
        assert (prog.offset, prog.line) == (starts[expected], expected)


# -- the engine --------------------------------------------------------------------------------


def _record(kind: str, **kw) -> str:
    rec = {"type": kind, "sessionId": "sess-big", "cwd": "/home/dev/app", **kw}
    return json.dumps(rec) + "\n"


def _pair(i: int, rnd: random.Random) -> str:
    """A failing command, sometimes a few unrelated lines, then the corrected command."""
    tool = f"tool{i % 37}"
    fail = _record(
        "assistant",
        message={
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": f"f{i}",
                    "name": "Bash",
                    "input": {"command": f"{tool} build --flag{i % 5} src/"},
                }
            ],
        },
    ) + _record(
        "user",
        message={
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": f"f{i}",
                    "is_error": True,
                    "content": f"Exit code 2\nerror: unknown option --flag{i % 5} for {tool} build",
                }
            ],
        },
    )
    filler = "".join(
        _record("progress", data={"blob": "y" * rnd.choice((10, 400, 5000))})
        for _ in range(rnd.choice((0, 1, 3, 12)))
    )
    fix = _record(
        "assistant",
        message={
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": f"g{i}",
                    "name": "Bash",
                    "input": {"command": f"{tool} build --opt{i % 5} src/"},
                }
            ],
        },
    ) + _record(
        "user",
        message={
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": f"g{i}", "content": "built 3 targets"}
            ],
        },
    )
    return fail + filler + fix


def _transcript(home: Path, pairs: int, quiet_tail: int = 0) -> Path:
    """``pairs`` failure/fix pairs, then ``quiet_tail`` large lines that yield no events."""
    path = home / ".claude" / "projects" / "-home-dev-app" / "sess-big.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(11)
    body = "".join(_pair(i, rnd) for i in range(pairs))
    tail = "".join(_record("progress", data={"blob": "z" * 6000}) for _ in range(quiet_tail))
    path.write_text(body + tail, encoding="utf-8")
    return path


def _outcome() -> tuple[list[tuple], dict]:
    with services.open_store() as store:
        found = sorted(
            (c.tier, c.trigger, c.mistake, c.fix, tuple(sorted(e.line for e in c.evidence)))
            for c in store.list_candidates()
        )
        (state,) = [s for k, s in store.list_scan_states().items() if k.endswith("sess-big.jsonl")]
    return found, state


@pytest.mark.skipif(not planning.can_fork(), reason="pieces are read by forked helpers")
@pytest.mark.parametrize(
    ("pool", "quiet_tail"),
    [(False, 0), (True, 0), (False, 400)],
    ids=["split", "pool", "a-last-piece-without-events"],
)
def test_a_file_read_in_pieces_gives_what_one_read_gives(monkeypatch, pool, quiet_tail):
    """Also when the last piece holds fewer events than the context the next scan re-reads:
    the context then reaches back into the pieces before."""
    home = Path(os.environ["HOME"])
    lessons_home = Path(os.environ["LESSONS_HOME"])
    path = _transcript(home, 260, quiet_tail)
    monkeypatch.setattr(planning, "SPLIT_MIN_BYTES", 1)
    monkeypatch.setattr(planning, "PIECE_MIN_BYTES", 1)
    monkeypatch.setattr(planning, "PARALLEL_MIN_BYTES", 1 if pool else 1 << 40)
    cut: list[int] = []
    real_cut = planning.cut_pieces

    def spy(jobs, processes, agents):
        out = real_cut(jobs, processes, agents)
        cut.append(len(out))
        return out

    monkeypatch.setattr(planning, "cut_pieces", spy)
    with services.session() as sess:
        parallel = engine.run_scan(sess, workers=3)
    assert cut == [3]  # one file, three pieces
    in_pieces = _outcome()
    shutil.rmtree(lessons_home)
    with services.session() as sess:
        serial = engine.run_scan(sess, workers=1)
    assert in_pieces == _outcome()
    assert parallel.files_read == serial.files_read == 1
    assert parallel.bytes_read == serial.bytes_read == path.stat().st_size
    assert len(in_pieces[0]) > 20

    # And the next scan goes on from where the pieces left off, exactly as after one read.
    with path.open("a", encoding="utf-8") as out:
        out.write("".join(_pair(1000 + i, random.Random(i)) for i in range(3)))
    with services.session() as sess:
        again = engine.run_scan(sess, workers=1)
    assert again.files_read == 1 and len(again.new) + again.duplicates >= 3


@pytest.mark.skipif(not planning.can_fork(), reason="pieces are read by forked helpers")
def test_a_piece_that_fails_leaves_the_whole_file_for_next_time(monkeypatch):
    home = Path(os.environ["HOME"])
    path = _transcript(home, 120)
    monkeypatch.setattr(planning, "SPLIT_MIN_BYTES", 1)
    monkeypatch.setattr(planning, "PIECE_MIN_BYTES", 1)
    real_read = reading.read_file

    def flaky(job, *args, **kwargs):
        if job.piece is not None and job.piece[0] == 1:
            raise OSError("disk went away")
        return real_read(job, *args, **kwargs)

    monkeypatch.setattr(reading, "read_file", flaky)
    with services.session() as sess:
        report = engine.run_scan(sess, workers=2)
    assert (report.errors, report.files_read, report.new) == (1, 0, [])
    with services.open_store() as store:
        assert str(path) not in store.list_scan_states()
    monkeypatch.setattr(reading, "read_file", real_read)
    with services.session() as sess:
        again = engine.run_scan(sess, workers=2)
    assert again.files_read == 1 and again.bytes_read == path.stat().st_size and again.new
