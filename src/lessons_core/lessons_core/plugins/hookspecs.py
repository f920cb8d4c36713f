"""The plugin interface of lessons (cold path only).

Every hook is prefixed ``lessons_``. Collection hooks take a ``register`` callback, so a plugin
can contribute any number of things and the spec can grow keyword arguments without breaking
anyone. ``firstresult`` is used only where exactly one implementation must be chosen; built-in
defaults are registered ``trylast`` so any installed plugin wins over them.

Nothing here runs in the hook process: whatever the hot path needs from a plugin is compiled into
the manifest as data or as a ``"module:function"`` string.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pluggy

from lessons_core.plugin import PROJECT

if TYPE_CHECKING:
    from pathlib import Path

    import click

    from lessons_core.models import Config
    from lessons_core.plugins.specs import (
        AgentSpec,
        DedupSpec,
        DetectorSpec,
        InstallExtraSpec,
        LessonSourceSpec,
        MatcherSpec,
        StoreSpec,
    )
    from lessons_core.store.base import Store

hookspec = pluggy.HookspecMarker(PROJECT)


@hookspec(historic=True)
def lessons_configure(config: Config) -> None:
    """Called once the configuration is loaded; late-registered plugins still see it.

    .. versionadded:: 0.1
    """


@hookspec
def lessons_register_agents(register: Callable[[AgentSpec], None]) -> None:
    """Contribute agent adapters: hook module, tool-name map, installer, transcript reader.

    .. versionadded:: 0.1
    """


@hookspec
def lessons_register_detectors(register: Callable[[DetectorSpec], None]) -> None:
    """Contribute transcript detectors that turn normalized events into candidates.

    .. versionadded:: 0.1
    """


#: Why ``lessons_register_matchers`` is retired (pluggy warns whenever a plugin implements it).
MATCHERS_RETIRED = (
    "lessons_register_matchers is retired: nothing calls a registered matcher (the hook matches "
    "only what the manifest compiles); the hook will be removed in a later version"
)


@hookspec(warn_on_impl=FutureWarning(MATCHERS_RETIRED))
def lessons_register_matchers(register: Callable[[MatcherSpec], None]) -> None:
    """Retired: matchers the hot path would call by ``"module:function"`` reference.

    The hook process matches only what the manifest compiles (regexes, globs, literal
    prefilters) and no lesson field names a matcher, so nothing ever called one. Implementing
    this hook raises a ``FutureWarning``; ``lessons plugins`` still lists what it registers.

    .. versionadded:: 0.1
    .. deprecated:: 0.1
    """


@hookspec
def lessons_register_stores(register: Callable[[StoreSpec], None]) -> None:
    """Contribute store backends, chosen by name in ``config.json`` (``"store"``).

    .. versionadded:: 0.1
    """


@hookspec
def lessons_register_dedup(register: Callable[[DedupSpec], None]) -> None:
    """Contribute backends that decide whether a candidate duplicates an existing lesson.

    .. versionadded:: 0.1
    """


@hookspec
def lessons_register_lesson_sources(register: Callable[[LessonSourceSpec], None]) -> None:
    """Contribute sources of lessons the compiler reads besides the store (the built-in one:
    the ``.lessons`` folders of the repositories a user included, ``docs/repo-memory.md``).

    Called on every build (``lessons build`` and the rebuild after each change), in the
    building process; never in the hook. Each source's ``load(config=..., home=...)`` returns
    a :class:`~lessons_core.plugins.specs.SourceLessons`. How its lessons meet the store's:

    * a source is someone else's input: its lessons are checked as ``lessons add`` input
      (:mod:`lessons_core.shared`), and it never overrides the user's own. A source lesson with
      the id of a store lesson (whatever its status), or with its content (the content hash
      taken without the scope) while the store's copy is global or of the source lesson's
      project, is left out; the user's copy is delivered as the user keeps it, and what the
      source's copy would change is named as a suggestion (``lessons build``, ``list``,
      ``doctor``);
    * ``SourceLessons.waiting`` names what a source holds that waits for the user (a
      repository file changed since the user trusted it): told at every rebuild, not an error;
    * two sources (or one) giving the same id: the first is compiled, the other named as a
      problem;
    * a source that raises is named as a problem and the build goes on without it; problems
      make ``lessons build`` exit 1 after writing the manifest, as refused patterns do.

    The manifest records each source's ``revision`` under ``sources``.

    .. versionadded:: 0.1
    """


@hookspec
def lessons_register_commands(cli: click.Group) -> None:
    """Contribute ``lessons`` subcommands: add click commands or groups to ``cli``
    (``@cli.command()``, ``cli.add_command(...)``).

    ``cli`` is a click group of the plugin's own, made for this call: only the commands added
    to it count, under the names they were added with. Called only when the command line needs
    them (a name that is not one of the core's own commands, or ``lessons --help``), so a plugin
    should import its heavy libraries inside the command, not at registration. A name the core
    uses, or one that two plugins add, is a plugin error naming the plugins.

    .. versionadded:: 0.1
    """


@hookspec
def lessons_register_install_extras(register: Callable[[InstallExtraSpec], None]) -> None:
    """Contribute what ``lessons install AGENT`` writes into the agent's configuration besides
    the hooks when asked, and ``lessons uninstall AGENT`` takes out: ``--mcp`` asks for the
    extra named ``mcp`` (the MCP server's entry, from the ``lessons-mcp`` distribution).

    .. versionadded:: 0.1
    """


@hookspec(firstresult=True)
def lessons_select_store(
    config: Config, available: dict[str, StoreSpec], home: Path
) -> Store | None:
    """Open the store to use. The first non-``None`` answer wins; SQLite is the last resort.

    ``available`` holds every registered store by name; ``home`` is ``LESSONS_HOME`` (created).

    .. versionadded:: 0.1
    """


@hookspec
def lessons_manifest_compiled(manifest: dict[str, Any], config: Config) -> None:
    """Inspect or extend the compiled manifest (a plain dict) before it is written atomically.

    .. versionadded:: 0.1
    """
