"""The Qwen Code adapter as a lessons plugin (cold path).

Registers the agent with the core: its hook command, native → canonical tool names, where its
transcripts live and how to read them, and its installer. The spec is the one every adapter
package of the standard layout gets (see :mod:`lessons_core.plugins.adapters`); its reader and
installer are imported lazily so that listing plugins stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from lessons_core.api import AgentSpec, agent_spec_for, hookimpl

NAME = "qwen"

if TYPE_CHECKING:  # both sides of the seam, checked and never run
    from lessons_core.api import HotAdapter, Installer, TranscriptReader, TranscriptRoots
    from lessons_qwen import hot_qwen, install, reader, roots

    _HOT: HotAdapter = hot_qwen
    # The reader and installer the spec reaches lazily, checked against what it promises.
    _READ: TranscriptReader = reader.read
    _INSTALLER: Installer = install
    _ROOTS: TranscriptRoots = roots.transcript_roots


def agent_spec() -> AgentSpec:
    """The Qwen Code adapter's description (also used directly by its installer).

    Every Qwen Code record carries its session id and working directory, so the reader can
    start at any line: a large transcript may be read in pieces (``ranges``).
    """
    return agent_spec_for(
        NAME, "lessons_qwen", ranges=True, label="Qwen Code", hook_packages=("lessons_claude",)
    )


@hookimpl
def lessons_register_agents(register: Callable[[AgentSpec], None]) -> None:
    register(agent_spec())
