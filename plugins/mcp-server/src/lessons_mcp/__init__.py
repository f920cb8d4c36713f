"""lessons-mcp: an MCP server (stdio) over the lessons store.

:mod:`lessons_mcp.server` runs it, :mod:`lessons_mcp.tools` holds what each tool does,
:mod:`lessons_mcp.schemas` the tools' input schemas, :mod:`lessons_mcp.register` the entries it
writes into the agents' MCP configuration (``lessons install AGENT --mcp``);
:mod:`lessons_mcp.plugin` adds ``lessons mcp`` (:mod:`lessons_mcp.cli`) and that install step to
the ``lessons`` command line.
"""

__version__ = "0.1.0"
