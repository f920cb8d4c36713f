"""Read an exported OpenCode session (``opencode export``) into normalized events.

An export is one JSON document, ``{"info": <session>, "messages": [{"info": <message>, "parts":
[<part>…]}]}``, pretty-printed with two-space indents whatever the file's name (checkpoint tools
that keep OpenCode sessions, Entire's among them, save it as ``full.jsonl``). ``info`` is the
session row (``id``, ``directory``, ``parentID`` for a sub-agent's session, ``version``,
``time``); a message's ``info`` and its ``parts`` are the very objects OpenCode keeps in its
database's ``message`` and ``part`` tables, so their events come from the same code as the
database's (:func:`lessons_opencode.reader.part_events`).

A document has no line per record, so an event's ``line`` is the line of the document that holds
its part's ``"callID"`` (a tool call) or its part's ``"id"`` (any other part), searched forward
from the part before so that two parts with the same ``callID`` (some providers number calls
afresh in every step) keep their own lines. That is the line a label of the capture evaluation
names (``benchmarks/labels/RULES.md``), so a candidate can be checked against it.

The ``messages`` array is decoded one message at a time from a bounded buffer, as the Gemini
reader does for its legacy documents, so a large session never sits in memory whole. The resume
point is the number of messages read (``Progress.messages``), not a byte offset: a session
exported again is a new document, not the old one with lines added. Like the database's parts, a
message still being answered when the export was taken stops the read, unless it is older than
:data:`~lessons_opencode.reader.STALE_MS`; a file that is not an export yields nothing.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from typing import Any

from lessons_core.api import events as ev
from lessons_opencode import reader
from lessons_opencode.hot_opencode import HOST as OPENCODE
from lessons_opencode.hot_plugin import PluginHost

_MESSAGES = re.compile(r'(?<!\\)"messages"\s*:\s*\[')
_INFO = re.compile(r'\s*\{\s*"info"\s*:\s*')
_WS = " \t\r\n,"
_CHUNK = 1 << 20
#: The part types that make events (see :func:`lessons_opencode.reader.part_events`).
_EVENTFUL = frozenset({"text", "tool", "compaction"})


class _Lines:
    """Line numbers of positions in a buffer whose front is dropped now and then.

    ``base`` counts the newlines of the text dropped so far; ``at``/``line`` is the last position
    counted, so each search counts only the newlines since the one before.
    """

    __slots__ = ("at", "base", "line")

    def __init__(self) -> None:
        self.base = 0
        self.at = 0
        self.line = 1

    def of(self, buf: str, pos: int) -> int:
        if pos < self.at:  # (never: parts are found in order)
            self.at, self.line = 0, self.base + 1
        self.line += buf.count("\n", self.at, pos)
        self.at = pos
        return self.line

    def drop(self, buf: str, upto: int) -> None:
        """``buf[:upto]`` is about to be dropped."""
        self.of(buf, upto)
        self.base = self.line - 1
        self.at = 0


def _find(buf: str, key: str, value: Any, start: int, end: int) -> int:
    """Where ``"key": value`` (as ``JSON.stringify`` indents it, or compact) first appears in
    ``buf[start:end]``, or -1."""
    if not isinstance(value, str) or not value:
        return -1
    if '"' in value or "\\" in value or not value.isprintable():
        text = json.dumps(value, ensure_ascii=False)  # (ids are plain: this is rare)
    else:
        text = f'"{value}"'
    at = buf.find(f'"{key}": {text}', start, end)
    return at if at >= 0 else buf.find(f'"{key}":{text}', start, end)


def read(
    file: str, prog: ev.Progress, now_ms: int, host: PluginHost = OPENCODE
) -> Iterator[ev.Event]:
    """Yield the events of the messages after the first ``prog.messages`` of an export of
    ``host`` (OpenCode, or a fork that exports the same document)."""
    prog.document = True
    skip = prog.messages
    decoder = json.JSONDecoder()
    utf8 = codecs.getincrementaldecoder("utf-8")(errors="replace")
    lines = _Lines()
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

        found = _MESSAGES.search(buf)
        while found is None:
            if not more():
                prog.offset = size
                return  # not an export
            found = _MESSAGES.search(buf)
        session = _session(buf, found.start(), decoder)
        if session is not None:
            _context(session, prog)
        sidechain = bool(session and session.get("parentID"))
        index = 0
        read_whole = skip
        step = _CHUNK
        i = found.end()
        while True:
            while i < len(buf) and buf[i] in _WS:
                i += 1
            if i == len(buf):
                lines.drop(buf, i)
                buf, i = "", 0
                if not more():
                    break
                continue
            if buf[i] == "]":
                break
            try:
                message, end = decoder.raw_decode(buf, i)
            except RecursionError:  # nested deeper than the parser goes: no end to be found
                prog.bad_lines += 1
                break
            except ValueError:
                if eof:
                    prog.bad_lines += 1
                    break
                lines.drop(buf, i)
                buf, i = buf[i:], 0
                more(step)
                step = min(step * 2, 64 << 20)
                continue
            step = _CHUNK
            start, i = i, end
            index += 1
            if index > skip and isinstance(message, dict):
                events = _message(
                    message, buf, start, end, lines, file, prog, sidechain, now_ms, host
                )
                if events is None:
                    break  # still being answered: read again, whole, by the next scan
                read_whole = index
                yield from events
            if i > _CHUNK:
                lines.drop(buf, i)
                buf, i = buf[i:], 0
    prog.messages = read_whole
    prog.offset = size
    prog.line = index


def _session(buf: str, stop: int, decoder: json.JSONDecoder) -> dict[str, Any] | None:
    """The session ``info`` that opens the document (OpenCode writes it before the messages)."""
    head = _INFO.match(buf, 0, stop)
    if head is None:
        return None
    try:
        info, _ = decoder.raw_decode(buf, head.end())
    except (ValueError, RecursionError):
        return None
    return info if isinstance(info, dict) else None


def _context(info: dict[str, Any], prog: ev.Progress) -> None:
    if isinstance(info.get("id"), str) and info["id"]:
        prog.session_id = info["id"]
    if isinstance(info.get("directory"), str) and info["directory"]:
        prog.project = info["directory"]


def _message(
    message: dict[str, Any],
    buf: str,
    start: int,
    end: int,
    lines: _Lines,
    file: str,
    prog: ev.Progress,
    sidechain: bool,
    now_ms: int,
    host: PluginHost,
) -> list[ev.Event] | None:
    """The events of one message of the document (``buf[start:end]``), or ``None`` when it is
    still being answered."""
    info = message.get("info")
    info = info if isinstance(info, dict) else {}
    parts = message.get("parts")
    parts = parts if isinstance(parts, list) else []
    times = info.get("time")
    created = times.get("created") if isinstance(times, dict) else None
    fresh = isinstance(created, int) and now_ms - created < reader.STALE_MS
    if fresh and not all(reader.final(p if isinstance(p, dict) else None, info) for p in parts):
        return None
    if prog.session_id is None and isinstance(info.get("sessionID"), str):
        prog.session_id = info["sessionID"]
    if prog.project is None:
        path = info.get("path")
        if isinstance(path, dict) and isinstance(path.get("cwd"), str):
            prog.project = path["cwd"]
    out: list[ev.Event] = []
    cursor = start
    when = reader.iso(created)
    for part in parts:
        if not isinstance(part, dict) or part.get("type") not in _EVENTFUL:
            continue  # (steps, reasoning, patches: no event, so no line to look for)
        at = -1
        if part.get("type") == "tool":
            at = _find(buf, "callID", part.get("callID"), cursor, end)
        if at < 0:
            at = _find(buf, "id", part.get("id"), cursor, end)
        if at >= 0:
            cursor = at
        base: dict[str, Any] = {
            "session_id": prog.session_id,
            "project": prog.project,
            "time": when,
            "file": file,
            "line": lines.of(buf, cursor),
            "offset": 0,
            "sidechain": sidechain,
        }
        out.extend(reader.part_events(part, info, base, host))
        if at >= 0:
            cursor = at + 1
    return out
