"""The Codex installer against scratch homes: merge, backup, idempotence, exact uninstall."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

from lessons_codex import install
from lessons_core.errors import LessonsError

OTHER_HOOKS = {
    "description": "someone else's hooks",
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/audit.sh"}]}
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    },
}
CONFIG_TOML = 'model = "gpt-5.5"\napproval_policy = "never"\n\n[features]\nplugins = false\n'


@pytest.fixture(name="codex_home")
def fixture_codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "codex-home"
    home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(home))
    return home


def ours(data: dict) -> list[tuple[str, dict]]:
    return [
        (event, handler)
        for event, groups in data.get("hooks", {}).items()
        for group in groups
        for handler in group["hooks"]
        if "lessons_codex" in handler["command"] or "lessons-codex-hook" in handler["command"]
    ]


def test_install_merges_next_to_other_hooks_and_leaves_config_toml(codex_home):
    """Other hooks, the description and config.toml stay; ours go in for every event."""
    hooks = codex_home / "hooks.json"
    original = json.dumps(OTHER_HOOKS, indent=4) + "\n"
    hooks.write_text(original)
    (codex_home / "config.toml").write_text(CONFIG_TOML)

    result = install.install(os.environ)
    assert result.changed and result.written
    assert install.TRUST_NOTE in result.notes

    data = json.loads(hooks.read_text())
    assert data["description"] == OTHER_HOOKS["description"]
    assert data["hooks"]["PreToolUse"][0] == OTHER_HOOKS["hooks"]["PreToolUse"][0]
    assert data["hooks"]["Stop"][0] == OTHER_HOOKS["hooks"]["Stop"][0]
    registered = ours(data)
    assert sorted(event for event, _ in registered) == sorted(install.EVENTS)
    for _, handler in registered:
        assert set(handler) == {"type", "command", "timeout"}
        assert handler["timeout"] == install.TIMEOUT
        assert Path(shlex.split(handler["command"])[0]).is_absolute()
    assert (codex_home / "config.toml").read_text() == CONFIG_TOML
    assert (codex_home / "hooks.json.bak").read_text() == original


def test_fresh_install_creates_the_file_and_uninstall_removes_it(codex_home):
    """With no hooks.json before, uninstall leaves none behind."""
    hooks = codex_home / "hooks.json"
    install.install(os.environ)
    assert hooks.exists()
    assert not (codex_home / "hooks.json.bak").exists()
    result = install.uninstall(os.environ)
    assert result.removed_file
    assert not hooks.exists()


def test_uninstall_keeps_hooks_added_after_install(codex_home):
    """Edits made since install survive uninstall; only our handlers go."""
    hooks = codex_home / "hooks.json"
    install.install(os.environ)
    data = json.loads(hooks.read_text())
    data["hooks"]["PostCompact"] = [{"hooks": [{"type": "command", "command": "/bin/true"}]}]
    hooks.write_text(json.dumps(data))
    install.uninstall(os.environ)
    left = json.loads(hooks.read_text())
    assert left == {"hooks": {"PostCompact": data["hooks"]["PostCompact"]}}


def test_dry_run_writes_nothing(codex_home):
    """--dry-run reports the change and leaves the disk alone."""
    result = install.install(os.environ, dry_run=True)
    assert result.changed and not result.written
    assert '"PreToolUse"' in result.diff
    assert not (codex_home / "hooks.json").exists()


def test_codex_home_defaults_to_home_dot_codex(monkeypatch, tmp_path):
    """Without CODEX_HOME the file is ~/.codex/hooks.json of the given HOME."""
    monkeypatch.delenv("CODEX_HOME", raising=False)
    env = {"HOME": str(tmp_path)}
    assert install.hooks_path(env) == tmp_path / ".codex" / "hooks.json"
    assert install.hooks_path(env, project=tmp_path / "p") == (
        tmp_path / "p" / ".codex" / "hooks.json"
    )


def test_status_reports_registration_and_trust(codex_home):
    """status(): registered events, the command, and whether config.toml records trust."""
    before = install.status(os.environ)
    assert not before.installed
    assert before.as_dict()["trusted"] is False

    install.install(os.environ)
    after = install.status(os.environ).as_dict()
    assert after["installed"] is True
    assert after["registered"] == list(install.EVENTS)
    assert after["current"] is True
    assert after["trusted"] is False
    assert "/hooks" in after["note"]

    hooks = codex_home / "hooks.json"
    records = "".join(
        f'\n[hooks.state."{hooks}:{event}:0:0"]\ntrusted_hash = "sha256:0123"\n'
        for event in (
            "pre_tool_use",
            "post_tool_use",
            "session_start",
            "user_prompt_submit",
            "pre_compact",
            "stop",
        )
    )
    (codex_home / "config.toml").write_text(CONFIG_TOML + records)
    assert install.status(os.environ).as_dict()["trusted"] is False  # subagent_start missing
    (codex_home / "config.toml").write_text(
        CONFIG_TOML
        + records
        + f'\n[hooks.state."{hooks}:subagent_start:0:0"]\ntrusted_hash = "sha256:4567"\n'
    )
    trusted = install.status(os.environ).as_dict()
    assert trusted["trusted"] is True
    assert "note" not in trusted

    (codex_home / "config.toml").write_text("this is = = not toml")
    assert install.status(os.environ).as_dict()["trusted"] is None


def test_broken_hooks_json_is_a_clear_error(codex_home):
    """Invalid JSON is reported with the file and position, never overwritten."""
    hooks = codex_home / "hooks.json"
    hooks.write_text('{"hooks": {')
    with pytest.raises(LessonsError, match="not valid JSON"):
        install.install(os.environ)
    assert hooks.read_text() == '{"hooks": {'
