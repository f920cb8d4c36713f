"""Codex CLI's native tool names mapped onto canonical (Claude Code) names. Standard library only.

Codex already reports every shell path (``shell``, ``shell_command``, ``local_shell``, unified
``exec_command``) to hooks as ``Bash``; the older names still appear in transcripts, so the
scanner needs them too. ``apply_patch`` maps to ``Edit`` here because a patch usually updates
files; the hook refines that per call (a patch that only adds files is a ``Write``, see
:mod:`lessons_codex.hot_codex`). MCP tools arrive already canonical (``mcp__server__tool``).
"""

NATIVE_TO_CANONICAL = {
    "Bash": "Bash",
    "shell": "Bash",
    "shell_command": "Bash",
    "local_shell": "Bash",
    "container.exec": "Bash",
    "exec_command": "Bash",
    "apply_patch": "Edit",
    "spawn_agent": "Agent",
}

#: Tool names whose input is a shell command string.
SHELL_TOOLS = frozenset(("Bash", "shell", "shell_command", "local_shell", "exec_command"))
