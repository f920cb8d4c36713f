"""The Gemini installer against scratch homes: merge, backup, idempotence, exact uninstall."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

from lessons_gemini import install

SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "general": {"enableAutoUpdate": False},
    "hooksConfig": {"notifications": True},
    "hooks": {
        "BeforeTool": [
            {
                "matcher": "write_file|replace",
                "hooks": [{"name": "fmt", "type": "command", "command": "prettier-hook"}],
            }
        ]
    },
}


def settings_file() -> Path:
    return Path(os.environ["HOME"]) / ".gemini" / "settings.json"


def ours(data: dict) -> list[tuple[str, dict, dict]]:
    return [
        (event, group, handler)
        for event, groups in data.get("hooks", {}).items()
        for group in groups
        for handler in group["hooks"]
        if "lessons_gemini" in handler["command"] or "lessons-gemini-hook" in handler["command"]
    ]


def test_install_keeps_every_other_setting():
    """Auth, general, hooksConfig and other hooks stay; ours are named, in ms, matcher-less."""
    path = settings_file()
    path.parent.mkdir(parents=True)
    original = json.dumps(SETTINGS, indent=2) + "\n"
    path.write_text(original)

    result = install.install(os.environ)
    assert result.written
    data = json.loads(path.read_text())
    for key in ("security", "general", "hooksConfig"):
        assert data[key] == SETTINGS[key]
    assert data["hooks"]["BeforeTool"][0] == SETTINGS["hooks"]["BeforeTool"][0]
    found = ours(data)
    assert sorted(event for event, _, _ in found) == sorted(install.EVENTS)
    for event, group, handler in found:
        assert "matcher" not in group
        assert handler["name"] == f"lessons-{event}"
        assert handler["timeout"] == install.TIMEOUT_MS == 10_000
        assert handler["type"] == "command"
        assert Path(shlex.split(handler["command"])[0]).is_absolute()
    assert path.with_name("settings.json.bak").read_text() == original


def test_gemini_cli_home_replaces_home(monkeypatch, tmp_path):
    """GEMINI_CLI_HOME is the home Gemini puts .gemini under."""
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "gh"))
    install.install(os.environ)
    assert (tmp_path / "gh" / ".gemini" / "settings.json").exists()
    assert not settings_file().exists()
    install.uninstall(os.environ)
    assert not (tmp_path / "gh" / ".gemini" / "settings.json").exists()


def test_status_and_disabled_hooks():
    """status(): registered events; hooksConfig.disabled naming ours shows enabled False."""
    assert not install.status(os.environ).installed
    install.install(os.environ)
    state = install.status(os.environ).as_dict()
    assert state["installed"] and state["enabled"] and state["current"]
    path = settings_file()
    data = json.loads(path.read_text())
    data["hooksConfig"] = {"disabled": ["lessons-BeforeTool"]}
    path.write_text(json.dumps(data))
    assert install.status(os.environ).as_dict()["enabled"] is False
    data["hooksConfig"] = {"enabled": False}
    path.write_text(json.dumps(data))
    assert install.status(os.environ).as_dict()["enabled"] is False


def test_project_scope(tmp_path):
    """--project writes <project>/.gemini/settings.json and leaves the user's file alone."""
    project = tmp_path / "proj"
    project.mkdir()
    install.install(os.environ, project=project)
    assert (project / ".gemini" / "settings.json").exists()
    assert not settings_file().exists()
