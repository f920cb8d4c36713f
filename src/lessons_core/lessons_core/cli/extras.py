"""What to say when a command or an install step of an extra that is not installed is asked for.

Commands and install steps of the optional distributions reach the command line through the
plugin hooks (``lessons_register_commands``, ``lessons_register_install_extras``); the core
imports none of them. When one is missing, ``lessons mcp`` should still say which extra brings
it rather than click's bare "No such command": so this table names, for each known extra, its
command, its top-level module (looked up, never imported) and the message. Naming a
distribution is not depending on it.
"""

from __future__ import annotations

import importlib.util

#: Command (or ``install --NAME`` step) name -> (the extra's top-level module, what to do).
EXTRAS: dict[str, tuple[str, str]] = {
    "mcp": (
        "lessons_mcp",
        "the MCP server is not installed: pip install 'lessons[mcp]' "
        "(or the lessons-mcp distribution from plugins/mcp-server)",
    ),
}

#: Said when the extra is installed but its plugin was not loaded.
NOT_LOADED = (
    "{what} comes from the plugin of {module}, which is installed but not loaded: "
    "check LESSONS_DISABLED_PLUGINS, LESSONS_PLUGINS and LESSONS_DISABLE_PLUGIN_AUTOLOAD "
    "(`lessons plugins --all` says why a plugin was skipped)"
)


def missing(name: str, what: str = "") -> str | None:
    """Why the extra ``name`` is not there and how to get it; None for names of no extra.

    ``what`` is what was asked for, for the message (default: the command ``lessons NAME``).
    """
    entry = EXTRAS.get(name)
    if entry is None:
        return None
    module, message = entry
    try:
        installed = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        installed = False
    if not installed:
        return message
    return NOT_LOADED.format(what=what or f"`lessons {name}`", module=module)
