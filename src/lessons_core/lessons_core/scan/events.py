"""The normalized events every transcript reader produces and every detector consumes.

Three agents write three very different logs; detectors should not care which one they read. A
reader turns one transcript into a stream of :class:`Event` objects of five kinds (tool call,
tool result, assistant text, user text, compaction), each stamped with the session, the project
directory, the agent, the time and the exact source position, so a candidate can cite the line it
came from.

Events are msgspec structs rather than attrs classes on purpose: a full scan creates millions
of them. A struct is built in C (about 130 ns with eighteen fields, against 430 ns for the
hand-written ``__init__`` it replaced and several times that for a frozen attrs class), its
fields are read faster, and it is not tracked by the garbage collector (``gc=False``: an event
holds strings, numbers and a tuple of strings, so it never closes a cycle), so the events of a
scan no longer set off a young collection every few hundred. Fields may be passed by position,
in the order of :data:`_FIELDS`, which reads better than eighteen keywords in a reader's busiest
lines and costs less. Events are treated as immutable by convention; nothing in the scanner
mutates one after the reader yielded it.
"""

from __future__ import annotations

from typing import Any

import msgspec

#: Event kinds.
TOOL_CALL = "tool_call"
TOOL_RESULT = "tool_result"
ASSISTANT_TEXT = "assistant_text"
USER_TEXT = "user_text"
COMPACTION = "compaction"

KINDS = frozenset({TOOL_CALL, TOOL_RESULT, ASSISTANT_TEXT, USER_TEXT, COMPACTION})

#: Failure classes of a tool result. ``ERROR`` and ``VALIDATION`` are the agent's own mistakes;
#: the others are decisions of the user or the harness and are kept apart by the detectors.
ERROR = "error"  # the command or tool ran and failed (non-zero exit, exception)
VALIDATION = "validation"  # the tool refused the call as malformed (string not found, not read)
TIMEOUT = "timeout"  # the call hung and was killed
REJECTED = "rejected"  # the user declined the call
DENIED = "denied"  # a permission rule or sandbox blocked it
INTERRUPTED = "interrupted"  # the user interrupted or cancelled it

#: Failure classes that count as the agent's mistake.
MISTAKES = frozenset({ERROR, VALIDATION, TIMEOUT})

_FIELDS = (
    "kind",
    "agent",
    "session_id",
    "project",
    "time",
    "file",
    "line",
    "offset",
    "tool",
    "native_tool",
    "command",
    "paths",
    "call_id",
    "failure",
    "exit_code",
    "text",
    "sidechain",
    "persistent_shell",
    "cwd",
    "escalated",
    "edit",
)


def edit_texts(old: Any, new: Any) -> tuple[str, str] | None:
    """An edit call's ``(text to replace, replacement)`` from its arguments, when both are text
    and the first is not empty (see :attr:`Event.edit`); readers give it whatever the agent
    calls the two (``old_string``, ``oldString``)."""
    if isinstance(old, str) and old and isinstance(new, str):
        return (old, new)
    return None


class Event(msgspec.Struct, gc=False):
    """One normalized transcript event.

    ``line`` is the 1-based line of the record (for a legacy single-document Gemini session, the
    message's index); ``offset`` the byte offset where that record starts. ``tool`` is the
    canonical tool name (Claude Code's spelling), ``native_tool`` the agent's own. For a tool
    result, ``failure`` is ``None`` when it succeeded, else one of the failure classes above;
    ``exit_code`` is set when the agent reported one. ``text`` holds the message text, the
    result output (possibly shortened) or the compaction summary. ``persistent_shell`` marks a
    tool call whose shell keeps the working directory an earlier ``cd`` left it in (the reader
    knows its agent's shell; some start every command in the project directory). ``cwd`` is
    the working directory a call named for itself (Codex's ``workdir``), and ``escalated``
    marks a call that asked to run outside the agent's sandbox: a call that failed and the same
    command run elsewhere, or with more permissions, are two different calls. ``edit`` is, for
    a call that replaces text in a file (an ``Edit``, a patch, a ``replace``), the text it
    expected to find and the text it wrote in its place: why such a call was refused shows
    only beside the call that later worked (:mod:`lessons_core.scan.detectors.edit_causes`).
    """

    kind: str
    agent: str
    session_id: str | None = None
    project: str | None = None
    time: str | None = None
    file: str = ""
    line: int = 0
    offset: int = 0
    tool: str | None = None
    native_tool: str | None = None
    command: str | None = None
    paths: tuple[str, ...] = ()
    call_id: str | None = None
    failure: str | None = None
    exit_code: int | None = None
    text: str = ""
    sidechain: bool = False
    persistent_shell: bool = False
    cwd: str | None = None
    escalated: bool = False
    edit: tuple[str, str] | None = None

    @property
    def ok(self) -> bool:
        """True for a tool result that did not fail (meaningless for other kinds)."""
        return self.failure is None

    @property
    def is_mistake(self) -> bool:
        """True for a tool result whose failure is the agent's own doing."""
        return self.failure in MISTAKES

    def as_dict(self) -> dict[str, Any]:
        """A plain dict (for debugging output and tests)."""
        return {name: getattr(self, name) for name in _FIELDS}

    def __repr__(self) -> str:
        bits = [f"{self.kind}", f"{self.file}:{self.line}"]
        if self.tool:
            bits.append(self.tool)
        if self.call_id:
            bits.append(f"call={self.call_id}")
        if self.failure:
            bits.append(f"failure={self.failure}")
        return f"Event({', '.join(bits)})"


class Progress:
    """How far a reader got; the engine stores it as the file's scan state.

    ``offset`` is the byte just after the last *complete* line consumed (a partial last line is
    never consumed), ``line`` the number of complete lines before it. ``messages`` counts the
    messages of a whole-document Gemini session (its resume point). ``bad_lines`` counts lines
    that could not be parsed; ``session_id`` and ``project`` carry context that only the first
    lines of a file state (Codex ``session_meta``) into the next incremental read. ``end``, when
    set, stops a JSONL read before the first line starting at or after it (one piece of a read
    shared by several processes, see :mod:`lessons_core.scan.pieces`).

    ``document`` is set by a reader that found a whole JSON document where its agent's files
    are usually JSON Lines (a legacy Gemini session saved under a ``.jsonl`` name, an OpenCode
    export): the file then resumes by ``messages``, as the agent's ``document_suffixes`` do.
    """

    __slots__ = (
        "bad_lines",
        "document",
        "end",
        "line",
        "messages",
        "offset",
        "project",
        "session_id",
    )

    def __init__(
        self,
        offset: int = 0,
        line: int = 0,
        *,
        messages: int = 0,
        session_id: str | None = None,
        project: str | None = None,
        end: int | None = None,
    ) -> None:
        self.offset = offset
        self.line = line
        self.messages = messages
        self.bad_lines = 0
        self.session_id = session_id
        self.project = project
        self.end = end
        self.document = False


#: Characters no token holds: a cut there never splits a secret in two.
_SEPARATORS = " \t\n\r\"'`,;<>()[]{}"
#: How far back (or on) from the middle a cut may move to reach a separator.
_SLACK = 400


def shorten(text: str, limit: int = 4000) -> str:
    """Keep the head and the tail of a long tool output: errors sit at either end.

    The cuts fall on separators (whitespace, quotes, brackets), never inside a token: half a
    token no longer matches the rule that would redact it later. A text with no separator near
    either cut (one long blob) is redacted whole first.
    """
    if len(text) <= limit:
        return text
    half = limit // 2
    head = max(text.rfind(sep, half - _SLACK, half + 1) for sep in _SEPARATORS)
    tails = [i for i in (text.find(sep, len(text) - half - 1) for sep in _SEPARATORS) if i >= 0]
    tail = min(tails, default=-1)
    if head < 0 or tail < 0 or tail > len(text) - half + _SLACK:
        from lessons_core.privacy import redact

        redacted = redact(text)
        return f"{redacted[:half]}\n…\n{redacted[-half:]}"
    return f"{text[:head]}\n…\n{text[tail:]}"
