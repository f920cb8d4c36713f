"""The OpenCode adapter as a lessons plugin (cold path).

Registers the agent with the core: its hook command, native → canonical tool names, where its
sessions live and how to read them, and its installer. The spec is the one every adapter package
of the standard layout gets (see :mod:`lessons_core.plugins.adapters`); what tells OpenCode's
session database from other files is in :mod:`lessons_opencode.roots`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from lessons_core.api import AgentSpec, agent_spec_for, hookimpl

NAME = "opencode"

if TYPE_CHECKING:  # both sides of the seam, checked and never run
    from lessons_core.api import HotAdapter, Installer, TranscriptReader, TranscriptRoots
    from lessons_opencode import hot_opencode, install, reader, roots

    _HOT: HotAdapter = hot_opencode
    # The reader and installer the spec reaches lazily, checked against what it promises.
    _READ: TranscriptReader = reader.read
    _INSTALLER: Installer = install
    _ROOTS: TranscriptRoots = roots.transcript_roots


def agent_spec() -> AgentSpec:
    """The OpenCode adapter's description (also used directly by its installer)."""
    return agent_spec_for(NAME, "lessons_opencode", label="OpenCode")


@hookimpl
def lessons_register_agents(register: Callable[[AgentSpec], None]) -> None:
    register(agent_spec())
