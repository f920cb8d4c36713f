"""The Codex plugin's and the Gemini extension's hooks.json register what the installers do.

A user who takes the plugin or extension route instead of ``lessons install`` must get every
event the agent's docs page lists (the Claude plugin has its own check in
``claude/test_plugin_dir.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

from lessons_codex import install as codex_install
from lessons_gemini import install as gemini_install

INTEGRATIONS = Path(__file__).resolve().parents[2] / "integrations"


def _hooks(path: Path) -> dict[str, list[dict[str, object]]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    hooks = data["hooks"]
    assert isinstance(hooks, dict)
    return hooks


def test_codex_plugin_registers_the_installers_events():
    hooks = _hooks(INTEGRATIONS / "codex" / "lessons" / "hooks" / "hooks.json")
    assert list(hooks) == list(codex_install.EVENTS)
    for groups in hooks.values():
        ((handler,),) = [group["hooks"] for group in groups]  # type: ignore[misc]
        assert "run-hook.sh" in handler["command"] and handler["timeout"] == codex_install.TIMEOUT


def test_gemini_extension_registers_the_installers_events():
    hooks = _hooks(INTEGRATIONS / "gemini" / "lessons" / "hooks" / "hooks.json")
    assert sorted(hooks) == sorted(gemini_install.EVENTS)
    for event, groups in hooks.items():
        ((handler,),) = [group["hooks"] for group in groups]  # type: ignore[misc]
        assert handler["name"] == f"{gemini_install.NAME_PREFIX}{event}"
        assert "run-hook.sh" in handler["command"]
