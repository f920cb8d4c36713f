"""Read Claude Code session transcripts (``projects/**/*.jsonl``) into normalized events.

Claude Code writes one JSON object per line: ``assistant`` lines hold one content block each
(text, ``thinking`` or ``tool_use``; newer versions may put a whole response on one line),
``user`` lines hold typed prompts or ``tool_result`` blocks, ``system``
lines mark compaction. Sub-agents live either beside the session (``agent-<id>.jsonl``, up to
2.1.1) or under ``<session>/subagents/`` (2.1.2+); both are plain transcripts of the same shape,
so one reader serves all of them.

Speed comes from not building what cannot matter. Each line is decoded into the few fields the
reader uses (:mod:`lessons_claude.records`): msgspec steps over file contents, reasoning and
bookkeeping records in C. Only a line of an unexpected shape, and the rare line whose event needs
more than those fields (a failed or interrupted result, a compaction summary), is parsed whole.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import msgspec

from lessons_claude import records
from lessons_claude.failures import classify_claude
from lessons_claude.hot_names import NATIVE_TO_CANONICAL
from lessons_claude.roots import transcript_roots as transcript_roots
from lessons_core.api import Buffer, as_text, compile_regex, iter_runs, loads
from lessons_core.api import events as ev
from lessons_core.api.events import Event

AGENT = "claude"

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
_FEEDBACK = compile_regex(
    r"(?:the user said|reason for the rejection):\s*(.+)", re.DOTALL | re.IGNORECASE
)


def canonical(name: str) -> str:
    return str(NATIVE_TO_CANONICAL.get(name, name))


def _named_paths(values: Iterable[Any], edits: Any) -> tuple[str, ...]:
    """The paths a tool call names: its path arguments (``file_path``, ``notebook_path``,
    ``path``, in that order) and each edit's ``file_path``, once each."""
    out = [value for value in values if isinstance(value, str) and value]
    if isinstance(edits, list):
        for item in edits:
            if isinstance(item, dict) and isinstance(item.get("file_path"), str):
                out.append(item["file_path"])
    return tuple(dict.fromkeys(out))


def _paths(tool_input: Any) -> tuple[str, ...]:
    """:func:`_named_paths` of a tool input parsed into plain values."""
    if not isinstance(tool_input, dict):
        return ()
    return _named_paths((tool_input.get(key) for key in _PATH_KEYS), tool_input.get("edits"))


def _input_paths(tool_input: records.ToolInput) -> tuple[str, ...]:
    """:func:`_named_paths` of a decoded tool input (the usual one names a single file)."""
    path = tool_input.file_path
    if tool_input.notebook_path is None and tool_input.path is None and tool_input.edits is None:
        return (path,) if isinstance(path, str) and path else ()
    return _named_paths((path, tool_input.notebook_path, tool_input.path), tool_input.edits)


class _Reading:
    """The state one read of a transcript carries from line to line."""

    __slots__ = ("calls", "file", "prog", "project", "session", "sidechain")

    def __init__(self, file: str, prog: ev.Progress) -> None:
        self.file = file
        self.prog = prog
        self.session = prog.session_id
        self.project = prog.project
        self.sidechain = "subagents" in Path(file).parts or Path(file).name.startswith("agent-")
        self.calls: dict[str, str] = {}  # call id -> canonical tool (to label results)

    def _envelope(self, sid: Any, cwd: Any) -> None:
        if isinstance(sid, str) and sid and sid != self.session:
            self.session = self.prog.session_id = sid
        if isinstance(cwd, str) and cwd and cwd != self.project:
            self.project = self.prog.project = cwd

    def assistant(
        self, record: records.Record, line_no: int, offset: int, out: list[ev.Event]
    ) -> None:
        """Append the events of a decoded assistant line: its text and its tool calls."""
        sid, cwd = record.sessionId or record.session_id, record.cwd
        if sid != self.session or cwd != self.project:
            self._envelope(sid, cwd)
        message = record.message
        content = message.content if message is not None else None
        if record.isApiErrorMessage or not isinstance(content, list):
            return
        stamp = record.timestamp
        when = stamp if isinstance(stamp, str) else None
        side = bool(record.isSidechain) or self.sidechain
        session, project, file = self.session, self.project, self.file
        for block in content:
            btype = block.type
            if btype == "text":
                text = block.text
                if isinstance(text, str) and text:
                    # (Fields by position, in the order of ``events._FIELDS``: see Event.)
                    out.append(
                        Event(
                            ev.ASSISTANT_TEXT, AGENT, session, project, when, file, line_no,
                            offset, None, None, None, (), None, None, None, text, side, False,
                        )
                    )  # fmt: skip
            elif btype == "tool_use":
                name = block.name
                if not isinstance(name, str):
                    continue
                tool = canonical(name)
                tool_input = block.input
                command = None
                paths: tuple[str, ...] = ()
                edit = None
                if tool_input is not None:
                    if isinstance(tool_input.command, str):
                        command = tool_input.command
                    paths = _input_paths(tool_input)
                    if tool_input.old_string is not None:
                        edit = ev.edit_texts(tool_input.old_string, tool_input.new_string)
                call_id = block.id if isinstance(block.id, str) else None
                if call_id:
                    self.calls[call_id] = tool
                out.append(
                    Event(
                        ev.TOOL_CALL, AGENT, session, project, when, file, line_no, offset,
                        tool, name, command, paths, call_id, None, None, "", side,
                        True,  # persistent_shell: the Bash tool keeps its cwd between calls
                        None, False, edit,
                    )
                )  # fmt: skip

    def user(self, record: records.Record, line_no: int, offset: int, out: list[ev.Event]) -> bool:
        """Append the events of a decoded user line: typed text, and successful results.

        Returns ``False``, having appended nothing, when the line holds what the decoded fields
        cannot give (a compaction summary, a failed or interrupted result, whose text is read):
        the caller parses it whole. The check rides on the one walk over the blocks.
        """
        if record.isCompactSummary:
            return False
        sid, cwd = record.sessionId or record.session_id, record.cwd
        if sid != self.session or cwd != self.project:
            self._envelope(sid, cwd)
        message = record.message
        if message is None:
            return True
        content = message.content
        stamp = record.timestamp
        session, project, file = self.session, self.project, self.file
        when = stamp if isinstance(stamp, str) else None
        side = bool(record.isSidechain) or self.sidechain
        meta = bool(record.isMeta)  # injected text, not typed; results still count
        if isinstance(content, str):
            if content and not meta and not content.lstrip().startswith(_SKIP_USER_PREFIXES):
                out.append(
                    Event(
                        ev.USER_TEXT, AGENT, session, project, when, file, line_no, offset,
                        None, None, None, (), None, None, None, content, side, False,
                    )
                )  # fmt: skip
            return True
        if content is None:
            return True
        fallback = record.sourceToolUseID
        first = len(out)
        for block in content:
            btype = block.type
            if btype == "tool_result":
                extra = record.toolUseResult
                if block.is_error or (isinstance(extra, records.UseResult) and extra.interrupted):
                    del out[first:]
                    return False
                # A successful result: its output is not read (no detector looks at it).
                call_id = block.tool_use_id or fallback
                if not isinstance(call_id, str):
                    call_id = None
                tool = self.calls.get(call_id) if call_id else None
                out.append(
                    Event(
                        ev.TOOL_RESULT, AGENT, session, project, when, file, line_no, offset,
                        tool, None, None, (), call_id, None, None, "", side, False,
                    )
                )  # fmt: skip
            elif btype == "text":
                text = block.text
                if (
                    isinstance(text, str)
                    and not meta
                    and text
                    and not text.lstrip().startswith(_SKIP_USER_PREFIXES)
                ):
                    out.append(
                        Event(
                            ev.USER_TEXT, AGENT, session, project, when, file, line_no, offset,
                            None, None, None, (), None, None, None, text, side, False,
                        )
                    )  # fmt: skip
        return True

    def line(
        self,
        record: records.Record | None,
        buf: Buffer,
        start: int,
        end: int,
        line_no: int,
        offset: int,
        out: list[ev.Event],
    ) -> None:
        """Append the events of the line ``buf[start:end]``, decoded as ``record`` (``None``: it
        did not decode into one): from the record where it holds them, else from a parse of the
        line (copied out of ``buf`` only then)."""
        if record is not None:
            kind = record.type
            if kind == "assistant":
                self.assistant(record, line_no, offset, out)
                return
            if kind == "user":
                if self.user(record, line_no, offset, out):
                    return
            elif kind != "system" or record.subtype != "compact_boundary":
                return  # bookkeeping, or a system line other than a compaction: no event
        self.parsed(buf, start, end, line_no, offset, out)

    def parsed(
        self, buf: Buffer, start: int, end: int, line_no: int, offset: int, out: list[ev.Event]
    ) -> None:
        """Append the events of the line ``buf[start:end]`` parsed whole (copied out of ``buf``
        for it); a line that is not JSON is counted as bad."""
        value = loads(buf[start:end], self.prog)
        if isinstance(value, dict):
            self.whole(value, line_no, offset, out)

    def whole(self, record: dict[str, Any], line_no: int, offset: int, out: list[ev.Event]) -> None:
        """Append the events of a line parsed whole into plain values."""
        self._envelope(record.get("sessionId") or record.get("session_id"), record.get("cwd"))
        stamp = record.get("timestamp")
        base: dict[str, Any] = {
            "session_id": self.session,
            "project": self.project,
            "time": stamp if isinstance(stamp, str) else None,
            "file": self.file,
            "line": line_no,
            "offset": offset,
            "sidechain": bool(record.get("isSidechain")) or self.sidechain,
        }
        kind = record.get("type")
        if kind == "system":
            if record.get("subtype") == "compact_boundary":
                out.append(
                    ev.Event(ev.COMPACTION, AGENT, text=as_text(record.get("content")), **base)
                )
            return
        message = record.get("message")
        if not isinstance(message, dict):
            return
        content = message.get("content")
        if kind == "assistant":
            if record.get("isApiErrorMessage") or not isinstance(content, list):
                return
            for block in content:
                if not isinstance(block, dict):
                    continue
                btype = block.get("type")
                if btype == "text":
                    text = block.get("text")
                    if isinstance(text, str) and text:
                        out.append(ev.Event(ev.ASSISTANT_TEXT, AGENT, text=text, **base))
                elif btype == "tool_use":
                    name = block.get("name")
                    if not isinstance(name, str):
                        continue
                    tool = canonical(name)
                    tool_input = block.get("input")
                    command = None
                    edit = None
                    if isinstance(tool_input, dict):
                        if isinstance(tool_input.get("command"), str):
                            command = tool_input["command"]
                        old, new = tool_input.get("old_string"), tool_input.get("new_string")
                        edit = ev.edit_texts(old, new)
                    call_id = block.get("id") if isinstance(block.get("id"), str) else None
                    if call_id:
                        self.calls[call_id] = tool
                    out.append(
                        ev.Event(
                            ev.TOOL_CALL,
                            AGENT,
                            tool=tool,
                            native_tool=name,
                            command=command,
                            paths=_paths(tool_input),
                            call_id=call_id,
                            persistent_shell=True,
                            edit=edit,
                            **base,
                        )
                    )
        elif kind == "user":
            if record.get("isCompactSummary"):
                out.append(ev.Event(ev.COMPACTION, AGENT, text=as_text(content), **base))
                return
            meta = bool(record.get("isMeta"))
            if isinstance(content, str):
                if content and not meta and not content.lstrip().startswith(_SKIP_USER_PREFIXES):
                    out.append(ev.Event(ev.USER_TEXT, AGENT, text=content, **base))
                return
            if not isinstance(content, list):
                return
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
                        out.append(ev.Event(ev.USER_TEXT, AGENT, text=text, **base))
                elif btype == "tool_result":
                    out.extend(_result(block, record, base, self.calls))


_OPEN, _CLOSE, _CR = ord("{"), ord("}"), ord("\r")
#: The most bytes of lines decoded in one call. A record costs about 130 bytes however short its
#: line: a whole 1 MiB chunk of ``{}`` lines made 45 MB of records at once, a run of 256 KiB
#: makes at most about 11 MB. Real lines are kilobytes long; a smaller run only means more calls.
RUN_BYTES = 256 << 10


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
    reading = _Reading(str(path), prog)
    for offset, buf, start, end in iter_runs(reading.file, prog, run_bytes=RUN_BYTES):
        first = prog.line + 1
        out: list[ev.Event] = []
        lines = _read_run(reading, buf, start, end, first, offset, out)
        if lines < 0:  # the run is not one object per line: each line on its own
            out.clear()
            lines = _read_lines(reading, buf, start, end, first, offset, out)
        prog.line += lines
        yield from out


def _read_run(
    reading: _Reading,
    buf: Buffer,
    start: int,
    end: int,
    line: int,
    offset: int,
    out: list[ev.Event],
) -> int:
    """Decode a run of lines in one call and append their events to ``out``; the number of
    lines, or -1 when the run must be read line by line.

    msgspec splits a run at whitespace between values, not at newlines, so the decoded records
    line up with the lines only when every line holds exactly one object. That is checked while
    the lines are walked for their offsets: every line must start with ``{`` and end with ``}``
    (such a line holds at least one whole object: JSON does not continue an object after a
    closing brace with an opening one), and there must be as many records as lines. Events are
    kept back until the run is checked, so a run that fails yields nothing twice.
    """
    try:
        found = records.decode_lines(memoryview(buf)[start:end])
    except (msgspec.DecodeError, RecursionError):  # a bad, odd or too deep line in the run
        return -1
    find = buf.find
    pos = start
    count = 0
    # (:meth:`_Reading.line`, unrolled: this loop runs once per line of every transcript.)
    assistant, user, parsed = reading.assistant, reading.user, reading.parsed
    for record in found:
        if pos >= end:
            return -1
        nl = find(b"\n", pos, end)
        tail = nl - 1 if buf[nl - 1] != _CR else nl - 2
        if buf[pos] != _OPEN or tail < pos or buf[tail] != _CLOSE:
            return -1
        kind = record.type
        if kind == "assistant":
            assistant(record, line + count, offset + pos - start, out)
        elif kind == "user":
            if not user(record, line + count, offset + pos - start, out):
                parsed(buf, pos, nl, line + count, offset + pos - start, out)
        elif kind == "system" and record.subtype == "compact_boundary":
            parsed(buf, pos, nl, line + count, offset + pos - start, out)
        count += 1
        pos = nl + 1
    return count if pos >= end else -1


def _read_lines(
    reading: _Reading,
    buf: Buffer,
    start: int,
    end: int,
    line: int,
    offset: int,
    out: list[ev.Event],
) -> int:
    """Read a run line by line: a line that is not one object of the expected shape is parsed
    whole (and counted as bad when it is not JSON at all). Returns the number of lines."""
    find = buf.find
    pos = start
    count = 0
    decode = records.decode
    while pos < end:
        nl = find(b"\n", pos, end)
        try:
            record = decode(memoryview(buf)[pos:nl])  # decoded in place: the line is not copied
        except (msgspec.DecodeError, RecursionError):  # not JSON, another shape, or too deep
            record = None
        reading.line(record, buf, pos, nl, line + count, offset + pos - start, out)
        count += 1
        pos = nl + 1
    return count


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
