"""Gemini CLI's native tool names mapped onto canonical (Claude Code) names. Standard library only.

``list_directory`` maps to ``Glob``: Claude Code, whose names are canonical, has no directory
listing tool of its own any more, and a lesson about looking around a folder is written against
``Glob`` there. ``search_file_content`` is the name ``grep_search`` had before 2026 and still
shows up in older transcripts. MCP tools (``mcp_<server>_<tool>``) are mapped by
:func:`lessons_gemini.hot_gemini.canonical_tool`, not by this table.
"""

NATIVE_TO_CANONICAL = {
    "run_shell_command": "Bash",
    "read_file": "Read",
    "read_many_files": "Read",
    "write_file": "Write",
    "replace": "Edit",
    "glob": "Glob",
    "grep_search": "Grep",
    "search_file_content": "Grep",
    "list_directory": "Glob",
    "web_fetch": "WebFetch",
    "google_web_search": "WebSearch",
}

#: How Gemini CLI's shell tool answers a command holding command substitution (``$(…)``,
#: backticks, ``<(…)``): it refuses to run it, and logs the call as a success whose output is
#: this refusal. The reader and the hook take such a result for a failed call.
BLOCKED_PREFIX = "Command injection detected:"
