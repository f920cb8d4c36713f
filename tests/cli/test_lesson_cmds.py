"""``lessons add / list / show / remove / project-id`` through click and as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from lessons_core.cli.main import cli

LESSONS = str(Path(sys.executable).parent / "lessons")

PYTEST = {
    "summary": "pytest hangs without a TTY",
    "problem": "Running bare pytest stalls",
    "fix": "Use python -m pytest -p no:cacheprovider",
    "type": "hint",
    "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"\bpytest\b"]},
    "priority": 8,
    "confidence": 0.9,
    "tags": ["tool:pytest"],
}
GIT = {
    "summary": "git stash leaves untracked files",
    "mistake": "git stash without -u",
    "remediation": "git stash push -u",
    "type": "guard",
    "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"\bgit\s+stash\b"]},
}


def run(*args, input=None):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def add_json(*lessons):
    result = run("add", "-", "--json", input="\n".join(json.dumps(x) for x in lessons))
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


def manifest() -> dict:
    return json.loads((Path(os.environ["LESSONS_HOME"]) / "lesson-manifest.json").read_text())


def test_add_from_stdin_jsonl_prints_id_and_slug_per_lesson():
    """--json gives one {"id", "slug"} line per lesson, in input order."""
    added = add_json(PYTEST, GIT)
    assert [set(x) for x in added] == [{"id", "slug"}, {"id", "slug"}]
    assert added[0]["slug"].startswith("pytest-hangs-without-a-tty-")
    assert added[1]["slug"].startswith("git-stash-leaves-untracked-files-")


def test_add_rebuilds_the_manifest():
    """The hooks see a new lesson at once: the manifest lists it after add."""
    (added,) = add_json(PYTEST)
    assert added["id"] in json.dumps(manifest())


def test_add_accepts_a_file_with_a_json_array(tmp_path):
    """A JSON array in a file works, and the human output names each lesson."""
    path = tmp_path / "lessons.json"
    path.write_text(json.dumps([PYTEST, GIT], indent=2))
    result = run("add", str(path))
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert len(lines) == 2 and all(line.startswith("added ") for line in lines)


def test_adding_the_same_content_twice_merges():
    """A second add of identical content lands on the same lesson."""
    (first,) = add_json(PYTEST)
    result = run("add", "-", input=json.dumps(PYTEST))
    assert result.stdout.startswith(f"merged into {first['slug']} ({first['id']})")
    assert len(run("list", "--json").stdout.splitlines()) == 1


def test_add_rejects_invalid_input_with_the_reason_and_adds_nothing():
    """A typo fails the whole input with a hint; nothing is stored."""
    bad = {**GIT, "triggers": {"comandPatterns": ["x"]}}
    result = run("add", "-", input=json.dumps(PYTEST) + "\n" + json.dumps(bad))
    assert result.exit_code == 1
    assert "line 2: unknown key 'comandPatterns' — did you mean 'commandPatterns'?" in (
        result.stderr
    )
    assert "Traceback" not in result.output
    assert run("list", "--json").stdout == ""


def test_add_partial_skips_the_bad_lesson():
    """--partial adds the good ones and says what it skipped."""
    bad = {**GIT, "priority": 99}
    result = run("add", "-", "--partial", input=json.dumps(PYTEST) + "\n" + json.dumps(bad))
    assert result.exit_code == 0
    assert "skipped: line 2 field 'priority': must be between 1 and 10, got 99" in result.stderr
    assert len(run("list", "--json").stdout.splitlines()) == 1


def test_add_missing_file():
    """A wrong path is a one-line error."""
    result = run("add", "nope.json")
    assert result.exit_code == 1
    assert result.stderr == "Error: nope.json: no such file\n"


def test_list_table_and_json():
    """The table has the contract's columns; --json one full object per line."""
    add_json(PYTEST, GIT)
    table = run("list").stdout.splitlines()
    assert table[0].split() == ["SLUG", "TYPE", "PRIORITY", "CONFIDENCE", "STATUS", "SUMMARY"]
    assert any("guard" in row and "git stash leaves untracked files" in row for row in table)
    assert any("0.90" in row and " 8 " in row for row in table)
    objects = [json.loads(line) for line in run("list", "--json").stdout.splitlines()]
    assert {o["summary"] for o in objects} == {PYTEST["summary"], GIT["summary"]}
    assert all("contentHash" in o and "triggers" in o for o in objects)


def test_list_filters_by_type_and_status():
    """--type and --status narrow the list."""
    add_json(PYTEST, GIT)
    guards = run("list", "--json", "--type", "guard").stdout.splitlines()
    assert [json.loads(x)["type"] for x in guards] == ["guard"]
    assert run("list", "--status", "candidate").stdout.startswith("No lessons.")


def test_show_by_slug_id_and_prefix():
    """A lesson is found by slug, id or an unambiguous prefix; --json is the export shape."""
    (added,) = add_json(PYTEST)
    for key in (added["slug"], added["id"], added["slug"][:12]):
        shown = json.loads(run("show", key, "--json").stdout)
        assert shown["id"] == added["id"]
    assert shown["mistake"] == PYTEST["problem"] and shown["remediation"] == PYTEST["fix"]
    human = run("show", added["slug"]).stdout
    assert "commands:     \\bpytest\\b" in human
    assert "remediation:  Use python -m pytest -p no:cacheprovider" in human


def test_show_unknown_is_a_clear_error():
    """No such lesson: message and exit 1, no traceback."""
    result = run("show", "nothing-here")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: no lesson with id or slug 'nothing-here' (see 'lessons list')\n"
    )


def test_remove_deletes_and_rebuilds():
    """remove takes the lesson out of the store and the manifest."""
    (added,) = add_json(PYTEST)
    result = run("remove", added["slug"])
    assert result.stdout == f"removed {added['slug']} ({added['id']})\n"
    assert run("list", "--json").stdout == ""
    assert added["id"] not in json.dumps(manifest())
    assert run("remove", added["slug"]).exit_code == 1


def test_project_id_of_a_plain_directory_and_a_missing_one(tmp_path):
    """project-id prints the path form outside git, and refuses a non-directory."""
    plain = tmp_path / "scratch"
    plain.mkdir()
    out = run("project-id", str(plain)).stdout.strip()
    assert out.startswith("scratch-") and len(out) == len("scratch-") + 8
    result = run("project-id", str(tmp_path / "missing"))
    assert result.exit_code == 1
    assert "not a directory" in result.stderr


def test_project_id_defaults_to_the_current_directory(tmp_path, monkeypatch):
    """Without DIR, the current directory is used."""
    monkeypatch.chdir(tmp_path)
    assert run("project-id").stdout.strip() == run("project-id", str(tmp_path)).stdout.strip()


def lessons(*args, input=None):
    return subprocess.run(
        [LESSONS, *args],
        input=input,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=os.environ.copy(),
    )


def test_real_console_script_add_list_show_remove():
    """The installed `lessons` program, as a user runs it."""
    added = lessons("add", "-", "--json", input=json.dumps(GIT))
    assert added.returncode == 0, added.stderr
    ident = json.loads(added.stdout)
    listed = lessons("list")
    assert ident["slug"] in listed.stdout
    shown = lessons("show", ident["id"], "--json")
    assert json.loads(shown.stdout)["type"] == "guard"
    assert lessons("remove", ident["slug"]).returncode == 0
    missing = lessons("show", ident["slug"])
    assert missing.returncode == 1
    assert "Error: no lesson with id or slug" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_real_console_script_reports_bad_json_without_traceback():
    """Broken input is a message with a position, exit 1."""
    result = lessons("add", "-", input='{"summary": ')
    assert result.returncode == 1
    assert "<stdin>: not valid JSON at line 1, column 13" in result.stderr
    assert "Traceback" not in result.stderr


def test_add_starter_adds_the_demo_catalogue_once():
    """`add --starter` stores the catalogue the demo adds; a second run adds nothing, and an
    edited starter lesson is not added again beside its edit."""
    from importlib import resources

    catalogue = resources.files("lessons_core").joinpath("data", "starter-lessons.jsonl")
    summaries = {json.loads(line)["summary"] for line in catalogue.read_text().splitlines()}
    first = run("add", "--starter")
    assert first.exit_code == 0, first.output
    assert f"{len(summaries)} starter lessons added" in first.output
    listed = [json.loads(line) for line in run("list", "--json").output.splitlines()]
    assert {x["summary"] for x in listed} == summaries
    slug = next(x["slug"] for x in listed if x["type"] == "guard")
    edited = run("edit", slug, "--fix", "Push with --force-with-lease to a branch of your own.")
    assert edited.exit_code == 0, edited.output
    again = run("add", "--starter", "--json")
    assert again.exit_code == 0, again.output
    assert again.output == ""
    assert len(run("list", "--json").output.splitlines()) == len(summaries)
    said = run("add", "--starter").output
    assert "already in the store; nothing added" in said


def test_add_needs_a_file_or_starter():
    for args in (["add"], ["add", "lessons.json", "--starter"]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 2
        assert "--starter" in result.output
