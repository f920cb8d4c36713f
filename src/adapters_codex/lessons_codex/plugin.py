"""The Codex CLI adapter as a lessons plugin (cold path).

Registers the agent with the core: its hook command, native → canonical tool names, where its
transcripts live and how to read them, and its installer. The spec is the one every adapter
package of the standard layout gets (see :mod:`lessons_core.adapters`); its reader and
installer are imported lazily so that listing plugins stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from lessons_core.api import AgentSpec, agent_spec_for, hookimpl

NAME = "codex"

if TYPE_CHECKING:  # the hook process's side of the seam, checked and never run
    from lessons_codex import hot_codex
    from lessons_core.api import HotAdapter

    _HOT: HotAdapter = hot_codex


def agent_spec() -> AgentSpec:
    """The Codex CLI adapter's description (also used directly by its installer)."""
    return agent_spec_for(NAME, "lessons_codex", label="Codex CLI")


@hookimpl
def lessons_register_agents(register: Callable[[AgentSpec], None]) -> None:
    register(agent_spec())
