"""The Kilo CLI adapter as a lessons plugin (cold path).

Registers the agent with the core: its hook command, native → canonical tool names, where its
sessions live and how to read them, and its installer. The spec is the one every adapter package
of the standard layout gets (see :mod:`lessons_core.plugins.adapters`); what tells Kilo's session
database from other files is in :mod:`lessons_kilo.roots`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from lessons_core.api import AgentSpec, agent_spec_for, hookimpl

NAME = "kilo"

if TYPE_CHECKING:  # both sides of the seam, checked and never run
    from lessons_core.api import HotAdapter, Installer, TranscriptReader, TranscriptRoots
    from lessons_kilo import hot_kilo, install, reader, roots

    _HOT: HotAdapter = hot_kilo
    # The reader and installer the spec reaches lazily, checked against what it promises.
    _READ: TranscriptReader = reader.read
    _INSTALLER: Installer = install
    _ROOTS: TranscriptRoots = roots.transcript_roots


def agent_spec() -> AgentSpec:
    """The Kilo CLI adapter's description (also used directly by its installer)."""
    return agent_spec_for(
        NAME, "lessons_kilo", label="Kilo CLI", hook_packages=("lessons_opencode",)
    )


@hookimpl
def lessons_register_agents(register: Callable[[AgentSpec], None]) -> None:
    register(agent_spec())
