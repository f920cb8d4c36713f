"""GitHub Copilot CLI's native tool names mapped onto canonical (Claude Code) names. Standard
library only.

The names are those Copilot CLI 1.0 offers the model and sends in its hook payloads and
session events: ``bash`` (``powershell`` on Windows) runs a command, ``view`` reads a file or
lists a folder, ``create`` writes a new file, ``edit`` (``str_replace`` in older sessions)
replaces a string, ``apply_patch`` applies a patch, ``glob``/``grep``/``rg`` search, ``task``
starts a sub-agent. The ``*_bash`` tools (``read_bash``, ``write_bash``, ``stop_bash``,
``list_bash``) talk to a shell started earlier; they keep their own names, as do Copilot's
session tools (``sql``, ``skill``…), so a lesson about them names them as they are.

Copilot's Claude-compatible payloads (``PreToolUse``…, see :mod:`lessons_copilot.hot_copilot`)
already carry canonical names (``Bash``, ``Read``…); those pass through unchanged.
"""

NATIVE_TO_CANONICAL = {
    "bash": "Bash",
    "powershell": "Bash",
    "view": "Read",
    "create": "Write",
    "edit": "Edit",
    "str_replace": "Edit",
    "apply_patch": "Edit",
    "glob": "Glob",
    "grep": "Grep",
    "rg": "Grep",
    "web_fetch": "WebFetch",
    "web_search": "WebSearch",
    "task": "Agent",
}
