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


@pytest.fixture(autouse=True)
def _private_homes(tmp_path, monkeypatch):
    monkeypatch.setenv("LESSONS_HOME", str(tmp_path / "lessons-home"))
    monkeypatch.setenv("LESSONS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()


@pytest.fixture
def seed() -> Path:
    if not SEED.is_file():
        pytest.skip("the shared seed catalogue is not beside this checkout")
    return SEED


def run(*args, input=None):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def test_import_seed_reports_counts_and_is_idempotent(seed):
    """Every lesson of the catalogue is imported with counts per type, and the second run
    changes nothing."""
    first = run("import", str(seed))
    assert first.exit_code == 0, first.output
    lines = first.stdout.splitlines()
    assert lines[0].endswith("(Node lesson-manifest.json):")
    assert lines[1] == "  added 143, merged 0, unchanged 0, conflicts 0, rejected 0"
    assert lines[2] == "  by type: directive 18, guard 8, hint 104, protocol 13"
    second = run("import", str(seed), "--partial").stdout.splitlines()
    assert second[1] == "  added 0, merged 0, unchanged 143, conflicts 0, rejected 0"
    manifest = json.loads((Path(os.environ["LESSONS_HOME"]) / "lesson-manifest.json").read_text())
    assert "01KNH2FRACBQMQWX29GPYE47D8" in json.dumps(manifest)


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


def test_import_bad_line_names_it_and_imports_nothing(tmp_path):
    """All or nothing; --partial imports the valid lines and reports the others."""
    path = tmp_path / "mixed.jsonl"
    path.write_text(json.dumps(LESSON) + "\n" + json.dumps({**LESSON, "priority": "high"}) + "\n")
    result = run("import", str(path))
    assert result.exit_code == 1
    assert "line 2 field 'priority': expected an integer, got 'high'" in result.stderr
    assert "nothing was imported" in result.stderr
    assert run("list", "--json").stdout == ""
    partial = run("import", str(path), "--partial")
    assert partial.exit_code == 0
    assert "  rejected: line 2 field 'priority': expected an integer, got 'high'" in (
        partial.stdout.splitlines()
    )
    assert len(run("list", "--json").stdout.splitlines()) == 1


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
        [LESSONS, "import", str(seed), "--partial"],
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
