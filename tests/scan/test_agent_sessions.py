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
from lessons_core.scan.detectors import failures

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

APP = f"{PROJECT}/src/app.py"
TYPO: list[Step] = [
    ("user", "fix the typo"),
    ("edit", APP, "colour", "color", "not-found"),
    ("read", APP, None),
    ("edit", APP, "colr", "color", None),
]
#: Codex has no read tool: it reads with a shell command, and a command names no paths.
SHELL_READS = frozenset({"codex"})
#: What each reader makes of a read of a file that is not there. Claude Code's "File does not
#: exist." and Copilot's "Path does not exist" are refusals the failure classes know; the
#: others' "File not found: <path>" (and sed's "can't read", exit 2) are not: a plain error.
MISSING_FILE_FAILURE = {
    "claude": ev.VALIDATION,
    "codex": ev.ERROR,
    "gemini": ev.ERROR,
    "qwen": ev.ERROR,
    "copilot": ev.VALIDATION,
    "opencode": ev.ERROR,
    "kilo": ev.ERROR,
}


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


def _calls_and_results(events: list[ev.Event]) -> tuple[list[ev.Event], list[ev.Event]]:
    calls = [e for e in events if e.kind == ev.TOOL_CALL]
    results = [e for e in events if e.kind == ev.TOOL_RESULT]
    assert [r.call_id for r in results] == [c.call_id for c in calls]
    assert [r.tool for r in results] == [c.tool for c in calls]
    return calls, results


@pytest.mark.parametrize("agent", AGENTS)
def test_a_refused_edit_a_read_and_the_edit_that_worked_read_back(
    tmp_path: Path, agent: str
) -> None:
    """Each agent's own edit and read tools, and its own words for an edit whose text is not in
    the file: the refusal is the tool refusing its input, and the classes know its words."""
    calls, results = _calls_and_results(session_events(agent, tmp_path, TYPO))
    shell_read = agent in SHELL_READS
    assert [c.tool for c in calls] == ["Edit", "Bash" if shell_read else "Read", "Edit"]
    assert [c.paths for c in calls] == [(APP,), () if shell_read else (APP,), (APP,)]
    if shell_read:
        assert APP in (calls[1].command or "")
    assert [r.failure for r in results] == [ev.VALIDATION, None, None]
    stale = failures.mistake_class_named(failures.STALE_TEXT)
    assert failures.mistake_class(results[0].text) is stale, results[0].text
    texts = [("colour", "color"), ("colr", "color")]
    assert [calls[0].edit, calls[2].edit] == texts


@pytest.mark.parametrize("agent", AGENTS)
def test_a_read_of_a_missing_file_is_a_mistake_with_a_missing_path(
    tmp_path: Path, agent: str
) -> None:
    missing = f"{PROJECT}/nope.py"
    events = session_events(agent, tmp_path, [("read", missing, "missing")])
    (call,), (result,) = _calls_and_results(events)
    shell_read = agent in SHELL_READS
    assert call.tool == ("Bash" if shell_read else "Read")
    assert call.paths == (() if shell_read else (missing,))
    assert result.failure == MISSING_FILE_FAILURE[agent] and result.is_mistake
    assert result.exit_code == (2 if shell_read else None)
    gone = failures.mistake_class_named(failures.MISSING_PATH)
    assert failures.mistake_class(result.text) is gone, result.text
