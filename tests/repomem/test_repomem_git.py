"""The round trip through a real git repository, with the real ``lessons`` and hook processes.

A lesson is promoted into the repository and committed on a branch; two teammates edit it on
two branches; merging the second conflicts in the lesson file. While the conflict markers are
in the file, ``lessons build`` names the file and line and leaves the lesson out (never half of
it); once the conflict is resolved and committed, the rebuilt manifest delivers the merged
lesson in that project, once, and the Claude hook says so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
GIT = shutil.which("git")

pytestmark = pytest.mark.skipif(GIT is None, reason="git is not installed")

LESSON = {
    "summary": "pytest hangs without a TTY",
    "mistake": "Running bare pytest in the agent's shell stalls.",
    "remediation": "Use python -m pytest -p no:cacheprovider.",
    "type": "hint",
    "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"\bpytest\b"]},
    "priority": 8,
    "confidence": 0.9,
}


class World:
    """A scratch user (HOME, LESSONS_HOME) and a git repository."""

    def __init__(self, base: Path):
        self.base = base
        self.repo = base / "widgets"
        self.home = base / "lessons-home"
        (base / "home").mkdir()
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(base / "home"),
            "LESSONS_HOME": str(self.home),
            "LESSONS_STATE_DIR": str(base / "state"),
            "LESSONS_AUTO_SCAN": "0",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "Dev",
            "GIT_AUTHOR_EMAIL": "dev@example.org",
            "GIT_COMMITTER_NAME": "Dev",
            "GIT_COMMITTER_EMAIL": "dev@example.org",
        }

    def git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(GIT), *args],
            cwd=self.repo,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=check,
        )

    def lessons(self, *args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "lessons"), *args],
            cwd=self.repo,
            env=self.env,
            input=input,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    def manifest(self) -> dict:
        return json.loads((self.home / "lesson-manifest.json").read_text())

    def hook(self, cwd: Path, session: str) -> str:
        payload = {
            "session_id": session,
            "transcript_path": str(self.base / "t.jsonl"),
            "cwd": str(cwd),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "pytest -q tests"},
        }
        proc = subprocess.run(
            [str(BIN / "lessons-claude-hook")],
            input=json.dumps(payload),
            env=self.env,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stdout


def _edit_remediation(path: Path, new: str) -> None:
    text = path.read_text()
    assert LESSON["remediation"] in text
    path.write_text(text.replace(LESSON["remediation"], new))


@pytest.mark.skipif(
    not (BIN / "lessons-claude-hook").exists(), reason="the Claude adapter is not installed"
)
def test_promote_branch_conflict_resolve_rebuild(tmp_path: Path) -> None:
    w = World(tmp_path)
    w.repo.mkdir()
    w.git("init", "-q", "-b", "main")
    (w.repo / "README.md").write_text("widgets\n")
    w.git("add", "README.md")
    w.git("commit", "-q", "-m", "init")

    added = w.lessons("add", "-", "--json", input=json.dumps(LESSON))
    assert added.returncode == 0, added.stderr
    mine = json.loads(added.stdout)

    # Promote into the repository on a branch, review, merge into main.
    w.git("checkout", "-q", "-b", "share-pytest-lesson")
    promoted = w.lessons("promote", mine["slug"], "--to-repo", "--json")
    assert promoted.returncode == 0, promoted.stderr
    row = json.loads(promoted.stdout)
    assert row["status"] == "created"
    lesson_file = Path(row["path"])
    assert lesson_file == w.repo / ".lessons" / f"{mine['slug']}.md"
    w.git("add", ".lessons")
    w.git("commit", "-q", "-m", "Lessons: pytest needs no TTY")
    w.git("checkout", "-q", "main")
    w.git("merge", "-q", "share-pytest-lesson")

    # Two teammates change the same line on two branches.
    w.git("checkout", "-q", "-b", "team-a")
    _edit_remediation(lesson_file, "Use python -m pytest -p no:cacheprovider -x (team A).")
    w.git("commit", "-q", "-am", "Lessons: stop at the first failure")
    w.git("checkout", "-q", "main")
    w.git("checkout", "-q", "-b", "team-b")
    _edit_remediation(lesson_file, "Use python -m pytest -p no:cacheprovider -q (team B).")
    w.git("commit", "-q", "-am", "Lessons: quiet output")
    w.git("checkout", "-q", "main")
    w.git("merge", "-q", "team-a")
    conflict = w.git("merge", "team-b", check=False)
    assert conflict.returncode != 0
    assert "CONFLICT" in conflict.stdout + conflict.stderr
    conflicted = lesson_file.read_text()
    assert "<<<<<<<" in conflicted

    # The conflicted file: a clear error naming the file and line, and never half-read.
    build = w.lessons("build")
    assert build.returncode == 1
    lines = conflicted.split("\n")
    marker_line = next(i for i, x in enumerate(lines, start=1) if x.startswith("<<<<<<<"))
    assert f"{lesson_file}:{marker_line}: unresolved merge conflict" in build.stderr
    manifest = w.manifest()
    body = json.dumps(manifest)
    assert "team A" not in body and "team B" not in body and "<<<<<<<" not in body
    check = w.lessons("repo", "check")
    assert check.returncode == 1
    assert "unresolved merge conflict" in check.stderr
    # The user's own copy is what is delivered meanwhile (the repository's is left out).
    assert list(manifest["lessons"]) == [mine["id"]]
    assert manifest["lessons"][mine["id"]].get("scope") is None

    # A writer does not clobber the file while it is being merged.
    again = w.lessons("promote", mine["slug"], "--to-repo")
    assert again.returncode == 1
    assert "someone else" in again.stderr
    assert lesson_file.read_text() == conflicted

    # Resolve: keep both teammates' flags, commit, rebuild.
    resolved = []
    skipping = False
    for line in conflicted.split("\n"):
        if line.startswith("<<<<<<<"):
            resolved.append("Use python -m pytest -p no:cacheprovider -x -q (teams A and B).")
            skipping = True
        elif line.startswith(">>>>>>>"):
            skipping = False
        elif not skipping:
            resolved.append(line)
    lesson_file.write_text("\n".join(resolved))
    w.git("add", str(lesson_file))
    w.git("commit", "-q", "-m", "Merge team-b")

    build = w.lessons("build", "--json")
    assert build.returncode == 0, build.stderr
    summary = json.loads(build.stdout)
    assert summary["sourceProblems"] == []
    # The merge changed the file since the user wrote it: it waits for the user.
    assert any("wait" in n for n in summary["sourceNotices"])
    trusted = w.lessons("repo", "trust")
    assert trusted.returncode == 0, trusted.stderr
    assert "trusted 1 new or changed lesson file(s)" in trusted.stdout
    # Trusted, it still only suggests: the user's own lesson stays as the user keeps it.
    summary = json.loads(w.lessons("build", "--json").stdout)
    assert any("asks to rewrite your lesson" in n for n in summary["sourceNotices"])
    manifest = w.manifest()
    assert list(manifest["lessons"]) == [mine["id"]]  # delivered once, not beside the user's
    entry = manifest["lessons"][mine["id"]]
    assert entry.get("scope") is None and "teams A and B" not in entry["text"]

    # The user takes the team's version by dropping their own copy.
    assert w.lessons("remove", mine["slug"], "--yes").returncode == 0
    manifest = w.manifest()
    project = w.lessons("project-id").stdout.strip()
    assert list(manifest["lessons"]) == [mine["id"]]
    entry = manifest["lessons"][mine["id"]]
    assert entry["scope"] == project
    assert "-x -q (teams A and B)" in entry["text"]
    assert "sources" in manifest and manifest["sources"]["repo"]

    # The hook in the project delivers the merged lesson; outside it, the repository's is not.
    inside = w.hook(w.repo / ".lessons", "session-inside")
    assert "-x -q (teams A and B)" in inside
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert "teams A and B" not in w.hook(elsewhere, "session-elsewhere")

    listed = w.lessons("repo", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    (shown,) = [json.loads(line) for line in listed.stdout.splitlines()]
    assert shown["id"] == mine["id"] and shown["scope"] == project
    assert shown["remediation"].endswith("(teams A and B).")
