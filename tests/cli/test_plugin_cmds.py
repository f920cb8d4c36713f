"""``lessons plugins`` as a user runs it: real console script, installed adapters, switches."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

#: The console script of the interpreter running the tests (venv or tox env).
LESSONS = str(Path(sys.executable).parent / "lessons")

BUILTINS = {
    "lessons_core.builtin.sqlite_store",
    "lessons_core.builtin.detectors",
    "lessons_core.builtin.dedup",
}
ADAPTERS = {"claude", "codex", "gemini"}


def lessons(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LESSONS, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=60,
        check=False,
    )


def rows(*args: str, **env: str) -> dict[str, dict[str, object]]:
    result = lessons("plugins", "--json", *args, **env)
    assert result.returncode == 0, result.stderr
    parsed = [json.loads(line) for line in result.stdout.splitlines()]
    return {row["name"]: row for row in parsed}


def test_json_lists_builtins_and_adapters() -> None:
    """Every loaded plugin is one JSON line with kind, distribution, version, hooks, registers."""
    found = rows()
    assert set(found) >= BUILTINS | ADAPTERS
    claude = found["claude"]
    assert claude["kind"] == "entry point"
    assert claude["distribution"] == "lessons-claude"
    assert claude["version"]
    assert claude["hooks"] == ["lessons_register_agents"]
    assert claude["registers"] == {"agents": ["claude"]}
    store = found["lessons_core.builtin.sqlite_store"]
    assert store["kind"] == "built-in"
    assert store["distribution"] == "lessons-core"
    assert store["registers"] == {"stores": ["sqlite"]}
    assert set(store["hooks"]) == {"lessons_register_stores", "lessons_select_store"}
    assert found["lessons_core.builtin.dedup"]["registers"] == {"dedup": ["jaccard"]}
    assert all(row["status"] == "loaded" for row in found.values())


def test_text_output_is_readable() -> None:
    """The human listing shows one line per plugin and what it registers beneath."""
    result = lessons("plugins")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    claude = next(i for i, line in enumerate(lines) if line.startswith("claude "))
    assert "entry point" in lines[claude]
    assert "lessons-claude" in lines[claude]
    assert lines[claude + 1].strip() == "agents: claude"
    # built-ins come first
    assert lines[0].startswith("lessons_core.builtin.")


def test_switches_and_all() -> None:
    """The environment switches change what loads; --all shows what was skipped and why."""
    assert not ADAPTERS & set(rows(LESSONS_DISABLE_PLUGIN_AUTOLOAD="1"))
    assert ADAPTERS & set(rows(LESSONS_PLUGINS="codex")) == {"codex"}
    blocked = rows("--all", LESSONS_DISABLED_PLUGINS="gemini,dedup")
    assert blocked["gemini"]["status"] == "skipped (LESSONS_DISABLED_PLUGINS)"
    assert blocked["lessons_core.builtin.dedup"]["status"] == "skipped (LESSONS_DISABLED_PLUGINS)"
    assert blocked["claude"]["status"] == "loaded"
    only = rows("--all", LESSONS_PLUGINS="claude")
    assert only["codex"]["status"] == "skipped (not in LESSONS_PLUGINS)"
    text = lessons("plugins", "--all", LESSONS_DISABLE_PLUGIN_AUTOLOAD="yes")
    assert "[skipped (LESSONS_DISABLE_PLUGIN_AUTOLOAD)]" in text.stdout


def test_help_lists_the_command() -> None:
    """``lessons --help`` offers the plugins command."""
    result = lessons("--help")
    assert result.returncode == 0
    assert "plugins" in result.stdout
