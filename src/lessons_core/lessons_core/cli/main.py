"""The ``lessons`` command line.

Start-up matters (agents and scripts call this often), so subcommands are imported only when
invoked: ``COMMANDS`` maps each of the core's own commands to ``"module:attribute"`` and
:class:`LazyGroup` loads it on demand. Every other command comes from a plugin
(``lessons_register_commands``: ``mcp`` from the lessons-mcp distribution, ``repo`` and ``sync``
from the core's built-in plugin ``lessons_core.cli.builtin_commands``); the plugins are loaded only
for a name that is not a core command, or when ``lessons --help`` lists the commands. A core
command therefore never pays for loading them.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import sys
from typing import Any

import click

__version__ = "0.1.0"

#: Subcommand name -> ("module:click command", one-line help for ``lessons --help``).
#: The help line lives here so that listing commands imports none of them. Kept in workflow
#: order, which is also the order ``--help`` shows.
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("lessons_core.cli.demo_cmds:demo", "Run the whole pipeline on the bundled sample."),
    "add": ("lessons_core.cli.lesson_cmds:add", "Add lessons from JSON, a JSON array or JSONL."),
    "import": (
        "lessons_core.cli.transfer_cmds:import_",
        "Import a JSONL export or a Node manifest.",
    ),
    "export": ("lessons_core.cli.transfer_cmds:export", "Export all lessons as redacted JSONL."),
    "list": ("lessons_core.cli.lesson_cmds:list_", "List lessons."),
    "show": ("lessons_core.cli.lesson_cmds:show", "Show one lesson."),
    "edit": ("lessons_core.cli.edit_cmds:edit", "Change a lesson (flags, or in $EDITOR)."),
    "disable": ("lessons_core.cli.edit_cmds:disable", "Stop delivering a lesson."),
    "enable": ("lessons_core.cli.edit_cmds:enable", "Deliver a disabled lesson again."),
    "rescope": ("lessons_core.cli.edit_cmds:rescope", "Limit a lesson to a project, or not."),
    "remove": ("lessons_core.cli.edit_cmds:remove", "Delete a lesson."),
    "build": ("lessons_core.cli.build_cmds:build", "Compile the manifest the hooks read."),
    "skills": ("lessons_core.cli.skills_cmds:skills", "Write an agent skill per CLI tool."),
    "explain": ("lessons_core.cli.explain_cmds:explain", "Show what would fire for a tool call."),
    "scan": ("lessons_core.cli.scan_cmds:scan", "Mine agent transcripts for candidates."),
    "candidates": ("lessons_core.cli.scan_cmds:candidates", "List candidates awaiting review."),
    "review": ("lessons_core.cli.scan_cmds:review", "Accept, edit or reject candidates."),
    "promote": ("lessons_core.cli.scan_cmds:promote", "Promote candidates to active lessons."),
    "stats": ("lessons_core.cli.scan_cmds:stats", "Detections, counts and delivery figures."),
    "report": ("lessons_core.cli.report_cmds:report", "Write an HTML page of what lessons did."),
    "install": ("lessons_core.cli.install_cmds:install", "Register the hooks with an agent."),
    "uninstall": ("lessons_core.cli.install_cmds:uninstall", "Remove our hooks from an agent."),
    "doctor": ("lessons_core.cli.doctor_cmds:doctor", "Check config, manifest and hooks."),
    "config": ("lessons_core.cli.config_cmds:config", "Show or set config.json keys."),
    "project-id": ("lessons_core.cli.lesson_cmds:project_id", "Print the project id of a dir."),
    "plugins": ("lessons_core.cli.plugin_cmds:plugins", "List loaded plugins."),
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use, and whose plugins' commands are
    looked for only when a name is not one of its own (or when ``--help`` lists them all)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        own = [name for name, (target, _) in COMMANDS.items() if _available(target)]
        return own + sorted(_plugin_commands(ctx, listing=True))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return self._plugin_command(ctx, cmd_name)
        if not _available(entry[0]):
            return None
        module_name, attr = entry[0].split(":")
        command = getattr(importlib.import_module(module_name), attr)
        assert isinstance(command, click.Command)
        return command

    def _plugin_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """A plugin's command; for an extra's command that is not installed, say which extra
        brings it (a :class:`LessonsError`) instead of click's "No such command"."""
        if cmd_name.startswith("-"):
            return None
        found = _plugin_commands(ctx, listing=ctx.resilient_parsing).get(cmd_name)
        if found is not None or ctx.resilient_parsing:
            return found
        from lessons_core.cli import extras

        why = extras.missing(cmd_name)
        if why is not None:
            from lessons_core.errors import LessonsError

            raise LessonsError(why)
        return None

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """Click's lookup, with the commands a mistyped name may have meant added to its error."""
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as exc:
            meant = _meant(args[0] if args else "", self.list_commands(ctx))
            if not meant:
                raise
            quoted = [repr(command) for command in meant]
            listed = ", ".join(quoted[:-1]) + " or " + quoted[-1] if meant[1:] else quoted[0]
            raise click.UsageError(f"{exc.message} Did you mean {listed}?", ctx) from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """List the core's commands from the registry's help lines, without importing them,
        then the plugins' commands with their own short help."""
        plugins = _plugin_commands(ctx, listing=True)
        rows = [
            (name, COMMANDS[name][1] if name in COMMANDS else _short_help(plugins[name]))
            for name in self.list_commands(ctx)
        ]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


#: Where a context keeps the plugins' commands it loaded (one load per command line).
_LOADED = "lessons.plugin_commands"


def _plugin_commands(ctx: click.Context, *, listing: bool) -> dict[str, click.Command]:
    """The commands the plugins register, loaded once per command line.

    A plugin that fails to load is an error naming it (``PluginError``) when a command of a
    plugin is asked for; when ``--help`` only lists the commands, it is one line on stderr and
    the core's commands are still listed. A plugin command that takes a core command's name is
    such an error too: the core's command always wins, so the plugin's could never run.
    """
    root = ctx.find_root()
    loaded: dict[str, click.Command] | None = root.meta.get(_LOADED)
    if loaded is not None:
        return loaded
    from lessons_core.errors import LessonsError

    try:
        loaded = _load_plugin_commands()
    except LessonsError as exc:
        if not listing:
            raise
        click.echo(f"Warning: plugin commands not listed: {exc}", err=True)
        loaded = {}
    root.meta[_LOADED] = loaded
    return loaded


def _load_plugin_commands() -> dict[str, click.Command]:
    from lessons_core import services
    from lessons_core.plugins.manager import PluginError

    plugins = services.load_plugins()
    commands = plugins.commands()
    for name in commands:
        if name in COMMANDS:
            raise PluginError(
                f"plugin {plugins.command_owner(name)!r} registers the command {name!r}, which "
                f"is one of lessons' own; rename it, or uninstall or block the plugin "
                f"(LESSONS_DISABLED_PLUGINS)"
            )
    return commands


def _short_help(command: click.Command) -> str:
    """A plugin command's line in ``lessons --help``: the width the core's lines keep to."""
    return command.get_short_help_str(limit=60)


def _meant(name: str, commands: list[str]) -> list[str]:
    """The commands ``name`` may be the start of, else those it may be a typo of (at most 3)."""
    if not name or name.startswith("-"):
        return []
    started = [command for command in commands if command.startswith(name)]
    if started:
        return started[:3]
    import difflib

    return difflib.get_close_matches(name, commands, n=3, cutoff=0.6)


def _available(target: str) -> bool:
    """True when the module behind a command exists (commands land one issue at a time)."""
    module_name = target.split(":")[0]
    return importlib.util.find_spec(module_name) is not None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="lessons")
@click.option(
    "-v",
    "--verbose",
    count=True,
    help="Structured logs on stderr from INFO (-vv: DEBUG); LESSONS_LOG=json|console|human.",
)
@click.pass_context
def cli(ctx: click.Context, verbose: int) -> None:
    """A memory of their own mistakes for Claude Code, Codex CLI, Gemini CLI and OpenCode.

    Lessons are mined from session transcripts or added by hand, kept in a store
    (LESSONS_HOME), compiled into a manifest, and delivered by each agent's hooks.
    """
    from lessons_core.logs import configure_logging

    configure_logging(verbose)
    ctx.ensure_object(dict)


def main(argv: list[str] | None = None) -> Any:
    """Console-script entry point: user errors become a message and exit code, not a traceback."""
    from lessons_core.cli import common
    from lessons_core.errors import LessonsError

    common.OWN_PROCESS = True
    previous = _INTERRUPTS.install(process=argv is None)
    try:
        return cli.main(args=argv, prog_name="lessons", standalone_mode=False)
    except click.exceptions.Abort as exc:
        if isinstance(exc.__cause__, KeyboardInterrupt):
            _interrupted()
        click.echo("Aborted.", err=True)
        sys.exit(1)
    except KeyboardInterrupt:  # outside the command (while it is looked up or imported)
        _interrupted()
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except LessonsError as exc:
        click.secho(f"Error: {exc}", err=True, fg="red")
        sys.exit(exc.exit_code)
    except BrokenPipeError:
        sys.exit(1)
    except PermissionError as exc:  # a read-only LESSONS_HOME or target the checks missed
        where = exc.filename or "a file"
        click.secho(
            f"Error: cannot write {where}: permission denied; make it writable, "
            "or set LESSONS_HOME to a writable directory",
            err=True,
            fg="red",
        )
        sys.exit(1)
    finally:
        common.settle_heap()
        _INTERRUPTS.restore(previous)


#: The shell's exit code for a process stopped by SIGINT (128 + 2).
INTERRUPTED = 130


class _Interrupts:
    """SIGINT while a command runs: the first raises ``KeyboardInterrupt``, so the command
    unwinds (transactions roll back, a scan stops its helpers) and exits with one line; a
    second one, should that clean-up ever take long, ends the process at once. What was
    committed stays either way: every write is a transaction, and a scan's offsets move with
    its candidates."""

    def __init__(self) -> None:
        self.seen = False
        self.said = False
        self.owned = False  # whether SIGINT is ours (not a host's)

    def install(self, *, process: bool) -> Any:
        """Take over SIGINT unless someone else handles it (a host, or ``SIG_IGN`` for a
        background job); returns what to restore. ``process``: the command is the whole
        process (the console script), which :meth:`report` may then end at once."""
        import signal

        if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
            self.owned = False
            return None
        self.seen = self.said = False
        self.owned = process
        return signal.signal(signal.SIGINT, self)

    def restore(self, previous: Any) -> None:
        """Give SIGINT back (a host calling ``main`` keeps its own), unless one arrived: then
        this process is on its way out and a second Ctrl-C must still end it at once."""
        import signal

        if previous is not None and not self.seen:
            signal.signal(signal.SIGINT, previous)

    def __call__(self, signum: int, frame: object) -> None:
        if self.seen:
            if not self.said:
                os.write(2, b"Interrupted.\n")
            os._exit(INTERRUPTED)
        self.seen = True
        raise KeyboardInterrupt

    def report(self) -> None:
        """The one line, and the exit code; never a traceback.

        When SIGINT is ours the process ends here, at once: the command has unwound (its
        clean-up ran on the way), and the interpreter's own shutdown gives SIGINT back to the
        system's default before it is done, so a second Ctrl-C landing then killed the process
        without its exit code.
        """
        self.said = True
        click.echo("Interrupted.", err=True)
        if self.owned:
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(Exception):  # a closed or broken pipe: nothing to say
                    stream.flush()
            os._exit(INTERRUPTED)
        sys.exit(INTERRUPTED)


_INTERRUPTS = _Interrupts()


def _interrupted() -> None:
    _INTERRUPTS.report()
