"""Read Gemini CLI chat recordings (``tmp/<project>/chats/``) into normalized events.

Two layouts exist. Up to v0.38 a session is one JSON document, rewritten on every update, whose
``messages`` array holds everything; from v0.39 it is a JSONL log where a message line with a
known ``id`` replaces the earlier one, ``{"$set": …}`` merges metadata (and, with ``messages``,
replaces the whole history: a checkpoint after compression or masking) and ``{"$rewindTo": id}``
cuts history. A tool call and its result sit in one ``toolCalls[]`` entry; ``status`` says
``error`` or ``cancelled``, and a shell command that ran but failed still says ``success`` with
``Exit Code: N`` in its output.

The layout is told by the content, not the name: a legacy document saved under a ``.jsonl`` name
(tools that keep copies of sessions name every transcript so, Entire's checkpoints among them)
is read as the document it is (see :func:`is_document`), not refused line by line.

The legacy document is read as a stream: the ``messages`` array is decoded one element at a time
from a bounded buffer, so a huge session never sits in memory whole. Its resume point is the
number of finished messages, not a byte offset, because the file is rewritten in place.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from lessons_core.api import as_text, classify_text, iter_lines, loads
from lessons_core.api import events as ev
from lessons_core.hot.payload import shell_report_output
from lessons_gemini.failures import gemini_exit_code
from lessons_gemini.hot_names import BLOCKED_PREFIX, NATIVE_TO_CANONICAL
from lessons_gemini.roots import transcript_roots as transcript_roots

AGENT = "gemini"

_FINAL = frozenset({"success", "error", "cancelled"})
_PATH_KEYS = ("file_path", "absolute_path", "path", "dir_path")
_MESSAGES = re.compile(r'"messages"\s*:\s*\[')
_SESSION = re.compile(r'"sessionId"\s*:\s*"([^"]+)"')
_DIRECTORY = re.compile(r'"directories"\s*:\s*\[\s*"([^"]+)"')
_HASH = re.compile(r'"projectHash"\s*:\s*"([0-9a-f]{8,})"')
_WS = " \t\r\n,"
_CHUNK = 1 << 20


def canonical(name: str) -> str:
    if name in NATIVE_TO_CANONICAL:
        return str(NATIVE_TO_CANONICAL[name])
    if name.startswith("mcp_") and not name.startswith("mcp__"):
        return "mcp__" + name[4:].replace("_", "__", 1)
    return name


def read(
    path: str | Path,
    start_offset: int = 0,
    *,
    progress: ev.Progress | None = None,
    start_message: int = 0,
    **_: Any,
) -> Iterator[ev.Event]:
    """Yield the events of one Gemini session.

    JSONL sessions resume at ``start_offset`` (bytes); legacy documents at ``start_message``
    (or ``progress.messages``) finished messages.
    """
    prog = progress if progress is not None else ev.Progress(start_offset, messages=start_message)
    file = str(path)
    if prog.project is None:
        prog.project = project_root(file)
    if file.endswith(".jsonl") and not is_document(file):
        yield from _read_jsonl(file, prog)
    else:
        yield from _read_document(file, prog)


#: A ``messages`` key outside any string (a quote inside one is escaped).
_MESSAGES_KEY = re.compile(rb'(?<!\\)"messages"\s*:\s*\[')
_HEAD = 8192


def is_document(file: str) -> bool:
    """Whether ``file`` holds one JSON document rather than JSON Lines, from its first bytes: its
    first line opens an object without closing it (a pretty-printed document), or is an object
    with the ``messages`` array of a legacy session (a compact one). A JSONL session's first
    line is its metadata, which never holds the messages."""
    try:
        with open(file, "rb") as fh:
            head = fh.read(_HEAD)
    except OSError:
        return False
    first = head.lstrip().partition(b"\n")[0].strip()
    return first == b"{" or (first.startswith(b"{") and _MESSAGES_KEY.search(first) is not None)


# -- shared -----------------------------------------------------------------------------------


#: The longest path Linux accepts: a longer ``.project_root`` holds no folder's path.
_PATH_MAX = 4096


def project_root(file: str) -> str | None:
    """The project folder of a session, from the ``.project_root`` file the CLI keeps beside
    ``chats/`` since it names the folders under ``tmp/`` after projects rather than by hash.
    Its sessions carry only the hash, which no hook sees; the hooks know the folder. A
    sub-agent's session sits one folder deeper. ``None`` where there is no such file (older
    releases), and the session's own ``directories`` or hash decide."""
    here = Path(file).parent
    for folder in (here.parent, here.parent.parent):
        try:
            with (folder / ".project_root").open("rb") as f:
                raw = f.read(_PATH_MAX + 1)  # (a folder's path, not whatever else is there)
            text = raw.decode("utf-8").strip()
        except (OSError, UnicodeDecodeError):
            continue
        if text and len(raw) <= _PATH_MAX and "\n" not in text:
            return text
    return None


def _is_subagent(file: str) -> bool:
    """Sub-agent sessions live in ``chats/<parent session>/``, main ones in ``chats/``."""
    return Path(file).parent.name != "chats" and Path(file).parent.parent.name == "chats"


def _project(meta: Mapping[str, Any], prog: ev.Progress) -> None:
    dirs = meta.get("directories")
    if isinstance(dirs, list) and dirs and isinstance(dirs[0], str):
        prog.project = dirs[0]
    elif isinstance(meta.get("projectHash"), str) and prog.project is None:
        prog.project = "gemini:" + meta["projectHash"][:16]


def _tool_events(
    call: dict[str, Any], base: dict[str, Any], emitted: set[str]
) -> Iterator[ev.Event]:
    status = call.get("status")
    if not isinstance(status, str):
        return
    call_id = call.get("id") if isinstance(call.get("id"), str) else None
    name = call.get("name")
    if status not in _FINAL or not isinstance(name, str):
        return
    key = call_id or f"{base['line']}:{name}"
    if key in emitted:
        return
    emitted.add(key)
    args = call.get("args") if isinstance(call.get("args"), dict) else {}
    assert isinstance(args, dict)
    command = args.get("command") if isinstance(args.get("command"), str) else None
    paths = tuple(args[k] for k in _PATH_KEYS if isinstance(args.get(k), str))
    tool = canonical(name)
    # A ``replace``'s texts: why a refused one did not match shows beside the one that worked.
    edit = ev.edit_texts(args.get("old_string"), args.get("new_string"))
    yield ev.Event(
        ev.TOOL_CALL,
        AGENT,
        tool=tool,
        native_tool=name,
        command=command,
        paths=paths,
        call_id=call_id,
        edit=edit,
        **base,
    )
    text = _result_text(call)
    failure: str | None = None
    code: int | None = None
    if status == "error":
        kind = classify_text(text)
        failure = kind if kind else ev.ERROR
    elif status == "cancelled":
        kind = classify_text(text)
        failure = kind if kind in (ev.REJECTED, ev.DENIED, ev.TIMEOUT) else ev.INTERRUPTED
    elif text.lstrip().startswith(BLOCKED_PREFIX):
        failure = ev.VALIDATION  # refused before it ran, though logged as a success
    else:
        code = gemini_exit_code(text)
        if code:
            failure = ev.TIMEOUT if classify_text(text) == ev.TIMEOUT else ev.ERROR
    if tool == "Bash":
        text = shell_report_output(text)  # (as the other agents log it: what it printed)
    yield ev.Event(
        ev.TOOL_RESULT,
        AGENT,
        tool=tool,
        native_tool=name,
        call_id=call_id,
        failure=failure,
        exit_code=code,
        text=ev.shorten(text),
        **base,
    )


def _result_text(call: dict[str, Any]) -> str:
    result = call.get("result")
    if isinstance(result, list):
        texts = []
        for part in result:
            if not isinstance(part, dict):
                continue
            fr = part.get("functionResponse")
            if isinstance(fr, dict):
                resp = fr.get("response")
                if isinstance(resp, dict):
                    for key in ("output", "error", "llmContent"):
                        if resp.get(key):
                            texts.append(as_text(resp[key]))
                            break
                elif resp is not None:
                    texts.append(as_text(resp))
            elif "text" in part:
                texts.append(as_text(part))
        if texts:
            return "\n".join(texts)
    display = call.get("resultDisplay")
    return display if isinstance(display, str) else as_text(result)


def _message_events(
    msg: dict[str, Any], base: dict[str, Any], emitted: set[str]
) -> Iterator[ev.Event]:
    mtype = msg.get("type")
    mid = msg.get("id") if isinstance(msg.get("id"), str) else None
    if mtype == "user":
        if mid and ("u:" + mid) in emitted:
            return
        text = as_text(msg.get("content")) or as_text(msg.get("displayContent"))
        if text.strip():
            if mid:
                emitted.add("u:" + mid)
            yield ev.Event(ev.USER_TEXT, AGENT, text=text, **base)
    elif mtype in ("gemini", "model"):
        text = as_text(msg.get("content")) or as_text(msg.get("parts"))
        if text.strip() and not (mid and ("g:" + mid) in emitted):
            if mid:
                emitted.add("g:" + mid)
            yield ev.Event(ev.ASSISTANT_TEXT, AGENT, text=text, **base)
        calls = msg.get("toolCalls")
        if isinstance(calls, list):
            for call in calls:
                if isinstance(call, dict):
                    yield from _tool_events(call, base, emitted)


def _finished(msg: Any) -> bool:
    """A message is finished when none of its tool calls is still running."""
    if not isinstance(msg, dict):
        return True
    calls = msg.get("toolCalls")
    if not isinstance(calls, list):
        return True
    return all(
        not isinstance(c, dict) or not isinstance(c.get("status"), str) or c["status"] in _FINAL
        for c in calls
    )


# -- JSONL (v0.39+) ---------------------------------------------------------------------------


def _read_jsonl(file: str, prog: ev.Progress) -> Iterator[ev.Event]:
    emitted: set[str] = set()
    for line_no, offset, raw in iter_lines(file, prog):
        record = loads(raw, prog)
        if not isinstance(record, dict):
            continue
        base: dict[str, Any] = {
            "session_id": prog.session_id,
            "project": prog.project,
            "time": None,
            "file": file,
            "line": line_no,
            "offset": offset,
            "sidechain": _is_subagent(file),
        }
        if "$set" in record:
            update = record["$set"]
            if isinstance(update, dict):
                if isinstance(update.get("sessionId"), str):
                    prog.session_id = update["sessionId"]
                _project(update, prog)
                if isinstance(update.get("messages"), list):
                    yield ev.Event(ev.COMPACTION, AGENT, **base)
            continue
        if "$rewindTo" in record:
            continue
        if isinstance(record.get("id"), str):
            stamp = record.get("timestamp")
            base["time"] = stamp if isinstance(stamp, str) else None
            yield from _message_events(record, base, emitted)
            continue
        if isinstance(record.get("sessionId"), str):
            prog.session_id = record["sessionId"]
            _project(record, prog)


# -- legacy single document -------------------------------------------------------------------


def _read_document(file: str, prog: ev.Progress) -> Iterator[ev.Event]:
    """Stream the ``messages`` array of a legacy session, skipping ``prog.messages`` of them."""
    prog.document = True  # (resumed by messages whatever its name)
    skip = prog.messages
    decoder = json.JSONDecoder()
    utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
    emitted: set[str] = set()
    size = 0
    with open(file, "rb") as fh:
        buf = ""
        eof = False

        def more(n: int = _CHUNK) -> bool:
            nonlocal buf, eof, size
            data = fh.read(n)
            size += len(data)
            if not data:
                eof = True
                buf += utf8.decode(b"", final=True)
                return False
            buf += utf8.decode(data)
            return True

        # Find the start of the messages array; metadata usually precedes it.
        pos = -1
        while pos < 0:
            m = _MESSAGES.search(buf)
            if m:
                pos = m.end()
                break
            if not more():
                prog.offset = size
                return  # not a Gemini session document
        head = buf[:pos]
        sid = _SESSION.search(head)
        if sid:
            prog.session_id = sid.group(1)
        d = _DIRECTORY.search(head)
        if d:
            prog.project = d.group(1)
        elif prog.project is None:
            h = _HASH.search(head)
            if h:
                prog.project = "gemini:" + h.group(1)[:16]
        buf = buf[pos:]
        index = 0
        finished = skip
        step = _CHUNK
        i = 0  # decoding position in ``buf``; consumed text is dropped only now and then
        while True:
            while i < len(buf) and buf[i] in _WS:
                i += 1
            if i == len(buf):
                buf, i = "", 0
                if not more():
                    break
                continue
            if buf[i] == "]":
                break
            try:
                msg, end = decoder.raw_decode(buf, i)
            except RecursionError:  # a message nested deeper than the parser goes: no end found
                prog.bad_lines += 1
                break
            except ValueError:
                if eof:
                    prog.bad_lines += 1
                    break
                buf, i = buf[i:], 0
                more(step)
                step = min(step * 2, 64 << 20)
                continue
            step = _CHUNK
            i = end
            if i > _CHUNK:
                buf, i = buf[i:], 0
            index += 1
            if index <= skip or not isinstance(msg, dict):
                continue
            if not _finished(msg):
                # Still running: stop here, the next scan picks it up once it is final.
                break
            finished = index
            stamp = msg.get("timestamp")
            base: dict[str, Any] = {
                "session_id": prog.session_id,
                "project": prog.project,
                "time": stamp if isinstance(stamp, str) else None,
                "file": file,
                "line": index,
                "offset": 0,
                "sidechain": _is_subagent(file),
            }
            yield from _message_events(msg, base, emitted)
        # Sessions without a session id anywhere before messages: look after them.
        if prog.session_id is None and eof:
            while more():
                pass
            sid = _SESSION.search(buf[-4096:])
            if sid:
                prog.session_id = sid.group(1)
    prog.messages = finished
    prog.offset = size
    prog.line = index
