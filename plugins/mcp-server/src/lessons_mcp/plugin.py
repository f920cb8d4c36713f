"""The plugin (entry point ``mcp`` in group ``lessons``): ``lessons mcp`` and the ``--mcp`` step
of ``lessons install`` / ``uninstall`` come from here, so the core never imports this
distribution.

Registering imports neither the server nor the SDK: both load when the command runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from lessons_core.api import InstallExtraSpec, hookimpl

if TYPE_CHECKING:
    import click

    from lessons_core.api.installing import InstallResult


@hookimpl
def lessons_register_commands(cli: click.Group) -> None:
    from lessons_mcp.cli import mcp

    cli.add_command(mcp)


def _install(
    agent: str,
    environ: Mapping[str, str] | None = None,
    *,
    project: Path | None = None,
    dry_run: bool = False,
) -> InstallResult:
    from lessons_mcp import register

    return register.install(agent, environ, project=project, dry_run=dry_run)


def _uninstall(
    agent: str,
    environ: Mapping[str, str] | None = None,
    *,
    project: Path | None = None,
    dry_run: bool = False,
) -> InstallResult:
    from lessons_mcp import register

    return register.uninstall(agent, environ, project=project, dry_run=dry_run)


def _check() -> None:
    """An entry that starts a server missing its SDK would only fail later: say it now."""
    from lessons_mcp.cli import require_server

    require_server()


@hookimpl
def lessons_register_install_extras(register: Callable[[InstallExtraSpec], None]) -> None:
    register(
        InstallExtraSpec(
            name="mcp",
            install=_install,
            uninstall=_uninstall,
            description="MCP server 'lessons'",
            check=_check,
        )
    )
