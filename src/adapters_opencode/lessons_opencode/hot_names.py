"""OpenCode's native tool names mapped onto canonical (Claude Code) names. Standard library only.

OpenCode names its tools in lower case (``bash``, ``read``, ``edit``…). ``list`` (a directory
listing, in older releases) maps to ``Glob`` as Gemini's does; ``patch`` and ``apply_patch``
change files like an ``Edit``; ``task`` starts a sub-agent, Claude Code's ``Agent``. MCP tools
are ``<server>_<tool>`` and keep their names.
"""

NATIVE_TO_CANONICAL = {
    "bash": "Bash",
    "read": "Read",
    "write": "Write",
    "edit": "Edit",
    "patch": "Edit",
    "apply_patch": "Edit",
    "multiedit": "MultiEdit",
    "glob": "Glob",
    "list": "Glob",
    "grep": "Grep",
    "webfetch": "WebFetch",
    "websearch": "WebSearch",
    "task": "Agent",
    "todowrite": "TodoWrite",
}
