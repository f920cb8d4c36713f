"""A ``#lesson`` block seen again: where it was seen, and the offer of every project.

The sessions are written here, in Claude Code's on-disk layout: two projects (plain folders
under the test's home, so each is its own project id), a session in each holding the same
block, and a session that repeats its block, as a sub-agent replaying its parent does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

LESSONS = str(Path(sys.executable).parent / "lessons")

BLOCK = (
    "The suite hung waiting for input.\n\n#lesson\ntool: Bash\ntrigger: \\bvitest\\b(?!.*--run)\n"
    "mistake: Running bare vitest starts its watch mode, which never exits without a terminal\n"
    "fix: Run vitest --run so the suite runs once and exits with its status\n#/lesson"
)


def lessons(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LESSONS, *args], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture(autouse=True)
def _no_xdg_config(monkeypatch):
    """Claude Code also keeps transcripts under $XDG_CONFIG_HOME/claude: never the real one."""
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)


def _record(kind: str, session: str, cwd: str, n: int, content: Any) -> str:
    return json.dumps(
        {
            "parentUuid": None if n == 1 else f"{session}-{n - 1}",
            "isSidechain": False,
            "type": kind,
            "message": {"role": kind, "content": content},
            "uuid": f"{session}-{n}",
            "timestamp": f"2026-05-02T10:00:{n:02d}.000Z",
            "userType": "external",
            "cwd": cwd,
            "sessionId": session,
            "version": "2.1.114",
        }
    )


def _session(project: Path, session: str, texts: list[str]) -> Path:
    """A session in ``project``: a prompt, then one assistant message per text. The block of
    the n-th text is on line n + 1."""
    project.mkdir(parents=True, exist_ok=True)
    folder = Path(os.environ["HOME"]) / ".claude" / "projects" / str(project).replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    lines = [_record("user", session, str(project), 1, "run the tests")]
    for i, text in enumerate(texts, 2):
        lines.append(
            _record("assistant", session, str(project), i, [{"type": "text", "text": text}])
        )
    path = folder / f"{session}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _projects() -> tuple[Path, Path]:
    home = Path(os.environ["HOME"])
    return home / "work" / "alpha", home / "work" / "beta"


def _only_lesson() -> dict[str, Any]:
    listed = lessons("list", "--json")
    assert listed.returncode == 0, listed.stderr
    (line,) = listed.stdout.splitlines()
    shown = lessons("show", json.loads(line)["id"], "--json")
    assert shown.returncode == 0, shown.stderr
    lesson: dict[str, Any] = json.loads(shown.stdout)
    return lesson


def test_a_block_seen_in_two_projects_is_one_lesson_seen_twice_and_offered_globally():
    """Scanned in one project, scoped to it by the user, then seen in a second project: one
    lesson with both places and both projects, and the scan, ``candidates``, ``review`` and
    ``show`` name the command that opens it to every project. The scope is left as it is."""
    alpha, beta = _projects()
    first = _session(alpha, "sess-alpha", ["Running the suite now.", BLOCK])
    scanned = lessons("scan", "--agent", "claude")
    assert scanned.returncode == 0, scanned.stderr
    assert "1 #lesson block(s) promoted" in scanned.stdout
    lesson = _only_lesson()
    rescoped = lessons("rescope", lesson["id"], "--project", str(alpha), "--yes")
    assert rescoped.returncode == 0, rescoped.stderr

    second = _session(beta, "sess-beta", [BLOCK])
    scanned = lessons("scan", "--agent", "claude")
    assert scanned.returncode == 0, scanned.stderr
    command = f"lessons rescope {lesson['id']} --global"
    assert "1 repeat(s) merged" in scanned.stdout
    assert command in scanned.stdout
    assert "seen in 2 projects" in scanned.stdout

    after = _only_lesson()
    prov = after["provenance"]
    assert prov["occurrences"] == 2
    assert prov["sessions"] == ["sess-alpha", "sess-beta"]
    assert prov["projects"] == ["~/work/alpha", "~/work/beta"]
    assert [(e["file"], e["line"], e["session_id"], e["project"]) for e in prov["evidence"]] == [
        (f"~/{first.relative_to(Path.home())}", 3, "sess-alpha", "~/work/alpha"),
        (f"~/{second.relative_to(Path.home())}", 2, "sess-beta", "~/work/beta"),
    ]
    assert lesson["scope"] is None  # a #lesson block's lesson is global until scoped
    assert after["scope"] == rescoped.stdout.split("scope ")[1].strip()  # never rescoped

    for args in (("candidates",), ("show", lesson["id"])):
        out = lessons(*args)
        assert out.returncode == 0, out.stderr
        assert command in out.stdout, args
    shown = lessons("show", lesson["id"]).stdout
    assert "seen at:      2 place(s) in 2 file(s)" in shown
    assert f"{second.name}:2 (session sess-beta)" in shown
    assert "projects:     ~/work/alpha, ~/work/beta" in shown
    # The JSON lines of `candidates --json` stay candidates only.
    assert lessons("candidates", "--json").stdout == ""


def test_the_same_block_twice_in_one_session_is_seen_once_and_offers_nothing():
    """The block again later in its own session (a sub-agent replaying its parent's messages
    reads the same): one place, one occurrence, no offer."""
    alpha, _ = _projects()
    _session(alpha, "sess-alpha", [BLOCK, "Done.", BLOCK])
    scanned = lessons("scan", "--agent", "claude")
    assert scanned.returncode == 0, scanned.stderr
    lesson = _only_lesson()
    assert lessons("rescope", lesson["id"], "--project", str(alpha), "--yes").returncode == 0
    _session(alpha, "sess-alpha", [BLOCK, "Done.", BLOCK, BLOCK])  # grown, read again
    scanned = lessons("scan", "--agent", "claude")
    assert scanned.returncode == 0, scanned.stderr
    assert "rescope" not in scanned.stdout
    prov = _only_lesson()["provenance"]
    assert prov["occurrences"] == 1
    assert [(e["line"], e["session_id"]) for e in prov["evidence"]] == [(2, "sess-alpha")]
    assert "rescope" not in lessons("candidates").stdout


def _guessing_session(project: Path, session: str) -> Path:
    """A session in ``project`` that reads a file where it is not, then where it is."""
    project.mkdir(parents=True, exist_ok=True)
    folder = Path(os.environ["HOME"]) / ".claude" / "projects" / str(project).replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    wrong, right = project / "src" / "hooks" / "use-list.ts", project / "src" / "ui" / "use-list.ts"

    def read(n: int, path: Path) -> str:
        use = [
            {"type": "tool_use", "id": f"r{n}", "name": "Read", "input": {"file_path": str(path)}}
        ]
        return _record("assistant", session, str(project), n, use)

    def result(n: int, text: str, error: bool) -> str:
        block = {"type": "tool_result", "tool_use_id": f"r{n - 1}", "content": text}
        return _record("user", session, str(project), n, [{**block, "is_error": error}])

    lines = [
        _record("user", session, str(project), 1, "fix the list hook"),
        read(2, wrong),
        result(3, "File does not exist.", True),
        read(4, right),
        result(5, "1\texport function useList() {}", False),
    ]
    path = folder / f"{session}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_guessed_path_waits_for_another_session_of_its_project():
    """A file read where it is not, then where it is: after one session the finding waits
    (listed under ``--status waiting``, not offered for review); when another session of the
    same project makes the same guess, it is a candidate of that project."""
    alpha, _beta = _projects()
    _guessing_session(alpha, "sess-one")
    scanned = lessons("scan", "--agent", "claude")
    assert scanned.returncode == 0, scanned.stderr
    assert "0 new candidate(s)" in scanned.stdout
    assert "1 guessed path(s) kept until the same guess comes back" in scanned.stdout
    assert lessons("candidates", "--json").stdout.strip() == ""
    (waiting,) = _json(lessons("candidates", "--json", "--status", "waiting").stdout)
    assert waiting["summary"] == "Read: `use-list.ts` is at `src/ui/use-list.ts`"

    _guessing_session(alpha, "sess-two")
    scanned = lessons("scan", "--agent", "claude")
    assert scanned.returncode == 0, scanned.stderr
    assert "1 new candidate(s)" in scanned.stdout
    (pending,) = _json(lessons("candidates", "--json").stdout)
    assert pending["id"] == waiting["id"]
    assert [e["session_id"] for e in pending["evidence"]] == ["sess-one", "sess-two"]
    assert pending["trigger"] == "**/hooks/use-list.ts"
    assert any(tag.startswith("scope:") for tag in pending["tags"])
    promoted = lessons("promote", pending["id"])
    assert promoted.returncode == 0, promoted.stderr
    lesson = _only_lesson()
    assert lesson["scope"] and "until:recurs" not in lesson["tags"]
    assert lesson["triggers"]["pathPatterns"] == ["**/hooks/use-list.ts"]


def _json(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]
