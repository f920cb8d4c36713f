"""Qwen Code's native tool names mapped onto canonical (Claude Code) names. Standard library only.

The names are those Qwen Code 0.24 registers (its ``ToolNames`` table) and sends in every hook
payload and transcript record. ``list_directory`` maps to ``Glob`` as Gemini CLI's does: Claude
Code has no directory listing tool, and a lesson about looking around a folder is written
against ``Glob``. MCP tools are already named ``mcp__<server>__<tool>``, the canonical form, so
they are not listed.
"""

NATIVE_TO_CANONICAL = {
    "run_shell_command": "Bash",
    "read_file": "Read",
    "edit": "Edit",
    "write_file": "Write",
    "notebook_edit": "NotebookEdit",
    "glob": "Glob",
    "grep_search": "Grep",
    "list_directory": "Glob",
    "web_fetch": "WebFetch",
    "web_search": "WebSearch",
    "agent": "Agent",
    "todo_write": "TodoWrite",
}
