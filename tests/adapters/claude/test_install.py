"""The Claude Code installer against scratch homes: merge, backup, idempotence, removal."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from lessons_claude import install
from lessons_core import installing
from lessons_core.errors import LessonsError

EVENTS = [
    "PreToolUse",
    "SessionStart",
    "SubagentStart",
    "PostToolUseFailure",
    "UserPromptSubmit",
    "PreCompact",
    "Stop",
]

FOREIGN = {
    "type": "command",
    "command": "/usr/local/bin/format-on-save.sh",
    "timeout": 30,
}


def _settings(path: Path) -> dict:
    return json.loads(path.read_text())


def _ours(settings: dict) -> list[tuple[str, dict]]:
    spec = install._spec()
    is_ours = installing.is_ours_factory(spec)
    found = []
    for event, groups in settings.get("hooks", {}).items():
        for group in groups:
            for handler in group["hooks"]:
                if is_ours(handler):
                    found.append((event, group))
    return found


def test_settings_path_honours_home_config_dir_and_project(tmp_path):
    """HOME, then CLAUDE_CONFIG_DIR, then --project decide which file is edited."""
    env = {"HOME": str(tmp_path / "h")}
    assert install.settings_path(env) == tmp_path / "h" / ".claude" / "settings.json"
    env["CLAUDE_CONFIG_DIR"] = str(tmp_path / "cfg")
    assert install.settings_path(env) == tmp_path / "cfg" / "settings.json"
    assert (
        install.settings_path(env, tmp_path / "proj")
        == tmp_path / "proj" / ".claude" / "settings.json"
    )


def test_install_into_missing_file_registers_every_event(tmp_path):
    """A fresh HOME gets every event with our absolute command and a 5 s timeout."""
    env = {"HOME": str(tmp_path)}
    result = install.install(env)
    path = tmp_path / ".claude" / "settings.json"
    assert result.written and result.changed and result.path == path
    settings = _settings(path)
    assert list(settings["hooks"]) == EVENTS
    ours = _ours(settings)
    assert [e for e, _ in ours] == EVENTS
    pre = settings["hooks"]["PreToolUse"][0]
    for tool in (
        "Bash",
        "Read",
        "Edit",
        "MultiEdit",
        "Write",
        "NotebookEdit",
        "Glob",
        "Grep",
        "WebFetch",
        "Agent",
        "Task",
    ):
        assert tool in pre["matcher"]
    assert "mcp__" in pre["matcher"]
    handler = pre["hooks"][0]
    assert handler["type"] == "command"
    assert handler["timeout"] == 5
    assert Path(shlex.split(handler["command"])[0]).is_absolute()
    assert all("env" not in g["hooks"][0] for _, g in ours)
    status = install.status(env)
    assert status.installed and status.current
    assert status.missing == ()


def test_matcher_selects_the_right_tools():
    """Claude Code reads the matcher as an unanchored JS regex; check it as such."""
    import re

    rx = re.compile(install.PRE_TOOL_MATCHER)
    for name in ("Bash", "Edit", "NotebookEdit", "Agent", "Task", "mcp__github__create_issue"):
        assert rx.search(name), name
    for name in ("TodoWrite", "AskUserQuestion", "WebSearch", "ExitPlanMode", "Skill"):
        assert not rx.search(name), name


def test_install_keeps_foreign_hooks_and_backs_up_once(tmp_path):
    """Other hooks and settings stay; the original is saved once as settings.json.bak."""
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    original = {
        "model": "opus",
        "permissions": {"allow": ["Bash(ls:*)"]},
        "hooks": {
            "PreToolUse": [{"matcher": "Write", "hooks": [FOREIGN]}],
            "Stop": [{"hooks": [FOREIGN]}],
        },
    }
    original_text = json.dumps(original)
    path.write_text(original_text)
    env = {"HOME": str(tmp_path)}

    result = install.install(env)
    assert result.backup == path.with_name("settings.json.bak")
    assert result.backup.read_text() == original_text
    settings = _settings(path)
    assert settings["model"] == "opus"
    assert settings["permissions"] == original["permissions"]
    assert settings["hooks"]["PreToolUse"][0] == {"matcher": "Write", "hooks": [FOREIGN]}
    assert settings["hooks"]["Stop"][0] == {"hooks": [FOREIGN]}
    assert len(settings["hooks"]["PreToolUse"]) == 2

    # A later change by the user, then a second install: the backup is not overwritten.
    settings["model"] = "sonnet"
    path.write_text(json.dumps(settings))
    install.install(env, style=installing.STYLE_MODULE)
    assert result.backup.read_text() == original_text


def test_install_twice_changes_nothing(tmp_path):
    """The second run writes nothing: same bytes, same mtime."""
    env = {"HOME": str(tmp_path)}
    install.install(env)
    path = install.settings_path(env)
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    second = install.install(env)
    assert not second.changed and not second.written
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_reinstall_with_other_style_replaces_in_place(tmp_path):
    """Switching the command style swaps our handlers, at the same positions, and keeps one each."""
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [FOREIGN]}]}}))
    env = {"HOME": str(tmp_path)}
    install.install(env)
    settings = _settings(path)
    assert settings["hooks"]["SessionStart"][0]["hooks"] == [FOREIGN]
    install.install(env, style=installing.STYLE_MODULE)
    settings = _settings(path)
    assert settings["hooks"]["SessionStart"][0]["hooks"] == [FOREIGN]
    assert len(settings["hooks"]["SessionStart"]) == 2
    assert len(_ours(settings)) == len(EVENTS)
    assert all("-I -m lessons_claude.hook" in g["hooks"][0]["command"] for _, g in _ours(settings))
    status = install.status(env)
    assert status.installed
    assert not status.current  # default style differs from what is registered


def test_uninstall_removes_only_ours(tmp_path):
    """Foreign hooks added after install survive uninstall; ours are all gone."""
    env = {"HOME": str(tmp_path)}
    install.install(env)
    path = install.settings_path(env)
    settings = _settings(path)
    settings["hooks"]["PreToolUse"][0]["hooks"].append(FOREIGN)
    settings["hooks"]["Stop"] = [{"hooks": [FOREIGN]}]
    path.write_text(json.dumps(settings))
    install.uninstall(env)
    after = _settings(path)
    assert _ours(after) == []
    assert after["hooks"] == {
        "PreToolUse": [{"matcher": install.PRE_TOOL_MATCHER, "hooks": [FOREIGN]}],
        "Stop": [{"hooks": [FOREIGN]}],
    }


def test_uninstall_of_file_we_created_deletes_it(tmp_path):
    """A settings file that held only our hooks is removed again."""
    env = {"HOME": str(tmp_path)}
    install.install(env)
    install.uninstall(env)
    assert not install.settings_path(env).exists()
    assert not install.uninstall(env).changed


def test_dry_run_writes_nothing(tmp_path):
    """--dry-run computes the diff and leaves the disk alone."""
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"theme": "dark"}')
    env = {"HOME": str(tmp_path)}
    result = install.install(env, dry_run=True)
    assert result.changed and not result.written
    assert '+  "hooks": {' in result.diff
    assert path.read_text() == '{"theme": "dark"}'
    assert not path.with_name("settings.json.bak").exists()


def test_project_scope(tmp_path):
    """--project writes DIR/.claude/settings.json and leaves the user file alone."""
    env = {"HOME": str(tmp_path / "home")}
    install.install(env, project=tmp_path / "proj")
    assert (tmp_path / "proj" / ".claude" / "settings.json").exists()
    assert not install.settings_path(env).exists()


def test_broken_settings_is_a_clear_error(tmp_path):
    """Invalid JSON is reported with its position, and the file is not touched."""
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"hooks": ')
    with pytest.raises(LessonsError, match="not valid JSON"):
        install.install({"HOME": str(tmp_path)})
    assert path.read_text() == '{"hooks": '
    status = install.status({"HOME": str(tmp_path)})
    assert not status.installed and status.error


@pytest.mark.parametrize("style", installing.STYLES)
def test_registered_command_runs_and_stays_silent(tmp_path, style):
    """Each command style starts the real hook; a no-op payload gives exit 0 and no output."""
    spec = install._spec()
    command = installing.hook_command(spec, style)
    payload = json.dumps(installing.NOOP_PAYLOAD)
    proc = subprocess.run(
        ["/bin/sh", "-c", command], input=payload, capture_output=True, text=True, timeout=20
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() in ("", "{}")


def test_ours_detection(tmp_path):
    """Ours = our console script, module or hook file; look-alikes are not ours."""
    is_ours = installing.is_ours_factory(install._spec())
    for command in (
        "lessons-claude-hook",
        "/opt/venv/bin/lessons-claude-hook",
        "'/path with space/bin/lessons-claude-hook'",
        "/usr/bin/python3 -I -m lessons_claude.hook",
        "/usr/bin/python3 -I -S /site/lessons_claude/hook.py /site",
        r"C:\venv\Scripts\lessons-claude-hook.exe",
    ):
        assert is_ours({"type": "command", "command": command}), command
    for command in (
        "my-lessons-claude-hook-wrapper",
        "python3 -m lessons_codex.hook",
        "/x/lessons_gemini/hook.py",
        "echo lessons",
    ):
        assert not is_ours({"type": "command", "command": command}), command
    assert not is_ours({"type": "http", "url": "http://x"})


def test_permissions_are_kept(tmp_path):
    """A private settings file stays private after our write."""
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text("{}")
    path.chmod(0o600)
    install.install({"HOME": str(tmp_path)})
    assert path.stat().st_mode & 0o777 == 0o600


def test_symlinked_settings_are_written_through(tmp_path):
    """A settings.json symlinked from a dotfiles repo stays a link; the target is updated."""
    dotfiles = tmp_path / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{"theme": "dark"}')
    link = tmp_path / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(dotfiles)
    env = {"HOME": str(tmp_path)}
    install.install(env)
    assert link.is_symlink()
    assert "hooks" in json.loads(dotfiles.read_text())
    install.uninstall(env)
    assert link.is_symlink()
    assert dotfiles.read_text() == '{"theme": "dark"}'


def test_hooks_of_the_wrong_type_are_refused(tmp_path):
    """A 'hooks' value that is not an object is reported, not overwritten."""
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"hooks": []}')
    with pytest.raises(LessonsError, match="not a JSON object"):
        install.install({"HOME": str(tmp_path)})
    assert path.read_text() == '{"hooks": []}'


def test_status_notices_the_plugin_as_well(tmp_path):
    """Hooks installed and the lessons plugin enabled: status says the hook runs twice."""
    env = {"HOME": str(tmp_path)}
    install.install(env)
    assert install.status(env).notes() == []
    path = install.settings_path(env)
    settings = json.loads(path.read_text())
    settings["enabledPlugins"] = {"lessons@lessons": True, "other@market": True}
    path.write_text(json.dumps(settings))
    status = install.status(env)
    assert status.plugin_enabled
    assert "runs twice" in status.notes()[0]
    assert status.as_dict()["plugin_enabled"] is True
    settings["enabledPlugins"]["lessons@lessons"] = False
    path.write_text(json.dumps(settings))
    assert not install.status(env).plugin_enabled
