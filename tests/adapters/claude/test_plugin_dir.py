"""The Claude Code plugin folder and the repository marketplace: well-formed and consistent."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tomllib
from pathlib import Path

import pytest

from lessons_claude import install
from lessons_core.cli.main import COMMANDS

REPO = Path(__file__).resolve().parents[3]
PLUGIN = REPO / "claude-plugin"
MARKETPLACE = REPO / ".claude-plugin" / "marketplace.json"
CLAUDE = REPO / "tests" / "e2e" / "node_modules" / ".bin" / "claude"


def _json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_manifests_parse_and_agree():
    """plugin.json names the plugin; the marketplace points at the folder holding it."""
    plugin = _json(PLUGIN / ".claude-plugin" / "plugin.json")
    assert plugin["name"] == "lessons"
    assert re.fullmatch(r"\d+\.\d+\.\d+", plugin["version"])
    assert plugin["description"]
    market = _json(MARKETPLACE)
    assert market["owner"]["name"]
    (entry,) = market["plugins"]
    assert entry["name"] == plugin["name"]
    assert (MARKETPLACE.parent.parent / entry["source"]).resolve() == PLUGIN.resolve()
    pyproject = tomllib.loads((REPO / "src" / "adapters_claude" / "pyproject.toml").read_text())
    assert plugin["version"] == pyproject["project"]["version"] == entry["version"]


def test_hooks_json_matches_the_installer():
    """The plugin registers the same events and matchers as `lessons install claude`."""
    hooks = _json(PLUGIN / "hooks" / "hooks.json")["hooks"]
    expected = dict(install.EVENTS)
    assert set(hooks) == set(expected)
    pyproject = tomllib.loads((REPO / "src" / "adapters_claude" / "pyproject.toml").read_text())
    scripts = pyproject["project"]["scripts"]
    for event, groups in hooks.items():
        (group,) = groups
        assert group.get("matcher") == expected[event], event
        (handler,) = group["hooks"]
        assert handler["type"] == "command"
        assert handler["command"] in scripts  # the console script pip puts on PATH
        assert scripts[handler["command"]] == "lessons_claude.hook:main"
        assert handler["timeout"] == install.TIMEOUT


@pytest.mark.parametrize("name", ["scan-lessons.md", "add-lesson.md"])
def test_commands_reference_existing_cli_commands(name):
    """Every `lessons X` the slash commands use is a real subcommand; frontmatter is present."""
    text = (PLUGIN / "commands" / name).read_text(encoding="utf-8")
    front = re.match(r"---\n(.*?)\n---\n", text, re.S)
    assert front and "description:" in front.group(1)
    used = set(re.findall(r"(?:`|Bash\()lessons ([a-z][a-z-]+)", text))
    assert used, "the command should run lessons"
    unknown = used - set(COMMANDS)
    assert not unknown, f"{name} uses unknown subcommands {unknown}"


@pytest.mark.e2e
@pytest.mark.parametrize("target", [REPO, PLUGIN], ids=["marketplace", "plugin"])
def test_real_claude_validates(target, tmp_path):
    """`claude plugin validate` (the pinned Claude Code) accepts the marketplace and plugin."""
    if not CLAUDE.exists():
        pytest.skip("claude is not installed in tests/e2e/node_modules")
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    proc = subprocess.run(
        [str(CLAUDE), "plugin", "validate", str(target)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Validation passed" in proc.stdout
