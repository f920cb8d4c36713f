"""The same malformed call, made through every agent CLI, is the same failure to the readers.

Tier 2 pairs a failed call with its fix and words the lesson by the failure's class, which it
reads from the refusal's text: a tool the model made up, a parameter left out, a path that is
not there, a directory read as a file, an edit before the file was read. Each agent CLI words
these refusals its own way and records them its own way, and a release may change either. So
every CLI, driven by a scripted model, makes the same malformed calls, and its own log, read by
its reader, must give each refusal a failure kind and the class the others give it. A refusal
is never taken for the user's words (a declined call), and a call the CLI let through (a
directory listed by a read tool, an edit of a file not read yet) is no failure at all.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from agent_harness import Scratch
from test_capture_e2e import AGENTS, READ_TOOLS, _run_script, _shell

from lessons_core.plugins.manager import Plugins
from lessons_core.scan import events as ev
from lessons_core.scan.detectors import failures
from lessons_core.scan.discovery import discover

pytestmark = pytest.mark.e2e

#: (write tool, its path key, its content key), per agent.
_WRITE = {
    "claude": ("Write", "file_path", "content"),
    "gemini": ("write_file", "file_path", "content"),
    "qwen": ("write_file", "file_path", "content"),
    "opencode": ("write", "filePath", "content"),
    "kilo": ("write", "filePath", "content"),
    "copilot": ("create", "path", "file_text"),
}


def _edit(agent: str, path: str) -> tuple[str, dict[str, Any]]:
    return {
        "claude": ("Edit", {"file_path": path, "old_string": "x", "new_string": "y"}),
        "gemini": ("replace", {"file_path": path, "old_string": "x\n", "new_string": "y\n",
                               "instruction": "change x to y"}),
        "qwen": ("edit", {"file_path": path, "old_string": "x", "new_string": "y"}),
        "opencode": ("edit", {"filePath": path, "oldString": "x", "newString": "y"}),
        "kilo": ("edit", {"filePath": path, "oldString": "x", "newString": "y"}),
        "copilot": ("edit", {"path": path, "old_str": "x", "new_str": "y"}),
    }[agent]  # fmt: skip


#: The shell call of a path that is not there. Qwen Code's shell tool, on a loaded machine,
#: sometimes records a command that exits at once with no output at all ("Output: (empty)",
#: no process group); the command waits a moment after its error, and keeps its exit status.
_MISSING_DIR = {"qwen": "ls /nonexistent-dir; status=$?; sleep 1; (exit $status)"}


#: The calls, by name: each agent's own form of it (``None``: the agent has no such tool).
def _calls(agent: str, project: Path) -> dict[str, tuple[str, dict[str, Any]] | None]:
    read, write = READ_TOOLS.get(agent), _WRITE.get(agent)
    return {
        "missing_dir": _shell(agent, _MISSING_DIR.get(agent, "ls /nonexistent-dir")),
        "unknown_tool": ("NoSuchTool", {"file_path": "notes.txt"}),
        "read_missing": read and (read[0], {read[1]: str(project / "missing.txt")}),
        "read_directory": read and (read[0], {read[1]: str(project / "sub")}),
        "write_without_content": write and (write[0], {write[1]: str(project / "new.txt")}),
        "edit_unread": read and _edit(agent, str(project / "unread.txt")),
    }


#: Where an agent lets a call through that others refuse: (agent, call) -> why.
_LET_THROUGH = {
    ("opencode", "read_directory"): "its read tool lists a directory",
    ("kilo", "read_directory"): "its read tool lists a directory",
    ("copilot", "read_directory"): "its view tool lists a directory",
    **{
        (agent, "edit_unread"): "its edit tool needs no read first"
        for agent in ("gemini", "opencode", "kilo", "copilot")
    },
}

#: The class every agent's refusal of the call must have.
_CLASS = {
    "missing_dir": failures.MISSING_PATH,
    "unknown_tool": failures.UNKNOWN_TOOL,
    "read_missing": failures.MISSING_PATH,
    "read_directory": failures.IS_DIRECTORY,
    "write_without_content": failures.BAD_PARAMETERS,
    "edit_unread": failures.NOT_READ,
}


def _results(scratch: Scratch, agent: str) -> list[tuple[ev.Event, ev.Event]]:
    """(call, result) of every call in the agent's logs, read by its reader."""
    agents = Plugins.load().agents()
    calls: dict[str | None, ev.Event] = {}
    out = []
    for name, path in discover(agents, scratch.env(), only=agent):
        reader = agents[name].reader
        assert reader is not None
        for event in reader(path, progress=ev.Progress()):
            if event.kind == ev.TOOL_CALL:
                calls[event.call_id] = event
            elif event.kind == ev.TOOL_RESULT and event.call_id in calls:
                out.append((calls[event.call_id], event))
    return out


@pytest.mark.parametrize("agent", AGENTS)
def test_each_refusal_has_the_class_every_agent_gives_it(scratch: Scratch, agent: str) -> None:
    project = scratch.project
    (project / "sub").mkdir()
    (project / "unread.txt").write_text("x\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    made = {name: call for name, call in _calls(agent, project).items() if call is not None}
    _run_script(agent, scratch, list(made.values()))

    results = _results(scratch, agent)
    assert len(results) == len(made), [(c.tool, r.text[:80]) for c, r in results]
    for (name, _), (call, result) in zip(made.items(), results, strict=True):
        said = f"{agent} {name}: {call.tool} -> {result.failure} {result.text[:200]!r}"
        assert result.failure != ev.REJECTED, said
        if (agent, name) in _LET_THROUGH:
            assert result.failure is None, said
            continue
        assert result.failure is not None, said
        found = failures.mistake_class(result.text)
        assert found is failures.mistake_class_named(_CLASS[name]), said
