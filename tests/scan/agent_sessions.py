"""One short session written as each supported agent stores it, read back by that agent's reader.

A lesson should not depend on which agent made the mistake: the same failed command, the same
fix and the same words from the user ought to give the same events, whoever logged them. To
check that, a test needs the *same* session in seven on-disk formats. This module writes it:
each writer copies its agent's layout, file name and record shapes (the hand-made fixtures
under ``tests/fixtures/transcripts`` and the adapters' tests show them), and the events come
from the adapter's real reader, never from a shortcut, so whatever a reader drops or
misreads shows up in the test that uses them.

File tools are written with each agent's own tool and argument names, and a refused call in
that agent's own words (the ``*_WORDING`` constants below, each saying where its words come
from): a reader that knows only another agent's refusal must fail here, not pass on borrowed
words.

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
from pathlib import Path, PurePosixPath
from typing import Any, Literal, NamedTuple

from lessons_core.scan import events as ev
from transcript_support import OPENCODE_SCHEMA

AGENTS: tuple[str, ...] = ("claude", "codex", "gemini", "qwen", "copilot", "opencode", "kilo")

#: The project every session works in (its cwd, or its directory).
PROJECT = "/w/app"

#: How an edit step failed: the text to replace was not in the file.
EditFailure = Literal["not-found"]
#: How a read step failed: the file is not there.
ReadFailure = Literal["missing"]

Step = (
    tuple[Literal["user"], str]  # a message the user typed
    | tuple[Literal["say"], str]  # the assistant's prose
    | tuple[Literal["run"], str, str, int]  # a shell command, what it printed, its exit code
    # the agent's edit tool: the file, the text to replace, its replacement, how it failed
    | tuple[Literal["edit"], str, str, str, EditFailure | None]
    # the agent's read tool (Codex: a ``sed -n`` command): the file, how it failed
    | tuple[Literal["read"], str, ReadFailure | None]
)


class Wording(NamedTuple):
    """An agent's own words for a refused file call, with ``{path}`` (the file), ``{old}`` (the
    text the edit looked for) and ``{cwd}`` (the project) to fill in."""

    not_found: str  # an edit whose text to replace is not in the file
    missing: str  # a read of a file that does not exist


# Claude Code's ``Edit`` and ``Read``, as in the real corpus (1.0 to 2.1; the note on the
# working directory is in its 2.1.49 sessions, not in 2.1.17's, and in the 2.1.197 CLI that
# ``tests/e2e/package.json`` pins). The harness wraps them in ``<tool_use_error>`` for the model
# and puts ``Error: `` before them in ``toolUseResult``.
CLAUDE_WORDING = Wording(
    not_found="String to replace not found in file.\nString: {old}",
    missing="File does not exist. Note: your current working directory is {cwd}.",
)
# Codex's ``apply_patch`` refusing a patch whose lines are not in the file, as in the real
# corpus (the ``custom_tool_call_output`` of 0.118 to 0.142; the pinned 0.171.0 has the same
# words). Codex has no read tool: GNU sed says this of a file that is not there (as in the
# real corpus) and exits 2.
CODEX_WORDING = Wording(
    not_found="apply_patch verification failed: Failed to find expected lines in {path}:\n{old}",
    missing="sed: can't read {path}: No such file or directory",
)
_SED_CANNOT_READ = 2
# Gemini CLI's ``replace`` and ``read_file`` in the pinned 0.61.0 (its code; docs/scanner.md
# tells how the end-to-end run met the first): the real corpus's one refused Gemini edit has an
# older release's words, which Qwen Code kept. The model gets these (``response.error``), the
# log's ``resultDisplay`` the shorter ``GEMINI_SHOWN``.
GEMINI_WORDING = Wording(
    not_found="Could not find an exact match for 'old_string' in '{path}'. If previous edits"
    " modified the file or you are modifying lines outside your recent read window, please use"
    " ReadFile to inspect the target lines before retrying with an exact 'old_string'.",
    missing="File not found: {path}",
)
GEMINI_SHOWN = Wording(
    not_found="Error: Could not find an exact match for old_string in '{path}'.",
    missing="File not found.",
)
# Qwen Code's ``edit`` and ``read_file`` in the pinned 0.24.4 (its code): the real corpus holds
# no Qwen Code session.
QWEN_WORDING = Wording(
    not_found="Failed to edit, 0 occurrences found for old_string in {path}. No edits made. The"
    " exact text in old_string was not found. Ensure you're not escaping content incorrectly"
    " and check whitespace, indentation, and context. Use read_file tool to verify.",
    missing="File not found: {path}",
)
# Copilot CLI's ``edit`` says no more than this, as docs/scanner.md and the reader's test
# record from the end-to-end run of the pinned 1.0.102 (its code ships compressed, and the real
# corpus has no refused edit); its ``view`` of a missing file, as in the real corpus.
COPILOT_WORDING = Wording(not_found="No match found", missing="Path does not exist")
# OpenCode's ``edit`` and ``read`` (a tool part's ``state.error``), as in the real corpus (an
# export of a 1.18 session); the pinned 1.18.33 says the same.
OPENCODE_WORDING = Wording(
    not_found="Could not find oldString in the file. It must match exactly, including"
    " whitespace, indentation, and line endings.",
    missing="File not found: {path}",
)
# Kilo CLI keeps OpenCode's tools: the pinned 7.7.7 holds the same words (the real corpus has
# no Kilo session).
KILO_WORDING = OPENCODE_WORDING

#: What a file that was read holds (a read step does not say): one line.
_CONTENT = "x = 1"

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


def _said(template: str, path: str, old: str = "") -> str:
    """An agent's wording with the call's file, its text to replace and the project put in."""
    return template.format(path=path, old=old, cwd=PROJECT)


def _diff(path: str, old: str, new: str) -> str:
    """The unified diff of an edit that worked, as the agents show it."""
    removed = "".join(f"-{line}\n" for line in old.splitlines())
    added = "".join(f"+{line}\n" for line in new.splitlines())
    return f"--- {path}\n+++ {path}\n@@ -1 +1 @@\n{removed}{added}"


def _relative(path: str) -> str:
    """``path`` from the project folder, as titles and listings show it."""
    inside = PurePosixPath(path).is_relative_to(PROJECT)
    return str(PurePosixPath(path).relative_to(PROJECT)) if inside else path


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
    ``assistant`` record, its result in the next ``user`` one (``is_error`` when it failed: the
    text opens with ``Exit code N`` for a command, is a ``<tool_use_error>`` for a refusal)."""
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

    def use(
        name: str, tool_input: dict[str, Any], content: str, account: Any, failed: bool
    ) -> None:
        """A call and its result: ``content`` for the model, ``account`` the harness's own."""
        call_id = f"toolu_01{len(records):04d}"
        add(
            "assistant",
            said([{"type": "tool_use", "id": call_id, "name": name, "input": tool_input}]),
        )
        result: dict[str, Any] = {"tool_use_id": call_id, "type": "tool_result", "content": content}
        if failed:
            result["is_error"] = True
        add("user", {"role": "user", "content": [result]}, toolUseResult=account)

    def refused(name: str, tool_input: dict[str, Any], words: str) -> None:
        use(name, tool_input, f"<tool_use_error>{words}</tool_use_error>", f"Error: {words}", True)

    for step in steps:
        match step:
            case ("user", text):
                add("user", {"role": "user", "content": text})
            case ("say", text):
                add("assistant", said([{"type": "text", "text": text}]))
            case ("run", command, output, code):
                shell = {"command": command, "description": "Run the command"}
                if code:
                    said_code = f"Exit code {code}\n{output}"
                    use("Bash", shell, said_code, f"Error: {said_code}", True)
                else:
                    ran = {"stdout": output, "stderr": "", "interrupted": False}
                    use("Bash", shell, output, ran, False)
            case ("edit", file, old, new, failed):
                change = {"file_path": file, "old_string": old, "new_string": new}
                if failed:
                    refused("Edit", change, _said(CLAUDE_WORDING.not_found, file, old))
                    continue
                done = {
                    "filePath": file,
                    "oldString": old,
                    "newString": new,
                    "originalFile": old,
                    "structuredPatch": [],
                    "userModified": False,
                    "replaceAll": False,
                }
                use("Edit", change, f"The file {file} has been updated successfully.", done, False)
            case ("read", file, failed):
                if failed:
                    refused("Read", {"file_path": file}, _said(CLAUDE_WORDING.missing, file))
                    continue
                shown = {"filePath": file, "content": _CONTENT, "numLines": 1, "startLine": 1}
                read = {"type": "text", "file": {**shown, "totalLines": 1}}
                use("Read", {"file_path": file}, f"     1→{_CONTENT}\n", read, False)
    path = folder / ".claude" / "projects" / _dashed(PROJECT) / f"{_UUID}.jsonl"
    return _write_jsonl(path, records)


# -- Codex CLI -----------------------------------------------------------------------------------


def _patch(path: str, old: str, new: str) -> str:
    """An ``apply_patch`` input that replaces the lines of ``old`` in ``path`` by ``new``'s."""
    removed = "".join(f"-{line}\n" for line in old.splitlines())
    added = "".join(f"+{line}\n" for line in new.splitlines())
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n{removed}{added}*** End Patch\n"


def _codex(folder: Path, steps: Sequence[Step]) -> Path:
    """``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl``: ``{timestamp, type,
    payload}`` lines; a unified-exec ``exec_command`` call and its ``function_call_output``,
    whose text states ``Process exited with code N`` above the command's ``Output:``; an
    ``apply_patch`` custom tool call whose output is the refusal alone, or (once a
    ``patch_apply_end`` event said it applied) ``Exit code: 0`` above the files it changed."""
    records: list[dict[str, Any]] = []

    def add(kind: str, payload: dict[str, Any]) -> None:
        records.append({"timestamp": _iso(len(records)), "type": kind, "payload": payload})

    def run(command: str, output: str, code: int) -> None:
        call_id = f"call_{len(records):02d}Xy7Qw"
        args = json.dumps({"cmd": command, "yield_time_ms": 10000})
        add(
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": args,
                "call_id": call_id,
            },
        )
        text = (
            f"Chunk ID: c{len(records):02d}\nWall time: 0.8000 seconds\n"
            f"Process exited with code {code}\n"
            f"Original token count: {len(output.split())}\nOutput:\n{output}\n"
        )
        add("response_item", {"type": "function_call_output", "call_id": call_id, "output": text})

    def patch(path: str, old: str, new: str, failed: EditFailure | None) -> None:
        call_id = f"call_{len(records):02d}Pq4Zr"
        call = {"type": "custom_tool_call", "status": "completed", "call_id": call_id}
        add("response_item", {**call, "name": "apply_patch", "input": _patch(path, old, new)})
        if failed:
            said = _said(CODEX_WORDING.not_found, path, old)
        else:
            changed = f"Success. Updated the following files:\nM {path}\n"
            change = {"type": "update", "unified_diff": _diff(path, old, new), "move_path": None}
            applied = {"call_id": call_id, "stdout": changed, "stderr": "", "success": True}
            add("event_msg", {"type": "patch_apply_end", **applied, "changes": {path: change}})
            said = f"Exit code: 0\nWall time: 0 seconds\nOutput:\n{changed}"
        add(
            "response_item", {"type": "custom_tool_call_output", "call_id": call_id, "output": said}
        )

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
                run(command, output, code)
            case ("edit", path, old, new, failed):
                patch(path, old, new, failed)
            case ("read", path, failed):
                command = f"sed -n '1,200p' {path}"
                if failed:
                    run(command, _said(CODEX_WORDING.missing, path), _SED_CANNOT_READ)
                else:
                    run(command, _CONTENT, 0)
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


def _edit_display(path: str, old: str, new: str) -> dict[str, Any]:
    """What the ``replace``/``edit`` tools of Gemini CLI and Qwen Code show of an edit that
    worked (``resultDisplay``)."""
    return {
        "fileDiff": _diff(path, old, new),
        "fileName": PurePosixPath(path).name,
        "originalContent": old,
        "newContent": new,
    }


class _GeminiCall(NamedTuple):
    """One of Gemini CLI's calls: its tool, shown name and arguments, and how it ended."""

    name: str
    display_name: str
    args: dict[str, Any]
    status: Literal["success", "error"]
    response: dict[str, Any]  # ``{"output": …}`` or ``{"error": …}``, what the model got
    shown: Any  # ``resultDisplay``


def _gemini_call(step: Step) -> _GeminiCall | None:
    """Step ``step`` as Gemini CLI calls a tool (``None`` for words)."""
    match step:
        case ("run", command, output, code):
            shell = {"command": command, "description": "Run the command"}
            report = {"output": _shell_report(command, output, code)}
            return _GeminiCall("run_shell_command", "Shell", shell, "success", report, output)
        case ("edit", path, old, new, failed):
            change = {
                "file_path": path,
                "instruction": "Make the change the user asked for.",
                "old_string": old,
                "new_string": new,
            }
            if failed:
                refusal = {"error": _said(GEMINI_WORDING.not_found, path)}
                told = _said(GEMINI_SHOWN.not_found, path)
                return _GeminiCall("replace", "Edit", change, "error", refusal, told)
            done = {"output": f"Successfully modified file: {path} (1 replacements)."}
            diff = _edit_display(path, old, new)
            return _GeminiCall("replace", "Edit", change, "success", done, diff)
        case ("read", path, failed):
            args = {"file_path": path}
            if failed:
                missing = {"error": _said(GEMINI_WORDING.missing, path)}
                told = GEMINI_SHOWN.missing
                return _GeminiCall("read_file", "ReadFile", args, "error", missing, told)
            return _GeminiCall("read_file", "ReadFile", args, "success", {"output": _CONTENT}, "")
    return None


def _gemini(folder: Path, steps: Sequence[Step]) -> Path:
    """``~/.gemini/tmp/<project>/chats/session-<time>-<id prefix>.jsonl`` (the JSONL log of
    v0.39+), ``.project_root`` beside ``chats/`` naming the project folder. A call and its
    result share one ``toolCalls[]`` entry; a command that failed is still ``success``, with
    ``Exit Code: N`` in its output, while a file tool's refusal is an ``error``."""
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
        call = _gemini_call(step)
        if call is not None:
            call_id = f"{call.name}-{_ms(n)}-{n:02d}"
            response = {"id": call_id, "name": call.name, "response": call.response}
            entry = {
                "id": call_id,
                "name": call.name,
                "args": call.args,
                "status": call.status,
                "timestamp": _iso(n),
                "result": [{"functionResponse": response}],
                "resultDisplay": call.shown,
                "displayName": call.display_name,
            }
            message |= {"type": "gemini", "content": "", "toolCalls": [entry]}
        records.append(message)
    records.append({"$set": {"lastUpdated": _iso(len(steps))}})
    tmp = folder / ".gemini" / "tmp" / Path(PROJECT).name
    _new_file(tmp / ".project_root").write_text(PROJECT + "\n", encoding="utf-8")
    name = f"session-{_START.strftime('%Y-%m-%dT%H-%M')}-{_UUID[:8]}.jsonl"
    return _write_jsonl(tmp / "chats" / name, records)


class _QwenCall(NamedTuple):
    """One of Qwen Code's calls: its tool and arguments, what the model got (``{"output": …}``
    or ``{"error": …}``) and Qwen's own account of it (``toolCallResult`` but its ``callId``)."""

    name: str
    args: dict[str, Any]
    response: dict[str, Any]
    outcome: dict[str, Any]


def _qwen_worked(name: str, args: dict[str, Any], output: str, shown: Any) -> _QwenCall:
    outcome = {"status": "success", "resultDisplay": shown, "executionStatus": "success"}
    return _QwenCall(name, args, {"output": output}, outcome)


def _qwen_failed(name: str, args: dict[str, Any], error_type: str, text: str) -> _QwenCall:
    """A call that failed, ``error_type`` saying why (Qwen's ``ToolErrorType``)."""
    outcome = {
        "status": "error",
        "resultDisplay": text,
        "error": {},
        "errorType": error_type,
        "executionStatus": "error",
    }
    return _QwenCall(name, args, {"error": text}, outcome)


def _qwen_call(step: Step) -> _QwenCall | None:
    """Step ``step`` as Qwen Code calls a tool (``None`` for words)."""
    match step:
        case ("run", command, output, code):
            shell, report = {"command": command}, _shell_report(command, output, code)
            display = {
                "type": "shell_result",
                "version": 1,
                "directory": PROJECT,
                "exitCode": code,
                "signal": None,
                "outcome": "failed" if code else "completed",
                "output": output,
            }
            if code:
                call = _qwen_failed("run_shell_command", shell, "shell_execute_error", report)
                return call._replace(outcome=call.outcome | {"resultDisplay": display})
            return _qwen_worked("run_shell_command", shell, report, display)
        case ("edit", path, old, new, failed):
            change = {"file_path": path, "old_string": old, "new_string": new}
            if failed:
                refusal = _said(QWEN_WORDING.not_found, path)
                return _qwen_failed("edit", change, "edit_no_occurrence_found", refusal)
            done = f"The file: {path} has been updated."
            return _qwen_worked("edit", change, done, _edit_display(path, old, new))
        case ("read", path, failed):
            if failed:
                missing = _said(QWEN_WORDING.missing, path)
                return _qwen_failed("read_file", {"file_path": path}, "file_not_found", missing)
            return _qwen_worked("read_file", {"file_path": path}, _CONTENT, "")
    return None


def _qwen(folder: Path, steps: Sequence[Step]) -> Path:
    """``~/.qwen/projects/<dashed cwd>/chats/<session id>.jsonl``: Claude Code's envelope around
    Gemini-style ``parts``; a call is a ``functionCall`` part, its result a ``tool_result``
    record whose ``toolCallResult`` says ``error`` for a command that exited non-zero (the exit
    code in ``resultDisplay.exitCode``) and for a refusal (why in its ``errorType``)."""
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

    for step in steps:
        match step:
            case ("user", text):
                add("user", "real_user", {"role": "user", "parts": [{"text": text}]})
            case ("say", text):
                add("assistant", "assistant_output", {"role": "model", "parts": [{"text": text}]})
        call = _qwen_call(step)
        if call is None:
            continue
        call_id = f"call_{len(records):02d}b7e"
        use = {"id": call_id, "name": call.name, "args": call.args}
        add("assistant", "assistant_output", {"role": "model", "parts": [{"functionCall": use}]})
        response = {"id": call_id, "name": call.name, "response": call.response}
        parts = [{"functionResponse": response}]
        add(
            "tool_result",
            "tool_result",
            {"role": "user", "parts": parts},
            toolCallResult={"callId": call_id, **call.outcome},
        )
    path = folder / ".qwen" / "projects" / _dashed(PROJECT) / "chats" / f"{_UUID}.jsonl"
    return _write_jsonl(path, records)


# -- GitHub Copilot CLI ---------------------------------------------------------------------------


class _CopilotCall(NamedTuple):
    """One of Copilot CLI's calls: its tool, its arguments, and how ``tool.execution_complete``
    tells the end (``success`` and a ``result``, or an ``error``)."""

    name: str
    args: dict[str, Any]
    done: dict[str, Any]


def _copilot_worked(name: str, args: dict[str, Any], result: dict[str, Any]) -> _CopilotCall:
    return _CopilotCall(name, args, {"success": True, "result": result})


def _copilot_refused(name: str, args: dict[str, Any], message: str) -> _CopilotCall:
    return _CopilotCall(
        name, args, {"success": False, "error": {"message": message, "code": "failure"}}
    )


def _copilot_call(step: Step, shell: int) -> _CopilotCall | None:
    """Step ``step`` as Copilot CLI calls a tool (``None`` for words); a command runs in shell
    number ``shell``."""
    match step:
        case ("run", command, output, code):
            args = {"command": command, "description": "Run the command"}
            text = f"{output}\n<shellId: {shell} completed with exit code {code}>"
            return _copilot_worked("bash", args, {"content": text, "detailedContent": text})
        case ("edit", path, old, new, failed):
            change = {"path": path, "old_str": old, "new_str": new}
            if failed:
                return _copilot_refused("edit", change, _said(COPILOT_WORDING.not_found, path))
            done = {
                "content": f"File {path} updated with changes.",
                "detailedContent": _diff(path, old, new),
            }
            return _copilot_worked("edit", change, done)
        case ("read", path, failed):
            if failed:
                return _copilot_refused(
                    "view", {"path": path}, _said(COPILOT_WORDING.missing, path)
                )
            return _copilot_worked("view", {"path": path}, {"content": f"1. {_CONTENT}"})
    return None


def _copilot(folder: Path, steps: Sequence[Step]) -> Path:
    """``~/.copilot/session-state/<session id>/events.jsonl``: ``{type, data, id, timestamp,
    parentId}`` events; a call runs between ``tool.execution_start`` and
    ``tool.execution_complete``, a ``bash`` command that exited non-zero being a *success* whose
    text ends with ``<shellId: N completed with exit code K>``, a refused file call a failure
    with the tool's message."""
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
    shells = 0
    for step in steps:
        match step:
            case ("user", text):
                add("user.message", {"content": text, "transformedContent": text})
            case ("say", text):
                add(
                    "assistant.message",
                    {"messageId": f"m{len(records)}", "content": text, "toolRequests": []},
                )
        call = _copilot_call(step, shells)
        if call is None:
            continue
        if call.name == "bash":
            shells += 1  # (each command its own shell, numbered from 0)
        call_id = f"toolu_vrtx_{len(records):02d}"
        request = {"toolCallId": call_id, "name": call.name, "arguments": call.args}
        add(
            "assistant.message",
            {
                "messageId": f"m{len(records)}",
                "content": "",
                "toolRequests": [{**request, "type": "function"}],
            },
        )
        add(
            "tool.execution_start",
            {"toolCallId": call_id, "toolName": call.name, "arguments": call.args},
        )
        add("tool.execution_complete", {"toolCallId": call_id, **call.done})
    path = folder / ".copilot" / "session-state" / _UUID / "events.jsonl"
    return _write_jsonl(path, records)


# -- OpenCode and Kilo CLI (its fork): one SQLite database -----------------------------------------

#: The tables the readers use, with the columns OpenCode 1.18 and Kilo CLI 7.7 give them.


def _opencode(folder: Path, steps: Sequence[Step]) -> Path:
    """``~/.local/share/opencode/opencode.db``."""
    path = folder / ".local" / "share" / "opencode" / "opencode.db"
    return _database(path, steps, "1.18.33", "build", OPENCODE_WORDING)


def _kilo(folder: Path, steps: Sequence[Step]) -> Path:
    """``~/.local/share/kilo/kilo.db``: OpenCode's schema, Kilo's version and agent."""
    path = folder / ".local" / "share" / "kilo" / "kilo.db"
    return _database(path, steps, "7.7.7", "code", KILO_WORDING)


def _database(path: Path, steps: Sequence[Step], version: str, mode: str, words: Wording) -> Path:
    """One session in OpenCode's tables: a message per step, its content in ``part`` rows (a
    call is one ``tool`` part holding its input and its output, or the error it threw)."""
    messages: list[tuple[str, int, dict[str, Any]]] = []
    parts: list[tuple[str, int, dict[str, Any]]] = []
    prompt = ""  # the user message an answer replies to
    for n, step in enumerate(steps, 1):
        at, message_id, call_id = _ms(n), f"msg_{n:04d}a1b2c3", f"call_{n:02d}"
        match step:
            case ("user", text):
                prompt = message_id
                messages.append((message_id, at, {"role": "user", "time": {"created": at}}))
                parts.append((message_id, at, {"type": "text", "text": text}))
                continue
            case ("say", text):
                content: dict[str, Any] = {"type": "text", "text": text}
            case ("run", command, output, code):
                content = _bash_part(call_id, command, output, code, at)
            case ("edit", file, old, new, failed):
                change = {"filePath": file, "oldString": old, "newString": new}
                if failed:
                    refusal = _said(words.not_found, file, old)
                    content = _tool_part(call_id, "edit", change, at, error=refusal)
                else:
                    meta = {"diagnostics": {}, "diff": _diff(file, old, new), "truncated": False}
                    done = ("Edit applied successfully.", meta, _relative(file))
                    content = _tool_part(call_id, "edit", change, at, done=done)
            case ("read", file, failed):
                if failed:
                    missing = _said(words.missing, file)
                    content = _tool_part(call_id, "read", {"filePath": file}, at, error=missing)
                else:
                    shown = (
                        f"<path>{file}</path>\n<type>file</type>\n<content>\n1: {_CONTENT}\n\n"
                        "(End of file - total 1 lines)\n</content>"
                    )
                    meta = {"preview": _CONTENT, "truncated": False}
                    done = (shown, meta, _relative(file))
                    content = _tool_part(call_id, "read", {"filePath": file}, at, done=done)
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
        db.executescript(OPENCODE_SCHEMA)
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


def _tool_part(
    call_id: str,
    tool: str,
    args: dict[str, Any],
    at: int,
    *,
    done: tuple[str, dict[str, Any], str] | None = None,
    error: str = "",
) -> dict[str, Any]:
    """A finished call as its ``tool`` part records it: ``completed`` with the ``(output,
    metadata, title)`` it was ``done`` with, or ``error`` with the text it threw."""
    state: dict[str, Any] = {"status": "error", "input": args, "error": error}
    if done is not None:
        output, metadata, title = done
        state = {
            "status": "completed",
            "input": args,
            "output": output,
            "metadata": metadata,
            "title": title,
        }
    state["time"] = {"start": at + 100, "end": at + 800}
    return {"type": "tool", "tool": tool, "callID": call_id, "state": state}


def _bash_part(call_id: str, command: str, output: str, code: int, at: int) -> dict[str, Any]:
    """A finished ``bash`` call as its ``tool`` part records it (``metadata.exit`` its code)."""
    args = {"command": command, "description": "Run the command"}
    meta = {"output": output, "exit": code, "description": args["description"], "truncated": False}
    return _tool_part(call_id, "bash", args, at, done=(output, meta, args["description"]))


_WRITERS: dict[str, Callable[[Path, Sequence[Step]], Path]] = {
    "claude": _claude,
    "codex": _codex,
    "gemini": _gemini,
    "qwen": _qwen,
    "copilot": _copilot,
    "opencode": _opencode,
    "kilo": _kilo,
}
