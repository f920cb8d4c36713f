"""`lessons build` and `lessons explain` through the command line."""

from __future__ import annotations

import json

from click.testing import CliRunner
from compiler_support import make_lesson

from lessons_core.cli.main import cli
from lessons_core.models import LessonType, MatchTarget


def _invoke(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_build_json_summary(store, home):
    """`build --json` reports counts, fingerprint and an empty refusal list; exit 0."""
    store.add_lessons(
        [
            make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": ["terraform"]}),
            make_lesson(type=LessonType.DIRECTIVE),
        ]
    )
    result = _invoke("build", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["lessons"] == 2
    assert summary["byTool"] == {"Bash": 1}
    assert summary["session"] == 1
    assert summary["refused"] == []
    assert (home / "lesson-manifest.json").is_file()


def test_build_lists_refusals_and_exits_1(store, home):
    """A catastrophic pattern: the manifest is written without it and the command fails."""
    store.add_lessons(
        [
            make_lesson(slug="fine", triggers={"command_patterns": ["kubectl"]}),
            make_lesson(slug="explosive", triggers={"command_patterns": ["(x+x+)+y"]}),
        ]
    )
    result = _invoke("build")
    assert result.exit_code == 1
    assert "explosive" in result.output
    assert "nested quantifiers" in result.output
    manifest = json.loads((home / "lesson-manifest.json").read_text())
    assert [e["slug"] for e in manifest["lessons"].values()] == ["fine"]


def _catalogue(store):
    guard = make_lesson(
        slug="no-force-push",
        type=LessonType.GUARD,
        injection="Refused: {command}",
        triggers={"tool_names": ["Bash"], "command_patterns": [r"git\s+push\s+(-f|--force)"]},
    )
    hint = make_lesson(
        slug="git-hint",
        triggers={"tool_names": ["Bash"], "command_patterns": [r"\bgit\b"]},
        command_match_target=MatchTarget.EXECUTABLE,
    )
    sql = make_lesson(
        slug="sql-files", triggers={"tool_names": ["Edit"], "path_patterns": ["*.sql"]}
    )
    store.add_lessons([guard, hint, sql])
    assert _invoke("build").exit_code == 0
    return guard, hint, sql


def test_explain_guard(store, home):
    """A force push: the guard denies, the hint waits, the Edit lesson is not gated on Bash."""
    guard, hint, _sql = _catalogue(store)
    result = _invoke("explain", "--tool", "Bash", "--command", "git push --force", "--json")
    report = json.loads(result.output)
    gates = {row["slug"]: row["failedGate"] for row in report["considered"]}
    assert gates == {"no-force-push": None, "git-hint": None, "sql-files": "tool"}
    assert report["effect"] == "deny"
    assert report["deny"] == "Refused: git push --force"
    assert report["delivered"] == [guard.id]
    assert report["waiting"] == [hint.id]


def test_explain_text_output_names_gates_and_budget(store, home):
    """Text output: each lesson with its verdict, the outcome and the bytes used."""
    _catalogue(store)
    result = _invoke("explain", "--tool", "Bash", "--command", "echo 'git is fun'")
    assert result.exit_code == 0
    assert "git-hint" not in result.output
    assert "stopped at: command 2, tool 1" in result.output
    assert "Outcome: nothing is delivered" in result.output
    result = _invoke("explain", "--all", "--tool", "Bash", "--command", "echo 'git is fun'")
    assert "git-hint [hint" in result.output
    assert "no: command patterns did not match" in result.output
    assert "sql-files [hint" in result.output
    result = _invoke("explain", "--tool", "Bash", "--command", "git status")
    assert "Outcome: context is added" in result.output
    assert "of 4096 bytes" in result.output


def test_explain_maps_native_tool_names(store, home, tmp_path):
    """--agent maps the agent's native tool name; --path is resolved against --cwd."""
    _, _, sql = _catalogue(store)
    result = _invoke(
        "explain",
        "--agent",
        "claude",
        "--tool",
        "Edit",
        "--path",
        "db/q.sql",
        "--cwd",
        str(tmp_path),
        "--json",
    )
    report = json.loads(result.output)
    assert report["paths"] == [str(tmp_path / "db" / "q.sql")]
    assert report["delivered"] == [sql.id]


def test_explain_errors_are_messages(store, home):
    """No manifest, an unknown agent, no subject: clear errors, no traceback."""
    result = CliRunner().invoke(cli, ["explain", "--tool", "Bash", "--command", "ls"])
    assert result.exit_code != 0
    assert "lessons build" in str(result.exception) or "lessons build" in result.output
    _catalogue(store)
    result = CliRunner().invoke(cli, ["explain", "--tool", "Bash"])
    assert result.exit_code == 2
    assert "--command or --path" in result.output
    result = CliRunner().invoke(
        cli, ["explain", "--agent", "nope", "--tool", "Bash", "--command", "ls"]
    )
    assert "unknown agent 'nope'" in str(result.exception)
