"""``lessons plugins``: which plugins are loaded, where they come from and what they add.

The first thing to run when a detector or an agent seems missing: it shows built-ins and
entry-point plugins with their distribution and version, the hooks each implements, and what each
registers. ``--all`` also lists installed entry points that were *not* loaded, and why (the
``LESSONS_*PLUGIN*`` switches), so a forgotten environment variable is easy to spot.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

import click

from lessons_core.plugins.manager import DEFAULT_PLUGINS, Plugins, _entry_points, _names


def _core_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("lessons-core")
    except PackageNotFoundError:
        return ""


def describe_plugins(plugins: Plugins) -> list[dict[str, Any]]:
    """One dict per loaded plugin: name, kind, distribution, version, hooks, registers."""
    pm = plugins.pm
    dists = {id(plugin): dist for plugin, dist in pm.list_plugin_distinfo()}
    core_version = _core_version()
    rows: list[dict[str, Any]] = []
    # Built-ins first, then entry points, each by name.
    ordered = sorted(
        pm.list_name_plugin(), key=lambda item: (item[0] not in DEFAULT_PLUGINS, item[0])
    )
    for name, plugin in ordered:
        if plugin is None:
            continue
        dist = dists.get(id(plugin))
        builtin = name in DEFAULT_PLUGINS
        rows.append(
            {
                "name": name,
                "kind": "built-in" if builtin else "entry point",
                "status": "loaded",
                "distribution": "lessons-core" if builtin else (dist.project_name if dist else ""),
                "version": core_version if builtin else (dist.version if dist else ""),
                "hooks": sorted(caller.name for caller in pm.get_hookcallers(plugin) or []),
                "registers": plugins.registered_by(name),
            }
        )
    return rows


def skipped_plugins(plugins: Plugins, environ: Mapping[str, str]) -> list[dict[str, Any]]:
    """Installed entry points and built-ins that were not loaded, with the reason."""
    loaded = {name for name, plugin in plugins.pm.list_name_plugin() if plugin is not None}
    blocked = _names(environ.get("LESSONS_DISABLED_PLUGINS"))
    only = _names(environ.get("LESSONS_PLUGINS"))
    autoload_off = environ.get("LESSONS_DISABLE_PLUGIN_AUTOLOAD", "").strip().lower() in {
        "1",
        "true",
        "yes",
        "on",
    }
    rows: list[dict[str, Any]] = []
    for module_name in DEFAULT_PLUGINS:
        if module_name not in loaded:
            rows.append(
                _skipped(module_name, "built-in", "lessons-core", "LESSONS_DISABLED_PLUGINS")
            )
    for ep_name, dist_name in sorted(set(_entry_points())):
        if ep_name in loaded:
            continue
        if ep_name in blocked or dist_name in blocked:
            why = "LESSONS_DISABLED_PLUGINS"
        elif autoload_off:
            why = "LESSONS_DISABLE_PLUGIN_AUTOLOAD"
        elif only:
            why = "not in LESSONS_PLUGINS"
        else:
            why = "not loaded"
        rows.append(_skipped(ep_name, "entry point", dist_name, why))
    return rows


def _skipped(name: str, kind: str, dist: str, why: str) -> dict[str, Any]:
    return {
        "name": name,
        "kind": kind,
        "status": f"skipped ({why})",
        "distribution": dist,
        "version": "",
        "hooks": [],
        "registers": {},
    }


@click.command("plugins")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per plugin.")
@click.option("--all", "show_all", is_flag=True, help="Also list plugins that were not loaded.")
def plugins(as_json: bool, show_all: bool) -> None:
    """List loaded plugins: kind, distribution, hooks implemented and what they register."""
    environ = os.environ
    loaded = Plugins.load(environ)
    rows = describe_plugins(loaded)
    if show_all:
        rows += skipped_plugins(loaded, environ)
    if as_json:
        for row in rows:
            click.echo(json.dumps(row, ensure_ascii=False))
        return
    if not rows:
        click.echo("No plugins loaded.")
        return
    width = max(len(row["name"]) for row in rows)
    for row in rows:
        dist = " ".join(p for p in (row["distribution"], row["version"]) if p)
        status = "" if row["status"] == "loaded" else f"  [{row['status']}]"
        click.echo(f"{row['name']:<{width}}  {row['kind']:<11}  {dist}{status}")
        for kind, names in row["registers"].items():
            click.echo(f"{'':<{width}}    {kind}: {', '.join(names)}")
        if row["hooks"]:
            click.echo(f"{'':<{width}}    hooks: {', '.join(row['hooks'])}")
