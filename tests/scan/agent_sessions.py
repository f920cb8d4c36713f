"""One short session written as each supported agent stores it, read back by that agent's reader.

A lesson should not depend on which agent made the mistake: the same failed command, the same
fix and the same words from the user ought to give the same events, whoever logged them. To
check that, a test needs the *same* session in seven on-disk formats. This module writes it:
each writer copies its agent's layout, file name and record shapes (the hand-made fixtures
under ``tests/fixtures/transcripts`` and the adapters' tests show them), and the events come
from the adapter's real reader, never from a shortcut, so whatever a reader drops or
misreads shows up in the test that uses them.

``folder`` stands for the user's home directory: every agent's files land where its
``transcript_roots`` look with ``HOME`` pointing there (``.claude/projects``,
``.codex/sessions``, ``.gemini/tmp``, ``.qwen/projects``, ``.copilot/session-state``,
``.local/share/opencode`` and ``.local/share/kilo``), so one folder can hold every agent's
session, but only one session per agent.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import re
import sqlite3
from collections.abc import Callable, Sequence
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from lessons_core.scan import events as ev

AGENTS: tuple[str, ...] = ("claude", "codex", "gemini", "qwen", "copilot", "opencode", "kilo")

#: The project every session works in (its cwd, or its directory).
PROJECT = "/w/app"

Step = (
    tuple[Literal["user"], str]  # a message the user typed
    | tuple[Literal["say"], str]  # the assistant's prose
    | tuple[Literal["run"], str, str, int]  # a shell command, what it printed, its exit code
)

#: Session ids in each agent's own shape.
_UUID = "6f1c2e3a-4b5d-4e6f-8a9b-0c1d2e3f4a5b"
_OPENCODE_SESSION = "ses_2f0a1b2c3ffeQ7kLmNoPqRsTuV"
#: When the session starts; step ``n`` happens ``n`` seconds later.
_START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def session_events(agent: str, folder: Path, steps: Sequence[Step]) -> list[ev.Event]:
    """Write ``steps`` as one session of ``agent`` under ``folder`` (in the layout and file name
    the agent uses), read it back with the agent's reader, return the events."""
    if agent not in _WRITERS:
        raise ValueError(f"unknown agent {agent!r}: one of {', '.join(AGENTS)}")
    path = _WRITERS[agent](folder, steps)
    reader = importlib.import_module(f"lessons_{agent}.reader")
    return list(reader.read(path, 0, progress=ev.Progress()))


# -- shared bits ---------------------------------------------------------------------------------


def _when(n: int) -> datetime:
    return _START + timedelta(seconds=n)


def _iso(n: int) -> str:
    """Step ``n``'s time as the JSON logs write it (milliseconds, ``Z``)."""
    return _when(n).strftime("%Y-%m-%dT%H:%M:%S.") + f"{_when(n).microsecond // 1000:03d}Z"


def _ms(n: int) -> int:
    """Step ``n``'s time as the SQLite databases keep it (milliseconds since the epoch)."""
    return int(_when(n).timestamp() * 1000)


def _dashed(path: str) -> str:
    """A folder's name for a project, as Claude Code and Qwen Code make it: every character
    but a letter or a digit becomes ``-``."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def _new_file(path: Path) -> Path:
    """``path``, its folders made; an existing session there would be read with this one."""
    if path.exists():
        raise FileExistsError(f"a session is already there: {path}")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _write_jsonl(path: Path, records: Sequence[dict[str, Any]]) -> Path:
    # Compact separators, as the agents write: some readers look for ``"type":"user"`` as bytes.
    lines = (json.dumps(r, separators=(",", ":"), ensure_ascii=False) + "\n" for r in records)
    _new_file(path).write_text("".join(lines), encoding="utf-8")
    return path


# -- Claude Code ---------------------------------------------------------------------------------


def _claude(folder: Path, steps: Sequence[Step]) -> Path:
    """``~/.claude/projects/<dashed cwd>/<session id>.jsonl``: one record per line, a call in an
    ``assistant`` record, its result in the next ``user`` one (``is_error`` when it failed,
    the text opening with ``Exit code N``)."""
    records: list[dict[str, Any]] = []

    def add(kind: str, message: dict[str, Any], **extra: Any) -> None:
        n = len(records)
        records.append(
            {
                "parentUuid": records[-1]["uuid"] if records else None,
                "isSidechain": False,
                "userType": "external",
                "cwd": PROJECT,
                "sessionId": _UUID,
                "version": "2.1.33",
                "gitBranch": "main",
                "type": kind,
                "message": message,
                "uuid": f"9d0e1f2a-0000-4000-8000-{n + 1:012d}",
                "timestamp": _iso(n),
                **extra,
            }
        )

    def said(content: list[dict[str, Any]]) -> dict[str, Any]:
        msg_id = f"msg_01{len(records):04d}"
        return {"id": msg_id, "type": "message", "role": "assistant", "content": content}

    calls = 0
    for step in steps:
        match step:
            case ("user", text):
                add("user", {"role": "user", "content": text})
            case ("say", text):
                add("assistant", said([{"type": "text", "text": text}]))
            case ("run", command, output, code):
                calls += 1
                call_id = f"toolu_01{calls:04d}"
                use = {"command": command, "description": "Run the command"}
                add(
                    "assistant",
                    said([{"type": "tool_use", "id": call_id, "name": "Bash", "input": use}]),
                )
                result: dict[str, Any] = {"tool_use_id": call_id, "type": "tool_result"}
                if code:
                    result |= {"content": f"Exit code {code}\n{output}", "is_error": True}
                    account: Any = f"Error: Exit code {code}\n{output}"
                else:
                    result["content"] = output
                    account = {"stdout": output, "stderr": "", "interrupted": False}
                add("user", {"role": "user", "content": [result]}, toolUseResult=account)
    path = folder / ".claude" / "projects" / _dashed(PROJECT) / f"{_UUID}.jsonl"
    return _write_jsonl(path, records)


# -- Codex CLI -----------------------------------------------------------------------------------


def _codex(folder: Path, steps: Sequence[Step]) -> Path:
    """``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl``: ``{timestamp, type,
    payload}`` lines; a unified-exec ``exec_command`` call and its ``function_call_output``,
    whose text states ``Process exited with code N`` above the command's ``Output:``."""
    records: list[dict[str, Any]] = []

    def add(kind: str, payload: dict[str, Any]) -> None:
        records.append({"timestamp": _iso(len(records)), "type": kind, "payload": payload})

    add(
        "session_meta",
        {
            "id": _UUID,
            "timestamp": _iso(0),
            "cwd": PROJECT,
            "originator": "codex_cli_rs",
            "cli_version": "0.125.0",
            "source": "cli",
        },
    )
    add("turn_context", {"cwd": PROJECT, "approval_policy": "on-request", "model": "gpt-5"})
    calls = 0
    for step in steps:
        match step:
            case ("user", text):
                typed = [{"type": "input_text", "text": text}]
                add("response_item", {"type": "message", "role": "user", "content": typed})
                add("event_msg", {"type": "user_message", "message": text, "images": []})
            case ("say", text):
                out = [{"type": "output_text", "text": text}]
                add("response_item", {"type": "message", "role": "assistant", "content": out})
                add("event_msg", {"type": "agent_message", "message": text})
            case ("run", command, output, code):
                calls += 1
                call_id = f"call_{calls:02d}Xy7Qw"
                args = json.dumps({"cmd": command, "yield_time_ms": 10000})
                call = {"type": "function_call", "name": "exec_command", "arguments": args}
                add("response_item", {**call, "call_id": call_id})
                text = (
                    f"Chunk ID: c{calls:02d}\nWall time: 0.8000 seconds\n"
                    f"Process exited with code {code}\n"
                    f"Original token count: {len(output.split())}\nOutput:\n{output}\n"
                )
                add(
                    "response_item",
                    {"type": "function_call_output", "call_id": call_id, "output": text},
                )
    day = _START.strftime("%Y/%m/%d")
    name = f"rollout-{_START.strftime('%Y-%m-%dT%H-%M-%S')}-{_UUID}.jsonl"
    return _write_jsonl(folder / ".codex" / "sessions" / day / name, records)


# -- Gemini CLI and Qwen Code (its fork) ----------------------------------------------------------


def _shell_report(command: str, output: str, code: int) -> str:
    """What the ``run_shell_command`` tool of Gemini CLI and Qwen Code tells the model."""
    return (
        f"Command: {command}\nDirectory: (root)\nOutput: {output}\nError: (none)\n"
        f"Exit Code: {code}\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 4242"
    )


def _gemini(folder: Path, steps: Sequence[Step]) -> Path:
    """``~/.gemini/tmp/<project>/chats/session-<time>-<id prefix>.jsonl`` (the JSONL log of
    v0.39+), ``.project_root`` beside ``chats/`` naming the project folder. A call and its
    result share one ``toolCalls[]`` entry; a command that failed is still ``success``, with
    ``Exit Code: N`` in its output."""
    project_hash = hashlib.sha256(PROJECT.encode()).hexdigest()
    records: list[dict[str, Any]] = [
        {
            "sessionId": _UUID,
            "projectHash": project_hash,
            "startTime": _iso(0),
            "lastUpdated": _iso(0),
            "kind": "main",
        }
    ]
    for n, step in enumerate(steps, 1):
        message: dict[str, Any] = {"id": f"msg-{n:03d}", "timestamp": _iso(n)}
        match step:
            case ("user", text):
                message |= {"type": "user", "content": [{"text": text}]}
            case ("say", text):
                message |= {"type": "gemini", "content": text, "model": "gemini-2.5-pro"}
            case ("run", command, output, code):
                call_id = f"run_shell_command-{_ms(n)}-{n:02d}"
                report = _shell_report(command, output, code)
                response = {
                    "id": call_id,
                    "name": "run_shell_command",
                    "response": {"output": report},
                }
                call = {
                    "id": call_id,
                    "name": "run_shell_command",
                    "args": {"command": command, "description": "Run the command"},
                    "status": "success",
                    "timestamp": _iso(n),
                    "result": [{"functionResponse": response}],
                    "resultDisplay": output,
                    "displayName": "Shell",
                }
                message |= {"type": "gemini", "content": "", "toolCalls": [call]}
        records.append(message)
    records.append({"$set": {"lastUpdated": _iso(len(steps))}})
    tmp = folder / ".gemini" / "tmp" / Path(PROJECT).name
    _new_file(tmp / ".project_root").write_text(PROJECT + "\n", encoding="utf-8")
    name = f"session-{_START.strftime('%Y-%m-%dT%H-%M')}-{_UUID[:8]}.jsonl"
    return _write_jsonl(tmp / "chats" / name, records)


def _qwen(folder: Path, steps: Sequence[Step]) -> Path:
    """``~/.qwen/projects/<dashed cwd>/chats/<session id>.jsonl``: Claude Code's envelope around
    Gemini-style ``parts``; a call is a ``functionCall`` part, its result a ``tool_result``
    record whose ``toolCallResult`` says ``error`` for a command that exited non-zero and
    carries the exit code in ``resultDisplay.exitCode``."""
    records: list[dict[str, Any]] = []

    def add(kind: str, provenance: str, message: dict[str, Any], **extra: Any) -> None:
        n = len(records)
        records.append(
            {
                "uuid": f"00000000-0000-4000-8000-{n + 1:012d}",
                "parentUuid": records[-1]["uuid"] if records else None,
                "sessionId": _UUID,
                "timestamp": _iso(n),
                "type": kind,
                "cwd": PROJECT,
                "version": "0.24.4",
                "provenance": provenance,
                "message": message,
                **extra,
            }
        )

    calls = 0
    for step in steps:
        match step:
            case ("user", text):
                add("user", "real_user", {"role": "user", "parts": [{"text": text}]})
            case ("say", text):
                add("assistant", "assistant_output", {"role": "model", "parts": [{"text": text}]})
            case ("run", command, output, code):
                calls += 1
                call_id = f"call_{calls:02d}b7e"
                use = {"id": call_id, "name": "run_shell_command", "args": {"command": command}}
                add(
                    "assistant",
                    "assistant_output",
                    {"role": "model", "parts": [{"functionCall": use}]},
                )
                report = _shell_report(command, output, code)
                said = {"error": report} if code else {"output": report}
                response = {"id": call_id, "name": "run_shell_command", "response": said}
                display = {
                    "type": "shell_result",
                    "version": 1,
                    "directory": PROJECT,
                    "exitCode": code,
                    "signal": None,
                    "outcome": "failed" if code else "completed",
                    "output": output,
                }
                outcome: dict[str, Any] = {"callId": call_id, "resultDisplay": display}
                if code:
                    outcome |= {
                        "status": "error",
                        "error": {},
                        "errorType": "shell_execute_error",
                        "executionStatus": "error",
                    }
                else:
                    outcome |= {"status": "success", "executionStatus": "success"}
                parts = [{"functionResponse": response}]
                add(
                    "tool_result",
                    "tool_result",
                    {"role": "user", "parts": parts},
                    toolCallResult=outcome,
                )
    path = folder / ".qwen" / "projects" / _dashed(PROJECT) / "chats" / f"{_UUID}.jsonl"
    return _write_jsonl(path, records)


# -- GitHub Copilot CLI ---------------------------------------------------------------------------


def _copilot(folder: Path, steps: Sequence[Step]) -> Path:
    """``~/.copilot/session-state/<session id>/events.jsonl``: ``{type, data, id, timestamp,
    parentId}`` events; a ``bash`` call runs between ``tool.execution_start`` and
    ``tool.execution_complete``, a non-zero exit being a *success* whose text ends with
    ``<shellId: N completed with exit code K>``."""
    records: list[dict[str, Any]] = []

    def add(kind: str, data: dict[str, Any]) -> None:
        n = len(records)
        parent = records[-1]["id"] if records else None
        records.append(
            {
                "type": kind,
                "data": data,
                "id": f"e{n + 1:03d}",
                "timestamp": _iso(n),
                "parentId": parent,
            }
        )

    add(
        "session.start",
        {
            "sessionId": _UUID,
            "version": 1,
            "producer": "copilot-agent",
            "copilotVersion": "1.0.102",
            "startTime": _iso(0),
            "context": {"cwd": PROJECT},
        },
    )
    calls = 0
    for step in steps:
        match step:
            case ("user", text):
                add("user.message", {"content": text, "transformedContent": text})
            case ("say", text):
                add(
                    "assistant.message",
                    {"messageId": f"m{len(records)}", "content": text, "toolRequests": []},
                )
            case ("run", command, output, code):
                calls += 1
                call_id = f"toolu_vrtx_{calls:02d}"
                args = {"command": command, "description": "Run the command"}
                request = {
                    "toolCallId": call_id,
                    "name": "bash",
                    "arguments": args,
                    "type": "function",
                }
                add(
                    "assistant.message",
                    {"messageId": f"m{len(records)}", "content": "", "toolRequests": [request]},
                )
                add(
                    "tool.execution_start",
                    {"toolCallId": call_id, "toolName": "bash", "arguments": args},
                )
                text = f"{output}\n<shellId: {calls - 1} completed with exit code {code}>"
                result = {"content": text, "detailedContent": text}
                add(
                    "tool.execution_complete",
                    {"toolCallId": call_id, "success": True, "result": result},
                )
    path = folder / ".copilot" / "session-state" / _UUID / "events.jsonl"
    return _write_jsonl(path, records)


# -- OpenCode and Kilo CLI (its fork): one SQLite database -----------------------------------------

#: The tables the readers use, with the columns OpenCode 1.18 and Kilo CLI 7.7 give them.
_SCHEMA = """
CREATE TABLE `session` (
  `id` text PRIMARY KEY, `project_id` text NOT NULL, `workspace_id` text, `parent_id` text,
  `slug` text NOT NULL, `directory` text NOT NULL, `path` text, `title` text NOT NULL,
  `version` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL);
CREATE TABLE `message` (
  `id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL,
  `time_updated` integer NOT NULL, `data` text NOT NULL);
CREATE TABLE `part` (
  `id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL);
"""


def _opencode(folder: Path, steps: Sequence[Step]) -> Path:
    """``~/.local/share/opencode/opencode.db``."""
    return _database(
        folder / ".local" / "share" / "opencode" / "opencode.db", steps, "1.18.33", "build"
    )


def _kilo(folder: Path, steps: Sequence[Step]) -> Path:
    """``~/.local/share/kilo/kilo.db``: OpenCode's schema, Kilo's version and agent."""
    return _database(folder / ".local" / "share" / "kilo" / "kilo.db", steps, "7.7.7", "code")


def _database(path: Path, steps: Sequence[Step], version: str, mode: str) -> Path:
    """One session in OpenCode's tables: a message per step, its content in ``part`` rows (a
    ``bash`` call is one ``tool`` part holding its input, output and ``metadata.exit``)."""
    messages: list[tuple[str, int, dict[str, Any]]] = []
    parts: list[tuple[str, int, dict[str, Any]]] = []
    prompt = ""  # the user message an answer replies to
    calls = 0
    for n, step in enumerate(steps, 1):
        at, message_id = _ms(n), f"msg_{n:04d}a1b2c3"
        match step:
            case ("user", text):
                prompt = message_id
                messages.append((message_id, at, {"role": "user", "time": {"created": at}}))
                parts.append((message_id, at, {"type": "text", "text": text}))
                continue
            case ("say", text):
                content: dict[str, Any] = {"type": "text", "text": text}
            case ("run", command, output, code):
                calls += 1
                content = _bash_part(f"call_{calls:02d}", command, output, code, at)
        finish = "tool-calls" if content["type"] == "tool" else "stop"
        answer = {
            "parentID": prompt,
            "role": "assistant",
            "mode": mode,
            "agent": mode,
            "path": {"cwd": PROJECT, "root": PROJECT},
            "modelID": "fake-model",
            "providerID": "fake",
            "time": {"created": at, "completed": at + 900},
            "finish": finish,
        }
        messages.append((message_id, at, answer))
        parts.append((message_id, at, {"type": "step-start"}))
        parts.append((message_id, at + 1, content))
        parts.append((message_id, at + 2, {"type": "step-finish", "reason": finish}))
    _new_file(path)
    sid = _OPENCODE_SESSION
    with closing(sqlite3.connect(path)) as db, db:
        db.executescript(_SCHEMA)
        db.execute(
            "INSERT INTO session VALUES (?, 'global', NULL, NULL, 'brave-comet', ?, ?, 'Set up',"
            " ?, ?, ?)",
            (sid, PROJECT, PROJECT.lstrip("/"), version, _ms(0), _ms(len(steps))),
        )
        db.executemany(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            [(mid, sid, at, at, json.dumps(data)) for mid, at, data in messages],
        )
        db.executemany(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
            [
                (f"prt_{i:04d}d4e5f6", mid, sid, at, at, json.dumps(data))
                for i, (mid, at, data) in enumerate(parts, 1)
            ],
        )
    return path


def _bash_part(call_id: str, command: str, output: str, code: int, at: int) -> dict[str, Any]:
    """A finished ``bash`` call as its ``tool`` part records it."""
    args = {"command": command, "description": "Run the command"}
    meta = {"output": output, "exit": code, "description": args["description"], "truncated": False}
    state = {
        "status": "completed",
        "input": args,
        "output": output,
        "metadata": meta,
        "title": args["description"],
        "time": {"start": at + 100, "end": at + 800},
    }
    return {"type": "tool", "tool": "bash", "callID": call_id, "state": state}


_WRITERS: dict[str, Callable[[Path, Sequence[Step]], Path]] = {
    "claude": _claude,
    "codex": _codex,
    "gemini": _gemini,
    "qwen": _qwen,
    "copilot": _copilot,
    "opencode": _opencode,
    "kilo": _kilo,
}
