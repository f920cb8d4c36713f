"""``lessons mcp``: run the MCP server, a command this distribution adds to ``lessons``
(registered by :mod:`lessons_mcp.plugin`).

The SDK the server is built on is heavy and imported only when the server runs; without it
the command says how to install it instead of failing with an import error.
"""

from __future__ import annotations

import importlib.util

import click

from lessons_core.api import LessonsError

MISSING = (
    "the MCP server is not installed: pip install 'lessons[mcp]' "
    "(or the lessons-mcp distribution from plugins/mcp-server)"
)


def require_server() -> None:
    """Raise a clear :class:`LessonsError` when this distribution or the MCP SDK is missing."""
    for module in ("lessons_mcp", "mcp"):
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise LessonsError(MISSING)


@click.command(short_help="Run the MCP server over stdio (lessons[mcp]).")
@click.option("--tools", "show_tools", is_flag=True, help="Print the tools' schemas and exit.")
def mcp(show_tools: bool) -> None:
    """Run the lessons MCP server over stdio (what an MCP host starts)."""
    require_server()
    from lessons_mcp.server import main as serve

    code = serve(["--tools"] if show_tools else [])
    if code:
        raise click.exceptions.Exit(code)
