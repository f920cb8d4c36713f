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
