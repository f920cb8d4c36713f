"""Register the lessons hooks in Qwen Code's ``settings.json`` (cold path).

User scope is ``$QWEN_HOME/settings.json`` when that variable is set (it replaces ``~/.qwen``,
as Qwen Code itself reads it), else ``$HOME/.qwen/settings.json``; ``--project DIR`` writes
``DIR/.qwen/settings.json`` (Qwen Code reads a project's hooks only in a folder the user
trusts). Every other setting in the file is kept; the merge, backup and removal rules are the
shared ones of :mod:`lessons_core.installing`.

Which events and why (Qwen Code 0.24, see docs/agents/qwen.md):

* ``PreToolUse`` on the tools lessons can name — guards and nudges deny the call there (Qwen
  Code reads only the decision of this event: context given here never reaches the model);
* ``PostToolUse`` on the same tools — hints ride along with the call's result (Qwen appends
  this event's context to it), so it is registered, unlike on Claude Code;
* ``PostToolUseFailure`` — the call's hints and failure-time recall, with the failed result;
* ``SessionStart`` (every source: startup, resume, clear, compact) and ``SubagentStart`` —
  protocol and directive lessons reach the model before work starts;
* ``UserPromptSubmit`` — recall on a new prompt;
* ``PreCompact`` — writes the compaction handoff and re-arms high-priority lessons;
* ``Stop`` — arms the end-of-turn reminder to record a lesson (it answers nothing).

Timeouts are in **milliseconds** for Qwen Code.

The hook's code is Claude Code's dialect (``lessons_claude.hot_dialect``): the agent's spec names
``lessons_claude`` among its ``hook_packages``, so a ``file``-style hook command finds it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from lessons_core.api import AgentSpec, LessonsError, installing

AGENT = "qwen"

#: Native names of the tools whose calls a lesson may concern. A matcher that starts with
#: ``^`` is a JavaScript regular expression to Qwen Code, tested against the tool's name.
TOOLS = (
    "run_shell_command",
    "read_file",
    "edit",
    "write_file",
    "notebook_edit",
    "glob",
    "grep_search",
    "list_directory",
    "web_fetch",
    "web_search",
    "agent",
)
TOOL_MATCHER = "^(" + "|".join(TOOLS) + ")$|^mcp__"

#: Milliseconds. The hook answers in tens of milliseconds; this only bounds a wedged run.
TIMEOUT_MS = 10_000

#: (event, matcher) pairs we register; ``None`` means "every occurrence".
EVENTS: tuple[tuple[str, str | None], ...] = (
    ("PreToolUse", TOOL_MATCHER),
    ("PostToolUse", TOOL_MATCHER),
    ("PostToolUseFailure", None),
    ("SessionStart", None),
    ("SubagentStart", None),
    ("UserPromptSubmit", None),
    ("PreCompact", None),
    ("Stop", None),
)


@attrs.frozen
class QwenStatus(installing.InstallStatus):
    """:class:`~lessons_core.installing.InstallStatus` plus whether Qwen Code runs hooks at all.

    ``enabled`` is False when the same settings file sets ``disableAllHooks``.
    """

    enabled: bool = True

    def notes(self) -> list[str]:
        if self.registered and not self.enabled:
            return ['"disableAllHooks" is set in this settings file: Qwen Code runs no hook']
        return []

    def as_dict(self) -> dict[str, Any]:
        data = super().as_dict()
        data["enabled"] = self.enabled
        return data


def _spec() -> AgentSpec:
    from lessons_qwen.plugin import agent_spec

    return agent_spec()


def qwen_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$QWEN_HOME`` when set, else ``~/.qwen``: where Qwen Code keeps its user settings."""
    env = os.environ if environ is None else environ
    explicit = env.get("QWEN_HOME", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    home = env.get("HOME") or str(Path.home())
    return Path(home).expanduser() / ".qwen"


def settings_path(environ: Mapping[str, str] | None = None, project: Path | None = None) -> Path:
    """The ``settings.json`` that ``install`` edits for this environment / project."""
    if project is not None:
        return Path(project).expanduser().resolve() / ".qwen" / "settings.json"
    return qwen_dir(environ) / "settings.json"


def groups(command: str) -> list[installing.HookGroup]:
    """The hook groups for ``command``, in registration order."""
    handler = {"type": "command", "command": command, "timeout": TIMEOUT_MS}
    return [installing.HookGroup(event, handler, matcher) for event, matcher in EVENTS]


def _enabled(path: Path) -> bool:
    try:
        settings, _ = installing.read_settings(path)
    except LessonsError:
        return True
    return settings.get("disableAllHooks") is not True


def _status(base: installing.InstallStatus, _environ: Mapping[str, str] | None) -> QwenStatus:
    return installing.extend_status(QwenStatus, base, enabled=_enabled(base.path))


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
