"""``lessons install AGENT`` and ``lessons uninstall AGENT``.

The agent is looked up through the plugin manager (its ``AgentSpec``), so an adapter installed
later, or a third-party one, is handled the same way as the built-in three.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from lessons_core import installing
from lessons_core.cli.common import json_line

if TYPE_CHECKING:
    from lessons_core.plugins.specs import InstallExtraSpec


def _project(value: str | None) -> Path | None:
    return Path(value) if value else None


def _record(agent: str, result: installing.InstallResult, *, dry_run: bool) -> dict[str, Any]:
    """What ``--json`` prints for one agent (one JSON object per line)."""
    out: dict[str, Any] = {
        "agent": agent,
        "path": str(result.path),
        "changed": bool(result.changed),
        "dryRun": dry_run,
        "backup": None if result.backup is None else str(result.backup),
        "notes": list(result.notes),
    }
    if dry_run:
        out["diff"] = result.diff
    return out


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
@click.argument("agent", required=False)
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
@click.option("--no-scan", is_flag=True, help="Do not scan the agent's existing transcripts now.")
@click.option("--yes", "-y", is_flag=True, help="Without AGENT: install for every agent found.")
@click.option(
    "--mcp", "with_mcp", is_flag=True, help="Also register the MCP server (lessons[mcp])."
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per agent.")
def install(
    agent: str | None,
    dry_run: bool,
    project: str | None,
    style: str,
    no_scan: bool,
    yes: bool,
    with_mcp: bool = False,
    as_json: bool = False,
) -> None:
    """Register the lessons hooks in AGENT's settings and get everything ready.

    Besides the hooks: the store and the manifest are created (so the next session starts with
    the #lesson protocol), and the agent's existing transcripts are scanned in the background.
    Without AGENT, the agents found on this machine are offered.
    """
    if with_mcp:
        _mcp_register()  # before anything is written: a missing extra is a clear error
    names = [agent] if agent else _choose(yes)
    for name in names:
        installer = installing.agent_installer(name)
        result = installer.install(
            os.environ, project=_project(project), dry_run=dry_run, style=style
        )
        record = _record(name, result, dry_run=dry_run)
        if not as_json:
            _report(result, dry_run=dry_run, verb="installed")
        if with_mcp:
            record["mcp"] = _mcp(name, project, dry_run=dry_run, remove=False, quiet=as_json)
        if dry_run:
            if as_json:
                click.echo(json_line(record))
            continue
        state = installer.status(os.environ, project=_project(project), style=style)
        pinned = installing.pinned_env(os.environ)
        record.update(
            events=list(state.registered),
            missing=list(state.missing),
            commands=list(state.commands),
            pinned=dict(pinned),
        )
        if as_json:
            record.update(_prepare(name, scan=not no_scan, quiet=True))
            click.echo(json_line(record))
            continue
        click.echo(f"  events: {', '.join(state.registered) or 'none'}")
        if state.missing:
            click.echo(f"  missing: {', '.join(state.missing)}")
        for command in state.commands:
            click.echo(f"  command: {command}")
        if pinned:
            shown = ", ".join(f"{k}={v}" for k, v in pinned.items())
            click.echo(f"  pinned in the command: {shown}")
        _prepare(name, scan=not no_scan)
        click.echo("  check it with: lessons doctor")
    if not as_json and not dry_run:
        hint = path_hint()
        if hint:
            click.secho(hint, fg="yellow")


def path_hint(argv0: str | None = None, path: str | None = None) -> str | None:
    """How to put ``lessons`` on PATH when it was run by its full path and a bare ``lessons``
    would not find this one (a virtualenv's ``bin`` not on PATH); ``None`` when it would."""
    import shutil

    here = Path(argv0 if argv0 is not None else sys.argv[0])
    if here.name != "lessons" or not here.parent.name:
        return None  # run as a module or by a test runner: nothing to say about the command
    found = shutil.which("lessons", path=path)
    if found and Path(found).resolve() == here.resolve():
        return None
    folder = here.resolve().parent
    return (
        f"Note: `lessons` is not on PATH, so the commands above need its full path. Add it for "
        f'this shell with: export PATH="{folder}:$PATH" (and put that line in your shell\'s '
        "startup file, e.g. ~/.bashrc or ~/.zshrc)."
    )


def _choose(yes: bool) -> list[str]:
    """The agents to install for when none was named: those found here, confirmed."""
    from lessons_core.errors import LessonsError

    known = installing.agents()
    found = installing.detect_agents(known, os.environ)
    if not found:
        names = ", ".join(sorted(known)) or "none"
        msg = f"no agent found on this machine; name one: lessons install AGENT ({names})"
        raise LessonsError(msg)
    if yes:
        return list(found)
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        listed = "; ".join(f"{name} ({why})" for name, why in found.items())
        msg = (
            f"name the agent to install for, or pass --yes for all found: {listed}. "
            f"For example: lessons install {next(iter(found))}"
        )
        raise LessonsError(msg)
    chosen = [
        name
        for name, why in found.items()
        if click.confirm(f"Install the lessons hooks for {name} ({why})?", default=True)
    ]
    if not chosen:
        raise click.exceptions.Abort
    return chosen


def _prepare(agent: str, *, scan: bool, quiet: bool = False) -> dict[str, Any]:
    """Leave the store, the manifest and a first scan ready, so nothing else needs running.

    Returns ``{"home", "scan"}`` for ``--json``: the scan is ``started``, ``off`` (auto-scan
    off), ``skipped`` (``--no-scan``) or ``failed`` (could not start).
    """
    from lessons_core import services

    def say(line: str) -> None:
        if not quiet:
            click.echo(line)

    with services.session() as sess:
        sess.rebuild_manifest()
        home, auto = sess.home, sess.config.auto_scan
        empty = not sess.store.list_lessons()
    say(f"  lessons home: {home} (store and manifest ready: the next session starts")
    say("    with the #lesson protocol)")
    if empty:
        # Offered, never asked: an install must not wait for an answer in a script.
        say("  the store holds no lesson yet: `lessons add --starter` adds the starter lessons")
    if not scan:
        return {"home": str(home), "scan": "skipped"}
    if not auto or os.environ.get("LESSONS_AUTO_SCAN", "").lower() in ("0", "false", "no", "off"):
        say("  auto-scan is off: run `lessons scan` to mine existing transcripts")
        return {"home": str(home), "scan": "off"}
    if start_background_scan(agent):
        say(f"  scanning {agent}'s existing transcripts in the background;")
        say("    `lessons candidates` shows what it finds")
        return {"home": str(home), "scan": "started"}
    return {"home": str(home), "scan": "failed"}


def start_background_scan(agent: str) -> bool:
    """Start ``lessons scan --agent AGENT --background`` detached; False when it cannot start.

    The scan outlives this command: it runs in a session of its own with no standard streams,
    and ``--background`` leaves at once if another scan holds the lock.
    """
    command = [sys.executable, "-c", _MAIN, "scan", "--agent", agent, "--background"]
    try:
        subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        return False
    return True


_MAIN = "from lessons_core.cli.main import main; main()"


@click.command()
@click.argument("agent")
@click.option("--dry-run", is_flag=True, help="Show the change without writing anything.")
@click.option(
    "--project",
    type=click.Path(file_okay=False),
    help="Remove from this project's settings instead of the user's.",
)
@click.option("--mcp", "with_mcp", is_flag=True, help="Also remove the MCP server's entry.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def uninstall(
    agent: str, dry_run: bool, project: str | None, with_mcp: bool = False, as_json: bool = False
) -> None:
    """Remove the lessons hooks (and nothing else) from AGENT's settings."""
    installer = installing.agent_installer(agent)
    result = installer.uninstall(os.environ, project=_project(project), dry_run=dry_run)
    if with_mcp:
        _mcp_register()  # a missing extra is a clear error
    if as_json:
        record = _record(agent, result, dry_run=dry_run)
        record.update(
            restoredBackup=bool(result.restored_backup), removedFile=bool(result.removed_file)
        )
        if with_mcp:
            record["mcp"] = _mcp(agent, project, dry_run=dry_run, remove=True, quiet=True)
        click.echo(json_line(record))
        return
    _report(result, dry_run=dry_run, verb="removed")
    if with_mcp:
        _mcp(agent, project, dry_run=dry_run, remove=True)


def _mcp_register() -> InstallExtraSpec:
    """The MCP server's install step, which its distribution registers
    (``lessons_register_install_extras``), checked; or a clear error saying which extra to
    install."""
    from lessons_core import services
    from lessons_core.cli import extras
    from lessons_core.errors import LessonsError

    step = services.load_plugins().install_extras().get("mcp")
    if step is None:
        raise LessonsError(extras.missing("mcp", "`--mcp`") or "no plugin registers `--mcp`")
    if step.check is not None:
        step.check()
    return step


def _note_mcp(*, installed: bool) -> None:
    """``mcpInstalled`` in config.json: the hooks' reminders then name the ``record`` tool."""
    from lessons_core import config, services

    home = services.home_dir()
    config.set_key(home, "mcpInstalled", True if installed else None)
    with services.open_store() as store:
        services.rebuild_manifest(store)  # the hooks read the flag from the manifest


def _mcp(
    agent: str, project: str | None, *, dry_run: bool, remove: bool, quiet: bool = False
) -> dict[str, Any]:
    """Add or remove the MCP server's entry in AGENT's MCP configuration (``--mcp``).

    Returns what changed, for ``--json``; ``quiet`` prints nothing.
    """
    step = _mcp_register()
    change = step.uninstall if remove else step.install
    result = change(agent, os.environ, project=_project(project), dry_run=dry_run)
    summary = {"path": str(result.path), "changed": bool(result.changed)}
    if not dry_run:
        _note_mcp(installed=not remove)
    if quiet:
        return summary
    if dry_run:
        click.echo(result.diff if result.changed else f"{result.path}: nothing to change", nl=False)
        click.echo(f"(dry run: {result.path} not written)" if result.changed else " (dry run)")
        return summary
    verb = "removed" if remove else "registered"
    if not result.changed:
        click.echo(f"{result.path}: MCP server already {verb}, nothing changed")
        return summary
    click.echo(f"{result.path}: {step.description or 'MCP server'} {verb}")
    if result.backup is not None:
        click.echo(f"  original saved as {result.backup}")
    if result.restored_backup:
        click.echo("  restored the original file")
    if result.removed_file:
        click.echo("  removed the file (it held only our server)")
    return summary
