"""``lessons import`` and ``lessons export`` through click and as a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from lessons_core.cli.main import cli

LESSONS = str(Path(sys.executable).parent / "lessons")
SEED = (
    Path(__file__).resolve().parents[2]
    / ".."
    / "shared"
    / "corpus"
    / "seed-lessons"
    / "lesson-manifest.json"
)
SCHEMA = (
    Path(__file__).resolve().parents[2]
    / "src"
    / "lessons_core"
    / "lessons_core"
    / "schemas"
    / "export.schema.json"
)

LESSON = {
    "summary": "npm publish needs a token",
    "mistake": "ran npm publish with NPM_TOKEN=npm_" + "a1B2c3D4e5F6" * 3 + " inline",
    "remediation": "put the token in ~/.npmrc, not on the command line",
    "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"\bnpm\s+publish\b"]},
}


@pytest.fixture
def seed() -> Path:
    if not SEED.is_file():
        pytest.skip("the shared seed catalogue is not beside this checkout")
    return SEED


def run(*args, input=None):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def _seed_refused(seed: Path) -> int:
    """How many seed lessons the manifest compiler refuses today (the pattern-safety judgement
    may accept more of them over time)."""
    from lessons_core.compiler.entries import refusals
    from lessons_core.transfer.node_manifest import parse_node_manifest

    lessons, _ = parse_node_manifest(json.loads(seed.read_text()), source="seed")
    return len(refusals(lessons))


def test_import_seed_as_the_readme_writes_it(seed):
    """`lessons import lesson-manifest.json` succeeds: every usable lesson comes in, the rest is
    listed with the reason, notes are counted in groups, and the second run changes nothing."""
    refused = _seed_refused(seed)
    first = run("import", str(seed))
    assert first.exit_code == 0, first.output
    lines = first.stdout.splitlines()
    assert lines[0].endswith("(Node lesson-manifest.json):")
    assert lines[1] == (
        f"  added {143 - refused}, merged 0, unchanged 0, conflicts 0, rejected {refused}"
    )
    notes = [line for line in lines if line.startswith("  note:")]
    assert len(notes) == 2, notes
    assert any(
        n.startswith("  note: 25 lessons scoped to projects not on this machine") for n in notes
    )
    second = run("import", str(seed)).stdout.splitlines()
    assert second[1] == (
        f"  added 0, merged 0, unchanged {143 - refused}, conflicts 0, rejected {refused}"
    )
    manifest = json.loads((Path(os.environ["LESSONS_HOME"]) / "lesson-manifest.json").read_text())
    assert "01KNH2FRACBQMQWX29GPYE47D8" in json.dumps(manifest)
    assert run("import", str(seed), "--partial").exit_code == 0  # the old spelling still works


def test_import_strict_is_all_or_nothing(tmp_path):
    """--strict: a lesson that cannot come in stops the import, nothing is stored."""
    good = {
        "summary": "Run pytest with a timeout",
        "mistake": "pytest hung without a terminal",
        "remediation": "pass --timeout",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": ["\\bpytest\\b"]},
    }
    exponential = {**good, "summary": "Nested repeats", "triggers": {
        "toolNames": ["Bash"], "commandPatterns": ["(\\w+\\s?)+$"]}}  # fmt: skip
    source = tmp_path / "two.jsonl"
    source.write_text(json.dumps(good) + "\n" + json.dumps(exponential) + "\n")
    result = run("import", str(source), "--strict")
    assert result.exit_code == 1
    assert "nothing was stored (leave out --strict to import the valid ones)" in result.stderr
    assert run("list", "--json").stdout == ""
    assert run("import", str(source)).exit_code == 0  # without --strict the good one comes in
    assert "Run pytest with a timeout" in run("list", "--json").stdout


def test_import_dry_run_reports_and_changes_nothing(seed):
    """--dry-run says what would come in, what not and why, which scopes match nothing here."""
    result = run("import", str(seed), "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["dryRun"] is True
    assert len(report["added"]) == 143 - _seed_refused(seed)
    assert len(report["rejected"]) == _seed_refused(seed)
    (scoped,) = [g for g in report["noteGroups"] if "not on this machine" in g["note"]]
    assert len(scoped["lessons"]) == 25
    assert run("list", "--json").stdout == ""
    assert not (Path(os.environ["LESSONS_HOME"]) / "lesson-manifest.json").exists()


@pytest.mark.parametrize("choice", ["global", "here"])
def test_import_scope_rescopes_foreign_projects(seed, tmp_path, monkeypatch, choice):
    """--scope global opens the Node-scoped lessons to every project; --scope here gives them
    this directory's project id."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    result = run("import", str(seed), "--scope", choice)
    assert result.exit_code == 0, result.output
    expected = None if choice == "global" else run("project-id").stdout.strip()
    shown = json.loads(run("show", "01KS4PREY1TPCAHNE0JKN6Z3RJ", "--json").stdout)
    assert shown["scope"] == expected
    scopes = {json.loads(line)["scope"] for line in run("list", "--json").stdout.splitlines()}
    assert scopes == {None, expected}


def test_export_redacts_and_validates(tmp_path):
    """The export file has a header, redacted text, and every line fits the schema."""
    run("add", "-", input=json.dumps(LESSON))
    target = tmp_path / "out" / "team.jsonl"
    result = run("export", str(target))
    assert result.exit_code == 0
    assert result.stderr == f"exported 1 lesson(s) to {target}\n"
    lines = [json.loads(x) for x in target.read_text().splitlines()]
    assert lines[0]["type"] == "lessons-export" and lines[0]["count"] == 1
    assert "[REDACTED:npm-token]" in lines[1]["mistake"]
    assert "npm_a1B2" not in target.read_text()
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))
    for line in lines:
        validator.validate(line)


def test_export_to_stdout_then_import_into_a_fresh_home(tmp_path, monkeypatch):
    """export - writes JSONL to stdout; importing it elsewhere recreates the lesson."""
    run("add", "-", input=json.dumps({**LESSON, "mistake": "plain"}))
    exported = run("export", "-").stdout
    original = json.loads(exported.splitlines()[1])
    monkeypatch.setenv("LESSONS_HOME", str(tmp_path / "other-home"))
    result = run("import", "-", input=exported)
    assert (
        result.stdout.splitlines()[0] == "Imported 1 lesson(s) from <stdin> (lessons JSONL export):"
    )
    (again,) = [json.loads(x) for x in run("list", "--json").stdout.splitlines()]
    for key in ("id", "slug", "contentHash", "triggers", "summary", "mistake", "remediation"):
        assert again[key] == original[key]


def test_import_edited_copy_conflicts_and_the_user_chooses(tmp_path):
    """Same id, different content: the stored lesson stays unless the user takes theirs."""
    run("add", "-", input=json.dumps(LESSON))
    exported = run("export", "-").stdout.splitlines()
    edited = json.loads(exported[1])
    edited["remediation"] = "use an automation token from the CI secret store"
    path = tmp_path / "edited.jsonl"
    path.write_text(exported[0] + "\n" + json.dumps(edited) + "\n")
    lines = run("import", str(path)).stdout.splitlines()
    assert lines[1] == "  added 0, merged 0, unchanged 0, conflicts 1, rejected 0"
    assert lines[3].startswith(f"  conflict: {edited['slug']} ({edited['id']}) is stored")
    assert "--on-conflict theirs" in lines[3]
    assert run("list", "--json", "--status", "candidate").stdout == ""
    taken = json.loads(run("import", str(path), "--on-conflict", "theirs", "--json").stdout)
    assert taken["conflicts"] == [
        {"id": edited["id"], "resolution": "theirs",
         "stored": {"id": edited["id"], "slug": edited["slug"]}}
    ]  # fmt: skip
    (now,) = [json.loads(x) for x in run("list", "--json").stdout.splitlines()]
    assert now["remediation"] == edited["remediation"]


def test_import_bad_line_is_named_and_the_rest_comes_in(tmp_path):
    """The valid lines come in and the bad one is named; --strict imports nothing."""
    path = tmp_path / "mixed.jsonl"
    path.write_text(json.dumps(LESSON) + "\n" + json.dumps({**LESSON, "priority": "high"}) + "\n")
    strict = run("import", str(path), "--strict")
    assert strict.exit_code == 1
    assert "line 2 field 'priority': expected an integer, got 'high'" in strict.stderr
    assert "nothing was stored (leave out --strict" in strict.stderr
    assert run("list", "--json").stdout == ""
    result = run("import", str(path))
    assert result.exit_code == 0
    assert "    rejected: line 2 field 'priority': expected an integer, got 'high'" in (
        result.stdout.splitlines()
    )
    assert len(run("list", "--json").stdout.splitlines()) == 1


def test_import_of_nothing_usable_fails(tmp_path):
    """A file whose every lesson is refused is an error: nothing came in."""
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({**LESSON, "priority": -3}) + "\n")
    result = run("import", str(path))
    assert result.exit_code == 1
    assert "none of its 1 lesson(s) can be imported" in result.stderr


def test_import_missing_file_and_export_to_a_directory(tmp_path):
    """Usage errors are one line each."""
    assert run("import", str(tmp_path / "none.jsonl")).stderr.endswith("no such file\n")
    result = run("export", str(tmp_path))
    assert result.exit_code == 1
    assert result.stderr == f"Error: {tmp_path}: is a directory; name a file\n"


def test_real_console_script_import_export_round_trip(seed, tmp_path):
    """The installed program imports the seed, exports it, and a fresh home re-imports it."""
    env = os.environ.copy()
    done = subprocess.run(
        [LESSONS, "import", str(seed)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out = tmp_path / "seed.jsonl"
    exported = subprocess.run(
        [LESSONS, "export", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert exported.returncode == 0, exported.stderr
    env["LESSONS_HOME"] = str(tmp_path / "fresh")
    again = subprocess.run(
        [LESSONS, "import", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert again.returncode == 0, again.stderr
    assert "added 143, merged 0, unchanged 0, conflicts 0" in again.stdout
    reexport = subprocess.run(
        [LESSONS, "export", "-"], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    first = [json.loads(x) for x in out.read_text().splitlines()[1:]]
    second = [json.loads(x) for x in reexport.stdout.splitlines()[1:]]
    assert {x["id"]: x["contentHash"] for x in first} == {x["id"]: x["contentHash"] for x in second}


def test_export_does_not_overwrite_without_force(tmp_path):
    run("add", "-", input=json.dumps(LESSON))
    target = tmp_path / "out.jsonl"
    target.write_text("keep me\n")
    refused = run("export", str(target))
    assert refused.exit_code == 1
    assert "pass --force" in refused.stderr
    assert target.read_text() == "keep me\n"
    assert run("export", str(target), "--force").exit_code == 0
    assert target.read_text().count("\n") == 2


def test_asking_about_conflicts_needs_a_terminal(tmp_path):
    path = tmp_path / "one.json"
    path.write_text(json.dumps(LESSON))
    result = run("import", str(path), "--on-conflict", "ask")
    assert result.exit_code == 1
    assert "needs a terminal" in result.stderr
