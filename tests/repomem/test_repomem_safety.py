"""The ``.lessons`` folder: links and outside paths refused, nobody's file overwritten, no
secret written."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import attrs
import pytest

from lessons_core.errors import LessonsError
from lessons_core.repomem import registry
from lessons_core.repomem.folder import Changed, Folder, FolderError, digest
from lessons_core.repomem.repository import read_lessons, write_lesson
from lessons_core.testing import contract_lesson


@pytest.fixture(name="repo")
def fixture_repo(tmp_path: Path) -> Path:
    root = tmp_path / "widgets"
    (root / ".git").mkdir(parents=True)
    return root


def lesson(n: int = 1, **overrides: object):
    fields = {"id": f"01JD3S0C6Z7H5V1F8Q2W4E9R{n:02d}", "slug": f"lesson-{n}-ab12"}
    fields.update(overrides)
    return contract_lesson(n, **fields)


def test_write_then_read_back(repo: Path, home: Path) -> None:
    written = write_lesson(repo, lesson(1), home)
    assert written.status == "created"
    assert written.path == repo / ".lessons" / "lesson-1-ab12.md"
    assert oct(written.path.stat().st_mode & 0o777) == "0o644"
    found = read_lessons(repo)
    assert found.problems == ()
    ((path, back),) = found.lessons
    assert path == written.path
    assert back.id == lesson(1).id and back.scope == found.scope
    assert back.provenance.source == "repo"
    assert registry.load(home).repositories == (str(repo),)
    assert not [p for p in (repo / ".lessons").iterdir() if p.name.startswith(".")]


def test_same_content_is_unchanged_and_own_file_is_updated(repo: Path, home: Path) -> None:
    write_lesson(repo, lesson(1), home)
    assert write_lesson(repo, lesson(1), home).status == "unchanged"
    edited = attrs.evolve(lesson(1), remediation="a better remediation")
    assert write_lesson(repo, edited, home).status == "updated"
    ((_, back),) = read_lessons(repo).lessons
    assert back.remediation == "a better remediation"


def test_someone_elses_file_is_not_overwritten(repo: Path, home: Path) -> None:
    (repo / ".lessons").mkdir()
    theirs = repo / ".lessons" / "lesson-1-ab12.md"
    theirs.write_text("a teammate's file\n")
    with pytest.raises(Changed, match="someone else"):
        write_lesson(repo, lesson(1), home)
    assert theirs.read_text() == "a teammate's file\n"


def test_a_file_edited_since_we_wrote_it_is_not_overwritten(repo: Path, home: Path) -> None:
    path = write_lesson(repo, lesson(1), home).path
    path.write_text(path.read_text().replace("do the right thing", "do the team's thing"))
    edited = path.read_text()
    with pytest.raises(Changed, match="someone else"):
        write_lesson(repo, attrs.evolve(lesson(1), remediation="mine"), home)
    assert path.read_text() == edited


def test_the_file_of_the_same_id_is_written_under_its_name(repo: Path, home: Path) -> None:
    """A team may rename a file; the lesson keeps its file, none is added beside it."""
    path = write_lesson(repo, lesson(1), home).path
    renamed = path.with_name("pytest-needs-no-tty.md")
    path.rename(renamed)
    with pytest.raises(Changed):  # the rename made it someone else's file
        write_lesson(repo, attrs.evolve(lesson(1), remediation="new"), home)
    assert sorted(p.name for p in renamed.parent.iterdir()) == ["pytest-needs-no-tty.md"]


def test_create_never_replaces(repo: Path) -> None:
    with Folder(repo, create=True) as folder:
        folder.create("a.md", b"first")
        with pytest.raises(Changed, match="exists already"):
            folder.create("a.md", b"second")
        assert folder.read("a.md") == b"first"


def test_replace_puts_back_a_file_changed_meanwhile(repo: Path) -> None:
    with Folder(repo, create=True) as folder:
        folder.create("a.md", b"mine")
        (repo / ".lessons" / "a.md").write_bytes(b"theirs")
        with pytest.raises(Changed, match="changed by someone else"):
            folder.replace("a.md", b"new", digest(b"mine"))
        assert folder.read("a.md") == b"theirs"
        folder.replace("a.md", b"new", digest(b"theirs"))
        assert folder.read("a.md") == b"new"
    assert sorted(p.name for p in (repo / ".lessons").iterdir()) == ["a.md"]


def test_concurrent_writers_one_wins_nothing_lost(repo: Path, tmp_path: Path) -> None:
    """Two users writing the same new file at once: one creates it, the other is told."""
    results: list[str] = []
    barrier = threading.Barrier(2)

    def write(text: str) -> None:
        barrier.wait()
        try:
            write_lesson(repo, attrs.evolve(lesson(1), remediation=text), tmp_path / text)
            results.append(text)
        except Changed:
            results.append("refused")

    threads = [threading.Thread(target=write, args=(t,)) for t in ("one", "two")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) in (["one", "refused"], ["refused", "two"])
    winner = next(r for r in results if r != "refused")
    ((_, back),) = read_lessons(repo).lessons
    assert back.remediation == winner


def test_the_same_user_writing_again_updates(repo: Path, home: Path) -> None:
    write_lesson(repo, lesson(1), home)
    assert write_lesson(repo, attrs.evolve(lesson(1), remediation="v2"), home).status == "updated"
    assert write_lesson(repo, attrs.evolve(lesson(1), remediation="v3"), home).status == "updated"


def test_folder_that_is_a_link_is_refused(repo: Path, home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (repo / ".lessons").symlink_to(elsewhere)
    with pytest.raises(FolderError, match="symbolic link"):
        write_lesson(repo, lesson(1), home)
    with pytest.raises(FolderError, match="symbolic link"):
        read_lessons(repo)
    assert list(elsewhere.iterdir()) == []


def test_file_that_is_a_link_is_refused(repo: Path, home: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("---\nsummary: not yours\n---\n")
    (repo / ".lessons").mkdir()
    (repo / ".lessons" / "lesson-1-ab12.md").symlink_to(secret)
    found = read_lessons(repo)
    assert found.lessons == ()
    assert "symbolic link" in found.problems[0]
    with pytest.raises(LessonsError):
        write_lesson(repo, lesson(1), home)
    assert secret.read_text() == "---\nsummary: not yours\n---\n"
    with Folder(repo) as folder, pytest.raises(FolderError, match="symbolic link"):
        folder.read("lesson-1-ab12.md")


def test_a_fifo_is_not_read(repo: Path) -> None:
    (repo / ".lessons").mkdir()
    os.mkfifo(repo / ".lessons" / "stall-ab12.md")
    found = read_lessons(repo)  # would hang if the FIFO were opened for reading
    assert "not a regular file" in found.problems[0]


@pytest.mark.parametrize("slug", ["../escape", "a/b", ".hidden", "UP"])
def test_slugs_outside_the_folder_are_refused(repo: Path, home: Path, slug: str) -> None:
    with pytest.raises(LessonsError, match="cannot name a lesson file"):
        write_lesson(repo, lesson(1, slug=slug), home)
    assert not (repo.parent / "escape.md").exists()


@pytest.mark.parametrize("name", ["../x.md", "a/b.md", "..", ""])
def test_folder_names_stay_inside(repo: Path, name: str) -> None:
    with Folder(repo, create=True) as folder:
        with pytest.raises(FolderError):
            folder.create(name, b"x")
        with pytest.raises(FolderError):
            folder.read(name)


def test_oversized_and_badly_named_files_are_named(repo: Path) -> None:
    folder = repo / ".lessons"
    folder.mkdir()
    (folder / "big-ab12.md").write_bytes(b"x" * (300 * 1024))
    (folder / "Not A Slug.md").write_text("x")
    (folder / "README.md").write_text("what this folder is")
    (folder / "notes.txt").write_text("ignored")
    problems = read_lessons(repo).problems
    assert len(problems) == 2
    assert any("at most" in p and "big-ab12.md" in p for p in problems)
    assert any("not a slug" in p for p in problems)


@pytest.mark.parametrize(
    "overrides",
    [
        {"remediation": "export GITHUB_TOKEN=ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"},
        {"summary": "key AKIA" + "IOSFODNN7EXAMPLF leaked"},
    ],
)
def test_secrets_are_refused_at_write(repo: Path, home: Path, overrides: dict) -> None:
    with pytest.raises(LessonsError, match="looks like a secret"):
        write_lesson(repo, lesson(1, **overrides), home)
    assert not (repo / ".lessons" / "lesson-1-ab12.md").exists()


def test_a_committed_secret_is_redacted_and_named(repo: Path, home: Path) -> None:
    write_lesson(repo, lesson(1), home)
    path = repo / ".lessons" / "lesson-1-ab12.md"
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    path.write_text(path.read_text().replace("do the right thing 1", f"use {token}"))
    found = read_lessons(repo)
    ((_, back),) = found.lessons
    assert token not in back.remediation and "[REDACTED" in back.remediation
    assert "looks like a secret" in found.problems[0]


def test_home_paths_are_written_as_tilde(repo: Path, home: Path) -> None:
    text = f"see {Path.home()}/notes/pytest.txt"
    path = write_lesson(repo, lesson(1, remediation=text), home).path
    assert "~/notes/pytest.txt" in path.read_text()
    assert str(Path.home()) not in path.read_text()


def test_a_conflicted_file_is_skipped_the_others_read(repo: Path, home: Path) -> None:
    write_lesson(repo, lesson(1), home)
    path = write_lesson(repo, lesson(2), home).path
    text = path.read_text()
    path.write_text(
        text.replace("do the right thing 2", "<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> other")
    )
    found = read_lessons(repo)
    assert [lsn.slug for _, lsn in found.lessons] == ["lesson-1-ab12"]
    (problem,) = found.problems
    assert problem.startswith(f"{path}:") and "unresolved merge conflict" in problem


def test_two_files_with_one_id(repo: Path, home: Path) -> None:
    path = write_lesson(repo, lesson(1), home).path
    (path.parent / "copy-ab12.md").write_text(path.read_text())
    found = read_lessons(repo)
    assert len(found.lessons) == 1
    assert "the same id" in found.problems[0]


def test_a_pattern_the_build_would_refuse_is_named(repo: Path, home: Path) -> None:
    path = write_lesson(repo, lesson(1), home).path
    path.write_text(path.read_text().replace("\\bstep1\\b", "(a+)+$"))
    found = read_lessons(repo)
    assert found.lessons == ()
    assert "(a+)+$" in found.problems[0]
