"""``--json`` on every command that prints data: one JSON object (per line), nothing else."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

LESSONS = str(Path(sys.executable).parent / "lessons")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


def lessons(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LESSONS, *args], capture_output=True, text=True, env=os.environ, timeout=120, check=False
    )


def _objects(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def test_install_and_uninstall_json():
    settings = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    dry = lessons("install", "claude", "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    (record,) = _objects(dry.stdout)
    assert record["agent"] == "claude"
    assert record["dryRun"] is True and record["changed"] is True
    assert '"PreToolUse"' in record["diff"]
    assert not settings.exists()

    done = lessons("install", "claude", "--json", "--no-scan")
    assert done.returncode == 0, done.stderr
    (record,) = _objects(done.stdout)
    assert record["path"] == str(settings)
    assert "PreToolUse" in record["events"]
    assert record["missing"] == []
    assert record["commands"] and "lessons_claude" in record["commands"][0]
    assert record["pinned"]["LESSONS_HOME"] == os.environ["LESSONS_HOME"]
    assert record["home"] == os.environ["LESSONS_HOME"]
    assert record["scan"] == "skipped"

    removed = lessons("uninstall", "claude", "--json")
    assert removed.returncode == 0, removed.stderr
    (record,) = _objects(removed.stdout)
    assert record["agent"] == "claude" and record["changed"] is True


def test_review_json_with_accept_and_reject():
    shutil.copytree(FIXTURES / "claude", Path(os.environ["HOME"]) / ".claude")
    assert lessons("scan").returncode == 0
    found = _objects(lessons("candidates", "--json").stdout)
    assert len(found) >= 2
    out = lessons("review", "--json", "--accept", found[0]["id"], "--reject", found[1]["id"])
    assert out.returncode == 0, out.stderr
    promoted, rejected = _objects(out.stdout)
    assert promoted["candidate"] == found[0]["id"] and promoted["action"] == "promoted"
    assert promoted["slug"] and promoted["id"]
    assert rejected == {"candidate": found[1]["id"], "action": "rejected"}
    asked = lessons("review", "--json")
    assert asked.returncode == 1
    assert "--json goes with --accept" in asked.stderr


def test_project_id_json(tmp_path):
    out = lessons("project-id", str(tmp_path), "--json")
    assert out.returncode == 0, out.stderr
    (record,) = _objects(out.stdout)
    assert record["directory"] == str(tmp_path)
    assert record["projectId"] == lessons("project-id", str(tmp_path)).stdout.strip()


def test_every_data_command_takes_json():
    """The commands that print data all accept --json (the contract's promise)."""
    for command in (
        "list",
        "show",
        "candidates",
        "review",
        "promote",
        "stats",
        "build",
        "explain",
        "scan",
        "install",
        "uninstall",
        "doctor",
        "plugins",
        "config",
        "add",
        "import",
        "edit",
        "remove",
        "project-id",
    ):
        out = lessons(command, "--help")
        assert "--json" in out.stdout, command
