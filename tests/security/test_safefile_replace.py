"""``safefile.replace``: a private file put in place at once, never written through a link."""

from __future__ import annotations

import os

import pytest

from lessons_core.hot import safefile


def test_replace_writes_a_private_file_in_one_step(tmp_path):
    """The new text replaces the old; the file is the user's alone; no scratch file is left."""
    path = tmp_path / "memory.json"
    path.write_text("old")
    safefile.replace(path, b"new")
    assert path.read_text() == "new"
    assert path.stat().st_mode & 0o777 == 0o600
    assert os.listdir(tmp_path) == ["memory.json"]


def test_replace_never_writes_through_a_planted_link(tmp_path):
    """A link planted where the scratch file goes is removed, not followed: its target is
    untouched, and the file is written."""
    path = tmp_path / "memory.json"
    target = tmp_path / "elsewhere"
    target.write_text("keep")
    (tmp_path / f"memory.json.{os.getpid()}.tmp").symlink_to(target)
    safefile.replace(path, b"new")
    assert target.read_text() == "keep"
    assert path.read_text() == "new"
    assert sorted(os.listdir(tmp_path)) == ["elsewhere", "memory.json"]


def test_replace_in_a_missing_directory_raises_and_leaves_nothing(tmp_path):
    """No directory: ``OSError``, and no file anywhere."""
    with pytest.raises(OSError):
        safefile.replace(tmp_path / "gone" / "memory.json", b"x")
    assert os.listdir(tmp_path) == []


def test_a_memory_file_that_cannot_be_written_is_only_lost(tmp_path):
    """The memories a command keeps say False where they could not be saved, and raise
    nothing; one behind a link reads as empty."""
    from lessons_core import memory_file

    assert memory_file.save(tmp_path / "gone" / "m.json", "k", "items", ["a"]) is False
    assert memory_file.save(tmp_path / "m.json", "k", "items", ["a", "b"]) is True
    assert memory_file.load(tmp_path / "m.json", "k", "items") == ["a", "b"]
    assert memory_file.load(tmp_path / "m.json", "other key", "items") == []
    (tmp_path / "link.json").symlink_to(tmp_path / "m.json")
    assert memory_file.load(tmp_path / "link.json", "k", "items") == []


#: Replaces ``argv[1]`` by 64 KiB of "new", dying (no cleanup, as on a kill) at ``argv[2]``.
_DIES = """
import os, sys
from lessons_core.hot import safefile

def die(*args, **kwargs):
    os._exit(3)

where = sys.argv[2]
if where == "write":
    real_write = os.write
    def half(fd, data):  # half of the first chunk reaches the file, then the process is gone
        real_write(fd, bytes(data)[: len(data) // 2])
        os._exit(3)
    os.write = half
else:
    setattr(os, where, die)
safefile.replace(sys.argv[1], b"new" * 21846)
"""


@pytest.mark.parametrize("where", ["write", "fsync", "replace"])
def test_a_writer_that_dies_midway_leaves_the_old_file_whole(tmp_path, where):
    """Killed while writing, while flushing to disk or just before the rename: the file still
    holds every old byte; the rename comes only after the new bytes are on disk."""
    import subprocess
    import sys

    path = tmp_path / "manifest.json"
    path.write_bytes(b"old" * 1000)
    died = subprocess.run([sys.executable, "-c", _DIES, str(path), where], check=False)
    assert died.returncode == 3
    assert path.read_bytes() == b"old" * 1000


def test_a_failed_rename_leaves_the_old_file_and_no_scratch(tmp_path, monkeypatch):
    path = tmp_path / "config.json"
    path.write_text("old")

    def full(source, target):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(OSError, match="No space"):
        safefile.replace(path, b"new", keep_mode=True)
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["config.json"]


def test_keep_mode_keeps_the_permissions_of_the_file_it_replaces(tmp_path):
    """A settings file its owner made readable by others stays so; a new one is private."""
    path = tmp_path / "settings.json"
    path.write_text("{}")
    path.chmod(0o644)
    safefile.replace(path, b"{1}", keep_mode=True)
    assert path.stat().st_mode & 0o7777 == 0o644
    fresh = tmp_path / "new.json"
    safefile.replace(fresh, b"{}", keep_mode=True)
    assert fresh.stat().st_mode & 0o7777 == 0o600
    safefile.replace(path, b"{2}")  # without keep_mode: private, like the files of the home
    assert path.stat().st_mode & 0o7777 == 0o600


def test_mode_sets_the_permissions_whatever_the_umask(tmp_path):
    """A report is for reading: 0644 even under a umask that would take the reading bits."""
    old = os.umask(0o077)
    try:
        safefile.replace(tmp_path / "report.html", b"<p>", mode=0o644)
    finally:
        os.umask(old)
    assert (tmp_path / "report.html").stat().st_mode & 0o7777 == 0o644


def test_every_byte_arrives_when_the_system_writes_only_part(tmp_path, monkeypatch):
    """``os.write`` may write fewer bytes than asked (a signal, a full pipe of a slow disk)."""
    real_write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real_write(fd, bytes(data)[:7]))
    body = bytes(range(256)) * 40
    safefile.replace(tmp_path / "index.bin", body)
    assert (tmp_path / "index.bin").read_bytes() == body


def test_durable_flushes_the_file_and_its_directory_and_the_hook_flushes_nothing(
    tmp_path, monkeypatch
):
    """The file before the rename and the directory after it; a session note (the hook's)
    waits for no disk."""
    import stat

    flushed = []
    real_fsync = os.fsync

    def fsync(fd):
        flushed.append("dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    safefile.replace(tmp_path / "manifest.json", b"{}")
    assert flushed == ["file", "dir"]
    flushed.clear()
    safefile.replace(tmp_path / "note.json", b"{}", durable=False)
    assert flushed == []


def test_replace_returns_the_status_of_the_file_in_place(tmp_path):
    """The compiler binds the manifest's marshal copy to this status: it must be the file's."""
    path = tmp_path / "manifest.json"
    path.write_text("old")
    written = safefile.replace(path, b"new text")
    now = path.stat()
    assert (written.st_size, written.st_ino, written.st_mtime_ns) == (
        now.st_size,
        now.st_ino,
        now.st_mtime_ns,
    )
