"""The sessions :mod:`tests.scan.agent_sessions` writes read back as what was written, in every
agent's format, and sit where the agent's own discovery finds them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tests.scan.agent_sessions import AGENTS, PROJECT, Step, session_events

from lessons_core.plugins.manager import Plugins
from lessons_core.scan import discovery
from lessons_core.scan import events as ev

STEPS: list[Step] = [
    ("user", "set up"),
    ("run", "npm test", "Error: Cannot find module 'x'", 1),
    ("say", "Trying again."),
    ("run", "pnpm test", "5 passed", 0),
    ("user", "thanks"),
]
#: Readers that give a successful command no exit code: Claude's does not read a successful
#: result at all, Copilot's keeps the code its shell tool states only for a failure.
NO_CODE_ON_SUCCESS = frozenset({"claude", "copilot"})


def _gist(event: ev.Event) -> tuple[object, ...]:
    """What an event must keep of its step, whatever agent logged it."""
    if event.kind == ev.TOOL_CALL:
        return (event.kind, event.tool, event.command)
    if event.kind == ev.TOOL_RESULT:
        return (event.kind, event.tool, event.failure)
    return (event.kind, event.text)


@pytest.mark.parametrize("agent", AGENTS)
def test_the_session_reads_back_as_its_steps(tmp_path: Path, agent: str) -> None:
    events = session_events(agent, tmp_path, STEPS)
    assert [_gist(e) for e in events] == [
        (ev.USER_TEXT, "set up"),
        (ev.TOOL_CALL, "Bash", "npm test"),
        (ev.TOOL_RESULT, "Bash", ev.ERROR),
        (ev.ASSISTANT_TEXT, "Trying again."),
        (ev.TOOL_CALL, "Bash", "pnpm test"),
        (ev.TOOL_RESULT, "Bash", None),
        (ev.USER_TEXT, "thanks"),
    ]
    calls = [e for e in events if e.kind == ev.TOOL_CALL]
    failed, worked = (e for e in events if e.kind == ev.TOOL_RESULT)
    ids = [c.call_id for c in calls]
    assert [failed.call_id, worked.call_id] == ids and None not in ids and len(set(ids)) == 2
    assert "Cannot find module" in failed.text
    assert failed.exit_code == 1  # every format records a failed command's exit code
    assert worked.exit_code == (None if agent in NO_CODE_ON_SUCCESS else 0)
    # Every format names the project: a cwd, a session's directory or Gemini's .project_root.
    assert {(e.agent, e.project) for e in events} == {(agent, PROJECT)}
    (session,) = {e.session_id for e in events}
    assert session


@pytest.mark.parametrize("agent", AGENTS)
def test_the_session_is_where_its_agent_keeps_sessions(tmp_path: Path, agent: str) -> None:
    """With ``HOME`` at the folder, a scan finds the file under the agent's transcript roots,
    and the file's own marks tell it as that agent's."""
    (first, *_) = session_events(agent, tmp_path, STEPS)
    agents = Plugins.load().agents()
    found = discovery.discover(agents, {"HOME": str(tmp_path)}, only=agent)
    assert found == [(agent, os.path.realpath(first.file))]
    assert discovery.sniff(Path(first.file), agents) == agent
