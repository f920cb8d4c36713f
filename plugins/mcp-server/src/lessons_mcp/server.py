"""The stdio MCP server: the tools of :mod:`lessons_mcp.tools` behind the official SDK.

Built on the SDK's low-level :class:`mcp.server.lowlevel.Server` rather than ``MCPServer``
(the former FastMCP): the tools' input schemas are the server's contract with every host and
are written down once as data (:mod:`lessons_mcp.schemas`), checked with ``jsonschema``, and
answered with our own one-line errors; deriving them from type hints would let a refactor
change the contract silently, and a decorator framework adds machinery (resources, prompts,
context injection) this server does not use.

Every call runs in a worker thread: a search or a record touches SQLite and may wait on a
lock held by a hook or a scan, and other calls (a host may send several at once) must not
queue behind it. Every failure becomes a result with ``isError`` and a sentence that starts
with ``Error:``; nothing raises into the protocol, and nothing but protocol messages reaches
stdout.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from lessons_mcp import schemas
from lessons_mcp.tools import Answer, Tools

VERSION = "0.1.0"

INSTRUCTIONS = """\
This server remembers mistakes made in earlier coding sessions and how they were fixed.
- Before a risky or unfamiliar command (deleting, force-pushing, migrations, long test runs,
  a tool you have seen fail), call `search` with a few words about what you are about to do.
- Right after a command or tool call fails, call `search` with its output as `error`: a lesson
  may already hold the fix.
- After you fixed a mistake of your own (a failing call and the call that worked), call
  `record` with what went wrong, what worked, the tool and a trigger for when it applies.
- When a lesson from `search` helped, did not apply, or is wrong, say so with `feedback`.
Lessons are advice from the past: check them against what you see now."""


def build_server(tools: Tools | None = None) -> Any:
    """The low-level SDK server with our handlers (imports the SDK: cold path only)."""
    import anyio.to_thread
    import mcp_types as types
    from mcp.server.lowlevel import Server

    impl = tools or Tools()
    handlers = impl.handlers()
    listed = [
        types.Tool(name=name, description=description, input_schema=schema)
        for name, (schema, description) in schemas.TOOLS.items()
    ]

    async def on_list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=listed)

    async def on_call_tool(ctx: Any, params: Any) -> Any:
        try:
            args = schemas.check(params.name, params.arguments)
            answer: Answer = await anyio.to_thread.run_sync(handlers[params.name], args)
        except Exception as exc:
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=f"Error: {_message(exc)}")],
                is_error=True,
            )
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=answer.text)],
            structured_content=answer.data,
        )

    return Server(
        "lessons",
        version=VERSION,
        title="lessons",
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


def _message(exc: BaseException) -> str:
    """What the model is told: our errors as they are, anything else with its type."""
    from lessons_core.api import LessonsError

    if isinstance(exc, schemas.ArgumentError | LessonsError):
        return str(exc)[:2000]
    return f"{type(exc).__name__}: {exc}"[:500]


async def serve() -> None:
    """Serve over stdin/stdout until the host closes the stream."""
    from mcp.server.stdio import stdio_server

    server = build_server()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def main(argv: list[str] | None = None) -> int:
    """``lessons-mcp`` / ``python -m lessons_mcp``: run the server (``--tools``: print the
    tool schemas as JSON and exit)."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--tools"]:
        tools = {
            name: {"description": d, "inputSchema": s} for name, (s, d) in schemas.TOOLS.items()
        }
        print(json.dumps(tools, indent=2))  # noqa: T201
        return 0
    if args:
        print(f"Error: unexpected arguments: {' '.join(args)}", file=sys.stderr)  # noqa: T201
        return 1
    # The SDK logs through the standard library; keep it to warnings, on stderr.
    import logging

    import anyio

    logging.basicConfig(level=os.environ.get("LESSONS_MCP_LOG_LEVEL", "WARNING"), stream=sys.stderr)
    try:
        anyio.run(serve)
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
