"""The tool names a lesson may gate on, and the nearest one to a name that is not among them.

A lesson's ``toolNames`` are canonical (Claude Code's spelling); every adapter maps its agent's
native names onto them (``AgentSpec.tool_names``). A lesson written with ``bash`` (OpenCode's
native name) or ``run_shell_command`` (Gemini's) is stored fine and then never fires, because no
hook ever reports that name. So ``add``, ``edit`` and ``import`` ask this vocabulary, learnt from
every installed adapter through the plugin manager, for a suggestion: a name with one is a
mistake and refused with "did you mean …?"; a name without one may be a plugin's or an MCP
server's tool and only warns.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from lessons_core.plugins.specs import AgentSpec

#: Claude Code's tool names, which every adapter maps its agent's native names onto.
CANONICAL_TOOLS = frozenset(
    {
        "Bash",
        "Read",
        "Edit",
        "MultiEdit",
        "Write",
        "NotebookEdit",
        "Glob",
        "Grep",
        "WebFetch",
        "WebSearch",
        "Agent",
        "Task",
        "TodoWrite",
    }
)
#: How alike (``difflib`` ratio, case folded) a misspelling must be to a known name to be named.
_CLOSE = 0.75


@attrs.frozen
class ToolVocabulary:
    """The canonical names, and each native name an adapter maps onto one."""

    canonical: frozenset[str] = CANONICAL_TOOLS
    native: Mapping[str, str] = attrs.field(factory=dict)

    def knows(self, name: str) -> bool:
        """Whether a hook can report ``name`` (an MCP tool, ``mcp__server__tool``, always can)."""
        return name in self.canonical or (name.startswith("mcp__") and len(name) > len("mcp__"))

    def suggestion(self, name: str) -> str | None:
        """The canonical name ``name`` most likely means, or ``None`` when nothing is close."""
        if self.knows(name):
            return None
        if name in self.native:
            return self.native[name]
        folded = {known.lower(): known for known in self.canonical}
        if name.lower() in folded:
            return folded[name.lower()]
        native = {key.lower(): value for key, value in self.native.items()}
        if name.lower() in native:
            return native[name.lower()]
        close = difflib.get_close_matches(name.lower(), sorted(folded), n=1, cutoff=_CLOSE)
        return folded[close[0]] if close else None


def from_agents(specs: Iterable[AgentSpec]) -> ToolVocabulary:
    """The vocabulary of these adapters: the canonical names plus every one they map onto."""
    canonical = set(CANONICAL_TOOLS)
    native: dict[str, str] = {}
    for spec in specs:
        for name, target in spec.tool_names.items():
            canonical.add(target)
            if name != target:
                native.setdefault(name, target)
    return ToolVocabulary(
        frozenset(canonical), {k: v for k, v in native.items() if k not in canonical}
    )


def installed(environ: Mapping[str, str] | None = None) -> ToolVocabulary:
    """The vocabulary of every installed adapter (the built-in canonical names without any)."""
    from lessons_core import services

    try:
        specs = services.load_plugins(environ).agents().values()
    except Exception:  # a broken plugin must not stop an add; the canonical names still apply
        return ToolVocabulary()
    return from_agents(specs)
