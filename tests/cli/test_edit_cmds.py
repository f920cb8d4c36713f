"""``lessons edit / disable / enable / rescope / remove``: a user corrects what was learned."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from lessons_core.cli.main import cli

LESSONS = str(Path(sys.executable).parent / "lessons")

PYTEST = {
    "summary": "pytest hangs without a TTY",
    "mistake": "Running bare pytest stalls",
    "remediation": "Use python -m pytest -p no:cacheprovider",
    "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"\bpytest\b"]},
}
PYTHON = {
    "summary": "python3 -c quoting",
    "mistake": "nested quotes break python3 -c",
    "remediation": "use a heredoc",
    "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"\bpython3 -c\b"]},
}


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def add(*lessons: dict[str, Any]) -> list[dict[str, str]]:
    result = run("add", "-", "--json", input="\n".join(json.dumps(x) for x in lessons))
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def shown(key: str) -> dict[str, Any]:
    result = run("show", key, "--json")
    assert result.exit_code == 0, result.output
    out: dict[str, Any] = json.loads(result.stdout)
    return out


def manifest() -> dict[str, Any]:
    path = Path(os.environ["LESSONS_HOME"]) / "lesson-manifest.json"
    out: dict[str, Any] = json.loads(path.read_text())
    return out


def test_edit_with_flags_validates_and_rebuilds() -> None:
    (lesson,) = add(PYTEST)
    result = run("edit", lesson["slug"], "--fix", "Run pytest with -p no:cacheprovider", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["remediation"] == "Run pytest with -p no:cacheprovider"
    assert shown(lesson["id"])["id"] == lesson["id"]  # the same lesson, edited in place
    text = manifest()["lessons"][lesson["id"]]["text"]
    assert "-p no:cacheprovider" in text


def test_edit_refuses_what_the_compiler_would_leave_out() -> None:
    (lesson,) = add(PYTEST)
    result = run("edit", lesson["slug"], "--command", "(a+)+$")
    assert result.exit_code == 1
    assert "not saved" in result.stderr
    assert shown(lesson["id"])["triggers"]["commandPatterns"] == [r"\bpytest\b"]


def test_edit_in_the_editor(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (lesson,) = add(PYTEST)
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import json, sys\n"
        "path = sys.argv[1]\n"
        "data = json.load(open(path))\n"
        "data['summary'] = 'pytest needs -p no:cacheprovider here'\n"
        "json.dump(data, open(path, 'w'))\n"
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    result = run("edit", lesson["slug"])
    assert result.exit_code == 0, result.output
    assert shown(lesson["id"])["summary"] == "pytest needs -p no:cacheprovider here"


def test_invalid_editor_text_is_kept(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (lesson,) = add(PYTEST)
    editor = tmp_path / "editor.py"
    editor.write_text("import sys\nopen(sys.argv[1], 'w').write('{not json')\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    result = run("edit", lesson["slug"])
    assert result.exit_code == 1
    kept = result.stderr.rsplit("your text is in ", 1)[1].strip()
    assert Path(kept).read_text() == "{not json"
    assert shown(lesson["id"])["summary"] == PYTEST["summary"]


def test_disable_and_enable() -> None:
    (lesson,) = add(PYTEST)
    assert run("disable", lesson["slug"]).exit_code == 0
    assert lesson["id"] not in manifest()["lessons"]
    assert shown(lesson["id"])["status"] == "disabled"
    again = run("disable", lesson["slug"], "--json")
    assert json.loads(again.stdout)["status"] == "disabled"
    assert run("enable", lesson["slug"]).exit_code == 0
    assert lesson["id"] in manifest()["lessons"]


def test_rescope_to_a_project_and_back(tmp_path: Path) -> None:
    (lesson,) = add(PYTEST)
    project = tmp_path / "acme"
    project.mkdir()
    result = run("rescope", lesson["slug"], "--project", str(project), "--json")
    assert result.exit_code == 0, result.output
    scope = json.loads(result.stdout)["scope"]
    assert scope.startswith("acme-")
    assert manifest()["lessons"][lesson["id"]]["scope"] == scope
    assert run("rescope", lesson["slug"], "--global").exit_code == 0
    assert "scope" not in manifest()["lessons"][lesson["id"]]


def test_a_prefix_is_not_enough_to_delete_without_asking() -> None:
    """``remove p`` must not silently delete whichever lesson starts with p."""
    (lesson,) = add(PYTEST)
    refused = run("remove", lesson["slug"][:2])
    assert refused.exit_code == 1
    assert "only a prefix" in refused.stderr and "--yes" in refused.stderr
    assert shown(lesson["id"])["id"] == lesson["id"]
    done = run("remove", lesson["slug"][:2], "--yes", "--json")
    assert json.loads(done.stdout) == {"id": lesson["id"], "slug": lesson["slug"], "removed": True}


def test_an_ambiguous_prefix_names_the_candidates() -> None:
    add(PYTEST, PYTHON)
    result = run("remove", "py", "--yes")
    assert result.exit_code == 1
    assert "matches several lessons" in result.stderr


def test_a_prefix_is_confirmed_in_a_terminal(tmp_path: Path) -> None:
    """In a terminal the prefix match is shown and confirmed (a real pseudo-terminal)."""
    import pty

    (lesson,) = add(PYTEST)
    pid, fd = pty.fork()
    if pid == 0:  # the child: the real CLI on a terminal
        os.execv(LESSONS, [LESSONS, "remove", lesson["slug"][:3]])
    output = b""
    answered = False
    while True:
        try:
            chunk = os.read(fd, 1024)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
        if not answered and b"[y/N]" in output:
            os.write(fd, b"y\n")
            answered = True
    os.waitpid(pid, 0)
    assert b"Remove " + lesson["slug"].encode() in output
    assert b"removed " + lesson["slug"].encode() in output
    listed = subprocess.run([LESSONS, "list", "--json"], capture_output=True, text=True,
                            check=False)  # fmt: skip
    assert listed.stdout == ""
