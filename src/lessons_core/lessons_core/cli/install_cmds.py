"""``lessons install AGENT`` and ``lessons uninstall AGENT``.

The agent is looked up through the plugin manager (its ``AgentSpec``), so an adapter installed
later, or a third-party one, is handled the same way as the built-in three.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from lessons_core import installing


def _project(value: str | None) -> Path | None:
    return Path(value) if value else None


def _report(result: installing.InstallResult, *, dry_run: bool, verb: str) -> None:
    if dry_run:
        if result.changed:
            click.echo(result.diff, nl=False)
            click.echo(f"(dry run: {result.path} not written)")
        else:
            click.echo(f"{result.path}: nothing to change (dry run)")
        return
    if not result.changed:
        click.echo(f"{result.path}: already {verb}, nothing changed")
        return
    click.echo(f"{result.path}: hooks {verb}")
    if result.backup is not None:
        click.echo(f"  original saved as {result.backup}")
    if result.restored_backup:
        click.echo("  restored the original file")
    if result.removed_file:
        click.echo("  removed the file (it held only our hooks)")
    for note in result.notes:
        click.echo(note)


@click.command()
@click.argument("agent")
@click.option("--dry-run", is_flag=True, help="Show the change without writing anything.")
@click.option(
    "--project",
    type=click.Path(file_okay=False),
    help="Register in this project's settings instead of the user's.",
)
@click.option(
    "--style",
    type=click.Choice(installing.STYLES),
    default=installing.DEFAULT_STYLE,
    show_default=True,
    help="How the registered command starts Python.",
)
def install(agent: str, dry_run: bool, project: str | None, style: str) -> None:
    """Register the lessons hooks in AGENT's settings (claude, codex, gemini)."""
    installer = installing.agent_installer(agent)
    result = installer.install(os.environ, project=_project(project), dry_run=dry_run, style=style)
    _report(result, dry_run=dry_run, verb="installed")
    if not dry_run:
        state = installer.status(os.environ, project=_project(project), style=style)
        click.echo(f"  events: {', '.join(state.registered) or 'none'}")
        if state.missing:
            click.echo(f"  missing: {', '.join(state.missing)}")
        for command in state.commands:
            click.echo(f"  command: {command}")
        click.echo("  check it with: lessons doctor")


@click.command()
@click.argument("agent")
@click.option("--dry-run", is_flag=True, help="Show the change without writing anything.")
@click.option(
    "--project",
    type=click.Path(file_okay=False),
    help="Remove from this project's settings instead of the user's.",
)
def uninstall(agent: str, dry_run: bool, project: str | None) -> None:
    """Remove the lessons hooks (and nothing else) from AGENT's settings."""
    installer = installing.agent_installer(agent)
    result = installer.uninstall(os.environ, project=_project(project), dry_run=dry_run)
    _report(result, dry_run=dry_run, verb="removed")
