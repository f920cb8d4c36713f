"""Write the lessons plugin file into Kilo CLI's configuration (cold path).

Kilo CLI loads every ``*.js`` / ``*.ts`` file in the ``plugin/`` (or ``plugins/``) folder of its
configuration directories as an OpenCode plugin, as OpenCode does in its own. ``install`` writes
one file there, ``lessons.js``: OpenCode's plugin file, naming Kilo CLI and starting
``lessons-kilo-hook``. User scope is ``$XDG_CONFIG_HOME/kilo`` (``~/.config/kilo``, what ``kilo
debug paths`` prints as ``config``); ``--project DIR`` writes ``DIR/.kilo/plugin/lessons.js``
(Kilo reads ``.kilocode`` folders too, the older name).

The file's rules (idempotent, atomic, a foreign file left alone, a byte-identical uninstall)
are those of :class:`~lessons_opencode.plugin_file.PluginFile`. The hook command started
without ``site`` is also handed the directory of ``lessons_opencode``, whose hook code the Kilo
hook runs.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from lessons_core.api import AgentSpec, installing
from lessons_opencode.plugin_file import EVENTS as EVENTS
from lessons_opencode.plugin_file import FILE_NAME as FILE_NAME
from lessons_opencode.plugin_file import PluginFile, PluginStatus

AGENT = "kilo"


def _spec() -> AgentSpec:
    from lessons_kilo.plugin import agent_spec

    return agent_spec()


def config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Kilo CLI's user configuration directory for this environment."""
    env = os.environ if environ is None else environ
    xdg = env.get("XDG_CONFIG_HOME", "").strip()
    if xdg:
        return Path(xdg).expanduser() / "kilo"
    home = env.get("HOME") or str(Path.home())
    return Path(home).expanduser() / ".config" / "kilo"


FILE = PluginFile(AGENT, "Kilo CLI", _spec, config_dir, ".kilo")
#: The first line of every file we write: what tells ours from a user's file of the same name.
MARKER = FILE.marker


def plugin_path(environ: Mapping[str, str] | None = None, project: Path | None = None) -> Path:
    """The plugin file ``install`` writes for this environment / project."""
    return FILE.plugin_path(environ, project)


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
