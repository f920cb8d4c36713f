"""The parts of a Claude Code transcript line the reader uses, as msgspec structs.

A transcript is mostly bytes no detector reads: file contents in tool results, the same content
again in ``toolUseResult``, reasoning blocks, progress records that repeat a sub-agent's
messages. Decoding a line into these structs keeps only the fields named here; msgspec steps
over the rest in C without building a Python object for it, which reads a whole transcript
faster than parsing only its assistant lines into dicts did. The structs are not tracked by the
garbage collector (``gc=False``): they never form a cycle, and a scan makes hundreds of thousands.

Every field is optional, and the types are loose where Claude Code's own are (``Any``), strict
where the reader relies on a shape (a message's content is a string or a list of objects). A
line of another shape fails validation and is read from a plain parse instead (see
:func:`lessons_claude.reader.read`), so a schema change costs speed, never events.
"""

from __future__ import annotations

from typing import Any

import msgspec


class ToolInput(msgspec.Struct, gc=False):
    """A tool call's input, reduced to its command, the paths it names and an edit's texts."""

    command: Any = None
    file_path: Any = None
    notebook_path: Any = None
    path: Any = None
    edits: Any = None
    old_string: Any = None
    new_string: Any = None


class Block(msgspec.Struct, gc=False):
    """One content block: text, a tool call or a tool result (a result's content is left
    encoded: only a failed result's is ever read)."""

    type: Any = None
    text: Any = None
    name: Any = None
    id: Any = None
    input: ToolInput | None = None
    tool_use_id: Any = None
    is_error: Any = None


class Message(msgspec.Struct, gc=False):
    content: list[Block] | str | None = None


class UseResult(msgspec.Struct, gc=False):
    """The harness's own account of a call (``toolUseResult``): only whether it was cut off."""

    interrupted: Any = None


class Record(msgspec.Struct, gc=False):
    """One transcript line's envelope and message."""

    type: Any = None
    sessionId: Any = None  # noqa: N815 (Claude Code's field names)
    session_id: Any = None
    cwd: Any = None
    timestamp: Any = None
    isSidechain: Any = None  # noqa: N815
    isMeta: Any = None  # noqa: N815
    isApiErrorMessage: Any = None  # noqa: N815
    isCompactSummary: Any = None  # noqa: N815
    subtype: Any = None
    sourceToolUseID: Any = None  # noqa: N815
    toolUseResult: UseResult | str | list[msgspec.Raw] | None = None  # noqa: N815
    message: Message | None = None


_DECODER = msgspec.json.Decoder(Record)
#: One line into a :class:`Record`.
decode = _DECODER.decode
#: A run of lines into a list of :class:`Record` (values are split at whitespace, not lines).
decode_lines = _DECODER.decode_lines
