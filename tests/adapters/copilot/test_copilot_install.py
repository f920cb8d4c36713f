"""The Copilot CLI installer against scratch homes: its own hooks file, dry run, backup,
idempotence, a foreign file left alone, and an uninstall that leaves the home as it was."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from lessons_copilot import install
from lessons_core.api import LessonsError

OTHER_HOOKS = {
    "version": 1,
    "hooks": {"postToolUse": [{"type": "command", "bash": "./audit.sh", "timeoutSec": 5}]},
}


def copilot_dir() -> Path:
    return Path(os.environ["HOME"]) / ".copilot"


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` with its bytes (``None`` for a folder)."""
    if not root.exists():
        return {}
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
    }


def test_install_writes_one_file_of_its_own_beside_the_users():
    hooks = copilot_dir() / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "audit.json").write_text(json.dumps(OTHER_HOOKS))
    before = (hooks / "audit.json").read_bytes()

    result = install.install(os.environ)
    assert result.written and result.path == hooks / "lessons.json"
    assert (hooks / "audit.json").read_bytes() == before
    data = json.loads(result.path.read_text())
    assert data["version"] == 1
    assert list(data["hooks"]) == list(install.EVENTS)
    for event, entries in data["hooks"].items():
        (entry,) = entries
        assert entry["type"] == "command" and entry["timeoutSec"] == install.TIMEOUT_SEC
        assert "matcher" not in entry  # every tool's calls reach the hook
        words = shlex.split(entry["bash"])
        assert Path(words[0]).is_absolute()
        assert words[-3:] == [event, "||", "true"]


def test_copilot_home_moves_the_file(tmp_path):
    env = {**os.environ, "COPILOT_HOME": str(tmp_path / "ch")}
    result = install.install(env)
    assert result.path == tmp_path / "ch" / "hooks" / "lessons.json" and result.path.exists()
    assert not (copilot_dir() / "hooks").exists()


def test_project_scope_writes_the_repositorys_hooks_folder(tmp_path):
    result = install.install(os.environ, project=tmp_path / "repo")
    assert result.path == (tmp_path / "repo").resolve() / ".github" / "hooks" / "lessons.json"
    assert result.path.exists()


def test_dry_run_writes_nothing_and_shows_the_diff():
    result = install.install(os.environ, dry_run=True)
    assert result.changed and not result.written
    assert "+++" in result.diff and "preToolUse" in result.diff
    assert not copilot_dir().exists()


def test_install_twice_changes_nothing_the_second_time():
    install.install(os.environ)
    again = install.install(os.environ)
    assert not again.changed and not again.written and again.backup is None


def test_a_changed_command_is_written_after_a_backup_of_ours():
    first = install.install(os.environ)
    old = first.path.read_text().replace("lessons_copilot", "lessons_copilot/../lessons_copilot")
    first.path.write_text(old)
    result = install.install(os.environ)
    assert result.written and result.backup == first.path.with_name("lessons.json.bak")
    assert result.backup.read_text() == old
    # Copilot reads hooks/*.json only: the backup is not a second set of hooks.
    assert not result.backup.name.endswith(".json")


def test_a_foreign_file_of_that_name_is_never_overwritten_nor_removed():
    hooks = copilot_dir() / "hooks"
    hooks.mkdir(parents=True)
    foreign = json.dumps(OTHER_HOOKS)
    (hooks / "lessons.json").write_text(foreign)
    with pytest.raises(LessonsError, match="not written by lessons"):
        install.install(os.environ)
    result = install.uninstall(os.environ)
    assert not result.changed
    assert (hooks / "lessons.json").read_text() == foreign
    assert install.status(os.environ).foreign


def test_uninstall_leaves_the_home_byte_for_byte_as_it_was():
    home = copilot_dir()
    (home / "hooks").mkdir(parents=True)
    (home / "hooks" / "audit.json").write_text(json.dumps(OTHER_HOOKS))
    (home / "settings.json").write_text('{"model": "claude-sonnet-4.5"}\n')
    before = snapshot(home)
    install.install(os.environ)
    first = install.install(os.environ)  # a second install, and a changed one with a backup
    first_path = first.path
    first_path.write_text(first_path.read_text().replace("lessons_copilot", "lessons_copilot/."))
    install.install(os.environ)
    assert snapshot(home) != before

    dry = install.uninstall(os.environ, dry_run=True)
    assert dry.changed and not dry.written and first_path.exists()
    result = install.uninstall(os.environ)
    assert result.removed_file
    assert snapshot(home) == before
    assert not install.uninstall(os.environ).changed


def test_uninstall_removes_the_hooks_folder_it_made():
    install.install(os.environ)
    install.uninstall(os.environ)
    assert snapshot(copilot_dir()) == {}


def test_status_reports_the_events_and_the_command():
    assert not install.status(os.environ).installed
    install.install(os.environ)
    status = install.status(os.environ)
    assert status.installed and status.current
    assert status.registered == install.EVENTS and not status.missing
    (settings := copilot_dir() / "settings.json").write_text('{"disableAllHooks": true}')
    assert install.status(os.environ).notes() == [
        '"disableAllHooks" is set in Copilot\'s settings.json: it runs no hook'
    ]
    settings.unlink()


def test_the_registered_command_runs_and_fails_open(tmp_path):
    """Each registered line, run by a shell as Copilot runs it: exit 0 on a real payload, and
    exit 0 too when the interpreter it names is gone (a non-zero exit would deny the call)."""
    install.install(os.environ)
    data = json.loads(install.hooks_path(os.environ).read_text())
    line = data["hooks"]["preToolUse"][0]["bash"]
    payload = json.dumps(
        {
            "sessionId": "s",
            "timestamp": 1,
            "cwd": str(tmp_path),
            "toolName": "bash",
            "toolArgs": {"command": "ls"},
        }
    )
    done = subprocess.run(
        ["/bin/sh", "-c", line],
        input=payload,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and done.stdout == ""
    broken = line.replace(shlex.split(line)[0], shlex.quote(str(tmp_path / "gone" / "python")), 1)
    done = subprocess.run(
        ["/bin/sh", "-c", broken],
        input=payload,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and done.stdout == ""
