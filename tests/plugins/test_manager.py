"""The plugin manager and its typed facade: built-ins, switches, collection, clear errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lessons_core.errors import LessonsError
from lessons_core.models import Config
from lessons_core.plugin import hookimpl
from lessons_core.plugins.manager import DEFAULT_PLUGINS, PluginError, Plugins, get_plugin_manager
from lessons_core.plugins.specs import AgentSpec, DetectorSpec, MatcherSpec, StoreSpec
from lessons_core.store.sqlite import SQLiteStore

ADAPTERS = {"claude", "codex", "gemini"}


def _names(env: dict[str, str]) -> set[str]:
    pm = get_plugin_manager(env)
    return {name for name, plugin in pm.list_name_plugin() if plugin is not None}


def test_fresh_manager_each_call(home: Path) -> None:
    """Two calls give two managers; a registration on one does not leak into the other."""
    a, b = get_plugin_manager({}), get_plugin_manager({})
    assert a is not b

    class Extra:
        @hookimpl
        def lessons_register_detectors(self, register: Callable[[DetectorSpec], None]) -> None:
            register(DetectorSpec(name="x", detect=lambda events, **kw: []))

    a.register(Extra(), name="extra")
    assert "x" in Plugins(a).detectors()
    assert "x" not in Plugins(b).detectors()
    assert get_plugin_manager({}).get_plugin("extra") is None


def test_the_retired_matchers_hook_warns(home: Path) -> None:
    """Implementing ``lessons_register_matchers`` warns that it is retired; what the plugin
    registers is still listed, so it loads as before."""
    pm = get_plugin_manager({})

    class Old:
        @hookimpl
        def lessons_register_matchers(self, register: Callable[[MatcherSpec], None]) -> None:
            register(MatcherSpec(name="x", target="pkg.mod:fn"))

    with pytest.warns(FutureWarning, match="lessons_register_matchers is retired"):
        pm.register(Old(), name="old")
    assert Plugins(pm).matchers().keys() == {"x"}


def test_builtins_are_registered_by_module_name(home: Path) -> None:
    """Every default plugin is registered under its module name, even with autoload off."""
    names = _names({"LESSONS_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert names == set(DEFAULT_PLUGINS)


def test_installed_adapters_load_through_entry_points(home: Path) -> None:
    """The adapter distributions register in group 'lessons' and contribute their agents."""
    plugins = Plugins.load({})
    assert {name for name, _ in plugins.pm.list_name_plugin()} >= ADAPTERS
    agents = plugins.agents()
    assert set(agents) >= ADAPTERS
    assert all(isinstance(spec, AgentSpec) for spec in agents.values())
    assert agents["claude"].hook_module == "lessons_claude.hook"
    assert agents["codex"].distribution == "lessons-codex"
    dists = {dist.project_name for _, dist in plugins.pm.list_plugin_distinfo()}
    assert {"lessons-claude", "lessons-codex", "lessons-gemini"} <= dists


def test_autoload_switch(home: Path) -> None:
    """LESSONS_DISABLE_PLUGIN_AUTOLOAD loads no entry points; any truthy spelling works."""
    for value in ("1", "true", "YES", "on"):
        assert not ADAPTERS & _names({"LESSONS_DISABLE_PLUGIN_AUTOLOAD": value})
    assert _names({"LESSONS_DISABLE_PLUGIN_AUTOLOAD": "0"}) >= ADAPTERS


def test_allow_list_by_entry_point_or_distribution(home: Path) -> None:
    """LESSONS_PLUGINS keeps only the named entry points (entry-point or distribution name)."""
    assert ADAPTERS & _names({"LESSONS_PLUGINS": "claude"}) == {"claude"}
    assert ADAPTERS & _names({"LESSONS_PLUGINS": " lessons-codex , gemini "}) == {"codex", "gemini"}
    # built-ins are not subject to the allow-list
    assert set(DEFAULT_PLUGINS) <= _names({"LESSONS_PLUGINS": "claude"})


def test_block_list_covers_entry_points_and_builtins(home: Path) -> None:
    """LESSONS_DISABLED_PLUGINS blocks adapters and built-ins (full or short module name)."""
    names = _names({"LESSONS_DISABLED_PLUGINS": "gemini,dedup"})
    assert "gemini" not in names
    assert "lessons_core.builtin.dedup" not in names
    assert {"claude", "codex", "lessons_core.builtin.sqlite_store"} <= names
    plugins = Plugins.load({"LESSONS_DISABLED_PLUGINS": "lessons_core.builtin.dedup"})
    assert plugins.dedup() == {}


def test_builtin_store_and_dedup_are_registered(home: Path) -> None:
    """The built-ins contribute the 'sqlite' store and the 'jaccard' dedup backend."""
    plugins = Plugins.load({"LESSONS_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert set(plugins.stores()) == {"sqlite"}
    assert set(plugins.dedup()) == {"jaccard"}
    assert plugins.registered_by("lessons_core.builtin.sqlite_store") == {"stores": ["sqlite"]}


def test_duplicate_names_are_rejected_naming_both_plugins(home: Path) -> None:
    """A second plugin registering an existing name fails, naming both plugins."""

    class Rival:
        @hookimpl
        def lessons_register_stores(self, register: Callable[[StoreSpec], None]) -> None:
            register(StoreSpec(name="sqlite", factory=lambda config, home: None))

    plugins = Plugins.load({"LESSONS_DISABLE_PLUGIN_AUTOLOAD": "1"})
    plugins.pm.register(Rival(), name="rival-store")
    with pytest.raises(PluginError) as excinfo:
        plugins.stores()
    message = str(excinfo.value)
    assert "'sqlite'" in message
    assert "rival-store" in message
    assert "lessons_core.builtin.sqlite_store" in message


def test_plugin_raising_in_register_is_named(home: Path) -> None:
    """An exception inside a plugin's register hook becomes a PluginError naming the plugin."""

    class Broken:
        @hookimpl
        def lessons_register_detectors(self, register: Callable[[DetectorSpec], None]) -> None:
            raise KeyError("boom")

    plugins = Plugins.load({"LESSONS_DISABLE_PLUGIN_AUTOLOAD": "1"})
    plugins.pm.register(Broken(), name="broken-detector")
    with pytest.raises(PluginError, match="'broken-detector' failed in lessons_register_detectors"):
        plugins.detectors()
    assert isinstance(PluginError("x"), LessonsError)


def test_wrong_spec_type_is_named(home: Path) -> None:
    """Registering a MatcherSpec through the agents hook is an error naming the plugin."""

    class Confused:
        @hookimpl
        def lessons_register_agents(self, register: Callable[[Any], None]) -> None:
            register(MatcherSpec(name="m", target="a.b:c"))

    plugins = Plugins.load({"LESSONS_DISABLE_PLUGIN_AUTOLOAD": "1"})
    plugins.pm.register(Confused(), name="confused")
    with pytest.raises(PluginError, match="'confused' registered a MatcherSpec"):
        plugins.agents()


def test_unknown_hook_fails_check_pending(home: Path) -> None:
    """A hook implementation with no matching spec is reported by check_pending."""
    import pluggy

    class Typo:
        @hookimpl
        def lessons_register_detector(self, register: Any) -> None:  # missing 's'
            pass

    pm = get_plugin_manager({"LESSONS_DISABLE_PLUGIN_AUTOLOAD": "1"})
    pm.register(Typo(), name="typo")
    with pytest.raises(pluggy.PluginValidationError, match="lessons_register_detector"):
        pm.check_pending()


def test_configure_is_historic(home: Path) -> None:
    """A plugin registered after configure() still receives the configuration."""
    seen: list[Config] = []

    class Late:
        @hookimpl
        def lessons_configure(self, config: Config) -> None:
            seen.append(config)

    plugins = Plugins.load({"LESSONS_DISABLE_PLUGIN_AUTOLOAD": "1"})
    config = Config(max_lessons_per_injection=2)
    plugins.configure(config)
    plugins.pm.register(Late(), name="late")
    assert seen == [config]


def test_select_store_defaults_to_sqlite(home: Path) -> None:
    """Without other answers the built-in opens lessons.db in the given home."""
    home.mkdir()
    plugins = Plugins.load({"LESSONS_DISABLE_PLUGIN_AUTOLOAD": "1"})
    store = plugins.select_store(Config(), home)
    try:
        assert isinstance(store, SQLiteStore)
        assert store.path == home / "lessons.db"
    finally:
        store.close()


def test_a_plugin_can_choose_the_store(home: Path) -> None:
    """lessons_select_store is firstresult and the built-in is trylast: a plugin answer wins."""
    chosen = object()

    class Picker:
        @hookimpl
        def lessons_select_store(self, config: Config, available: dict[str, StoreSpec]) -> Any:
            assert "sqlite" in available
            return chosen

    plugins = Plugins.load({"LESSONS_DISABLE_PLUGIN_AUTOLOAD": "1"})
    plugins.pm.register(Picker(), name="picker")
    assert plugins.select_store(Config(), home) is chosen


def test_no_store_plugin_is_a_clear_error(home: Path) -> None:
    """With the SQLite built-in blocked and nothing else, the error says what happened."""
    plugins = Plugins.load(
        {"LESSONS_DISABLE_PLUGIN_AUTOLOAD": "1", "LESSONS_DISABLED_PLUGINS": "sqlite_store"}
    )
    with pytest.raises(PluginError, match="no plugin opened a store"):
        plugins.select_store(Config(), home)


def test_unknown_configured_store_is_a_clear_error(home: Path) -> None:
    """A config naming a store no plugin provides gets a message listing what is available."""
    from lessons_core.builtin import sqlite_store

    class NamedConfig:
        store = "postgres"

    with pytest.raises(LessonsError, match=r"'postgres'.*available: sqlite"):
        sqlite_store.lessons_select_store(
            config=NamedConfig(),  # type: ignore[arg-type]
            available=Plugins.load({"LESSONS_DISABLE_PLUGIN_AUTOLOAD": "1"}).stores(),
            home=home,
        )
