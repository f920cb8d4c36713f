"""Write the lessons plugin file into OpenCode's configuration (cold path).

OpenCode has no hook commands: it loads every ``*.js`` / ``*.ts`` file in the ``plugin/`` (or
``plugins/``) folder of its configuration directories as a plugin. ``install`` writes one file
there, ``lessons.js`` (the template :file:`opencode_plugin.js` with our hook command filled in);
the plugin starts that command for each event it handles. User scope is
``$XDG_CONFIG_HOME/opencode`` (``~/.config/opencode``); ``--project DIR`` writes
``DIR/.opencode/plugin/lessons.js``.

The file's rules (idempotent, atomic, a foreign file left alone, a byte-identical uninstall)
are those of :class:`~lessons_opencode.plugin_file.PluginFile`, which Kilo CLI's adapter uses
too; this module gives it OpenCode's name and folders.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from lessons_core.api import AgentSpec, installing
from lessons_opencode.plugin_file import EVENTS as EVENTS
from lessons_opencode.plugin_file import FILE_NAME as FILE_NAME
from lessons_opencode.plugin_file import PLACEHOLDER as PLACEHOLDER
from lessons_opencode.plugin_file import PluginFile, PluginStatus
from lessons_opencode.plugin_file import registered_command as registered_command

AGENT = "opencode"

#: The status of the plugin file (``foreign`` when a ``lessons.js`` we did not write is there).
OpenCodeStatus = PluginStatus


def _spec() -> AgentSpec:
    from lessons_opencode.plugin import agent_spec

    return agent_spec()


def config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """OpenCode's user configuration directory for this environment."""
    env = os.environ if environ is None else environ
    xdg = env.get("XDG_CONFIG_HOME", "").strip()
    if xdg:
        return Path(xdg).expanduser() / "opencode"
    home = env.get("HOME") or str(Path.home())
    return Path(home).expanduser() / ".config" / "opencode"


FILE = PluginFile(AGENT, "OpenCode", _spec, config_dir, ".opencode")
#: The first line of every file we write: what tells ours from a user's file of the same name.
MARKER = FILE.marker


def plugin_path(environ: Mapping[str, str] | None = None, project: Path | None = None) -> Path:
    """The plugin file ``install`` writes for this environment / project."""
    return FILE.plugin_path(environ, project)


def render(command: str) -> str:
    """The plugin file's text for the hook command ``command``."""
    return FILE.render(command)


def install(
    environ: Mapping[str, str] | None = None,
    *,
    project: Path | None = None,
    dry_run: bool = False,
    style: str = installing.DEFAULT_STYLE,
) -> installing.InstallResult:
    """Write (or update) the plugin file; idempotent."""
    return FILE.install(environ, project=project, dry_run=dry_run, style=style)


def uninstall(
    environ: Mapping[str, str] | None = None,
    *,
    project: Path | None = None,
    dry_run: bool = False,
) -> installing.InstallResult:
    """Remove our plugin file (and an empty ``plugin`` folder); a foreign file stays."""
    return FILE.uninstall(environ, project=project, dry_run=dry_run)


def status(
    environ: Mapping[str, str] | None = None,
    *,
    project: Path | None = None,
    style: str = installing.DEFAULT_STYLE,
) -> PluginStatus:
    """Whether our plugin file is in place, and the command it starts."""
    return FILE.status(environ, project=project, style=style)
