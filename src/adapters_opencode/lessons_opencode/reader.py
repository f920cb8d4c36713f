"""Read OpenCode's session database into normalized events.

OpenCode (1.x) keeps every session in one SQLite database (``opencode.db`` in its data
directory; see :mod:`lessons_opencode.roots`). Three tables matter:

* ``session`` — one row per session: ``id``, ``directory`` (the project), ``parent_id`` (set for a
  sub-agent's session, started by the ``task`` tool);
* ``message`` — one row per message, its ``data`` a JSON object with ``role`` (``user`` /
  ``assistant``) and ``time`` (``completed`` once an answer is finished);
* ``part`` — the message's content in order, its ``data`` a JSON object by ``type``: ``text``
  (``synthetic`` when OpenCode or a plugin added it), ``tool`` (``tool``, ``callID``, ``state``
  with ``status`` ``completed`` / ``error`` / ``pending`` / ``running``, ``input``, ``output`` or
  ``error``, and for shell calls ``metadata.exit``), ``compaction``, and bookkeeping parts
  (``step-start``, ``step-finish``, ``reasoning``, ``patch``…) that carry nothing for lessons.

Parts are read in the order they were inserted (their ``rowid``), which is stable: a part that
changes (a tool call finishing, a text still streaming) is updated in place. So the rowid is the
event's ``line`` — what a candidate cites and what the scanner resumes after — and a read stops
before the first part that is not final yet (a running tool, a message still being answered),
to be read whole by the next scan. A part left unfinished for longer than :data:`STALE_MS` (the
agent was killed) is read as it is.

The database is opened read-only, and a file that is not an OpenCode database yields nothing.

An exported session (``opencode export``: one JSON document of the same messages and parts) is
read by :mod:`lessons_opencode.export`, which this module hands any file that does not start as
a SQLite database does; its events come from :func:`part_events` too.

How a call failed is read as :mod:`lessons_opencode.failures` says: an ``error`` part by its
text (a permission rule, an edit refused, a call cut short by the user), a shell call by its exit
code and by the note the tool appends when it killed the command (a timeout, the user's abort:
no exit code then). A shell call's ``workdir`` (the directory it asked to run in, OpenCode's
stand-in for ``cd``) is its event's ``cwd``, as Codex's is: the same command run in another
directory is another call.

A part of the ``invalid`` tool is OpenCode's stand-in for a call whose arguments could not be
parsed (or that named no tool it has): it is recorded ``completed``, with the tool the model
meant and the parser's complaint as its input, and is read as that tool's call, refused as
malformed (:data:`~lessons_core.scan.events.VALIDATION`).

Kilo CLI, an OpenCode fork, keeps its sessions in a database of the same schema: its reader is
:func:`read_sessions` with Kilo's :class:`~lessons_opencode.hot_plugin.PluginHost` (its agent
name and tool names), so the two hosts share every line of this module.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from lessons_core.api import events as ev
from lessons_opencode import failures
from lessons_opencode.hot_opencode import AGENT as AGENT
from lessons_opencode.hot_opencode import HOST as OPENCODE
from lessons_opencode.hot_plugin import PluginHost
from lessons_opencode.roots import SQLITE_MAGIC
from lessons_opencode.roots import transcript_roots as transcript_roots

#: An unfinished part this old (milliseconds) is read as it is: its session is not coming back.
STALE_MS = 30 * 60 * 1000

_PATH_KEYS = ("filePath", "file_path", "path")
#: The tool OpenCode records in place of a call it could not parse.
INVALID = "invalid"
_QUERY = """
SELECT p.rowid, p.session_id, p.message_id, p.time_created, p.data, s.directory, s.parent_id
FROM part AS p JOIN session AS s ON s.id = p.session_id
WHERE p.rowid > ? ORDER BY p.rowid
"""


def read(
    path: str | Path,
    start_offset: int = 0,
    *,
    progress: ev.Progress | None = None,
    **_: Any,
) -> Iterator[ev.Event]:
    """Yield the events of every part added after ``progress.line`` (a part's rowid)."""
    prog = progress if progress is not None else ev.Progress(start_offset)
    yield from read_sessions(OPENCODE, str(path), prog)


def read_sessions(host: PluginHost, file: str, prog: ev.Progress) -> Iterator[ev.Event]:
    """The events of a session database (or an exported session) of ``host``, OpenCode or a
    fork of it: the same tables, with the host's agent name and tool names."""
    if not _is_database(file):
        from lessons_opencode import export

        yield from export.read(file, prog, int(time.time() * 1000), host)
        return
    try:
        db = sqlite3.connect(f"file:{quote(file)}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error:
        return
    try:
        if not _is_opencode(db):
            return
        yield from _parts(db, file, prog, host)
    except sqlite3.Error:
        prog.bad_lines += 1  # a database being rewritten under us: read again next time
    finally:
        db.close()


def _is_database(file: str) -> bool:
    """Whether ``file`` starts as every SQLite database does (else it may be an export)."""
    try:
        with open(file, "rb") as fh:
            return fh.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return True  # (the database's own reading finds that it cannot be opened)


def _is_opencode(db: sqlite3.Connection) -> bool:
    try:
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.Error:
        return False
    return {"session", "message", "part"} <= names


def _parts(
    db: sqlite3.Connection, file: str, prog: ev.Progress, host: PluginHost
) -> Iterator[ev.Event]:
    now = int(time.time() * 1000)
    messages: dict[str, dict[str, Any]] = {}
    rows = db.execute(_QUERY, (int(prog.line),)).fetchall()
    for rowid, session_id, message_id, created, part_data, directory, parent_id in rows:
        part = _loads(part_data)
        message = messages.get(message_id)
        if message is None:
            message = _message(db, message_id)
            messages[message_id] = message
        fresh = isinstance(created, int) and now - created < STALE_MS
        if fresh and not final(part, message):
            return  # the rest waits for the next scan, this part first
        prog.line = int(rowid)
        if part is None:
            prog.bad_lines += 1
            continue
        base: dict[str, Any] = {
            "session_id": session_id,
            "project": directory if isinstance(directory, str) else None,
            "time": iso(created),
            "file": file,
            "line": int(rowid),
            "offset": 0,
            "sidechain": bool(parent_id),
        }
        prog.session_id, prog.project = base["session_id"], base["project"]
        yield from part_events(part, message, base, host)


def _message(db: sqlite3.Connection, message_id: str) -> dict[str, Any]:
    row = db.execute("SELECT data FROM message WHERE id = ?", (message_id,)).fetchone()
    data = _loads(row[0]) if row else None
    return data if data is not None else {}


def _loads(data: Any) -> dict[str, Any] | None:
    try:
        value = json.loads(data)
    except (TypeError, ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def final(part: dict[str, Any] | None, message: dict[str, Any]) -> bool:
    """Whether a part will not change any more (a finished call, a finished answer)."""
    if part is None:
        return True
    if part.get("type") == "tool":
        state = part.get("state")
        return isinstance(state, dict) and state.get("status") in ("completed", "error")
    if message.get("role") == "assistant":
        times = message.get("time")
        return isinstance(times, dict) and times.get("completed") is not None
    return True


def iso(ms: Any) -> str | None:
    if not isinstance(ms, int):
        return None
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def part_events(
    part: dict[str, Any],
    message: dict[str, Any],
    base: dict[str, Any],
    host: PluginHost = OPENCODE,
) -> Iterator[ev.Event]:
    """The events of one part of ``message`` (its ``data``, or its ``info`` in an export), each
    stamped with ``base`` (session, project, time, file, line) and ``host``'s agent name."""
    agent = host.agent
    kind = part.get("type")
    if kind == "text":
        text = part.get("text")
        if not isinstance(text, str) or not text or part.get("synthetic"):
            return
        role = message.get("role")
        if role == "assistant":
            yield ev.Event(ev.ASSISTANT_TEXT, agent, text=text, **base)
        elif role == "user":
            yield ev.Event(ev.USER_TEXT, agent, text=text, **base)
    elif kind == "tool":
        yield from _tool_events(part, base, host)
    elif kind == "compaction":
        yield ev.Event(ev.COMPACTION, agent, **base)


def _tool_events(
    part: dict[str, Any], base: dict[str, Any], host: PluginHost
) -> Iterator[ev.Event]:
    name = part.get("tool")
    state = part.get("state")
    if not isinstance(name, str) or not isinstance(state, dict):
        return
    status = state.get("status")
    args = state.get("input") if isinstance(state.get("input"), dict) else {}
    assert isinstance(args, dict)
    call_id = part.get("callID") if isinstance(part.get("callID"), str) else None
    invalid = name == INVALID
    if invalid:  # the call the model meant, refused before it ran: no arguments to read
        meant = args.get("tool")
        name = meant if isinstance(meant, str) and meant else name
        args = {}
    tool = host.canonical_tool(name)
    command = args.get("command") if tool == "Bash" else None
    paths = tuple(args[k] for k in _PATH_KEYS if isinstance(args.get(k), str) and args[k])
    workdir = args.get("workdir") if command else None
    yield ev.Event(
        ev.TOOL_CALL,
        host.agent,
        tool=tool,
        native_tool=name,
        command=command if isinstance(command, str) else None,
        paths=paths,
        call_id=call_id,
        cwd=workdir if isinstance(workdir, str) and workdir else None,
        edit=ev.edit_texts(args.get("oldString"), args.get("newString")),
        **base,
    )
    failure: str | None = None
    code: int | None = None
    metadata = state.get("metadata")
    if status == "error":
        text = state.get("error") if isinstance(state.get("error"), str) else ""
        assert isinstance(text, str)
        failure = failures.error_failure(text, metadata)
    elif status == "completed":
        output = state.get("output")
        text = output if isinstance(output, str) else ""
        code = _exit_code(metadata)
        if invalid:
            failure = ev.VALIDATION
        elif tool == "Bash" or code is not None:
            failure = failures.shell_failure(text, code)
    else:  # unfinished and stale: the agent stopped while it ran
        text = ""
        failure = ev.INTERRUPTED
    yield ev.Event(
        ev.TOOL_RESULT,
        host.agent,
        tool=tool,
        native_tool=name,
        call_id=call_id,
        failure=failure,
        exit_code=code,
        text=ev.shorten(text),
        **base,
    )


def _exit_code(metadata: Any) -> int | None:
    """The exit code a shell call's ``metadata`` records (``null`` for a command it killed)."""
    code = metadata.get("exit") if isinstance(metadata, dict) else None
    return code if isinstance(code, int) and not isinstance(code, bool) else None
