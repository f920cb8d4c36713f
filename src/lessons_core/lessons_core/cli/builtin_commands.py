"""Built-in plugin: the core's commands that are not part of every workflow, registered through
``lessons_register_commands`` like any plugin's.

``lessons repo`` (the lessons kept in a repository's ``.lessons`` folder,
:mod:`lessons_core.repomem`) and ``lessons sync`` (the exchange with a team store,
:mod:`lessons_core.team`) work on code the core owns, so the core registers them, but through
the plugin hook rather than the command table of :mod:`lessons_core.cli.main`: the command line
knows only its own workflow, and these two reach it the way a distribution's commands do.
Their modules are imported only when the command line asks the plugins for commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lessons_core.plugin import hookimpl

if TYPE_CHECKING:
    import click


@hookimpl(trylast=True)
def lessons_register_commands(cli: click.Group) -> None:
    from lessons_core.cli.repo_cmds import repo
    from lessons_core.cli.sync_cmds import sync

    cli.add_command(repo)
    cli.add_command(sync)
