"""A read-only LESSONS_HOME and a broken store, as a user meets them: a message, never a
traceback, and a way back (``lessons doctor --repair``)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

LESSONS = str(Path(sys.executable).parent / "lessons")
NOBODY = 65534


def lessons(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LESSONS, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
        check=False,
    )


def _lesson(i: int) -> dict:
    return {
        "summary": f"lesson {i} about tool{i}",
        "mistake": f"running tool{i} without its flag " + "and more words " * 40,
        "remediation": f"run tool{i} --flag " + "with an explanation " * 40,
        "triggers": {"toolNames": ["Bash"], "commandPatterns": [f"\\btool{i}\\b"]},
    }


def _add(count: int, tmp: Path) -> None:
    source = tmp / "lessons.jsonl"
    source.write_text("\n".join(json.dumps(_lesson(i)) for i in range(count)) + "\n")
    out = lessons("add", str(source))
    assert out.returncode == 0, out.stderr


def _store() -> Path:
    return Path(os.environ["LESSONS_HOME"]) / "lessons.db"


def _checkpoint() -> None:
    """Fold the WAL into the main file, as a closed store would have it."""
    with sqlite3.connect(_store()) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def _clean(out: subprocess.CompletedProcess[str]) -> None:
    assert out.returncode == 1
    assert out.stderr.startswith("Error: ")
    assert "Traceback" not in out.stderr + out.stdout


# -- a read-only LESSONS_HOME ----------------------------------------------------------------


@pytest.fixture(name="read_only_home")
def fixture_read_only_home() -> Iterator[tuple[Path, tuple[str, ...]]]:
    """A lessons home with one lesson that the CLI process may read but not write.

    As root, permissions do not bind, so the command runs as nobody in a home of nobody's made
    0555 (a home of another user is refused before anything is written: test_home_ownership);
    otherwise the home is made 0555.
    """
    base = Path(tempfile.mkdtemp(prefix="lessons-ro-"))
    base.chmod(0o755)
    home = base / "lessons-home"
    env = {"LESSONS_HOME": str(home), "HOME": str(base), "LESSONS_STATE_DIR": str(base / "st")}
    source = base / "one.json"
    source.write_text(json.dumps(_lesson(1)))
    assert lessons("add", str(source), **env).returncode == 0
    prefix: tuple[str, ...] = ()
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv to drop privileges")
        prefix = (setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups")
        probe = subprocess.run(
            [*prefix, LESSONS, "--version"], capture_output=True, text=True, check=False
        )
        if probe.returncode != 0:
            # The environment itself (a tox env in a private folder, say) is closed to nobody.
            shutil.rmtree(base, ignore_errors=True)
            pytest.skip(f"the lessons command cannot run as nobody here: {probe.stderr.strip()}")
        for path in home.rglob("*"):
            os.chown(path, NOBODY, NOBODY)
            path.chmod(0o444)
        os.chown(home, NOBODY, NOBODY)
        home.chmod(0o555)
    else:
        for path in home.iterdir():
            path.chmod(0o444)
        home.chmod(0o555)
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield home, prefix
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        home.chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize(
    "args",
    [
        ("add", "-"),
        ("remove", "lesson-1", "--yes"),
        ("scan",),
        ("build",),
        ("config", "minPriority", "2"),
    ],
)
def test_a_read_only_home_says_so_and_what_to_do(read_only_home, args):
    home, prefix = read_only_home
    out = subprocess.run(
        [*prefix, LESSONS, *args],
        input=json.dumps(_lesson(2)),
        capture_output=True,
        text=True,
        env=os.environ,
        timeout=120,
        check=False,
    )
    _clean(out)
    assert "read-only" in out.stderr or "Permission denied" in out.stderr
    assert str(home) in out.stderr
    assert "writable" in out.stderr


# -- a corrupt or truncated store ------------------------------------------------------------


def test_garbage_store_names_the_repair_and_repair_keeps_the_file(tmp_path):
    _add(3, tmp_path)
    _checkpoint()
    garbage = os.urandom(8192)
    _store().write_bytes(garbage)
    out = lessons("list")
    _clean(out)
    assert "corrupt or not a SQLite database" in out.stderr
    assert "lessons doctor --repair" in out.stderr
    doctor = lessons("doctor")
    assert "lessons doctor --repair" in doctor.stdout
    repaired = lessons("doctor", "--repair", "--json")
    report = json.loads(repaired.stdout)["repair"]
    assert report["repaired"] is True
    assert report["saved"] == 0
    kept = Path(report["kept"])
    assert kept.read_bytes() == garbage  # kept, untouched
    assert len(report["lost"]) == 3  # the manifest knew three lessons
    assert lessons("list").returncode == 0  # a working store again


def test_truncated_store_is_repaired_with_what_can_be_read(tmp_path):
    _add(120, tmp_path)
    _checkpoint()
    size = _store().stat().st_size
    with open(_store(), "r+b") as fh:
        fh.truncate(size // 2)
    _clean(lessons("list", "--json"))
    out = lessons("doctor", "--repair")
    assert "was broken" in out.stdout
    assert "Kept it as" in out.stdout
    saved = int(out.stdout.split("Saved ")[1].split()[0])
    assert 0 < saved < 120
    listed = lessons("list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert len(listed.stdout.splitlines()) == saved
    assert "could not be saved" in out.stdout
    assert list(_store().parent.glob("lessons.db.broken-*"))


def test_repair_of_a_healthy_store_changes_nothing(tmp_path):
    _add(2, tmp_path)
    out = lessons("doctor", "--repair")
    assert "reads cleanly; nothing to repair" in out.stdout
    assert not list(_store().parent.glob("lessons.db.broken-*"))
    assert len(lessons("list", "--json").stdout.splitlines()) == 2


def test_store_truncated_to_nothing_is_not_taken_for_a_new_one(tmp_path):
    """SQLite would open an empty file as a new database: the manifest says lessons were there."""
    _add(3, tmp_path)
    _checkpoint()
    _store().write_bytes(b"")
    out = lessons("list")
    _clean(out)
    assert "is empty" in out.stderr
    assert "3 lesson(s)" in out.stderr
    assert "lessons doctor --repair" in out.stderr
    manifest = _store().parent / "lesson-manifest.json"
    assert len(json.loads(manifest.read_text())["lessons"]) == 3  # not rebuilt empty
    repaired = json.loads(lessons("doctor", "--repair", "--json").stdout)["repair"]
    assert repaired["repaired"] is True
    assert len(repaired["lost"]) == 3
    assert Path(repaired["kept"]).stat().st_size == 0
    assert lessons("list").returncode == 0
