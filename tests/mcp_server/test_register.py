"""``lessons install AGENT --mcp`` / ``uninstall --mcp``: the agents' MCP configuration files."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytest.importorskip("lessons_mcp")

BIN = Path(sys.executable).parent


def lessons(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [str(BIN / "lessons"), *args], capture_output=True, text=True, check=False, timeout=120
    )
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


USER_TOML = """\
# my codex setup
model = "o3"   # keep this comment

[mcp_servers.other]
command = "other-server"
args = ["--flag"]

[profiles.fast]
model = "o4-mini"
"""


def test_codex_entry_is_added_and_removed_leaving_the_users_toml_as_it_was(home: Path) -> None:
    config = home.parent / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(USER_TOML)
    out = lessons("install", "codex", "--mcp", "--no-scan").stdout
    assert "MCP server 'lessons' registered" in out
    text = config.read_text()
    assert text.startswith(USER_TOML)  # every byte of the user's file kept, ours appended
    data = tomllib.loads(text)
    entry = data["mcp_servers"]["lessons"]
    assert entry["args"] == ["-I", "-m", "lessons_mcp"]
    assert Path(entry["command"]).exists()
    assert entry["env"]["LESSONS_HOME"] == str(home)
    assert data["mcp_servers"]["other"]["command"] == "other-server"
    # Twice: nothing written.
    assert "already registered" in lessons("install", "codex", "--mcp", "--no-scan").stdout
    lessons("uninstall", "codex", "--mcp")
    assert config.read_text() == USER_TOML


def test_codex_entry_is_replaced_in_place_when_it_changed(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = home.parent / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        USER_TOML + '\n[mcp_servers.lessons]\ncommand = "old"\n\n[mcp_servers.lessons.env]\n'
        'A = "1"\n\n[tui]\ntheme = "dark"\n'
    )
    lessons("install", "codex", "--mcp", "--no-scan")
    data = tomllib.loads(config.read_text())
    assert data["mcp_servers"]["lessons"]["command"] != "old"
    assert data["tui"] == {"theme": "dark"} and data["profiles"]["fast"]["model"] == "o4-mini"
    lessons("uninstall", "codex", "--mcp")
    assert "lessons" not in tomllib.loads(config.read_text()).get("mcp_servers", {})


def test_codex_inline_definition_is_refused_with_a_clear_error(home: Path) -> None:
    config = home.parent / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('mcp_servers = { lessons = { command = "mine" } }\n')
    proc = lessons("install", "codex", "--mcp", "--no-scan", check=False)
    assert proc.returncode == 1
    assert "Error:" in proc.stderr and "by hand" in proc.stderr and "Traceback" not in proc.stderr
    assert config.read_text() == 'mcp_servers = { lessons = { command = "mine" } }\n'


def test_claude_user_and_project_scopes(home: Path, tmp_path: Path) -> None:
    claude_json = home.parent / ".claude.json"
    claude_json.write_text(json.dumps({"numStartups": 3, "mcpServers": {"x": {"command": "y"}}}))
    lessons("install", "claude", "--mcp", "--no-scan")
    data = json.loads(claude_json.read_text())
    assert data["numStartups"] == 3 and data["mcpServers"]["x"] == {"command": "y"}
    assert data["mcpServers"]["lessons"]["type"] == "stdio"
    assert data["mcpServers"]["lessons"]["args"] == ["-I", "-m", "lessons_mcp"]
    lessons("uninstall", "claude", "--mcp")
    assert json.loads(claude_json.read_text()) == {
        "numStartups": 3,
        "mcpServers": {"x": {"command": "y"}},
    }

    project = tmp_path / "proj"
    project.mkdir()
    lessons("install", "claude", "--mcp", "--no-scan", "--project", str(project))
    assert "lessons" in json.loads((project / ".mcp.json").read_text())["mcpServers"]
    lessons("uninstall", "claude", "--mcp", "--project", str(project))
    assert not (project / ".mcp.json").exists()  # it held only our server


def test_gemini_settings_and_dry_run(home: Path) -> None:
    settings = home.parent / ".gemini" / "settings.json"
    dry = lessons("install", "gemini", "--mcp", "--dry-run").stdout
    assert "lessons_mcp" in dry and not settings.exists()
    lessons("install", "gemini", "--mcp", "--no-scan")
    data = json.loads(settings.read_text())
    assert data["mcpServers"]["lessons"]["args"] == ["-I", "-m", "lessons_mcp"]
    assert "hooks" in data  # the hooks are installed too
    lessons("uninstall", "gemini", "--mcp")
    assert not settings.exists() or "mcpServers" not in json.loads(settings.read_text())


def test_the_registered_command_starts_a_working_server(home: Path) -> None:
    """The exact command and env written for Claude Code answer an MCP handshake."""
    lessons("install", "claude", "--mcp", "--no-scan")
    entry = json.loads((home.parent / ".claude.json").read_text())["mcpServers"]["lessons"]
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "probe", "version": "0"},
        },
    }
    proc = subprocess.run(
        [entry["command"], *entry["args"]],
        input=json.dumps(hello) + "\n",
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", **entry["env"]},
        timeout=60,
        check=False,
    )
    reply = json.loads(proc.stdout.splitlines()[0])
    assert reply["result"]["serverInfo"]["name"] == "lessons", proc.stderr
    assert "search" in reply["result"]["instructions"]


_WITHOUT_MCP = """
import os, sys
sys.modules["mcp"] = None  # as if the SDK were not installed
sys.modules["lessons_mcp"] = None
os.environ["LESSONS_DISABLED_PLUGINS"] = "mcp"  # and the distribution's entry point with it
from lessons_core.cli.main import main
main(sys.argv[1:])
"""

#: The distribution (and so its plugin) is installed, the SDK it needs is not.
_WITHOUT_SDK = """
import sys
sys.modules["mcp"] = None
from lessons_core.cli.main import main
main(sys.argv[1:])
"""


@pytest.mark.parametrize("missing", [_WITHOUT_MCP, _WITHOUT_SDK], ids=["extra", "sdk"])
@pytest.mark.parametrize(
    "args", [["mcp"], ["install", "claude", "--mcp", "--no-scan"], ["uninstall", "codex", "--mcp"]]
)
def test_without_the_extra_the_commands_say_how_to_get_it(
    home: Path, args: list[str], missing: str
) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", missing, *args], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 1
    assert proc.stderr.startswith(
        "Error: the MCP server is not installed: pip install 'lessons[mcp]'"
    )
    assert "Traceback" not in proc.stderr
    assert not (home.parent / ".claude" / "settings.json").exists()  # nothing half-installed


_IMPORTS = """
import sys
from lessons_core.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
# The distribution's plugin module loads with every plugin (it adds ``lessons mcp``); the SDK,
# the server and what only the server or ``install --mcp`` needs must not.
watched = ("mcp", "pydantic", "jsonschema", "lessons_mcp.server", "lessons_mcp.tools",
           "lessons_mcp.schemas", "lessons_mcp.register")
print("\\nMCP=" + str(sorted(m for m in watched if m in sys.modules)))
"""


@pytest.mark.parametrize("args", [["--help"], ["list"], ["install", "claude", "--no-scan"]])
def test_the_core_commands_never_import_the_sdk(home: Path, args: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _IMPORTS, *args], capture_output=True, text=True, check=False
    )
    assert proc.stdout.rstrip().splitlines()[-1] == "MCP=[]", proc.stderr


def test_installing_the_server_tells_the_hooks_reminders(home: Path) -> None:
    """With the server registered, the reminders to record a lesson name its ``record`` tool."""
    manifest = home / "lesson-manifest.json"
    lessons("install", "gemini", "--mcp", "--no-scan")
    assert json.loads((home / "config.json").read_text())["mcpInstalled"] is True
    assert json.loads(manifest.read_text())["config"]["mcpInstalled"] is True
    lessons("uninstall", "gemini", "--mcp")
    assert "mcpInstalled" not in json.loads((home / "config.json").read_text())
    assert json.loads(manifest.read_text())["config"]["mcpInstalled"] is False
