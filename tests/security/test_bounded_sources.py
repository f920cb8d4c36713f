"""Reading a repository's lessons is bounded work, and one bad file costs only itself.

A repository is anybody's. One lesson file whose front matter nested 5,000 levels deep ended
the read of every repository with ``RecursionError`` (``repo check`` and ``repo list`` crashed
with a traceback, ``doctor`` suggested a build that could not help); a folder of 20,000 files
took minutes to include. Here, through the real ``lessons`` process: the deep file is named with
its line and what to fix while its neighbours load, and a folder over ``repoMaxFiles`` or
``repoMaxBytes`` is refused whole, before a file is read, with a message naming the limit and
the setting. (The time a large folder takes is measured in benchmarks/repo_bounds.py.)
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

import hook_support

LESSONS = str(hook_support.BIN / "lessons")

GOOD = """---
summary: {name} needs its flag
triggers:
  toolNames: [Bash]
  commandPatterns: ["\\\\b{name}\\\\b --flag"]
---

## Mistake

Running {name} without the flag fails.

## Remediation

Pass --flag to {name}.
"""


def deep_file(levels: int) -> str:
    return (
        "---\nsummary: nested\nextra: "
        + "[" * levels
        + "]" * levels
        + "\n---\n\n## Mistake\n\nm\n\n## Remediation\n\nr\n"
    )


def repository(base: Path, name: str, files: dict[str, str]) -> Path:
    root = base / name
    (root / ".lessons").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for file, text in files.items():
        (root / ".lessons" / file).write_text(text, encoding="utf-8")
    return root


def goods(count: int, prefix: str = "tool") -> dict[str, str]:
    return {f"{prefix}-{n}.md": GOOD.format(name=f"{prefix}{n}") for n in range(count)}


@pytest.fixture(name="lessons")
def fixture_lessons(tmp_path: Path):  # type: ignore[no-untyped-def]
    home = tmp_path / "lessons-home"
    env = {**os.environ, "LESSONS_HOME": str(home), "HOME": str(tmp_path)}

    def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [LESSONS, *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    run.home = home  # type: ignore[attr-defined]
    return run


def manifest_slugs(home: Path) -> set[str]:
    manifest = json.loads((home / "lesson-manifest.json").read_text())
    return {lesson["slug"] for lesson in manifest["lessons"].values()}


# -- a file nested too deeply -------------------------------------------------------------------


def test_a_deeply_nested_file_is_named_and_its_neighbours_load(lessons, tmp_path: Path) -> None:
    files = {**goods(2), "deep.md": deep_file(5000)}
    root = repository(tmp_path, "repo", files)
    added = lessons("repo", "add", str(root))
    assert added.returncode == 0, added.stderr
    assert "Traceback" not in added.stderr
    assert "2 lesson(s)" in added.stdout
    assert f"{root}/.lessons/deep.md:3" in added.stderr
    assert "nested more than" in added.stderr
    assert manifest_slugs(lessons.home) >= {"tool-0", "tool-1"}

    check = lessons("repo", "check", str(root))
    assert check.returncode == 1
    assert "Traceback" not in check.stderr
    assert "deep.md:3" in check.stderr
    assert "flatten it" in check.stderr

    listed = lessons("repo", "list", str(root))
    assert listed.returncode == 0, listed.stderr
    assert "tool0 needs its flag" in listed.stdout
    assert "deep.md" in listed.stderr


def test_doctor_names_the_file_left_out(lessons, tmp_path: Path) -> None:
    """Not "run lessons build" (a build leaves it out again): the file and what to fix."""
    root = repository(tmp_path, "repo", {**goods(1), "deep.md": deep_file(5000)})
    assert lessons("repo", "add", str(root)).returncode == 0
    report = json.loads(lessons("doctor", "--json").stdout)
    sources = [f for f in report["findings"] if f["check"] == "sources"]
    assert sources, report["findings"]
    assert "deep.md" in sources[0]["detail"]
    assert "lessons build" not in sources[0]["fix"]


@pytest.mark.parametrize("levels", [17, 100, 5000])
def test_nesting_past_the_bound_is_refused_at_any_depth(
    lessons, tmp_path: Path, levels: int
) -> None:
    root = repository(tmp_path, "repo", {"deep.md": deep_file(levels)})
    check = lessons("repo", "check", str(root))
    assert check.returncode == 1
    assert "Traceback" not in check.stderr
    assert "deep.md:3" in check.stderr


def test_nesting_a_lesson_needs_is_read(lessons, tmp_path: Path) -> None:
    """The bound leaves room: triggers with their lists read as before."""
    root = repository(tmp_path, "repo", goods(1))
    check = lessons("repo", "check", str(root))
    assert check.returncode == 0, check.stderr


# -- how many files, how many bytes -------------------------------------------------------------


def test_a_folder_over_the_file_limit_is_refused_whole(lessons, tmp_path: Path) -> None:
    assert lessons("config", "repoMaxFiles", "5").returncode == 0
    root = repository(tmp_path, "repo", goods(6))
    added = lessons("repo", "add", str(root))
    assert added.returncode == 1
    assert "Traceback" not in added.stderr
    assert "holds 6 lesson files" in added.stderr
    assert "repoMaxFiles" in added.stderr
    assert "lessons config repoMaxFiles 6" in added.stderr

    at_limit = repository(tmp_path, "small", goods(5, "small"))
    assert lessons("repo", "add", str(at_limit)).returncode == 0


def test_a_folder_over_the_byte_limit_is_refused_whole(lessons, tmp_path: Path) -> None:
    root = repository(tmp_path, "repo", goods(3))
    size = sum(p.stat().st_size for p in (root / ".lessons").iterdir())
    assert lessons("config", "repoMaxBytes", str(size - 1)).returncode == 0
    check = lessons("repo", "check", str(root))
    assert check.returncode == 1
    assert f"holds {size} bytes" in check.stderr
    assert "repoMaxBytes" in check.stderr
    assert lessons("config", "repoMaxBytes", str(size)).returncode == 0
    assert lessons("repo", "check", str(root)).returncode == 0


def test_a_repository_grown_past_the_limit_costs_only_itself(lessons, tmp_path: Path) -> None:
    """Two included repositories; one grows past the limit: the build names it, and the
    other's lessons are still delivered."""
    big = repository(tmp_path, "big", goods(2, "big"))
    small = repository(tmp_path, "small", goods(2, "small"))
    assert lessons("repo", "add", str(big)).returncode == 0
    assert lessons("repo", "add", str(small)).returncode == 0
    assert lessons("config", "repoMaxFiles", "3").returncode == 0
    for name, text in goods(3, "more").items():
        (big / ".lessons" / name).write_text(text, encoding="utf-8")
    built = lessons("build")
    assert "Traceback" not in built.stderr
    assert f"{big}/.lessons holds 5 lesson files" in built.stderr
    assert "repoMaxFiles" in built.stderr
    slugs = manifest_slugs(lessons.home)
    assert {"small-0", "small-1"} <= slugs
    assert not any(slug.startswith(("big", "more")) for slug in slugs)
