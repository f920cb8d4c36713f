"""Which tool hooks the real Claude Code fires for a call it refuses before running it.

Claude Code checks a call's input before it runs the call: the input must fit the tool's schema,
the tool must exist, and each tool checks its own preconditions (an Edit or a Write of a file not
read yet or changed since it was read, an Edit whose ``old_string`` is not in the file or is
there more than once, a Write whose path runs through a file). A call refused there comes back
to the model as a result wrapped in ``<tool_use_error>`` and fires none of ``PreToolUse``,
``PostToolUse`` and ``PostToolUseFailure``: no hook hears of it. A Read of a missing file, of a
directory or of a file over the Read's size limit is no such refusal: it runs and fails, as a
command exiting 1 or a Write the write itself refuses do, and fires ``PreToolUse`` then
``PostToolUseFailure`` (whose ``error`` is the result's text, unwrapped). A call that works
fires ``PreToolUse`` then ``PostToolUse``.

One session makes every call of :data:`MATRIX` in turn (the scripted model answers the n-th main
request with the n-th call); a recorder registered for the three events and every tool writes
down each payload it is sent. The matrix is asserted whole, so a Claude Code release that changes
it fails here, and the replay of ``benchmarks/noise.py`` (which sends no hook for a result
wrapped in ``<tool_use_error>``) must follow it.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from agent_harness import Scratch, make_scratch
from fake_anthropic import ScriptedCalls, result_text
from test_claude_e2e import run_claude, tool_results

from lessons_claude.failures import classify_claude
from lessons_core.api import events as ev

pytestmark = pytest.mark.e2e

EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")
PRE, POST, FAIL = EVENTS

#: The recorder: appends the payload it reads on stdin as one line of the log named by argv[1].
RECORDER = (
    "import json, sys\n"
    "payload = json.load(sys.stdin)\n"
    "with open(sys.argv[1], 'a', encoding='utf-8') as log:\n"
    "    log.write(json.dumps(payload) + '\\n')\n"
)


NONE: tuple[str, ...] = ()
RAN = (PRE, POST)
FAILED = (PRE, FAIL)


def edit(path: str, old: str, new: str = "x") -> dict[str, Any]:
    return {"file_path": path, "old_string": old, "new_string": new}


def bash(command: str) -> dict[str, Any]:
    return {"command": command, "description": "scripted"}


#: (call id, tool, input, hooks fired for it): input paths are relative to the project (made
#: absolute when scripted); the calls are made in this order, so "not read yet" comes first.
MATRIX: list[tuple[str, str, dict[str, Any], tuple[str, ...]]] = [
    ("edit_unread", "Edit", edit("unread.txt", "x"), NONE),
    ("write_unread", "Write", {"file_path": "unread.txt", "content": "overwritten\n"}, NONE),
    ("read_ok", "Read", {"file_path": "notes.txt"}, RAN),
    ("edit_not_found", "Edit", edit("notes.txt", "gamma"), NONE),
    ("edit_two_matches", "Edit", edit("notes.txt", "beta"), NONE),
    ("edit_schema", "Edit", {"file_path": "notes.txt", "old_string": "alpha"}, NONE),
    ("read_schema", "Read", {"file_path": "notes.txt", "limit": "many"}, NONE),
    ("unknown_tool", "NoSuchTool", {"file_path": "notes.txt"}, NONE),
    ("write_under_a_file", "Write", {"file_path": "blocker/new.txt", "content": "x"}, NONE),
    ("read_missing", "Read", {"file_path": "missing.txt"}, FAILED),
    ("read_directory", "Read", {"file_path": "subdir"}, FAILED),
    ("read_too_large", "Read", {"file_path": "big.log"}, FAILED),
    ("bash_exit_1", "Bash", bash("exit 1"), FAILED),
    ("write_symlink", "Write", {"file_path": "dangling.txt", "content": "x"}, FAILED),
    # the file changes on disk after it was read (a second later: the check compares times)
    ("bash_append", "Bash", bash("sleep 1; echo more >> notes.txt"), RAN),
    ("edit_stale", "Edit", edit("notes.txt", "alpha"), NONE),
    ("read_again", "Read", {"file_path": "notes.txt"}, RAN),
    ("edit_ok", "Edit", edit("notes.txt", "alpha"), RAN),
]


def make_project(project: Path) -> None:
    """The files the calls work on: two lines alike, a file never read, a directory, a file
    too large to read whole, a file standing where a Write wants a directory, and a symlink
    into a directory that is not there (a Write the input checks let through and the write
    itself then refuses: the test runs as any user, root included, for whom a read-only
    directory is no obstacle)."""
    (project / "notes.txt").write_text("alpha\nbeta\nbeta\n", encoding="utf-8")
    (project / "unread.txt").write_text("x\n", encoding="utf-8")
    (project / "subdir").mkdir()
    (project / "big.log").write_text("a line of the build log\n" * 20000)  # 480 KB
    (project / "blocker").write_text("a file where the Write wants a directory\n")
    (project / "dangling.txt").symlink_to(project / "gone" / "target.txt")


def scripted(project: Path) -> list[tuple[str, str, dict[str, Any]]]:
    """(call id, tool, input) of each call, its paths made absolute as the model passes them."""
    out = []
    for call_id, tool, tool_input, _ in MATRIX:
        absolute = {**tool_input}
        if "file_path" in absolute:
            absolute["file_path"] = str(project / absolute["file_path"])
        out.append((f"toolu_{call_id}", tool, absolute))
    return out


def register_recorder(scratch: Scratch) -> Path:
    """Settings whose only hooks are the recorder, for the three events and every tool."""
    script = scratch.root / "recorder.py"
    script.write_text(RECORDER, encoding="utf-8")
    log = scratch.root / "hooks.jsonl"
    command = shlex.join([sys.executable, str(script), str(log)])
    hooks = {
        event: [{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]
        for event in EVENTS
    }
    settings = scratch.home / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
    return log


def received(log: Path) -> dict[str, list[dict[str, Any]]]:
    """Call id -> the payloads the recorder was sent for it, in order."""
    by_call: dict[str, list[dict[str, Any]]] = {}
    for line in log.read_text(encoding="utf-8").splitlines() if log.exists() else ():
        payload = json.loads(line)
        by_call.setdefault(str(payload.get("tool_use_id")), []).append(payload)
    return by_call


#: (call id -> its tool_result block, call id -> the payloads the hooks received for it)
Session = tuple[dict[str, dict[str, Any]], dict[str, list[dict[str, Any]]]]


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Session:
    """One session making every call of :data:`MATRIX`: (call id -> its tool_result block,
    call id -> the payloads the hooks received)."""
    scratch = make_scratch(tmp_path_factory.mktemp("refusals"))
    log = register_recorder(scratch)
    make_project(scratch.project)
    script = scripted(scratch.project)
    with ScriptedCalls(script) as server:
        run_claude(scratch, server, extra=("--allowedTools", "Edit,Write,Read"))
    results = {
        str(block.get("tool_use_id")): block
        for block, _ in tool_results(server.main_requests()[-1])
    }
    assert len(results) == len(MATRIX), sorted(results)
    return results, received(log)


@pytest.mark.parametrize(("call_id", "expected"), [(row[0], row[3]) for row in MATRIX])
def test_hooks_fired_for_the_call(
    session: Session, call_id: str, expected: tuple[str, ...]
) -> None:
    """The matrix itself: which of the three events Claude Code fired for the call."""
    results, hooks = session
    result = results[f"toolu_{call_id}"]
    fired = tuple(p["hook_event_name"] for p in hooks.get(f"toolu_{call_id}", []))
    assert fired == expected, result_text(result)[:300]


@pytest.mark.parametrize(("call_id", "expected"), [(row[0], row[3]) for row in MATRIX])
def test_a_refusal_is_wrapped_and_only_a_refusal(
    session: Session, call_id: str, expected: tuple[str, ...]
) -> None:
    """The result of a call no hook heard of is a ``<tool_use_error>``, and only such a call's
    is: the wrapper is what tells a refusal apart in a recorded transcript."""
    results, _ = session
    text = result_text(results[f"toolu_{call_id}"])
    assert text.startswith("<tool_use_error>") == (expected == NONE), text[:300]
    assert bool(results[f"toolu_{call_id}"].get("is_error")) is (expected != RAN)


@pytest.mark.parametrize("call_id", [row[0] for row in MATRIX if row[3] == FAILED])
def test_the_failure_hook_gets_the_text_the_model_reads(session: Session, call_id: str) -> None:
    """A call that ran and failed: ``PostToolUseFailure``'s ``error`` is the result's text."""
    results, hooks = session
    (_, failure) = hooks[f"toolu_{call_id}"]
    assert failure["error"] == result_text(results[f"toolu_{call_id}"])


@pytest.mark.parametrize("call_id", [row[0] for row in MATRIX if row[3] == NONE])
def test_the_reader_calls_a_refusal_a_validation_failure(session: Session, call_id: str) -> None:
    """What a replay keys on: our reader sorts each refusal's text into ``VALIDATION``."""
    results, _ = session
    kind, _ = classify_claude(result_text(results[f"toolu_{call_id}"]))
    assert kind == ev.VALIDATION


@pytest.mark.parametrize("call_id", [row[0] for row in MATRIX if row[3] == FAILED])
def test_the_reader_never_takes_a_failure_for_the_users_words(
    session: Session, call_id: str
) -> None:
    """A short, calm line was once the user's feedback on a declined call; a call that ran
    and failed is never that, however calm its words (the Read over the size limit's)."""
    results, _ = session
    kind, _ = classify_claude(result_text(results[f"toolu_{call_id}"]))
    assert kind not in (ev.REJECTED, None), result_text(results[f"toolu_{call_id}"])
