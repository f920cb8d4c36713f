"""``lessons_register_commands`` and ``lessons_register_install_extras``: what a plugin adds
reaches the ``lessons`` command line.

A test plugin registers a command in a fresh plugin manager, which the command line is given
in place of the installed plugins; the real ``main`` then runs it, lists it in ``--help``, and
never asks for it when a core command runs.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

import click
import pytest

from lessons_core import services
from lessons_core.cli import main as cli_main
from lessons_core.errors import LessonsError
from lessons_core.installing import InstallResult
from lessons_core.plugin import hookimpl
from lessons_core.plugins.manager import PluginError, Plugins, get_plugin_manager
from lessons_core.plugins.specs import InstallExtraSpec

CORE = Path(__file__).resolve().parents[2] / "src" / "lessons_core" / "lessons_core"


class Greeter:
    """A plugin adding ``lessons greet NAME``; counts how often it was asked."""

    def __init__(self, name: str = "greet") -> None:
        self.name = name
        self.asked = 0

    @hookimpl
    def lessons_register_commands(self, cli: click.Group) -> None:
        self.asked += 1

        @cli.command(name=self.name)
        @click.argument("who")
        def greet(who: str) -> None:
            """Greet someone, from a plugin.

            More text that only ``lessons greet --help`` shows.
            """
            click.echo(f"hello {who}")


def _use(monkeypatch: pytest.MonkeyPatch, *plugins: object) -> Plugins:
    """Give the command line a fresh manager (built-ins, no entry points) with ``plugins``."""
    pm = get_plugin_manager({"LESSONS_DISABLE_PLUGIN_AUTOLOAD": "1"})
    for number, plugin in enumerate(plugins):
        pm.register(plugin, name=f"test-plugin-{number}")
    loaded = Plugins(pm)
    monkeypatch.setattr(services, "load_plugins", lambda environ=None: loaded)
    return loaded


def _main(*args: str) -> int:
    try:
        cli_main.main(list(args))
    except SystemExit as exc:
        return 0 if exc.code is None else int(exc.code)
    return 0


def test_a_plugin_command_runs_and_is_listed(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    greeter = Greeter()
    plugins = _use(monkeypatch, greeter)
    assert set(plugins.commands()) == {"greet", "repo", "sync"}
    assert plugins.registered_by("test-plugin-0") == {"commands": ["greet"]}
    builtin = plugins.registered_by("lessons_core.cli.builtin_commands")
    assert builtin == {"commands": ["repo", "sync"]}

    assert _main("greet", "world") == 0
    assert capsys.readouterr().out == "hello world\n"

    assert _main("--help") == 0
    listed = capsys.readouterr().out
    lines = [line.split() for line in listed.splitlines()]
    assert ["greet", "Greet", "someone,", "from", "a", "plugin."] in lines
    assert "More text" not in listed
    # The core's own commands come first, in their order; the plugins' after them.
    names = [words[0] for words in lines if words and words[0] in {"add", "plugins", "greet"}]
    assert names == ["add", "plugins", "greet"]


def test_a_core_command_never_asks_the_plugins_for_commands(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    greeter = Greeter()
    _use(monkeypatch, greeter)
    assert _main("list") == 0
    assert _main("project-id", str(home)) == 0
    assert greeter.asked == 0
    assert _main("greet", "again") == 0
    assert greeter.asked == 1


def test_a_command_two_plugins_add_names_both(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    plugins = _use(monkeypatch, Greeter(), Greeter())
    # pluggy asks the last registered plugin first: the first one then clashes with it.
    message = "two plugins register the command 'greet': 'test-plugin-1' and 'test-plugin-0'"
    with pytest.raises(PluginError, match=re.escape(message)):
        plugins.commands()
    assert _main("greet", "x") == 1
    assert "two plugins register the command 'greet'" in capsys.readouterr().err


def test_a_plugin_taking_a_core_name_is_refused_and_help_still_lists(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _use(monkeypatch, Greeter(name="list"))
    assert _main("list") == 0  # the core's command runs, untouched
    capsys.readouterr()
    assert _main("nothing-like-this") == 1
    err = capsys.readouterr().err
    assert (
        "plugin 'test-plugin-0' registers the command 'list', which is one of lessons' own" in err
    )
    assert _main("--help") == 0
    out, err = capsys.readouterr()
    assert "Warning: plugin commands not listed:" in err
    assert "doctor" in out


def test_a_plugin_failing_to_register_is_named(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Broken:
        @hookimpl
        def lessons_register_commands(self, cli: click.Group) -> None:
            raise RuntimeError("no click today")

    _use(monkeypatch, Broken())
    assert _main("greet", "x") == 1
    assert (
        "plugin 'test-plugin-0' failed in lessons_register_commands: RuntimeError: no click today"
        in capsys.readouterr().err
    )


def test_an_unknown_name_still_suggests(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _use(monkeypatch, Greeter())
    assert _main("gret", "x") == 2
    assert "No such command 'gret'. Did you mean 'greet' or 'report'?" in capsys.readouterr().err


def test_the_missing_extra_is_named(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``lessons mcp`` with no plugin registering it says which extra brings it."""
    import importlib.util

    from lessons_core.cli import extras

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "lessons_mcp" else real(name, *a),
    )
    _use(monkeypatch)
    assert _main("mcp") == 1
    assert capsys.readouterr().err == f"Error: {extras.EXTRAS['mcp'][1]}\n"
    assert "pip install 'lessons[mcp]'" in extras.EXTRAS["mcp"][1]
    assert _main("install", "claude", "--mcp", "--no-scan") == 1
    assert capsys.readouterr().err.startswith(
        "Error: the MCP server is not installed: pip install 'lessons[mcp]'"
    )
    assert not (home.parent / ".claude" / "settings.json").exists()


def test_an_installed_extra_whose_plugin_is_off_says_so(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("lessons_mcp")
    _use(monkeypatch)
    assert _main("mcp") == 1
    err = capsys.readouterr().err
    assert "`lessons mcp` comes from the plugin of lessons_mcp, which is installed but not" in err
    assert "LESSONS_DISABLED_PLUGINS" in err


def _imported_modules(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


@pytest.mark.parametrize("plugin", ["lessons_mcp"])
def test_the_core_never_imports_the_mcp_plugin(plugin: str) -> None:
    """Anywhere in the core's source (inside functions too): the plugin reaches the core only
    through its entry point."""
    offenders = sorted(
        str(path.relative_to(CORE))
        for path in CORE.rglob("*.py")
        if any(
            module == plugin or module.startswith(plugin + ".")
            for module in _imported_modules(path)
        )
    )
    assert offenders == []


def test_the_spec_takes_a_group() -> None:
    """The spec's one argument is the group, as plugins name it."""
    pm = get_plugin_manager({"LESSONS_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert pm.hook.lessons_register_commands.spec.argnames == ("cli",)
    seen: list[Callable[..., object]] = []

    class Spy:
        @hookimpl
        def lessons_register_commands(self, cli: click.Group) -> None:
            seen.append(cli.add_command)

    pm.register(Spy())
    Plugins(pm).commands()
    assert len(seen) == 1


class Extra:
    """A plugin registering the ``mcp`` install step; records what it was asked."""

    def __init__(self, refuse: bool = False) -> None:
        self.calls: list[tuple[str, str, bool]] = []
        self.refuse = refuse

    def _change(self, verb: str) -> Callable[..., InstallResult]:
        def change(
            agent: str,
            environ: object = None,
            *,
            project: Path | None = None,
            dry_run: bool = False,
        ) -> InstallResult:
            self.calls.append((verb, agent, dry_run))
            path = Path(str(project or "")) / f"{agent}.json"
            return InstallResult(agent, path, True, not dry_run, f"+ {verb}\n", "{}")

        return change

    def _check(self) -> None:
        if self.refuse:
            raise LessonsError("install the server's library first")

    @hookimpl
    def lessons_register_install_extras(self, register: Callable[[InstallExtraSpec], None]) -> None:
        register(
            InstallExtraSpec(
                name="mcp",
                install=self._change("install"),
                uninstall=self._change("uninstall"),
                description="test server",
                check=self._check,
            )
        )


def test_an_install_extra_is_what_install_mcp_writes(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = Extra()
    plugins = _use(monkeypatch, extra)
    assert set(plugins.install_extras()) == {"mcp"}
    assert plugins.registered_by("test-plugin-0") == {"install extras": ["mcp"]}
    assert _main("install", "claude", "--mcp", "--dry-run") == 0
    assert extra.calls == [("install", "claude", True)]
    assert "+ install" in capsys.readouterr().out
    assert _main("uninstall", "claude", "--mcp", "--dry-run") == 0
    assert extra.calls[-1] == ("uninstall", "claude", True)


def test_an_install_extra_that_cannot_work_stops_before_any_write(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = Extra(refuse=True)
    _use(monkeypatch, extra)
    assert _main("install", "claude", "--mcp", "--no-scan") == 1
    assert capsys.readouterr().err == "Error: install the server's library first\n"
    assert extra.calls == []
    assert not (home.parent / ".claude" / "settings.json").exists()
