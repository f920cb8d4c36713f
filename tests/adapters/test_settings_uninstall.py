"""An installer that merges its hooks into an agent's JSON file gives the file back byte for byte:
a second install writes nothing, uninstall restores the bytes it found. One check for Claude Code,
Codex, Gemini CLI and Qwen Code, each on a file without hooks in an odd layout (CRLF, no newline
before the brace) and on one holding another tool's hook on the agent's pre-tool event.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from lessons_claude import install as claude_install
from lessons_codex import install as codex_install
from lessons_gemini import install as gemini_install
from lessons_qwen import install as qwen_install

#: agent -> (its installer, its file's path in a home, its pre-tool event)
INSTALLERS = {
    "claude": (claude_install, Path(".claude", "settings.json"), "PreToolUse"),
    "codex": (codex_install, Path(".codex", "hooks.json"), "PreToolUse"),
    "gemini": (gemini_install, Path(".gemini", "settings.json"), "BeforeTool"),
    "qwen": (qwen_install, Path(".qwen", "settings.json"), "PreToolUse"),
}

NO_HOOKS = b'{\n    "theme": "dark",\r\n    "verbose": true }\n'


def other_hooks(event: str) -> bytes:
    """A file holding settings of the user's and someone else's hook on ``event``."""
    foreign = {"type": "command", "command": "prettier-hook", "timeout": 3000}
    data = {
        "model": {"name": "a-model"},
        "hooks": {event: [{"matcher": "write_file|edit", "hooks": [foreign]}]},
    }
    return json.dumps(data, indent=4, sort_keys=True).encode()


@pytest.mark.parametrize("original", ["no-hooks", "other-hooks"])
@pytest.mark.parametrize("agent", sorted(INSTALLERS))
def test_install_twice_then_uninstall_gives_back_the_bytes(agent, original, tmp_path):
    install: ModuleType
    install, relative, event = INSTALLERS[agent]
    env = {"HOME": str(tmp_path)}
    path = tmp_path / relative
    assert install.install(env, dry_run=True).path == path  # the file this check writes
    before = NO_HOOKS if original == "no-hooks" else other_hooks(event)
    path.parent.mkdir(parents=True)
    path.write_bytes(before)

    first = install.install(env)
    assert first.changed and first.written
    assert path.read_bytes() != before
    assert path.with_name(path.name + ".bak").read_bytes() == before
    installed = (path.read_bytes(), path.stat().st_mtime_ns)
    second = install.install(env)
    assert not second.changed and not second.written
    assert second.notes == ()
    assert (path.read_bytes(), path.stat().st_mtime_ns) == installed

    removed = install.uninstall(env)
    assert removed.changed and removed.restored_backup
    assert path.read_bytes() == before
    assert not install.status(env).registered
    assert install.uninstall(env).changed is False
