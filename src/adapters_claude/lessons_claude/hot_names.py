"""Claude Code's native tool names mapped onto canonical (Claude Code) names. Standard library only."""

NATIVE_TO_CANONICAL = {}
