"""Read Claude Code session transcripts (``projects/**/*.jsonl``) into normalized events.

Claude Code writes one JSON object per line: ``assistant`` lines hold one content block each
(text, ``thinking`` or ``tool_use``; newer versions may put a whole response on one line),
``user`` lines hold typed prompts or ``tool_result`` blocks, ``system``
lines mark compaction. Sub-agents live either beside the session (``agent-<id>.jsonl``, up to
2.1.1) or under ``<session>/subagents/`` (2.1.2+); both are plain transcripts of the same shape,
so one reader serves all of them.

Speed comes from not parsing what cannot matter: lines of bookkeeping types are skipped by a
substring test, and the most common heavy line — a successful tool result, often hundreds of
kilobytes of file content — is reduced to its call ids with a regular expression instead of
``json.loads``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lessons_claude.failures import classify_claude
from lessons_claude.hot_names import NATIVE_TO_CANONICAL
from lessons_claude.roots import transcript_roots as transcript_roots
from lessons_core.scan import events as ev
from lessons_core.scan.lines import as_text, iter_spans, loads

AGENT = "claude"

#: The call ids of a result line, and (group 2) whether it failed or was interrupted, in one
#: pass over what is often a long line: a flagged line needs a full parse.
_IDS_OR_FLAG = re.compile(rb'"tool_use_id":\s*"([^"]+)"|"(?:is_error|interrupted)":\s*(true)')
#: Record kinds that never hold an event: tool progress, file snapshots, the prompt queue, titles
#: and other bookkeeping. (A line of another kind holds none either, but an unknown kind is
#: searched whole before it is skipped.)
_SKIPPED_KINDS = frozenset(
    {
        b"progress", b"file-history-snapshot", b"queue-operation", b"summary", b"last-prompt",
        b"permission-mode", b"mode", b"custom-title", b"ai-title", b"agent-name", b"pr-link",
        b"frame-link", b"worktree-state", b"bridge-session", b"relocated", b"started",
        b"result", b"atis-latch",
    }
)  # fmt: skip
#: How many leading bytes of a line are inspected before deciding to parse it.
_HEAD = 1024
#: The session and working directory in a record's envelope, which precedes its message.
_SESSION_AT = re.compile(rb'"sessionId":"([^"\\]+)"')
_CWD_AT = re.compile(rb'"cwd":"((?:[^"\\]|\\.)*)"')
_SKIP_USER_PREFIXES = (
    "<command-",
    "<local-command",
    "Caveat: The messages below",
    "<system-reminder>",
    "<bash-",
    "<user-prompt-submit-hook>",
    "[Request interrupted",
)
_PATH_KEYS = ("file_path", "notebook_path", "path")
#: The feedback a user typed when rejecting a call ("…the user said:\n<feedback>").
_FEEDBACK = re.compile(r"the user said:\s*(.+)", re.DOTALL | re.IGNORECASE)


def canonical(name: str) -> str:
    return str(NATIVE_TO_CANONICAL.get(name, name))


def _paths(tool_input: Any) -> tuple[str, ...]:
    if not isinstance(tool_input, dict):
        return ()
    out = []
    for key in _PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            out.append(value)
    edits = tool_input.get("edits")
    if isinstance(edits, list):
        for item in edits:
            if isinstance(item, dict) and isinstance(item.get("file_path"), str):
                out.append(item["file_path"])
    return tuple(dict.fromkeys(out))


def _json_string(body: bytes) -> str:
    """The text of a JSON string literal's body (escapes resolved when there are any)."""
    if b"\\" not in body:
        return body.decode("utf-8", "replace")
    value = loads(b'"' + body + b'"', ev.Progress())
    return value if isinstance(value, str) else body.decode("utf-8", "replace")


def _result_ids(buf: bytes, start: int, end: int) -> list[bytes] | None:
    """The call ids of the successful result line ``buf[start:end]``; ``None`` when the line
    is flagged."""
    ids = []
    for match in _IDS_OR_FLAG.finditer(buf, start, end):
        if match.group(2):
            return None
        ids.append(match.group(1))
    return ids


#: What a look at a line's bytes says it is (see :func:`_line_kind`).
_USER, _ASSISTANT, _WHOLE = "user", "assistant", "whole"


def _line_kind(buf: bytes, start: int, end: int) -> str | None:
    """What the line ``buf[start:end]`` is, from a few bounded searches: a user line, an
    assistant line, another line to parse whole, or ``None`` for one that holds no event.

    The envelope (and, for user lines, the start of the content) sits in the first bytes, while
    the bulk of a line is tool output. The first ``"type":"`` of the head names the record: a
    user line's own type (its envelope holds no other), an assistant line's message
    (``"type":"message"``; the line's own type comes after the message), or a bookkeeping
    record's kind. A kind not named there is searched for in the whole line.
    """
    find = buf.find
    head = min(end, start + _HEAD)
    if find(b'": ', start, min(end, start + 80)) >= 0:
        # Not Claude Code's compact serialisation (hand-made or re-encoded): parsed whole.
        for needle in (b'"user"', b'"assistant"', b"compact_boundary"):
            if find(needle, start, end) >= 0:
                return _WHOLE
        return None
    at = find(b'"type":"', start, head)
    stop = find(b'"', at + 8, head) if at >= 0 else -1
    first = buf[at + 8 : stop] if stop >= 0 else b""
    if first in _SKIPPED_KINDS:
        return None
    if first == b"user":
        return _USER
    if first == b"message" and find(b'"role":"assistant"', stop, head) >= 0:
        return _ASSISTANT
    if first == b"system":
        return _WHOLE if find(b"compact_boundary", start, end) >= 0 else None
    if find(b'"type":"user"', start, head) >= 0:
        return _USER
    if (
        find(b'"type":"assistant"', max(start, end - 512), end) >= 0
        or find(b'"type":"assistant"', start, end) >= 0
    ):
        return _ASSISTANT
    if find(b"compact_boundary", start, end) >= 0 or find(b'"type":"user"', start, end) >= 0:
        return _WHOLE
    return None


def read(
    path: str | Path,
    start_offset: int = 0,
    *,
    progress: ev.Progress | None = None,
    **_: Any,
) -> Iterator[ev.Event]:
    """Yield the events of one Claude Code transcript from ``start_offset`` on.

    ``progress`` (optional) is advanced past every complete line consumed and carries the session
    and project across incremental reads; when not given, one starting at ``start_offset`` is used.
    """
    prog = progress if progress is not None else ev.Progress(start_offset)
    if progress is None:
        prog.offset = start_offset
    file = str(path)
    session = prog.session_id
    project = prog.project
    sidechain = "subagents" in Path(file).parts or Path(file).name.startswith("agent-")
    calls: dict[str, str] = {}  # call id -> canonical tool (to label results)
    seen_session = seen_cwd = b""  # the raw bytes behind ``session`` and ``project``

    for line_no, offset, buf, start, end in iter_spans(file, prog):
        kind = _line_kind(buf, start, end)  # the line is copied out only to be parsed
        if kind is None:
            continue
        find = buf.find  # bounded searches, without copying the line
        head = min(end, start + _HEAD)
        if kind == _USER:
            ids = _result_ids(buf, start, end) if find(b'"tool_result"', start, head) >= 0 else None
            if ids:
                # Each record names its session and directory: a result stands on its own line
                # even where the reading started (a later scan, a piece of a file).
                # (Both rarely change within a file: decoded only when their bytes do.)
                m = _SESSION_AT.search(buf, start, head)
                if m and m.group(1) != seen_session:
                    seen_session = m.group(1)
                    session = prog.session_id = seen_session.decode("ascii", "replace")
                m = _CWD_AT.search(buf, start, head)
                if m and m.group(1) != seen_cwd:
                    seen_cwd = m.group(1)
                    project = prog.project = _json_string(seen_cwd)
            if ids is not None:
                for cid in ids:
                    result_id = cid.decode("utf-8", "replace")
                    yield ev.Event(
                        ev.TOOL_RESULT,
                        AGENT,
                        session_id=session,
                        project=project,
                        file=file,
                        line=line_no,
                        offset=offset,
                        tool=calls.get(result_id),
                        call_id=result_id,
                        sidechain=sidechain,
                    )
                if ids:
                    continue
        elif kind == _ASSISTANT and (
            find(b'"type":"thinking"', start, head) >= 0
            and find(b'"type":"text"', start, end) < 0
            and find(b'"type":"tool_use"', start, end) < 0
        ):
            # A reasoning block alone (one content block per line): nothing to read. Newer
            # lines can hold a whole response (thinking, text, tool calls): those are read.
            continue
        record = loads(buf[start:end], prog)
        if not isinstance(record, dict):
            continue
        sid = record.get("sessionId") or record.get("session_id")
        if isinstance(sid, str) and sid and sid != session:
            session = prog.session_id = sid
            seen_session = b""
        cwd = record.get("cwd")
        if isinstance(cwd, str) and cwd and cwd != project:
            project = prog.project = cwd
            seen_cwd = b""
        stamp = record.get("timestamp")
        when = stamp if isinstance(stamp, str) else None
        side = bool(record.get("isSidechain")) or sidechain
        base: dict[str, Any] = {
            "session_id": session,
            "project": project,
            "time": when,
            "file": file,
            "line": line_no,
            "offset": offset,
            "sidechain": side,
        }
        kind = record.get("type")
        if kind == "system":
            if record.get("subtype") == "compact_boundary":
                yield ev.Event(ev.COMPACTION, AGENT, text=as_text(record.get("content")), **base)
            continue
        message = record.get("message")
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if kind == "assistant":
            if record.get("isApiErrorMessage") or not isinstance(content, list):
                continue
            for block in content:
                if not isinstance(block, dict):
                    continue
                btype = block.get("type")
                if btype == "text":
                    text = block.get("text")
                    if isinstance(text, str) and text:
                        yield ev.Event(ev.ASSISTANT_TEXT, AGENT, text=text, **base)
                elif btype == "tool_use":
                    name = block.get("name")
                    if not isinstance(name, str):
                        continue
                    tool = canonical(name)
                    tool_input = block.get("input")
                    command = None
                    if isinstance(tool_input, dict) and isinstance(tool_input.get("command"), str):
                        command = tool_input["command"]
                    call_id = block.get("id") if isinstance(block.get("id"), str) else None
                    if call_id:
                        calls[call_id] = tool
                    yield ev.Event(
                        ev.TOOL_CALL,
                        AGENT,
                        tool=tool,
                        native_tool=name,
                        command=command,
                        paths=_paths(tool_input),
                        call_id=call_id,
                        persistent_shell=True,  # the Bash tool keeps its cwd between calls
                        **base,
                    )
        elif kind == "user":
            if record.get("isCompactSummary"):
                yield ev.Event(ev.COMPACTION, AGENT, text=as_text(content), **base)
                continue
            meta = bool(record.get("isMeta"))  # injected text, not typed; results still count
            if isinstance(content, str):
                if content and not meta and not content.lstrip().startswith(_SKIP_USER_PREFIXES):
                    yield ev.Event(ev.USER_TEXT, AGENT, text=content, **base)
                continue
            if not isinstance(content, list):
                continue
            for block in content:
                if not isinstance(block, dict):
                    continue
                btype = block.get("type")
                if btype == "text":
                    text = block.get("text")
                    if (
                        isinstance(text, str)
                        and not meta
                        and text
                        and not text.lstrip().startswith(_SKIP_USER_PREFIXES)
                    ):
                        yield ev.Event(ev.USER_TEXT, AGENT, text=text, **base)
                elif btype == "tool_result":
                    yield from _result(block, record, base, calls)


def _result(
    block: dict[str, Any], record: dict[str, Any], base: dict[str, Any], calls: dict[str, str]
) -> Iterator[ev.Event]:
    call_id = block.get("tool_use_id") or record.get("sourceToolUseID")
    if not isinstance(call_id, str):
        call_id = None
    text = as_text(block.get("content"))
    failure: str | None = None
    code: int | None = None
    if block.get("is_error"):
        failure, code = classify_claude(text)
        if code is not None and text.startswith("Exit code"):
            text = text.partition("\n")[2]  # the code is kept apart; the rest is the output
    else:
        extra = record.get("toolUseResult")
        if isinstance(extra, dict) and extra.get("interrupted"):
            failure = ev.INTERRUPTED
    yield ev.Event(
        ev.TOOL_RESULT,
        AGENT,
        tool=calls.get(call_id) if call_id else None,
        call_id=call_id,
        failure=failure,
        exit_code=code,
        text=ev.shorten(text),
        **base,
    )
    if failure == ev.REJECTED:
        # The user's words when declining a call are a correction in their own right.
        m = _FEEDBACK.search(text)
        feedback = m.group(1).strip() if m else ""
        if not m and "doesn't want to" not in text and "rejected" not in text:
            feedback = text.strip()
        if feedback:
            yield ev.Event(ev.USER_TEXT, AGENT, text=feedback, **base)
