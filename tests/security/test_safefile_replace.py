"""``safefile.replace``: a private file put in place at once, never written through a link."""

from __future__ import annotations

import os

from lessons_core.hot import safefile


def test_replace_writes_a_private_file_in_one_step(tmp_path):
    """The new text replaces the old; the file is the user's alone; no scratch file is left."""
    path = tmp_path / "memory.json"
    path.write_text("old")
    assert safefile.replace(path, "new") is True
    assert path.read_text() == "new"
    assert path.stat().st_mode & 0o777 == 0o600
    assert os.listdir(tmp_path) == ["memory.json"]


def test_replace_never_writes_through_a_planted_link(tmp_path):
    """A link planted where the scratch file goes is refused, its target untouched, and the
    failure says so (the caller goes on without its memory)."""
    path = tmp_path / "memory.json"
    target = tmp_path / "elsewhere"
    target.write_text("keep")
    (tmp_path / f"memory.json.{os.getpid()}.tmp").symlink_to(target)
    assert safefile.replace(path, "new") is False
    assert target.read_text() == "keep"
    assert not path.exists()


def test_replace_in_a_missing_directory_fails_quietly(tmp_path):
    """No directory, no file, no exception."""
    assert safefile.replace(tmp_path / "gone" / "memory.json", "x") is False
