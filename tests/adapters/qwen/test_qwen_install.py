"""The Qwen Code installer against scratch homes: merge, backup, idempotence, exact uninstall."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import lessons_claude
from lessons_qwen import install

SETTINGS = {
    "security": {"auth": {"selectedType": "openai"}},
    "model": {"name": "qwen3-coder-plus"},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "write_file|edit",
                "hooks": [{"type": "command", "command": "prettier-hook", "timeout": 3000}],
            }
        ]
    },
}


def settings_file() -> Path:
    return Path(os.environ["HOME"]) / ".qwen" / "settings.json"


def ours(data: dict) -> list[tuple[str, dict, dict]]:
    return [
        (event, group, handler)
        for event, groups in data.get("hooks", {}).items()
        for group in groups
        for handler in group["hooks"]
        if "lessons_qwen" in handler["command"] or "lessons-qwen-hook" in handler["command"]
    ]


def test_install_keeps_every_other_setting():
    """Auth, model and other hooks stay; ours carry a timeout in milliseconds."""
    path = settings_file()
    path.parent.mkdir(parents=True)
    original = json.dumps(SETTINGS, indent=2) + "\n"
    path.write_text(original)

    result = install.install(os.environ)
    assert result.written
    data = json.loads(path.read_text())
    for key in ("security", "model"):
        assert data[key] == SETTINGS[key]
    assert data["hooks"]["PreToolUse"][0] == SETTINGS["hooks"]["PreToolUse"][0]
    found = ours(data)
    assert [event for event, _, _ in found] == [event for event, _ in install.EVENTS]
    for event, group, handler in found:
        assert handler["timeout"] == install.TIMEOUT_MS == 10_000
        assert handler["type"] == "command"
        assert Path(shlex.split(handler["command"])[0]).is_absolute()
        if event in ("PreToolUse", "PostToolUse"):
            assert group["matcher"] == install.TOOL_MATCHER
        else:
            assert "matcher" not in group
    assert path.with_name("settings.json.bak").read_text() == original


def test_the_tool_matcher_names_qwens_own_tools():
    """The matcher is a regex of the native names the hook maps (and MCP tools)."""
    import re

    from lessons_qwen.hot_names import NATIVE_TO_CANONICAL

    matcher = re.compile(install.TOOL_MATCHER)
    for native in NATIVE_TO_CANONICAL:
        if native != "todo_write":  # no lesson gates on a to-do list
            assert matcher.search(native), native
    assert matcher.search("mcp__github__create_issue")
    assert not matcher.search("todo_write")
    assert not matcher.search("run_shell_command_x")


def test_dry_run_writes_nothing():
    path = settings_file()
    path.parent.mkdir(parents=True)
    path.write_text("{}\n")
    result = install.install(os.environ, dry_run=True)
    assert result.changed and not result.written
    assert path.read_text() == "{}\n"
    assert not path.with_name("settings.json.bak").exists()


def test_qwen_home_replaces_the_qwen_folder(monkeypatch, tmp_path):
    """QWEN_HOME is the folder Qwen Code reads settings.json from (instead of ~/.qwen)."""
    monkeypatch.setenv("QWEN_HOME", str(tmp_path / "qh"))
    install.install(os.environ)
    assert (tmp_path / "qh" / "settings.json").exists()
    assert not settings_file().exists()
    install.uninstall(os.environ)
    assert not (tmp_path / "qh" / "settings.json").exists()


def test_status_and_disable_all_hooks():
    """status(): registered events; ``disableAllHooks`` shows enabled False, with a note."""
    assert not install.status(os.environ).installed
    install.install(os.environ)
    state = install.status(os.environ)
    assert state.installed and state.as_dict()["enabled"] and state.current
    assert state.notes() == []
    path = settings_file()
    data = json.loads(path.read_text())
    data["disableAllHooks"] = True
    path.write_text(json.dumps(data))
    state = install.status(os.environ)
    assert state.as_dict()["enabled"] is False
    assert "disableAllHooks" in state.notes()[0]


def test_project_scope(tmp_path):
    """--project writes <project>/.qwen/settings.json and leaves the user's file alone."""
    project = tmp_path / "proj"
    project.mkdir()
    install.install(os.environ, project=project)
    assert (project / ".qwen" / "settings.json").exists()
    assert not settings_file().exists()
    install.uninstall(os.environ, project=project)
    assert not (project / ".qwen" / "settings.json").exists()


def test_the_file_command_runs_the_hook_without_site(tmp_path):
    """``-I -S``: the command names the folder of lessons_claude too (the hook's dialect is
    Claude Code's), and with it answers a session start from a bare interpreter; status agrees
    that the command is current, in that style and in the module style."""
    install.install(os.environ)
    ((_, _, handler), *_) = ours(json.loads(settings_file().read_text()))
    command = handler["command"]
    words = shlex.split(command)
    assert "-S" in words
    assert str(Path(lessons_claude.__file__).resolve().parents[1]) in words
    assert install.status(os.environ).current
    payload = {"hook_event_name": "SessionStart", "session_id": "s", "cwd": str(tmp_path)}
    log = tmp_path / "hook.log"
    proc = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env={**os.environ, "LESSONS_HOOK_LOG": str(log)},
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and proc.stderr == ""
    assert json.loads(log.read_text().splitlines()[-1])["agent"] == "qwen"

    # Only the file style names folders: the module style stays as the core builds it.
    install.install(os.environ, style="module")
    ((_, _, handler), *_) = ours(json.loads(settings_file().read_text()))
    assert shlex.split(handler["command"])[-2:] == ["-m", "lessons_qwen.hook"]
    assert install.status(os.environ, style="module").current
