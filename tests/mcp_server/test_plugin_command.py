"""``lessons mcp`` comes from the lessons-mcp distribution's plugin, through the command hook."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("lessons_mcp")

LESSONS = str(Path(sys.executable).parent / "lessons")


def lessons(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LESSONS, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        check=False,
        timeout=120,
    )


def test_mcp_help_comes_through_the_plugin(home: Path) -> None:
    proc = lessons("mcp", "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Usage: lessons mcp [OPTIONS]")
    assert "Run the lessons MCP server over stdio" in proc.stdout
    assert "--tools" in proc.stdout
    rows = [json.loads(line) for line in lessons("plugins", "--json").stdout.splitlines()]
    plugin = next(row for row in rows if row["name"] == "mcp")
    assert plugin["distribution"] == "lessons-mcp"
    assert plugin["registers"] == {"commands": ["mcp"], "install extras": ["mcp"]}


def test_the_tools_schemas_are_printed_through_the_plugin(home: Path) -> None:
    proc = lessons("mcp", "--tools")
    assert proc.returncode == 0, proc.stderr
    assert {"search", "record", "feedback", "show", "list"} <= set(json.loads(proc.stdout))


def test_help_lists_the_plugins_commands_after_the_core_ones(home: Path) -> None:
    proc = lessons("--help")
    assert proc.returncode == 0, proc.stderr
    names = [line.split()[0] for line in proc.stdout.splitlines() if line.startswith("  ")]
    assert names[-3:] == ["mcp", "repo", "sync"]
    assert "  mcp         Run the MCP server over stdio (lessons[mcp])." in proc.stdout


def test_blocked_the_command_says_the_plugin_is_off(home: Path) -> None:
    proc = lessons("mcp", LESSONS_DISABLED_PLUGINS="mcp")
    assert proc.returncode == 1
    assert proc.stderr.startswith(
        "Error: `lessons mcp` comes from the plugin of lessons_mcp, which is installed but not "
        "loaded"
    )
    assert "Traceback" not in proc.stderr
