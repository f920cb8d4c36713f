"""``lessons install`` / ``lessons uninstall`` as a user runs them (a real subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

#: The console script of the interpreter running the tests (venv or tox env).
LESSONS = str(Path(sys.executable).parent / "lessons")


def lessons(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LESSONS, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=60,
        check=False,
    )


def test_install_dry_run_then_install_then_uninstall(tmp_path):
    """The whole cycle on a scratch HOME, with the messages a user sees."""
    home = Path(os.environ["HOME"])
    settings = home / ".claude" / "settings.json"

    dry = lessons("install", "claude", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert '"PreToolUse"' in dry.stdout
    assert "not written" in dry.stdout
    assert not settings.exists()

    first = lessons("install", "claude")
    assert first.returncode == 0, first.stderr
    assert "hooks installed" in first.stdout
    assert "events: PreToolUse, SessionStart, SubagentStart, PostToolUseFailure" in first.stdout
    assert "command: " in first.stdout and "lessons_claude" in first.stdout
    assert "PreToolUse" in json.loads(settings.read_text())["hooks"]

    again = lessons("install", "claude")
    assert again.returncode == 0
    assert "nothing changed" in again.stdout

    removed = lessons("uninstall", "claude")
    assert removed.returncode == 0, removed.stderr
    assert "hooks removed" in removed.stdout
    assert not settings.exists()


def test_claude_config_dir_and_project(tmp_path):
    """CLAUDE_CONFIG_DIR moves the user file; --project targets a project's file."""
    cfg = tmp_path / "cfg"
    out = lessons("install", "claude", env={"CLAUDE_CONFIG_DIR": str(cfg)})
    assert out.returncode == 0, out.stderr
    assert (cfg / "settings.json").exists()

    proj = tmp_path / "proj"
    out = lessons("install", "claude", "--project", str(proj))
    assert out.returncode == 0, out.stderr
    assert (proj / ".claude" / "settings.json").exists()


def test_unknown_agent_is_a_clear_error():
    """An agent without an adapter gives one line naming the available ones, no traceback."""
    out = lessons("install", "nonesuch")
    assert out.returncode != 0
    assert "no adapter for agent 'nonesuch'" in out.stderr
    assert "claude" in out.stderr
    assert "Traceback" not in out.stderr


def test_broken_settings_is_a_clear_error():
    """A settings file that is not JSON is reported, not overwritten."""
    settings = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text("{nope")
    out = lessons("install", "claude")
    assert out.returncode != 0
    assert "not valid JSON" in out.stderr
    assert "Traceback" not in out.stderr
    assert settings.read_text() == "{nope"


def test_two_names_of_one_interpreter_start_the_same_hook(tmp_path):
    """``bin/python`` and ``bin/python3`` of one venv start the same hook; other changes do not."""
    from lessons_core.installing import same_command

    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    real = tmp_path / "python3.11"
    real.write_text("")
    (bin_dir / "python").symlink_to(real)
    (bin_dir / "python3").symlink_to(real)
    other = tmp_path / "other" / "bin"
    other.mkdir(parents=True)
    (other / "python").symlink_to(real)
    hook = "-I -S /site/lessons_claude/hook.py /site"
    assert same_command(f"{bin_dir}/python3 {hook}", f"{bin_dir}/python {hook}")
    assert not same_command(f"{other}/python {hook}", f"{bin_dir}/python {hook}")
    assert not same_command(f"{bin_dir}/python3 {hook} /extra", f"{bin_dir}/python {hook}")
    assert not same_command("'unbalanced", f"{bin_dir}/python {hook}")


def test_install_offers_the_starter_lessons_while_the_store_is_empty():
    """A printed next step, never a question: the install must not wait in a script."""
    first = lessons("install", "claude", "--no-scan")
    assert first.returncode == 0, first.stderr
    assert "`lessons add --starter` adds the starter lessons" in first.stdout
    added = lessons("add", "--starter")
    assert added.returncode == 0, added.stderr
    again = lessons("install", "claude", "--no-scan")
    assert again.returncode == 0, again.stderr
    assert "--starter" not in again.stdout


def test_install_prints_the_path_line_when_lessons_is_not_on_path():
    """Run by its full path from a shell whose PATH lacks its folder, `install` prints the
    exact line that puts this `lessons` on PATH; with the folder on PATH it says nothing."""
    folder = str(Path(LESSONS).parent)
    away = lessons("install", "claude", "--no-scan", env={"PATH": "/usr/bin:/bin"})
    assert away.returncode == 0, away.stderr
    assert f'export PATH="{Path(LESSONS).resolve().parent}:$PATH"' in away.stdout
    near = lessons("install", "claude", "--no-scan", env={"PATH": f"{folder}:/usr/bin:/bin"})
    assert near.returncode == 0, near.stderr
    assert "export PATH" not in near.stdout


def test_path_hint_names_the_folder_of_the_command_that_ran(tmp_path):
    from lessons_core.cli.install_cmds import path_hint

    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    command = bin_dir / "lessons"
    command.write_text("#!/bin/sh\n")
    command.chmod(0o755)
    hint = path_hint(str(command), path="/usr/bin:/bin")
    assert hint is not None and f'export PATH="{bin_dir.resolve()}:$PATH"' in hint
    assert path_hint(str(command), path=f"{bin_dir}:/usr/bin") is None
    assert path_hint("-m", path="/usr/bin") is None  # `python -m lessons_core`
