"""Kilo CLI's native tool names mapped onto canonical (Claude Code) names. Standard library only.

Kilo CLI keeps OpenCode's tools and their lower-case names (``bash``, ``read``, ``edit``…), read
from the tools its 7.7 release declares to the model; ``apply_patch`` (offered to some models in
place of ``edit``/``write``) changes files like an ``Edit``, ``task`` starts a sub-agent, Claude
Code's ``Agent``. Its own tools (``background_process``, ``board_post``, ``schedule_wakeup``…)
have no canonical counterpart and keep their names, as MCP tools (``<server>_<tool>``) do.
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
