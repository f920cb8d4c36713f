"""A plain ``lessons scan`` with nothing new is answered from the index the last scan left,
without the scanner; anything that could change the answer makes it run in full."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

LESSONS = str(Path(sys.executable).parent / "lessons")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
#: Runs ``lessons scan`` in this interpreter and says whether the scanner was imported.
_PROBE = (
    "import sys\n"
    "from lessons_core.cli.main import main\n"
    "try:\n"
    "    main(['scan'])\n"
    "except SystemExit:\n"
    "    pass\n"
    "print('engine', 'lessons_core.scan.engine' in sys.modules, 'attrs' in sys.modules)\n"
)


@pytest.fixture(autouse=True)
def _no_xdg_config(monkeypatch):
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("LESSONS_SCAN_WORKERS", raising=False)


@pytest.fixture(name="claude")
def fixture_claude() -> Path:
    home = Path(os.environ["HOME"])
    shutil.copytree(FIXTURES / "claude", home / ".claude")
    return home / ".claude"


def _scan() -> tuple[str, bool]:
    """The scan's output, and whether it ran the scanner."""
    out = subprocess.run(
        [sys.executable, "-c", _PROBE],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
        check=True,
    )
    *lines, last = out.stdout.rstrip("\n").split("\n")
    _, engine, attrs_loaded = last.split()
    return "\n".join(lines), engine == "True" or attrs_loaded == "True"


def _index() -> Path:
    return Path(os.environ["LESSONS_HOME"]) / "scan-index.json"


def _lessons(*args: str) -> None:
    subprocess.run([LESSONS, *args], capture_output=True, env=dict(os.environ), check=True)


def test_nothing_new_is_answered_without_the_scanner_and_says_what_a_full_scan_says(claude):
    first, ran = _scan()
    assert ran and first.startswith("Scanned ")
    assert _index().is_file() and _index().stat().st_mode & 0o077 == 0  # private
    quick, ran = _scan()
    assert not ran  # neither the scanner nor the model layer was imported
    _index().unlink()
    full, ran = _scan()
    assert ran and full == quick
    count = sum(1 for _ in claude.rglob("*.jsonl") if _.name != "journal.jsonl")
    assert quick.splitlines()[0] == (
        f"Scanned 0 of {count} transcript(s) (0.0 MB, 0 events; {count} unchanged)."
    )


def test_new_lines_a_new_file_or_a_changed_setting_make_the_scan_run_in_full(claude):
    _scan()
    session = next(p for p in claude.rglob("*.jsonl") if "subagents" not in p.parts)
    line = session.read_text(encoding="utf-8").splitlines()[0]
    with session.open("a", encoding="utf-8") as fh:
        fh.write(line + "\n")
    out, ran = _scan()
    assert ran and out.startswith("Scanned 1 of ")
    assert not _scan()[1]

    shutil.copy(session, session.with_name("0b0b0b0b-0000-4000-8000-000000000000.jsonl"))
    out, ran = _scan()
    assert ran and out.startswith("Scanned 1 of ")
    assert not _scan()[1]

    _lessons("config", "maxCandidatesPerScan", "7")  # config.json (and the store) changed
    assert _scan()[1]
    assert not _scan()[1]

    os.environ["CLAUDE_CONFIG_DIR"] = str(claude)  # a variable that moves the roots
    try:
        assert _scan()[1]
    finally:
        del os.environ["CLAUDE_CONFIG_DIR"]


def test_a_scan_that_left_work_for_later_leaves_no_index(claude):
    """Held candidates are offered again by the next scan, so it must run."""
    _lessons("config", "maxCandidatesPerScan", "1")
    out, ran = _scan()
    assert ran and "held back" in out
    assert not _index().exists()
    assert _scan()[1]


def test_a_broken_index_only_means_a_full_scan(claude):
    _scan()
    _index().write_text("{not json", encoding="utf-8")
    out, ran = _scan()
    assert ran and out.startswith("Scanned 0 of ")
    assert json.loads(_index().read_text(encoding="utf-8"))["files"]


def test_an_index_reached_through_a_link_is_not_read_and_a_planted_scratch_not_written(claude):
    """The index is ours: one replaced by a link is not trusted (the scan runs in full and
    writes a real one), and a link planted where the scratch file goes is not written through."""
    _scan()
    elsewhere = Path(os.environ["HOME"]) / "elsewhere.json"
    shutil.copy(_index(), elsewhere)
    _index().unlink()
    _index().symlink_to(elsewhere)
    assert _scan()[1]  # the linked index was not taken for the answer
    assert _index().is_file() and not _index().is_symlink()

    from lessons_core.scan import unchanged

    home = os.environ["LESSONS_HOME"]
    target = Path(os.environ["HOME"]) / "target"
    target.write_text("untouched", encoding="utf-8")
    scratch = Path(f"{_index()}.{os.getpid()}.tmp")
    scratch.symlink_to(target)
    index = json.loads(_index().read_text(encoding="utf-8"))
    files = [(agent, path) for agent, path, *_ in index["files"]]
    stamps = {path: stamp for _, path, *stamp in index["files"]}
    roots = [(agent, root, tuple(exts)) for agent, root, exts in index["roots"]]
    assert unchanged.record(home, dict(os.environ), roots, files, stamps)
    assert target.read_text(encoding="utf-8") == "untouched"
    assert not scratch.exists() and not scratch.is_symlink()
    assert unchanged.unchanged(home, dict(os.environ)) == len(files)
