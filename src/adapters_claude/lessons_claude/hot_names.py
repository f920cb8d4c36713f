"""Claude Code's native tool names mapped onto canonical names. Standard library only.

Canonical names are Claude Code's current ones, so almost every name maps to itself and only
renamed or platform variants are listed: ``Task`` became ``Agent`` in 2.1.63 (old sessions and
SDK lists still say ``Task``) and ``PowerShell`` takes the same input as ``Bash`` on Windows.
``MultiEdit`` and ``NotebookEdit`` keep their own names: a lesson can name them, and their
paths and new text are extracted like an ``Edit``'s.
"""

NATIVE_TO_CANONICAL = {
    "Task": "Agent",
    "PowerShell": "Bash",
}
