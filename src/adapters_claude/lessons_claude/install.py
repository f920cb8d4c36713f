"""Register the Claude Code hook in ``settings.json`` (cold path).

User scope is ``$CLAUDE_CONFIG_DIR/settings.json`` when that variable is set, else
``$HOME/.claude/settings.json``; ``--project DIR`` writes ``DIR/.claude/settings.json``. The
merge, backup and removal rules are the shared ones of :mod:`lessons_core.installing`.

Which events and why:

* ``PreToolUse`` on the tools lessons can name — the only moment a lesson can stop a call (deny)
  or ride along with its result (context);
* ``SessionStart`` (every source: startup, resume, clear, compact) and ``SubagentStart`` —
  protocol and directive lessons reach the model before work starts;
* ``PostToolUseFailure`` and ``UserPromptSubmit`` — recall from the store after a failure or on
  a new prompt;
* ``PreCompact`` — writes the compaction handoff and re-arms high-priority lessons for after
  compaction;
* ``Stop`` — arms the end-of-turn reminder to record a lesson (it answers nothing: context at
  ``Stop`` would make Claude Code continue the turn).

``PostToolUse`` is not registered: it would add a hook process to every successful call.
Directive re-injection and the failure-then-fixed reminder ride on ``PreToolUse`` instead.

Timeouts are in seconds for Claude Code.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from lessons_core.api import AgentSpec, LessonsError, installing

AGENT = "claude"

#: Tools whose calls a lesson may concern. Claude Code treats a matcher with characters other
#: than letters, digits, ``_``, ``-``, ``,``, ``|`` and spaces as an unanchored JavaScript
#: regex, hence the explicit anchors.
TOOLS = (
    "Bash",
    "PowerShell",
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
)
PRE_TOOL_MATCHER = "^(" + "|".join(TOOLS) + ")$|^mcp__"

#: Seconds. The hook answers in tens of milliseconds; this only bounds a wedged run.
TIMEOUT = 5

#: (event, matcher) pairs we register; ``None`` means "every occurrence".
EVENTS: tuple[tuple[str, str | None], ...] = (
    ("PreToolUse", PRE_TOOL_MATCHER),
    ("SessionStart", None),
    ("SubagentStart", None),
    ("PostToolUseFailure", None),
    ("UserPromptSubmit", None),
    ("PreCompact", None),
    ("Stop", None),
)


#: Plugin ids (``name@marketplace``) under which Claude Code may have our plugin enabled.
PLUGIN_NAME = "lessons"


@attrs.frozen
class ClaudeStatus(installing.InstallStatus):
    """:class:`~lessons_core.installing.InstallStatus` plus whether our Claude Code plugin is on.

    With both the plugin and ``lessons install`` in place, Claude Code runs the hook twice per
    event: harmless (the second run finds the lessons already claimed) but twice the wait.
    """

    plugin_enabled: bool = False

    def notes(self) -> list[str]:
        if self.plugin_enabled and self.registered:
            return [
                "the lessons plugin is enabled too, so every hook runs twice; "
                "keep one (`lessons uninstall claude` or disable the plugin)"
            ]
        return []

    def as_dict(self) -> dict[str, Any]:
        data = super().as_dict()
        data["plugin_enabled"] = self.plugin_enabled
        return data


def plugin_enabled(settings_file: Path) -> bool:
    """True when ``enabledPlugins`` in the settings file turns on a ``lessons@…`` plugin."""
    try:
        settings, _ = installing.read_settings(settings_file)
    except LessonsError:
        return False
    enabled = settings.get("enabledPlugins")
    if not isinstance(enabled, dict):
        return False
    return any(
        value is True and str(key).split("@", 1)[0] == PLUGIN_NAME for key, value in enabled.items()
    )


def _spec() -> AgentSpec:
    from lessons_claude.plugin import agent_spec

    return agent_spec()


def settings_path(environ: Mapping[str, str] | None = None, project: Path | None = None) -> Path:
    """The settings file ``install`` edits for this environment / project."""
    env = os.environ if environ is None else environ
    if project is not None:
        return Path(project).expanduser().resolve() / ".claude" / "settings.json"
    config_dir = env.get("CLAUDE_CONFIG_DIR")
    if config_dir:
        return Path(config_dir).expanduser() / "settings.json"
    home = env.get("HOME") or str(Path.home())
    return Path(home).expanduser() / ".claude" / "settings.json"


def groups(command: str) -> list[installing.HookGroup]:
    """The hook groups for ``command``, in registration order."""
    handler = {"type": "command", "command": command, "timeout": TIMEOUT}
    return [installing.HookGroup(event, handler, matcher) for event, matcher in EVENTS]


def _status(base: installing.InstallStatus, _environ: Mapping[str, str] | None) -> ClaudeStatus:
    return installing.extend_status(ClaudeStatus, base, plugin_enabled=plugin_enabled(base.path))


_INSTALLER = installing.SettingsInstaller(
    agent=AGENT,
    spec=_spec,
    settings_path=settings_path,
    groups=groups,
    events=tuple(event for event, _ in EVENTS),
    extra_status=_status,
)


#: The public installer functions (see :mod:`lessons_core.installing` for what they do).
install = _INSTALLER.install
uninstall = _INSTALLER.uninstall
status = _INSTALLER.status
