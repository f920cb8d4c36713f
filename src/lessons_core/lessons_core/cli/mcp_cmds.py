"""``lessons mcp``: run the MCP server (distribution ``lessons-mcp``, extra ``lessons[mcp]``).

The server and the SDK it is built on live in their own distribution: the core never imports
``mcp`` (it is heavy, and most users never run the server). Without it this command says how
to install it instead of failing with an import error.
"""

from __future__ import annotations

import importlib.util

import click

from lessons_core.errors import LessonsError

MISSING = (
    "the MCP server is not installed: pip install 'lessons[mcp]' "
    "(or the lessons-mcp distribution from plugins/mcp-server)"
)


def require_server() -> None:
    """Raise a clear :class:`LessonsError` when ``lessons_mcp`` or the SDK is missing."""
    for module in ("lessons_mcp", "mcp"):
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise LessonsError(MISSING)


@click.command()
@click.option("--tools", "show_tools", is_flag=True, help="Print the tools' schemas and exit.")
def mcp(show_tools: bool) -> None:
    """Run the lessons MCP server over stdio (what an MCP host starts)."""
    require_server()
    from lessons_mcp.server import main as serve

    code = serve(["--tools"] if show_tools else [])
    if code:
        raise click.exceptions.Exit(code)
