"""Register the lessons hooks in Gemini CLI's ``settings.json`` (cold path).

User scope is ``~/.gemini/settings.json``, where ``$GEMINI_CLI_HOME`` (when set) replaces the
home directory, as Gemini itself does; ``--project DIR`` writes ``DIR/.gemini/settings.json``.
Every other setting in the file is kept; the merge, backup and removal rules are the shared ones
of :mod:`lessons_core.installing`.

Which events and why:

* ``BeforeTool`` — guards and nudges deny the call (Gemini drops context given here);
* ``AfterTool`` — hints are appended to the same call's result, and failures are recognised;
* ``SessionStart`` and ``BeforeAgent`` — protocol lessons before work starts, recall on a prompt;
* ``PreCompress`` — lets the core re-arm what compression drops (Gemini starts no new session
  after compressing).

Gemini's own rules shape each entry: timeouts are in **milliseconds**; every handler has a
``name`` (users disable hooks by name in ``hooksConfig.disabled``); no group has a matcher,
because Gemini compares lifecycle matchers as exact strings and tool matchers are not needed
(every tool call may concern a lesson).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from lessons_core.api import AgentSpec, LessonsError, installing

AGENT = "gemini"

#: Milliseconds. The hook answers in tens of milliseconds; this only bounds a wedged run.
TIMEOUT_MS = 10_000

EVENTS = ("SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "PreCompress", "AfterAgent")
NAME_PREFIX = "lessons-"


@attrs.frozen
class GeminiStatus(installing.InstallStatus):
    """:class:`~lessons_core.installing.InstallStatus` plus whether Gemini will run the hooks.

    ``enabled`` is False when ``hooksConfig.enabled`` is off or one of our hook names is listed
    in ``hooksConfig.disabled`` (of the same settings file).
    """

    enabled: bool = True

    def as_dict(self) -> dict[str, Any]:
        data = super().as_dict()
        data["enabled"] = self.enabled
        return data


def _spec() -> AgentSpec:
    from lessons_gemini.plugin import agent_spec

    return agent_spec()


def gemini_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``.gemini`` under ``$GEMINI_CLI_HOME`` when set, else under ``$HOME``."""
    env = os.environ if environ is None else environ
    home = env.get("GEMINI_CLI_HOME") or env.get("HOME") or str(Path.home())
    return Path(home).expanduser() / ".gemini"


def settings_path(environ: Mapping[str, str] | None = None, project: Path | None = None) -> Path:
    """The ``settings.json`` that ``install`` edits for this environment / project."""
    if project is not None:
        return Path(project).expanduser().resolve() / ".gemini" / "settings.json"
    return gemini_dir(environ) / "settings.json"


def groups(command: str) -> list[installing.HookGroup]:
    """The hook groups for ``command``, in registration order, each handler named."""
    return [
        installing.HookGroup(
            event,
            {
                "name": f"{NAME_PREFIX}{event}",
                "type": "command",
                "command": command,
                "timeout": TIMEOUT_MS,
            },
        )
        for event in EVENTS
    ]


def _status(base: installing.InstallStatus, _environ: Mapping[str, str] | None) -> GeminiStatus:
    return installing.extend_status(GeminiStatus, base, enabled=_enabled(base.path))


_INSTALLER = installing.SettingsInstaller(
    agent=AGENT,
    spec=_spec,
    settings_path=settings_path,
    groups=groups,
    events=EVENTS,
    extra_status=_status,
)


#: The public installer functions (see :mod:`lessons_core.installing` for what they do).
install = _INSTALLER.install
uninstall = _INSTALLER.uninstall
status = _INSTALLER.status


def _enabled(path: Path) -> bool:
    try:
        settings, _ = installing.read_settings(path)
    except LessonsError:
        return True
    config = settings.get("hooksConfig")
    if not isinstance(config, dict):
        return True
    if config.get("enabled") is False:
        return False
    disabled = config.get("disabled")
    names = {f"{NAME_PREFIX}{event}" for event in EVENTS}
    return not (isinstance(disabled, list) and names.intersection(map(str, disabled)))
