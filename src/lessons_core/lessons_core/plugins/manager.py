"""Build a plugin manager: hook specs, built-ins, then installed plugins.

A fresh manager is made per use (per CLI command, per test); none is kept in a module global,
so tests never leak registrations into each other.

Environment switches, in the spirit of pytest and tox:

``LESSONS_DISABLE_PLUGIN_AUTOLOAD=1``
    load no entry-point plugins at all (built-ins still load);
``LESSONS_PLUGINS=a,b``
    load only these entry-point plugins (entry-point or distribution names);
``LESSONS_DISABLED_PLUGINS=a,b``
    block these plugins by name (built-ins too, by module name or its last part).

A plugin that fails to import, register or answer a ``register`` callback produces a
:class:`~lessons_core.errors.PluginError` naming it, never a bare traceback: one broken
third-party package must say who is to blame.
"""

from __future__ import annotations

import contextlib
import importlib
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pluggy

from lessons_core.errors import LessonsError
from lessons_core.plugin import PROJECT
from lessons_core.plugins import hookspecs
from lessons_core.plugins.specs import (
    AgentSpec,
    DedupSpec,
    DetectorSpec,
    InstallExtraSpec,
    LessonSourceSpec,
    MatcherSpec,
    StoreSpec,
)

if TYPE_CHECKING:
    import click

    from lessons_core.models import Config
    from lessons_core.store.base import Store

#: Built-in plugins, registered by module name so they can be blocked like any other.
DEFAULT_PLUGINS: tuple[str, ...] = (
    "lessons_core.builtin.sqlite_store",
    "lessons_core.builtin.detectors",
    "lessons_core.builtin.dedup",
    "lessons_core.builtin.repo_memory",
    "lessons_core.cli.builtin_commands",
)

_TRUE = {"1", "true", "yes", "on"}

SpecT = TypeVar(
    "SpecT",
    AgentSpec,
    DetectorSpec,
    MatcherSpec,
    StoreSpec,
    DedupSpec,
    LessonSourceSpec,
    InstallExtraSpec,
)


class PluginError(LessonsError):
    """A plugin could not be loaded or misbehaved; the message names the plugin."""


def _names(value: str | None) -> set[str]:
    return {part.strip() for part in (value or "").split(",") if part.strip()}


def _is_blocked_builtin(module_name: str, blocked: set[str]) -> bool:
    return module_name in blocked or module_name.rsplit(".", 1)[-1] in blocked


def _entry_points() -> list[tuple[str, str]]:
    """(entry-point name, distribution name) of every plugin in group ``lessons``."""
    from importlib.metadata import distributions

    found: list[tuple[str, str]] = []
    for dist in distributions():
        for ep in dist.entry_points:
            if ep.group == PROJECT:
                found.append((ep.name, dist.metadata["name"] or ""))
    return found


def get_plugin_manager(
    environ: Mapping[str, str] | None = None, *, entry_point_cache: Path | None = None
) -> pluggy.PluginManager:
    """Return a new manager with the specs, the built-ins and (unless switched off) entry points.

    With ``entry_point_cache`` (a file path) the list of installed entry points is read from,
    and kept in, that file while the installation is unchanged (see :mod:`plugin_cache`). The
    manager then knows no distribution metadata (``list_plugin_distinfo`` is empty for those
    plugins), which only ``lessons plugins`` shows; it loads without the cache.
    """
    env = os.environ if environ is None else environ
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(hookspecs)

    blocked = _names(env.get("LESSONS_DISABLED_PLUGINS"))
    for name in blocked:
        pm.set_blocked(name)

    for module_name in DEFAULT_PLUGINS:
        if _is_blocked_builtin(module_name, blocked):
            continue
        module = importlib.import_module(module_name)
        _register(pm, module, module_name)

    if env.get("LESSONS_DISABLE_PLUGIN_AUTOLOAD", "").strip().lower() not in _TRUE:
        only = _names(env.get("LESSONS_PLUGINS"))
        loaded_all = False
        if not only and not blocked and entry_point_cache is not None:
            loaded_all = _load_cached(pm, entry_point_cache)
        if not only and not blocked and not loaded_all:
            # The common case: one pass over the installed distributions. If a plugin breaks,
            # the named pass below loads the rest and reports the culprit by name.
            with contextlib.suppress(Exception):
                pm.load_setuptools_entrypoints(PROJECT)
                loaded_all = True
        for ep_name, dist_name in () if loaded_all else _entry_points():
            if only and ep_name not in only and dist_name not in only:
                continue
            if ep_name in blocked or dist_name in blocked or pm.get_plugin(ep_name) is not None:
                continue
            try:
                pm.load_setuptools_entrypoints(PROJECT, name=ep_name)
            except pluggy.PluginValidationError as exc:
                raise PluginError(
                    f"plugin {ep_name!r} (distribution {dist_name}) does not fit the lessons "
                    f"hook specs: {exc}"
                ) from exc
            except Exception as exc:
                raise PluginError(
                    f"plugin {ep_name!r} (distribution {dist_name}) failed to load: "
                    f"{type(exc).__name__}: {exc}; uninstall it or block it with "
                    f"LESSONS_DISABLED_PLUGINS={ep_name}"
                ) from exc

    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        raise PluginError(_unknown_hook_message(pm, exc)) from exc
    return pm


def _load_cached(pm: pluggy.PluginManager, cache: Path) -> bool:
    """Register the entry points listed in ``cache``, refreshing it first when it is stale.

    False when a plugin failed to load: the caller's named pass then finds and names it.
    """
    from lessons_core.plugins import cache as plugin_cache

    entries = plugin_cache.read(cache, PROJECT)
    if entries is None:
        sourced = plugin_cache.scan_sourced(PROJECT)
        plugin_cache.write(cache, PROJECT, sourced)
        entries = [entry for entry, _ in sourced]
    try:
        for ep_name, module, attr, _dist in entries:
            if pm.get_plugin(ep_name) is not None or pm.is_blocked(ep_name):
                continue
            pm.register(plugin_cache.load_object(module, attr), name=ep_name)
    except Exception:
        # Whatever is wrong is reported by the full pass; the next command rescans.
        with contextlib.suppress(OSError):
            cache.unlink()
        return False
    return True


def _unknown_hook_message(pm: pluggy.PluginManager, exc: pluggy.PluginValidationError) -> str:
    """Name the plugin and its unknown hooks, suggesting the spec it probably meant."""
    import difflib

    known = [name for name in dir(hookspecs) if name.startswith("lessons_")]
    unknown: list[str] = []
    for name, caller in vars(pm.hook).items():
        if not isinstance(caller, pluggy.HookCaller) or caller.has_spec():
            continue
        if any(impl.plugin is exc.plugin for impl in caller.get_hookimpls()):
            close = difflib.get_close_matches(name, known, n=1)
            unknown.append(f"{name} (did you mean {close[0]}?)" if close else name)
    hooks = ", ".join(sorted(unknown)) or str(exc)
    return f"plugin {pm.get_name(exc.plugin)!r} implements hooks lessons does not know: {hooks}"


def _register(pm: pluggy.PluginManager, plugin: object, name: str) -> None:
    try:
        pm.register(plugin, name=name)
    except pluggy.PluginValidationError as exc:
        raise PluginError(f"plugin {name!r} does not fit the lessons hook specs: {exc}") from exc


class Plugins:
    """A typed view of a plugin manager: what every plugin registers, by kind and name.

    The collection hooks are called one implementation at a time (in pluggy's call order) rather
    than through ``pm.hook``: that way a duplicate name can say which two plugins clash, and an
    exception can say which plugin raised it.
    """

    def __init__(self, pm: pluggy.PluginManager):
        self.pm = pm
        self._cache: dict[str, dict[str, Any]] = {}
        #: (hook name, spec name) -> name of the plugin that registered it.
        self._owners: dict[tuple[str, str], str] = {}

    @classmethod
    def load(
        cls, environ: Mapping[str, str] | None = None, *, entry_point_cache: Path | None = None
    ) -> Plugins:
        return cls(get_plugin_manager(environ, entry_point_cache=entry_point_cache))

    # -- collection ------------------------------------------------------------------------

    def _impls(self, hook_name: str) -> Iterator[tuple[str, Callable[..., Any]]]:
        caller: pluggy.HookCaller = getattr(self.pm.hook, hook_name)
        # pluggy calls the last registered (and tryfirst) implementations first; do the same.
        for impl in reversed(caller.get_hookimpls()):
            yield impl.plugin_name, impl.function

    def _collect(self, hook_name: str, kind: type[SpecT]) -> dict[str, SpecT]:
        cached = self._cache.get(hook_name)
        if cached is not None:
            return dict(cached)
        found: dict[str, SpecT] = {}
        owner: dict[str, str] = {}
        plugin_name: str
        for plugin_name, function in self._impls(hook_name):

            def register(spec: SpecT, _plugin: str = plugin_name) -> None:
                if not isinstance(spec, kind):
                    raise PluginError(
                        f"plugin {_plugin!r} registered a {type(spec).__name__} through "
                        f"{hook_name}, which takes {kind.__name__} objects"
                    )
                if spec.name in found:
                    raise PluginError(
                        f"two plugins register the {kind.__name__} {spec.name!r}: "
                        f"{owner[spec.name]!r} and {_plugin!r}; uninstall or block one "
                        "(LESSONS_DISABLED_PLUGINS)"
                    )
                found[spec.name] = spec
                owner[spec.name] = _plugin

            try:
                function(register=register)
            except PluginError:
                raise
            except Exception as exc:
                raise PluginError(
                    f"plugin {plugin_name!r} failed in {hook_name}: {type(exc).__name__}: {exc}"
                ) from exc
        self._cache[hook_name] = found
        self._owners.update({(hook_name, name): plugin for name, plugin in owner.items()})
        return dict(found)

    def agents(self) -> dict[str, AgentSpec]:
        return self._collect("lessons_register_agents", AgentSpec)

    def detectors(self) -> dict[str, DetectorSpec]:
        return self._collect("lessons_register_detectors", DetectorSpec)

    def matchers(self) -> dict[str, MatcherSpec]:
        return self._collect("lessons_register_matchers", MatcherSpec)

    def stores(self) -> dict[str, StoreSpec]:
        return self._collect("lessons_register_stores", StoreSpec)

    def dedup(self) -> dict[str, DedupSpec]:
        return self._collect("lessons_register_dedup", DedupSpec)

    def lesson_sources(self) -> dict[str, LessonSourceSpec]:
        return self._collect("lessons_register_lesson_sources", LessonSourceSpec)

    def install_extras(self) -> dict[str, InstallExtraSpec]:
        return self._collect("lessons_register_install_extras", InstallExtraSpec)

    def commands(self) -> dict[str, click.Command]:
        """The subcommands plugins add (``lessons_register_commands``), by name.

        Each implementation fills a click group of its own, so a name two plugins add can say
        which two, and an exception which plugin raised it.
        """
        hook_name = "lessons_register_commands"
        cached = self._cache.get(hook_name)
        if cached is not None:
            return dict(cached)
        import click

        found: dict[str, click.Command] = {}
        owner: dict[str, str] = {}
        for plugin_name, function in self._impls(hook_name):
            group = click.Group("lessons")
            try:
                function(cli=group)
            except PluginError:
                raise
            except Exception as exc:
                raise PluginError(
                    f"plugin {plugin_name!r} failed in {hook_name}: {type(exc).__name__}: {exc}"
                ) from exc
            for name, command in group.commands.items():
                if name in found:
                    raise PluginError(
                        f"two plugins register the command {name!r}: {owner[name]!r} and "
                        f"{plugin_name!r}; uninstall or block one (LESSONS_DISABLED_PLUGINS)"
                    )
                found[name] = command
                owner[name] = plugin_name
        self._cache[hook_name] = found
        self._owners.update({(hook_name, name): plugin for name, plugin in owner.items()})
        return dict(found)

    def command_owner(self, name: str) -> str:
        """The plugin that registered the command ``name`` (after :meth:`commands`)."""
        return self._owners.get(("lessons_register_commands", name), "")

    def registered_by(self, plugin_name: str) -> dict[str, list[str]]:
        """What one plugin contributes, by kind (``agents``, ``detectors`` …), for ``plugins``."""
        kinds = {
            "agents": ("lessons_register_agents", self.agents),
            "detectors": ("lessons_register_detectors", self.detectors),
            "matchers": ("lessons_register_matchers", self.matchers),
            "stores": ("lessons_register_stores", self.stores),
            "dedup": ("lessons_register_dedup", self.dedup),
            "lesson sources": ("lessons_register_lesson_sources", self.lesson_sources),
            "install extras": ("lessons_register_install_extras", self.install_extras),
            "commands": ("lessons_register_commands", self.commands),
        }
        out: dict[str, list[str]] = {}
        for kind, (hook_name, collect) in kinds.items():
            collect()
            names = [
                name
                for (hook, name), owner in self._owners.items()
                if hook == hook_name and owner == plugin_name
            ]
            if names:
                out[kind] = sorted(names)
        return out

    # -- calls -----------------------------------------------------------------------------

    def configure(self, config: Config) -> None:
        """Hand the configuration to every plugin (historic: later registrations see it too)."""
        try:
            self.pm.hook.lessons_configure.call_historic(kwargs={"config": config})
        except LessonsError:
            raise
        except Exception as exc:
            raise PluginError(
                f"a plugin failed in lessons_configure: {type(exc).__name__}: {exc}"
            ) from exc

    def select_store(self, config: Config, home: Path) -> Store:
        """Open the store the plugins choose (SQLite unless configured otherwise)."""
        store: Store | None = self.pm.hook.lessons_select_store(
            config=config, available=self.stores(), home=home
        )
        if store is None:
            raise PluginError(
                "no plugin opened a store (is the built-in sqlite_store plugin blocked?)"
            )
        return store
