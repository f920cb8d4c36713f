"""What the hook would deliver on real work: every tool call of the real corpus, replayed.

A lesson is only worth its bytes when it arrives on a call it is about. This script replays every
tool call of the real transcripts (``../shared/corpus/real``, all three agents) as the hook
payloads the agent would have sent — PreToolUse for Claude Code and Codex, BeforeTool and
AfterTool for Gemini, and the failure event when the call failed — session by session, through
the real hook runner with its own once-per-session dedup, against a catalogue. A Claude Code call
refused by its input checks before it ran (its result wrapped in ``<tool_use_error>``: a file not
read yet, an ``old_string`` not found, input that fails the schema) gets no payload: Claude Code
fires no hook for it (``tests/e2e/test_claude_refusals_e2e.py``); it still counts as a call.

* ``seed`` — the Node original's 143-lesson catalogue (``lessons import`` of its manifest);
* ``scanned`` — what ``lessons scan`` proposes from the learning half of the corpus (below),
  every candidate promoted (what a reviewer who accepts everything would end up with: the
  worst case), for every project: the corpus's folders are not on this machine, and a lesson
  scoped to one would fire nowhere in the replay.

**Learning half, reported half.** The outcome loop learns from the deliveries it judges; a figure
measured on the calls it learned from says how well it fits them, not what it does on work it
has not seen. So the sessions are split by the locked, seeded split of the labelled corpora
(``benchmarks/labels/split.py``: a session is on the test side when the first 8 hex digits of
``sha256("lessons-split-v1:" + session id)`` over ``2**32`` are below 0.45; a transcript
``split.json`` does not list gets the same rule): the dev side is the **learning half**, the test
side the **reported half**. Each round replays the reported half and reports it, then replays the
learning half, lets the outcome loop judge those deliveries (a denial whose call then ran fine
is *needless*; see ``lessons_core.outcomes``) and rebuilds the manifest. Nothing of the learning
half is counted: its replay only feeds the loop, and the scanned catalogue is scanned from it
alone. ``--rounds`` says how many rounds the loop learns (default 3, the figures the README and
``docs/outcomes.md`` quote): round 0 is the catalogue as imported, round N after N rounds.

Per round it prints injections and denials per 100 tool calls, how many came on a call that in
fact failed, denials of calls that went on to succeed, and the distinct lessons that fired.

**Labelled failures** (``benchmarks/labels/real/``, see ``RULES.md``): the failures labelled
reusable, each with the lesson a reviewer would write (mistake, fix, trigger). A delivery
**reaches** a labelled failure when the lesson was delivered on that very call (its trigger
matched the call before it ran, or failure-time recall matched its result) **and** the lesson is
about that failure by the capture evaluation's lesson rule (``capture_eval.says_lesson``): the
lesson's words (summary, trigger patterns, mistake, remediation) share a key word with the
label's trigger and one with its fix, the words of the call's tool names left out. A lesson
that merely rides along with a labelled failure is counted apart, as *any lesson delivered*.

**Went silent**, counted two ways side by side (first round against the last):

* strict — (lesson, labelled failure) pairs the lesson reached in round 0 and no longer reaches
  in the last round;
* lenient — lessons that reached a labelled failure in round 0 and fire nowhere in the last.

    python benchmarks/noise.py [--corpus DIR] [--rounds 3] [--catalogue seed|scanned|both] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from siblings import capture_eval, labels_split

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus" / "real"
SEED = SHARED / "corpus" / "seed-lessons" / "lesson-manifest.json"
LABELS = REPO / "benchmarks" / "labels" / "real"
SPLIT_FILE = REPO / "benchmarks" / "labels" / "split.json"
BIN = Path(sys.executable).parent
#: The sides of the locked split, as this script uses them.
LEARN, REPORT = "learn", "report"
SPLIT_USE = {"dev": LEARN, "test": REPORT}
SPLIT_RULE = (
    "the outcome loop learns on the dev side of the locked split (benchmarks/labels/split.json,"
    ' by session: test when sha256("lessons-split-v1:" + session id)[:8] / 2**32 < 0.45) and'
    " every figure is the test side; nothing of the learning half is counted"
)


class Call:
    """One tool call of a transcript, as the agent's hook would have seen it."""

    __slots__ = (
        "agent",
        "call_id",
        "cwd",
        "end",
        "failed",
        "name",
        "ok",
        "output",
        "raw_output",
        "refused",
        "scripted",
        "session",
        "state",
        "time",
        "tool_input",
    )

    def __init__(
        self,
        agent: str,
        session: str,
        cwd: str,
        call_id: str,
        name: str,
        tool_input: Any,
        end: int | None = None,
    ) -> None:
        #: Byte offset just past the call's line: the transcript as the agent had written it
        #: when the call was made (``None``: a single-document transcript, used whole).
        self.end = end
        self.agent = agent
        self.session = session
        self.cwd = cwd
        self.call_id = call_id
        self.name = name
        self.tool_input = tool_input if isinstance(tool_input, dict) else {}
        self.failed = False  # the agent's mistake: error, validation, timeout
        self.ok = False  # a result arrived and it was a success
        self.output = ""
        #: Claude Code: the call was refused by its input checks before it ran, so no hook
        #: heard of it (see :func:`refused_unheard`).
        self.refused = False
        self.raw_output: Any = None  # Codex: the output as the agent recorded it
        #: OpenCode: the tool part's recorded ``state`` (status, output or error, metadata);
        #: Copilot CLI: the ``tool.execution_complete`` data, with its ``timestamp`` (ms).
        #: What the hook is sent after the call is built from it alone.
        self.state: dict[str, Any] | None = None
        self.time: int | None = None  # Copilot CLI: when the call started (ms)
        self.scripted = False  # Codex: the one call of a code-mode script


# -- reading the corpus -------------------------------------------------------------------------


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    for _end, record in _lines_with_ends(path):
        yield record


def _lines_with_ends(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each JSON record of a JSONL file with the byte offset just past its line."""
    end = 0
    with path.open("rb") as fh:
        for raw in fh:
            end += len(raw)
            with contextlib.suppress(ValueError):
                record = json.loads(raw)
                if isinstance(record, dict):
                    yield end, record


def claude_calls(path: Path) -> list[Call]:
    calls: list[Call] = []
    for end, record in _lines_with_ends(path):
        if record.get("type") != "assistant":
            continue
        content = (record.get("message") or {}).get("content")
        for part in content if isinstance(content, list) else ():
            if isinstance(part, dict) and part.get("type") == "tool_use" and part.get("id"):
                calls.append(
                    Call(
                        "claude",
                        str(record.get("sessionId") or path.stem),
                        str(record.get("cwd") or "/"),
                        part["id"],
                        str(part.get("name")),
                        part.get("input"),
                        end,
                    )
                )
    return calls


def _codex_command(name: str, arguments: Any) -> tuple[str, dict[str, Any]]:
    """Codex's on-disk call → the hook's ``tool_name`` and ``tool_input``."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return ("apply_patch", {"command": arguments}) if name == "apply_patch" else (name, {})
    if not isinstance(arguments, dict):
        return name, {}
    if name in ("shell", "container.exec", "local_shell", "exec_command", "shell_command"):
        command = arguments.get("command", arguments.get("cmd"))
        if isinstance(command, list):
            command = (
                command[-1]
                if command[:2] in (["bash", "-lc"], ["sh", "-c"])
                else " ".join(str(x) for x in command)
            )
        return "Bash", {"command": str(command or "")}
    return name, arguments


def codex_calls(path: Path) -> list[Call]:
    calls: list[Call] = []
    session, cwd = path.stem, "/"
    for end, record in _lines_with_ends(path):
        payload = record.get("payload") if "payload" in record else record
        if not isinstance(payload, dict):
            continue
        kind = record.get("type")
        if kind == "session_meta" or ("instructions" in payload and payload.get("id")):
            session = str(payload.get("id") or session)
            cwd = str(payload.get("cwd") or cwd)
            continue
        if kind == "turn_context":
            cwd = str(payload.get("cwd") or cwd)
            continue
        if payload.get("type") in ("function_call_output", "custom_tool_call_output"):
            for call in reversed(calls[-50:]):
                if call.call_id == payload.get("call_id"):
                    output = payload.get("output")
                    call.raw_output = _script_result(output) if call.scripted else output
                    break
            continue
        scripted = False
        if payload.get("type") == "function_call":
            name, tool_input = _codex_command(str(payload.get("name")), payload.get("arguments"))
        elif payload.get("type") == "custom_tool_call":
            name, tool_input, scripted = _codex_custom(
                str(payload.get("name")), payload.get("input")
            )
        else:
            continue
        if payload.get("call_id"):
            call = Call("codex", session, cwd, payload["call_id"], name, tool_input, end)
            call.scripted = scripted
            calls.append(call)
    return calls


def _codex_custom(name: str, script: Any) -> tuple[str, dict[str, Any], bool]:
    """Codex's custom (freeform) call → the hook's ``tool_name`` and ``tool_input``, and
    whether it is the one call of a code-mode script.

    In code mode the model's one tool, ``exec``, runs a script that calls the real tools, and
    Codex dispatches each of those as it dispatches a direct call, hooks and all: its hooks see
    ``Bash`` and the command, never the script. So a script making exactly one call with a
    literal object (what the transcript reader reads as that call) is replayed as that call; a
    script doing more stays ``exec``. Any other custom tool is ``apply_patch``.
    """
    from lessons_codex.code_mode import SCRIPT_TOOL, script_call

    text = str(script or "")
    if name != SCRIPT_TOOL:
        return "apply_patch", {"command": text}, False
    inner = script_call(text)
    if inner is None:
        return name, {"command": text}, False
    return (*_codex_command(*inner), True)


def _script_result(output: Any) -> Any:
    """A code-mode script's output as its one call's own result: what the script printed of
    it, headed by the exit code (or the running process) as a direct unified-exec call's
    output is (``Process exited with code N``); anything else as it was recorded."""
    from lessons_codex.code_mode import script_output
    from lessons_core.scan.lines import as_text

    found = script_output(as_text(output))
    if found is None:
        return output
    printed, code, process = found
    head = (
        f"Process exited with code {code}"
        if code is not None
        else f"Process running with session ID {process}"
    )
    return f"{head}\nOutput:\n{printed}"


def gemini_calls(path: Path) -> list[Call]:
    if path.suffix == ".json":
        try:
            doc = json.loads(path.read_bytes())
        except ValueError:
            return []
        messages = doc.get("messages") if isinstance(doc, dict) else None
        session = str(doc.get("sessionId") or path.stem) if isinstance(doc, dict) else path.stem
        records = messages if isinstance(messages, list) else []
    else:
        records, session = list(_lines(path)), path.stem
        for record in records:
            if record.get("sessionId"):
                session = str(record["sessionId"])
                break
    seen: dict[str, Call] = {}
    for record in records:
        for tool in record.get("toolCalls") or () if isinstance(record, dict) else ():
            if isinstance(tool, dict) and tool.get("id") and tool["id"] not in seen:
                seen[tool["id"]] = Call(
                    "gemini", session, "/", tool["id"], str(tool.get("name")), tool.get("args")
                )
    return list(seen.values())


READERS = {"claude": claude_calls, "codex": codex_calls, "gemini": gemini_calls}


# -- OpenCode and Copilot CLI: a session as its hooks see it ---------------------------------------
#
# These two agents are replayed by ``value.py`` only. What their hooks are sent is read from the
# transcript whole, in order, as steps: ``("start", parent id)`` where the session block is asked
# for, ``("prompt", text)`` for a typed prompt, ``("call", Call)`` for a tool call.


def _document(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_bytes())
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}


def opencode_steps(path: Path) -> list[tuple[str, Any]]:
    """What OpenCode's plugin (``opencode_plugin.js``) hands the hook for an exported session
    (``opencode export``, the database's messages and parts as they are).

    * ``chat.message`` fires as a user message is created, with its typed text parts (not the
      ``synthetic`` ones OpenCode or a plugin added) joined by a newline; a message without any,
      a compaction's among them, asks nothing;
    * the session block is asked for by the system-prompt transform, which runs before the first
      model request, so after the first user message's ``chat.message``;
    * each tool part is a call, in the order of the parts (``Call.state`` is its recorded state).
    """
    doc = _document(path)
    info = doc.get("info") if isinstance(doc.get("info"), dict) else {}
    assert isinstance(info, dict)
    session = str(info.get("id") or path.stem)
    cwd = str(info.get("directory") or "/")
    parent = str(info.get("parentID") or "")
    messages = doc.get("messages") if isinstance(doc.get("messages"), list) else []
    steps: list[tuple[str, Any]] = []
    started = False
    for message in messages or ():
        meta = message.get("info") if isinstance(message, dict) else None
        parts = message.get("parts") if isinstance(message, dict) else None
        if not isinstance(meta, dict) or not isinstance(parts, list):
            continue
        if meta.get("role") == "user":
            typed = [
                p["text"]
                for p in parts
                if isinstance(p, dict)
                and p.get("type") == "text"
                and not p.get("synthetic")
                and isinstance(p.get("text"), str)
                and p["text"]
            ]
            if typed:
                steps.append(("prompt", "\n".join(typed)))
        if not started:
            started = True
            steps.append(("start", parent))
        for part in parts:
            if not isinstance(part, dict) or part.get("type") != "tool":
                continue
            state = part.get("state")
            if not isinstance(state, dict) or not part.get("callID"):
                continue
            call = Call("opencode", session, cwd, str(part["callID"]), str(part.get("tool")), None)
            arguments = state.get("input")
            call.tool_input = arguments if isinstance(arguments, dict) else {}
            call.state = state
            steps.append(("call", call))
    return steps


def _ms(stamp: Any) -> int | None:
    """An ISO 8601 time of a Copilot CLI event as epoch milliseconds."""
    try:
        moment = datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
    except ValueError:
        return None
    return int(moment.timestamp() * 1000)


def copilot_steps(path: Path) -> list[tuple[str, Any]]:
    """What Copilot CLI hands its hooks for a session log (``events.jsonl``): ``sessionStart``
    at ``session.start``, ``userPromptSubmitted`` for each ``user.message`` (what was typed,
    its ``content``), and each call of ``tool.execution_start``, its result the
    ``tool.execution_complete`` of the same id (``Call.state``)."""
    steps: list[tuple[str, Any]] = []
    calls: dict[str, Call] = {}
    session, cwd = path.stem, "/"
    for record in _lines(path):
        data = record.get("data")
        if not isinstance(data, dict):
            continue
        kind = record.get("type")
        stamp = _ms(record.get("timestamp"))
        if kind in ("session.start", "session.resume"):
            session = str(data.get("sessionId") or session)
            context = data.get("context")
            if isinstance(context, dict) and context.get("cwd"):
                cwd = str(context["cwd"])
            if kind == "session.start":
                steps.append(("start", {"timestamp": stamp}))
        elif kind == "user.message" and isinstance(data.get("content"), str):
            steps.append(("prompt", {"timestamp": stamp, "prompt": data["content"]}))
        elif kind == "tool.execution_start" and data.get("toolCallId"):
            arguments = data.get("arguments")
            if isinstance(arguments, str):
                with contextlib.suppress(ValueError):
                    arguments = json.loads(arguments)
            call = Call(
                "copilot",
                session,
                cwd,
                str(data["toolCallId"]),
                str(data.get("toolName")),
                arguments,
            )
            call.time = stamp
            calls[call.call_id] = call
            steps.append(("call", call))
        elif kind == "tool.execution_complete" and data.get("toolCallId") in calls:
            calls[data["toolCallId"]].state = {**data, "timestamp": stamp}
    # A session started with a prompt names it at its start (``initialPrompt``).
    first = next((value["prompt"] for kind, value in steps if kind == "prompt"), None)
    for kind, value in steps:
        if kind == "start" and first is not None:
            value["initialPrompt"] = first
    return steps


#: The agents replayed from steps (``value.py``): their hooks get no transcript path.
STEPS = {"opencode": opencode_steps, "copilot": copilot_steps}


def corpus_files(corpus: Path) -> list[tuple[str, Path]]:
    out = []
    for agent in READERS:
        root = corpus / agent
        for path in sorted(root.rglob("*")):
            if path.suffix in (".jsonl", ".json") and not path.name.endswith(".meta.json"):
                out.append((agent, path))
    return out


def outcomes_of(agent: str, path: Path, agents: Mapping[str, Any]) -> dict[str, Any]:
    """Call id → the result event the project's own reader made of it."""
    from lessons_core import outcomes
    from lessons_core.scan import events as ev

    return {
        e.call_id: e
        for e in outcomes.read_events(agents, agent, path)
        if e.kind == ev.TOOL_RESULT and e.call_id
    }


def load_corpus(corpus: Path, agents: Mapping[str, Any]) -> list[tuple[Path, list[Call]]]:
    transcripts = []
    for agent, path in corpus_files(corpus):
        calls = READERS[agent](path)
        if not calls:
            continue
        results = outcomes_of(agent, path, agents)
        for call in calls:
            result = results.get(call.call_id)
            if result is not None:
                record_result(call, result)
        transcripts.append((path, calls))
    return transcripts


def record_result(call: Call, result: Any) -> None:
    """What the call's result (the reader's result event) says, kept on the call."""
    call.ok = result.failure is None
    call.failed = bool(result.is_mistake)
    call.output = result.text or ""
    call.refused = refused_unheard(call.agent, result)


#: How Claude Code wraps the result of a call its input checks refused.
TOOL_USE_ERROR = "<tool_use_error>"


def refused_unheard(agent: str, result: Any) -> bool:
    """Whether Claude Code refused the call before running it, where no hook hears of it.

    Claude Code checks a call's input before the call runs: the schema, that the tool exists,
    and the tool's own preconditions (a file read before it is edited and not changed since,
    an ``old_string`` found once). A call refused there comes back wrapped in
    ``<tool_use_error>`` and fires none of ``PreToolUse``, ``PostToolUse`` and
    ``PostToolUseFailure`` (``tests/e2e/test_claude_refusals_e2e.py`` asserts it against the
    pinned release). A call that ran and failed is not wrapped, even when its words are a
    refusal's (a Read of a missing file: "File does not exist."), and its hooks fire. The
    readers sort both into ``VALIDATION``; the wrapper tells them apart. A wrapped result of
    another class (a call cancelled because a sibling failed) is no refusal of its input.
    """
    from lessons_core.scan import events as ev

    text = result.text or ""
    return (
        agent == "claude"
        and result.failure == ev.VALIDATION
        and text.lstrip().startswith(TOOL_USE_ERROR)
    )


# -- payloads -----------------------------------------------------------------------------------


def payloads(call: Call, transcript: Path) -> list[tuple[str, str, dict[str, Any]]]:
    """(phase, event, payload) triples the agent's hook receives for ``call``: before, then
    after. ``event`` is the hook event the payload is sent for (Copilot CLI's payloads do not
    name it: its hook command does, see :func:`adapter`). A Claude Code call refused by its
    input checks gets none: Claude Code fires no hook for it (:func:`refused_unheard`)."""
    if call.agent == "opencode":
        return opencode_payloads(call)
    if call.agent == "copilot":
        return copilot_payloads(call)
    common = {"session_id": call.session, "cwd": call.cwd, "transcript_path": str(transcript)}
    tool = {"tool_name": call.name, "tool_input": call.tool_input, "tool_use_id": call.call_id}
    if call.agent == "claude":
        if call.refused:
            return []  # refused by the input checks: no hook heard of it
        out = [("before", "PreToolUse", {**common, **tool, "hook_event_name": "PreToolUse"})]
        if call.failed:
            error = call.output or "Exit code 1"
            failure = {**common, **tool, "hook_event_name": "PostToolUseFailure", "error": error}
            out.append(("after", "PostToolUseFailure", failure))
        return out
    if call.agent == "codex":
        recorded = call.raw_output if call.raw_output is not None else call.output
        return [
            ("before", "PreToolUse", {**common, **tool, "hook_event_name": "PreToolUse"}),
            (
                "after",
                "PostToolUse",
                {**common, **tool, "hook_event_name": "PostToolUse", "tool_response": recorded},
            ),
        ]
    response: dict[str, Any] = {"llmContent": call.output, "returnDisplay": ""}
    if call.failed:
        response["error"] = {"type": "tool_error", "message": call.output[:2000] or "failed"}
    gemini = {
        "session_id": call.session,
        "cwd": call.cwd,
        "tool_name": call.name,
        "tool_input": call.tool_input,
        "transcript_path": str(transcript),
    }
    return [
        ("before", "BeforeTool", {**gemini, "hook_event_name": "BeforeTool"}),
        (
            "after",
            "AfterTool",
            {**gemini, "hook_event_name": "AfterTool", "tool_response": response},
        ),
    ]


def session_payload(
    agent: str, kind: str, value: Any, session: str, cwd: str, transcript: Path
) -> tuple[str, dict[str, Any]]:
    """(event, payload) of a session's start (``kind`` ``start``) or of a typed prompt
    (``prompt``), as the agent's hook receives them; ``value`` is the step's (see
    :func:`opencode_steps`, :func:`copilot_steps`; the prompt's text for the others)."""
    if agent == "opencode":
        body = {"session_id": session, "cwd": cwd}
        if kind == "start":
            event, extra = "session.start", {"source": "startup", "parent_id": value or ""}
        else:
            event, extra = "chat.message", {"prompt": value}
        return event, {"hook_event_name": event, **body, **extra}
    if agent == "copilot":
        event = "sessionStart" if kind == "start" else "userPromptSubmitted"
        body = {"sessionId": session, "timestamp": value.get("timestamp"), "cwd": cwd}
        if kind == "start":
            extra = {"source": "new"}
            if value.get("initialPrompt") is not None:
                extra["initialPrompt"] = value["initialPrompt"]
        else:
            extra = {"prompt": value["prompt"]}
        return event, {**body, **extra}
    body = {"session_id": session, "cwd": cwd, "transcript_path": str(transcript)}
    if kind == "start":
        return "SessionStart", {**body, "hook_event_name": "SessionStart", "source": "startup"}
    event = "BeforeAgent" if agent == "gemini" else "UserPromptSubmit"
    return event, {**body, "hook_event_name": event, "prompt": value}


@functools.cache
def _plugin_limit() -> int:
    """``MAX_RESULT_CHARS`` of the OpenCode plugin file, read from the file itself: the replay
    cuts a result where the plugin does."""
    from importlib import resources

    text = resources.files("lessons_opencode").joinpath("opencode_plugin.js").read_text()
    found = re.search(r"const MAX_RESULT_CHARS = (\d+);", text)
    if found is None:
        raise SystemExit("opencode_plugin.js names no MAX_RESULT_CHARS: keep the replay in step")
    return int(found.group(1))


def plugin_shorten(value: Any) -> str:
    """The plugin's ``shorten``: a long result or error keeps its start and its end. JavaScript
    counts a string in UTF-16 code units, so the cut is made there (a character outside the
    Basic Multilingual Plane counts two, and may be cut in half, as the plugin would)."""
    if not isinstance(value, str):
        return ""
    limit = _plugin_limit()
    units = value.encode("utf-16-le", "surrogatepass")
    if len(units) <= 2 * limit:
        return value
    half = 2 * (limit // 2)
    head = units[:half].decode("utf-16-le", "surrogatepass")
    tail = units[-half:].decode("utf-16-le", "surrogatepass")
    return head + "\n…\n" + tail


def opencode_payloads(call: Call) -> list[tuple[str, str, dict[str, Any]]]:
    """What the plugin sends for one tool part: ``tool.execute.before``; then, by the part's
    recorded state, ``tool.execute.after`` for a call that returned (its ``output`` and a shell
    call's ``exit``) or ``tool.error`` for one that threw (its ``error``). A call left unfinished
    gets nothing after it: the plugin hears of neither."""
    body = {"session_id": call.session, "cwd": call.cwd}
    tool = {"tool": call.name, "call_id": call.call_id, "args": call.tool_input}
    before: dict[str, Any] = {"hook_event_name": "tool.execute.before", **body, **tool}
    out: list[tuple[str, str, dict[str, Any]]] = [("before", "tool.execute.before", before)]
    state = call.state or {}
    if state.get("status") == "completed":
        metadata = state.get("metadata")
        exit_code = metadata.get("exit") if isinstance(metadata, dict) else None
        exit_code = None if isinstance(exit_code, bool) else exit_code
        after: dict[str, Any] = {
            "hook_event_name": "tool.execute.after",
            **body,
            **tool,
            "output": plugin_shorten(state.get("output")),
            "exit": exit_code if isinstance(exit_code, (int, float)) else None,
        }
        out.append(("after", "tool.execute.after", after))
    elif state.get("status") == "error":
        error: dict[str, Any] = {
            "hook_event_name": "tool.error",
            **body,
            **tool,
            "error": plugin_shorten(state.get("error")),
        }
        out.append(("after", "tool.error", error))
    return out


def copilot_payloads(call: Call) -> list[tuple[str, str, dict[str, Any]]]:
    """What Copilot CLI sends the hooks ``lessons install copilot`` registers (the camelCase
    dialect, which names no event: the command line does): ``preToolUse``; then
    ``postToolUse`` with the result the model read (``textResultForLlm``; a shell command that
    exited non-zero is a success whose text says so) or ``postToolUseFailure`` with the error
    of a call that failed. A call with no result gets nothing after it."""
    body = {"sessionId": call.session, "timestamp": call.time, "cwd": call.cwd}
    tool = {"toolName": call.name, "toolArgs": call.tool_input}
    out: list[tuple[str, str, dict[str, Any]]] = [("before", "preToolUse", {**body, **tool})]
    state = call.state
    if state is None:
        return out
    body = {**body, "timestamp": state.get("timestamp")}
    if state.get("success"):
        result = state.get("result") if isinstance(state.get("result"), dict) else {}
        assert isinstance(result, dict)
        text = result.get("content") if isinstance(result.get("content"), str) else ""
        answer = {"resultType": "success", "textResultForLlm": text}
        out.append(("after", "postToolUse", {**body, **tool, "toolResult": answer}))
    else:
        error = state.get("error")
        message = error.get("message") if isinstance(error, dict) else error
        failure = {**body, **tool, "error": message if isinstance(message, str) else ""}
        out.append(("after", "postToolUseFailure", failure))
    return out


def adapter(agent: str, event: str) -> Any:
    """The hot adapter the agent's hook command hands the runner for ``event``, as
    ``lessons-<agent>-hook`` does (Copilot CLI's binds the event its command line names)."""
    if agent == "copilot":
        from lessons_copilot import hot_copilot

        return hot_copilot.Bound(event)
    return importlib.import_module(f"lessons_{agent}.hot_{agent}")


class Capture:
    """An agent's hot adapter that also keeps the decision the core made."""

    def __init__(self, adapter: Any) -> None:
        self.adapter = adapter
        self.AGENT = getattr(adapter, "AGENT", None)
        self.decision: dict[str, Any] | None = None

    def normalize(self, payload: Any) -> Any:
        return self.adapter.normalize(payload)

    def render(self, event: Any, decision: Any) -> Any:
        self.decision = decision
        return self.adapter.render(event, decision)

    def __getattr__(self, name: str) -> Any:
        """Every other part of the adapter as the adapter has it (the runner looks up optional
        seams, such as how the transcript shows a refused call, by ``getattr``)."""
        return getattr(self.adapter, name)


# -- replaying ----------------------------------------------------------------------------------


class Round:
    """The figures of one replay."""

    def __init__(self) -> None:
        self.calls = 0
        self.failing_calls = 0
        self.injections = 0
        self.injections_on_failures = 0
        self.recall = 0
        self.reinjections = 0
        self.denials = 0
        self.denials_of_working_calls = 0
        self.fired: dict[str, int] = {}
        self.on_failures: set[tuple[str, str]] = set()  # (lesson, call id) pairs
        #: (lesson, labelled call) pairs where the lesson reached the failure: it is about it.
        self.on_labelled: set[tuple[str, str]] = set()
        self.labelled = 0  # labelled reusable failures among the replayed calls
        self.labelled_reached: set[str] = set()  # a delivered lesson was about the failure
        self.labelled_delivered: set[str] = set()  # any lesson was delivered on the failure
        self.per_agent: dict[str, dict[str, int]] = {}

    def as_json(self) -> dict[str, Any]:
        per100 = 100.0 / self.calls if self.calls else 0.0
        return {
            "calls": self.calls,
            "failingCalls": self.failing_calls,
            "injections": self.injections,
            "injectionsPer100": round(self.injections * per100, 2),
            "injectionsOnFailingCalls": self.injections_on_failures,
            "recallInjections": self.recall,
            "directiveReinjections": self.reinjections,
            "denials": self.denials,
            "denialsPer100": round(self.denials * per100, 2),
            "denialsOfCallsThatSucceeded": self.denials_of_working_calls,
            "distinctLessons": len(self.fired),
            "labelledReusableFailures": self.labelled,
            "labelledFailuresReached": len(self.labelled_reached),
            "labelledFailuresWithAnyLesson": len(self.labelled_delivered),
            "perAgent": self.per_agent,
        }


def lesson_words(lesson: Any) -> dict[str, str]:
    """What a stored lesson says, in the fields the lesson rule reads (``says_lesson``)."""
    t = lesson.triggers
    patterns = (*t.command_patterns, *t.path_patterns, *t.content_patterns, *t.path_regexes)
    return {
        "summary": lesson.summary,
        "trigger": " ".join(patterns),
        "mistake": lesson.mistake,
        "fix": lesson.remediation,
    }


def is_about(words: Mapping[str, str] | None, label: Mapping[str, Any], call: Call) -> bool:
    """Whether a lesson (its :func:`lesson_words`) is about a labelled failure: the lesson rule
    of ``capture_eval``, the label's tool and the call's tool name left out of the words."""
    if words is None:
        return False
    tools = f"{label.get('tool') or ''} {call.name}"
    return bool(capture_eval().says_lesson(words, label["lesson"], tools))


def replay(
    transcripts: list[tuple[Path, list[Call]]],
    env: dict[str, str],
    tag: str,
    labels: Mapping[tuple[str, str], Mapping[str, Any]],
    corpus: Path,
    lessons: Mapping[str, Mapping[str, str]],
) -> Round:
    """Replay ``transcripts`` through the hook; ``tag`` names the round (fresh sessions, its own
    copies of the transcripts). ``labels`` are the labelled reusable failures by (transcript,
    call id); ``lessons`` the catalogue's :func:`lesson_words` by id."""
    from lessons_core.hot import manifest as manifest_mod
    from lessons_core.hot import runner

    manifest_mod.clear_cache()
    compiled = manifest_mod.load(environ=env).get("lessons", {})
    scheduled = {
        i for i, entry in compiled.items() if entry.get("type") in ("directive", "protocol")
    }
    figures = Round()
    replayed = {t.relative_to(corpus).as_posix() for t, _ in transcripts}
    figures.labelled = sum(1 for file, _ in labels if file in replayed)
    grown = Path(env["LESSONS_HOME"]).parent / "replayed" / tag
    grown.mkdir(parents=True, exist_ok=True)
    for number, (transcript, calls) in enumerate(transcripts):
        relative = transcript.relative_to(corpus).as_posix()
        # The hooks see the transcript as it stood at each call (it grows as the session goes
        # on: directive re-injection measures that), so it is copied up to each call's line.
        data = transcript.read_bytes()
        copy = grown / f"{number:03d}-{transcript.name}"
        copy.write_bytes(b"")
        written = 0
        for call in calls:
            if call.end is not None and call.end > written:
                with copy.open("ab") as fh:
                    fh.write(data[written : call.end])
                written = call.end
            seen_as = copy if call.end is not None else transcript
            call.session = f"{call.session}~{tag}"  # fresh sessions: dedup starts over
            figures.calls += 1
            figures.failing_calls += call.failed
            agent = figures.per_agent.setdefault(
                call.agent, {"calls": 0, "injections": 0, "denials": 0}
            )
            agent["calls"] += 1
            for phase, event, payload in payloads(call, seen_as):
                capture = Capture(adapter(call.agent, event))
                runner.run(
                    capture,
                    stdin=io.BytesIO(json.dumps(payload).encode()),
                    stdout=io.StringIO(),
                    environ=env,
                )
                decision = capture.decision or {}
                delivered = list(decision.get("delivered") or ())
                if not delivered:
                    continue
                for lesson_id in delivered:
                    figures.fired[lesson_id] = figures.fired.get(lesson_id, 0) + 1
                    if call.failed:
                        figures.on_failures.add((lesson_id, f"{relative}#{call.call_id}"))
                label = labels.get((relative, call.call_id))
                if label is not None:
                    where = f"{relative}#{call.call_id}"
                    figures.labelled_delivered.add(where)
                    about = [i for i in delivered if is_about(lessons.get(i), label, call)]
                    if about:
                        figures.labelled_reached.add(where)
                        figures.on_labelled.update((i, where) for i in about)
                if decision.get("deny") and phase == "before":
                    figures.denials += 1
                    agent["denials"] += 1
                    figures.denials_of_working_calls += call.ok
                    break  # a denied call does not run: nothing comes after it
                if all(lesson_id in scheduled for lesson_id in delivered):
                    # Standing directives again as the transcript grew: scheduled per session,
                    # not set off by the call they ride with.
                    figures.reinjections += 1
                    continue
                figures.injections += 1
                agent["injections"] += 1
                figures.injections_on_failures += call.failed
                figures.recall += phase == "after" and call.failed
            call.session = call.session.rsplit(f"~{tag}", 1)[0]
        with copy.open("ab") as fh:
            fh.write(data[written:])  # whole again: the outcome loop judges against it
    return figures


def learn(env: dict[str, str]) -> dict[str, Any]:
    """Judge the logged deliveries against the transcripts, then rebuild the manifest."""
    from lessons_core import outcomes, services

    with services.session(env) as sess:
        report = outcomes.ingest(
            sess.store,
            sess.home,
            agents=sess.plugins.agents(),
            environ=env,
            now=time.time() + 2 * outcomes.SETTLE_SECONDS,
        )
        sess.rebuild_manifest()
        summary = outcomes.summary(sess.store)
    return {"judged": report.outcomes, "demoted": summary["demoted"], "noisy": summary["noisy"]}


# -- catalogues ---------------------------------------------------------------------------------


def lessons_cli(env: Mapping[str, str], *args: str, stdin: str | None = None) -> str:
    proc = subprocess.run(
        [str(BIN / "lessons"), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=dict(env),
        timeout=900,
        check=False,
    )
    if proc.returncode not in (0, 1):
        raise SystemExit(f"lessons {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def make_home(base: Path, name: str) -> dict[str, str]:
    home = base / name
    (home / "user").mkdir(parents=True)
    state = home / "state"
    state.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LESSONS_", "CLAUDE_"))}
    env.update(
        LESSONS_HOME=str(home / "lessons"), LESSONS_STATE_DIR=str(state), HOME=str(home / "user")
    )
    config = home / "lessons"
    config.mkdir()
    (config / "config.json").write_text(json.dumps({"autoScan": False}))
    return env


def seed_catalogue(base: Path) -> dict[str, str]:
    env = make_home(base, "seed")
    lessons_cli(env, "import", "--partial", str(SEED))  # a few seed patterns are refused
    return env


def scanned_catalogue(base: Path, corpus: Path, learning: Iterable[Path]) -> dict[str, str]:
    """What the scanner proposes from the learning half alone, every candidate promoted: the
    transcripts are copied to their own folder (same relative paths, with Claude's sidecars)."""
    env = make_home(base, "scanned")
    half = base / "learning-half"
    for path in learning:
        rel = path.relative_to(corpus)
        for source in (path, path.with_name(path.name.rsplit(".", 1)[0] + ".meta.json")):
            if source.is_file():
                target = half / rel.parent / source.name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(source.read_bytes())
    half.mkdir(exist_ok=True)
    lessons_cli(env, "scan", str(half))
    out = lessons_cli(env, "candidates", "--json")
    found = [json.loads(line) for line in out.splitlines() if line.strip()]
    ids = [c["id"] for c in found if c.get("status", "pending") == "pending"]
    if ids:
        # Every project: the corpus's folders are not on this machine, and the hook names a
        # project only by a folder it can see, so a lesson scoped to one would never fire here
        # (as ``value.py`` accepts too). On the machine the sessions came from, it would.
        lessons_cli(env, "promote", "--scope", "global", *ids)
    return env


def load_labels(folder: Path = LABELS) -> dict[tuple[str, str], dict[str, Any]]:
    """Every failure labelled reusable in ``folder`` (``benchmarks/labels/real``), by
    (transcript, call id): its record, whose ``lesson`` says what a lesson about it teaches."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for path in sorted(folder.glob("*.jsonl")) if folder.is_dir() else ():
        for record in _lines(path):
            call_id = record.get("call_id")
            if record.get("reusable") and call_id and isinstance(record.get("lesson"), dict):
                out[(str(record.get("file")), str(call_id))] = record
    return out


def sides(corpus: Path, files: Iterable[tuple[str, Path]]) -> dict[str, str]:
    """Transcript (relative to ``corpus``) → :data:`LEARN` or :data:`REPORT`: the dev and test
    sides of the locked split (``split.json``, keyed by the corpus folder's name), and for a
    transcript it does not list, the split's own rule on the session the transcript names."""
    split = labels_split()
    known = split.load(SPLIT_FILE) if SPLIT_FILE.is_file() else {"files": {}, "sessions": {}}
    out = {}
    for agent, path in files:
        rel = path.relative_to(corpus).as_posix()
        session = known["files"].get(f"{corpus.name}/{rel}")
        side = known["sessions"].get(session) if session is not None else None
        if side is None:
            side = split.side(split.session_of(path, agent) or f"{corpus.name}/{rel}")
        out[rel] = SPLIT_USE[side]
    return out


# -- the run ------------------------------------------------------------------------------------


def silenced(first: Round, last: Round) -> dict[str, Any]:
    """What the loop silenced between the first and the last reported round (see the module's
    docs: strict and lenient)."""
    strict = sorted(f"{lesson} @ {where}" for lesson, where in first.on_labelled - last.on_labelled)
    lenient = sorted({lesson for lesson, _ in first.on_labelled} - set(last.fired))
    return {
        "labelledPairsFirst": len(first.on_labelled),
        "silencedStrict": strict,
        "silencedLenient": lenient,
        "silencedLessonsThatFiredOnFailures": sorted(
            {lesson for lesson, _ in first.on_failures} - set(last.fired)
        ),
    }


def clear_state(env: Mapping[str, str]) -> None:
    """Forget the hook's per-session claims and the logged deliveries: each replay starts bare,
    and the loop judges only the replay just before it."""
    state = Path(env["LESSONS_STATE_DIR"])
    for child in state.iterdir():
        if child.is_dir():
            for item in child.iterdir():
                item.unlink()
            child.rmdir()
        else:
            child.unlink()


def unlog(env: Mapping[str, str], size: int | None) -> None:
    """Cut the delivery log back to ``size`` bytes (``None``: there was none): the deliveries of
    a reported replay are never read by the outcome loop, so it cannot learn from them."""
    from lessons_core.hot.deliveries import LOG_NAME

    log = Path(env["LESSONS_HOME"]) / LOG_NAME
    if size is None:
        log.unlink(missing_ok=True)
    elif log.is_file():
        with log.open("r+b") as fh:
            fh.truncate(size)


def logged(env: Mapping[str, str]) -> int | None:
    """The delivery log's size now (``None`` when there is none yet)."""
    from lessons_core.hot.deliveries import LOG_NAME

    log = Path(env["LESSONS_HOME"]) / LOG_NAME
    return log.stat().st_size if log.is_file() else None


def run_catalogue(
    name: str,
    env: dict[str, str],
    corpus: Path,
    rounds: int,
    labels: Mapping[tuple[str, str], Mapping[str, Any]],
    side_of: Mapping[str, str],
) -> dict[str, Any]:
    """Round 0 .. ``rounds`` on the reported half; between two, the loop learns on the other."""
    from lessons_core import services

    with services.session(env) as sess:
        transcripts = load_corpus(corpus, sess.plugins.agents())
        stored = sess.store.list_lessons()
    lessons = {lesson.id: lesson_words(lesson) for lesson in stored}
    halves: dict[str, list[tuple[Path, list[Call]]]] = {LEARN: [], REPORT: []}
    for transcript, calls in transcripts:
        halves[side_of[transcript.relative_to(corpus).as_posix()]].append((transcript, calls))
    reported = {t.relative_to(corpus).as_posix() for t, _ in halves[REPORT]}
    result: dict[str, Any] = {
        "catalogue": name,
        "lessons": len(stored),
        "splitRule": SPLIT_RULE,
        "split": {
            half: {"transcripts": len(ts), "calls": sum(len(c) for _, c in ts)}
            for half, ts in halves.items()
        },
        "rounds": [],
    }
    first: Round | None = None
    last: Round | None = None
    for n in range(rounds + 1):
        clear_state(env)
        size = logged(env)
        figures = replay(halves[REPORT], env, f"report-{n}", labels, corpus, lessons)
        unlog(env, size)
        entry = figures.as_json()
        first = first or figures
        last = figures
        if n < rounds:
            clear_state(env)
            replay(halves[LEARN], env, f"learn-{n}", {}, corpus, lessons)  # counted nowhere
            entry["learned"] = learn(env)
        result["rounds"].append(entry)
    assert first is not None and last is not None
    result.update(silenced(first, last))
    result["reportedTranscripts"] = sorted(reported)
    return result


def print_report(results: list[dict[str, Any]]) -> None:
    print(f"split: {SPLIT_RULE}")
    for res in results:
        learn_half, report_half = res["split"][LEARN], res["split"][REPORT]
        print(
            f"\n== catalogue {res['catalogue']}: {res['lessons']} lessons; reported half"
            f" {report_half['transcripts']} transcripts, {report_half['calls']} calls; learning"
            f" half {learn_half['transcripts']} transcripts, {learn_half['calls']} calls"
        )
        print(
            f"{'round':>5} {'calls':>6} {'inj':>5} {'inj/100':>8} {'on fail':>8} "
            f"{'recall':>6} {'deny':>5} {'deny/100':>8} {'deny ok':>8} {'lessons':>8} "
            f"{'reached':>8} {'any':>4} {'reinject':>8}"
        )
        for n, r in enumerate(res["rounds"]):
            print(
                f"{n:>5} {r['calls']:>6} {r['injections']:>5} {r['injectionsPer100']:>8.2f} "
                f"{r['injectionsOnFailingCalls']:>8} {r['recallInjections']:>6} "
                f"{r['denials']:>5} {r['denialsPer100']:>8.2f} "
                f"{r['denialsOfCallsThatSucceeded']:>8} {r['distinctLessons']:>8} "
                f"{r['labelledFailuresReached']:>3}/{r['labelledReusableFailures']:<4} "
                f"{r['labelledFailuresWithAnyLesson']:>4} {r['directiveReinjections']:>8}"
            )
            learned = r.get("learned")
            if learned:
                print(
                    f"      outcome loop on the learning half: judged {learned['judged']};"
                    f" compiled softer: {learned['demoted'] or 'none'};"
                    f" noisy: {len(learned['noisy'])}"
                )
        strict = res["silencedStrict"]
        lenient = res["silencedLenient"]
        print(
            f"(lesson, labelled failure) pairs reached in round 0: {res['labelledPairsFirst']};"
            f" went silent: strict {len(strict)}, lenient {len(lenient)}"
        )
        for pair in strict:
            print(f"  strict: {pair}")
        for lesson in lenient:
            print(f"  lenient: {lesson}")
        lost = res["silencedLessonsThatFiredOnFailures"]
        print(
            f"lessons that fired on a failing call in round 0 and no longer fire: {len(lost)}"
            + (f" ({', '.join(lost)})" if lost else "")
        )
    print(
        "\ninj = context delivered (hints, failure recall); on fail = of those, on a call that"
        " failed;\ndeny ok = denials of calls that in fact succeeded;\nreached = labelled"
        " reusable failures (benchmarks/labels/real) a delivered lesson was about (delivered on"
        " that call and the capture evaluation's lesson rule holds), of those on the reported"
        " half;\nany = labelled reusable failures some lesson was delivered on, about it or not;"
        "\nreinject = standing directives delivered again as a session's transcript grew (per"
        " session, not per call);\nwent silent, strict = (lesson, labelled failure) pairs"
        " reached in round 0 and not in the last round;\nwent silent, lenient = lessons that"
        " reached a labelled failure in round 0 and fire nowhere in the last round"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds the outcome loop learns (default 3)"
    )
    parser.add_argument("--catalogue", choices=["seed", "scanned", "both"], default="both")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.rounds < 0:
        parser.error(f"--rounds {args.rounds}: give how many rounds the loop learns, 0 or more")
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}: nothing to replay", file=sys.stderr)
        return 0
    labels = load_labels()
    files = corpus_files(args.corpus)
    side_of = sides(args.corpus, files)
    learning = [
        path for _, path in files if side_of[path.relative_to(args.corpus).as_posix()] == LEARN
    ]
    results = []
    with tempfile.TemporaryDirectory(prefix="lessons-noise-") as tmp:
        base = Path(tmp)
        if args.catalogue in ("seed", "both"):
            if SEED.is_file():
                env = seed_catalogue(base)
                results.append(
                    run_catalogue("seed", env, args.corpus, args.rounds, labels, side_of)
                )
            else:
                print(f"no seed catalogue at {SEED}", file=sys.stderr)
        if args.catalogue in ("scanned", "both"):
            env = scanned_catalogue(base, args.corpus, learning)
            results.append(run_catalogue("scanned", env, args.corpus, args.rounds, labels, side_of))
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_report(results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
