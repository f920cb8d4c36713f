"""The scan's progress line and what ``lessons scan FILE`` says about a file it cannot read."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lessons_core.cli import progress
from lessons_core.cli.progress import ScanProgress, estimate

LESSONS = str(Path(sys.executable).parent / "lessons")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


def lessons(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LESSONS, *args], capture_output=True, text=True, timeout=120, check=False
    )


# -- named files that are not transcripts ----------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content", "why"),
    [
        ("notes.txt", "hello, world\n", "not JSON Lines or JSON"),
        ("empty.jsonl", "", "the file is empty"),
        ("data.json", '{"name": "x"}\n', "none of the marks of a Claude Code"),
    ],
)
def test_a_named_file_that_is_not_a_transcript_is_named_with_the_reason(
    tmp_path, name, content, why
):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    out = lessons("scan", str(path))
    assert out.returncode == 1
    assert f"Skipped {path}: not a transcript" in out.stderr
    assert why in out.stderr
    assert "Error: nothing to scan" in out.stderr
    assert "--agent" in out.stderr
    assert "Traceback" not in out.stderr


def test_a_stray_file_beside_a_transcript_is_named_and_the_transcript_read(tmp_path):
    stray = tmp_path / "notes.txt"
    stray.write_text("not a transcript\n", encoding="utf-8")
    transcript = next((FIXTURES / "claude").rglob("*.jsonl"))
    out = lessons("scan", str(stray), str(transcript))
    assert out.returncode == 0, out.stderr
    assert f"Skipped {stray}: not a transcript" in out.stderr
    assert "Scanned 1 of 1 transcript(s)" in out.stdout


# -- the estimate ------------------------------------------------------------------------------


def test_no_estimate_before_enough_work():
    assert estimate(elapsed=0.5, done=500, total=1000) is None  # too early
    assert estimate(elapsed=10.0, done=10, total=1000) is None  # too little read
    assert estimate(elapsed=10.0, done=0, total=1000) is None
    assert estimate(elapsed=10.0, done=0, total=0) is None


def test_estimate_scales_time_by_bytes_left_and_is_never_negative():
    assert estimate(elapsed=10.0, done=250, total=1000) == pytest.approx(30.0)
    assert estimate(elapsed=10.0, done=1000, total=1000) == 0.0
    assert estimate(elapsed=10.0, done=1200, total=1000) == 0.0  # more read than planned


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_line_counts_bytes_not_files():
    """Many small unchanged files first, one big one last: the estimate follows the bytes."""
    clock = Clock()
    out = io.StringIO()
    bar = ScanProgress(101, out, clock=clock)
    bar.plan(100_000_000)
    for i in range(100):
        clock.now += 0.01
        bar.advance(f"small-{i}", 0)  # unchanged files: no new bytes
    line = bar.line()
    assert "100/101 files" in line
    assert "0.0/100.0 MB new" in line
    assert "left" not in line  # 99 % of the files, 0 % of the work: no promise
    clock.now += 5.0
    bar.advance("big", 25_000_000)
    # 6 s for a quarter of the bytes: about 18 s left.
    assert "about 18 s left" in bar.line()
    bar.finish()
    assert out.getvalue().endswith("\r")
    assert all(len(part) <= progress.WIDTH for part in out.getvalue().split("\r"))


def test_durations_read_as_estimates():
    assert progress.duration(44.6) == "45 s"
    assert progress.duration(200) == "3 min 20 s"
    assert progress.duration(183) == "3 min"
    assert progress.duration(3 * 3600 + 5 * 60) == "3 h 05 min"


def test_the_scan_draws_the_bytes_line_on_a_terminal(tmp_path):
    """Through a pseudo-terminal, the real command shows the line and clears it."""
    pty = pytest.importorskip("pty")
    import shutil

    root = tmp_path / "many"
    source = next((FIXTURES / "claude").rglob("*.jsonl"))
    for i in range(25):
        target = root / f"p{i}" / f"s{i}.jsonl"
        target.parent.mkdir(parents=True)
        shutil.copy(source, target)
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [LESSONS, "scan", str(root)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=slave,
        env=os.environ,
    )
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(master)
    seen = b"".join(chunks).decode("utf-8", "replace")
    assert proc.returncode == 0
    assert "Scanning transcripts:" in seen
    assert "files" in seen and "MB new" in seen


def test_a_named_folder_without_transcripts_says_so(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.json").write_text('{"x": 1}', encoding="utf-8")
    out = lessons("scan", str(folder))
    assert out.returncode == 1
    assert f"Skipped {folder}: no transcript under it (1 JSON" in out.stderr
    assert "Traceback" not in out.stderr
