"""The OpenCode adapter as a lessons plugin (cold path).

Registers the agent with the core: its hook command, native → canonical tool names, where its
sessions live and how to read them, and its installer. The spec is the one every adapter package
of the standard layout gets (see :mod:`lessons_core.adapters`), with one difference: OpenCode
keeps its sessions in a SQLite database, so the scanner looks for ``.db`` files under its roots.
"""

from __future__ import annotations

from collections.abc import Callable

from lessons_core.adapters import agent_spec_for
from lessons_core.plugin import hookimpl
from lessons_core.specs import AgentSpec

NAME = "opencode"


def agent_spec() -> AgentSpec:
    """The OpenCode adapter's description (also used directly by its installer)."""
    return agent_spec_for(NAME, "lessons_opencode", transcript_suffixes=(".db",))


@hookimpl
def lessons_register_agents(register: Callable[[AgentSpec], None]) -> None:
    register(agent_spec())
