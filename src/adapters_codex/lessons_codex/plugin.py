"""The Codex CLI adapter as a lessons plugin (cold path).

Registers the agent with the core: its hook command, native → canonical tool names, where its
transcripts live and how to read them, and its installer. The modules behind these are imported
lazily so that listing plugins stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from lessons_core.plugin import hookimpl
from lessons_core.specs import AgentSpec

NAME = "codex"


def _transcript_roots(environ: Mapping[str, str]) -> list[Path]:
    from lessons_codex import reader

    return reader.transcript_roots(environ)


def _read(*args: Any, **kwargs: Any) -> Iterator[Any]:
    from lessons_codex import reader

    return reader.read(*args, **kwargs)


def _installer() -> Any:
    from lessons_codex import install

    return install


def agent_spec() -> AgentSpec:
    """The Codex CLI adapter's description (also used directly by its installer)."""
    from lessons_codex import hot_names

    return AgentSpec(
        name=NAME,
        hook_command="lessons-codex-hook",
        hook_module="lessons_codex.hook",
        distribution="lessons-codex",
        tool_names=hot_names.NATIVE_TO_CANONICAL,
        transcript_roots=_transcript_roots,
        reader=_read,
        installer=_installer,
    )


@hookimpl
def lessons_register_agents(register: Callable[[AgentSpec], None]) -> None:
    register(agent_spec())
