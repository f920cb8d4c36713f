"""``add``, ``edit`` and ``import`` judge a lesson alike, and refuse one that can never fire."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner, Result

from lessons_core.cli.main import cli

PYTEST: dict[str, Any] = {
    "summary": "pytest hangs without a TTY",
    "mistake": "Running bare pytest stalls",
    "remediation": "Use python -m pytest -p no:cacheprovider",
    "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"\bpytest\b"]},
}


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def with_triggers(**changes: Any) -> dict[str, Any]:
    return {**PYTEST, **changes}


def added_slug() -> str:
    result = run("add", "-", "--json", input=json.dumps(PYTEST))
    assert result.exit_code == 0, result.output
    slug: str = json.loads(result.stdout)["slug"]
    return slug


@pytest.mark.parametrize(
    ("tool", "meant"),
    [("bash", "Bash"), ("run_shell_command", "Bash"), ("Wrte", "Write"), ("apply_patch", "Edit")],
)
def test_add_names_the_tool_that_was_meant(tool: str, meant: str) -> None:
    """A native or misspelt tool name never fires: refused with the canonical one it means."""
    lesson = with_triggers(triggers={"toolNames": [tool], "commandPatterns": [r"\bpytest\b"]})
    result = run("add", "-", input=json.dumps(lesson))
    assert result.exit_code == 1
    assert f"tool name {tool!r} is not one any agent reports; did you mean {meant}?" in (
        result.stderr
    )
    assert run("list", "--json").stdout == ""


@pytest.mark.parametrize("kind", ["guard", "nudge"])
def test_a_guard_or_nudge_without_a_pattern_is_refused(kind: str) -> None:
    lesson = with_triggers(type=kind, triggers={"toolNames": ["Bash"]})
    result = run("add", "-", input=json.dumps(lesson))
    assert result.exit_code == 1
    assert f"a {kind} needs a command, path or content pattern" in result.stderr
    assert "it would deny every Bash call" in result.stderr


def test_edit_validates_as_add_does() -> None:
    """`edit --priority -3` was accepted, then broke export → import."""
    slug = added_slug()
    for flags, said in (
        (["--priority", "-3"], "field 'priority': must be between 1 and 10, got -3"),
        (["--confidence", "2"], "field 'confidence': must be between 0 and 1, got 2.0"),
        (["--tool", "bash"], "did you mean Bash?"),
        (["--summary", "  "], "field 'summary': must not be empty"),
        (["--type", "guard", "--command", "(a+)+$"], "not saved"),
    ):
        result = run("edit", slug, *flags)
        assert result.exit_code == 1, (flags, result.output)
        assert said in result.stderr, (flags, result.stderr)
    shown = json.loads(run("show", slug, "--json").stdout)
    assert (shown["priority"], shown["triggers"]["toolNames"]) == (5, ["Bash"])


def test_edit_to_a_guard_without_pattern_is_refused() -> None:
    """A hint on a tool alone is fine; made a guard, it would deny every call of the tool."""
    gate = with_triggers(triggers={"toolNames": ["Bash"]})
    added = run("add", "-", "--json", input=json.dumps(gate))
    assert added.exit_code == 0, added.output
    slug = json.loads(added.stdout)["slug"]
    result = run("edit", slug, "--type", "guard")
    assert result.exit_code == 1
    assert "a guard needs a command, path or content pattern" in result.stderr


def test_import_leaves_out_a_misspelt_tool_and_says_why(tmp_path) -> None:
    path = tmp_path / "two.jsonl"
    bad = with_triggers(summary="other", triggers={"toolNames": ["bash"], "commandPatterns": ["x"]})
    path.write_text(json.dumps(PYTEST) + "\n" + json.dumps(bad) + "\n")
    result = run("import", str(path))
    assert result.exit_code == 0, result.output
    assert "did you mean Bash?" in result.stdout
    assert len(run("list", "--json").stdout.splitlines()) == 1


def test_explain_says_when_a_tool_name_is_unknown() -> None:
    added_slug()
    result = run("explain", "--tool", "bash", "--command", "pytest -x")
    assert result.exit_code == 0, result.output
    assert "no installed agent reports a tool named 'bash'; did you mean Bash?" in result.stdout
    known = run("explain", "--tool", "Bash", "--command", "pytest -x", "--json")
    assert json.loads(known.stdout)["unknownTool"] is None


def test_a_pattern_is_judged_as_stored_with_its_secret_redacted() -> None:
    """`(?:ghp_…\\s*)*` is stored as `(?:\\S+\\s*)*`, which the compiler refuses (accepted as
    written): refused at add (the stored form would never be delivered, and export would write
    what import refuses), and the message shows the redacted pattern, not the token."""
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    lesson = with_triggers(
        triggers={"toolNames": ["Bash"], "commandPatterns": [r"\bdeploy\s+(?:" + token + r"\s*)*$"]}
    )
    result = run("add", "-", input=json.dumps(lesson))
    assert result.exit_code == 1
    assert "its patterns as stored: their secrets redacted" in result.stderr
    assert token not in result.stderr
    assert run("list", "--json").stdout == ""
