"""Build a plugin manager: hook specs, built-ins, then installed plugins.

A fresh manager is made per use (per CLI command, per test); none is kept in a module global,
so tests never leak registrations into each other.

Environment switches, in the spirit of pytest and tox:

``LESSONS_DISABLE_PLUGIN_AUTOLOAD=1``
    load no entry-point plugins at all (built-ins still load);
``LESSONS_PLUGINS=a,b``
    load only these entry-point plugins;
``LESSONS_DISABLED_PLUGINS=a,b``
    block these plugins by name (built-ins too).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping

import pluggy

from lessons_core import hookspecs
from lessons_core.plugin import PROJECT

#: Built-in plugins, registered by module name so they can be blocked like any other.
DEFAULT_PLUGINS: tuple[str, ...] = (
    "lessons_core.builtin.sqlite_store",
    "lessons_core.builtin.detectors",
    "lessons_core.builtin.dedup",
)

_TRUE = {"1", "true", "yes", "on"}


def _names(value: str | None) -> set[str]:
    return {part.strip() for part in (value or "").split(",") if part.strip()}


def get_plugin_manager(environ: Mapping[str, str] | None = None) -> pluggy.PluginManager:
    """Return a new manager with the specs, the built-ins and (unless switched off) entry points."""
    env = os.environ if environ is None else environ
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(hookspecs)

    blocked = _names(env.get("LESSONS_DISABLED_PLUGINS"))
    for name in blocked:
        pm.set_blocked(name)

    for module_name in DEFAULT_PLUGINS:
        if module_name in blocked or module_name.rsplit(".", 1)[-1] in blocked:
            continue
        module = importlib.import_module(module_name)
        pm.register(module, name=module_name)

    if env.get("LESSONS_DISABLE_PLUGIN_AUTOLOAD", "").lower() not in _TRUE:
        only = _names(env.get("LESSONS_PLUGINS"))
        if only:
            for dist_name in only:
                pm.load_setuptools_entrypoints(PROJECT, name=dist_name)
        else:
            pm.load_setuptools_entrypoints(PROJECT)

    pm.check_pending()
    return pm
