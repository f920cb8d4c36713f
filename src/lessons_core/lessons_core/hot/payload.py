"""Pieces every agent's hot adapter needs to read a hook payload and answer it. Standard library.

The agents disagree on event names, tool names and the shape of an answer, and each adapter keeps
those differences to itself. What they agree on lives here, once: how a path named in a tool's
input becomes the absolute path lessons match against, how an error text is kept to a size the
context can carry, the skeleton of the core's event dict, and how a lesson's trailer is added to
its context.
"""

# os.path, not pathlib: importing pathlib costs the hook process more than these calls.
# ruff: noqa: PTH111, PTH117, PTH118

import os

#: Characters of an error text kept for the core (half from the start, half from the end).
ERROR_LIMIT = 8000

#: The reason given when the core denies a call without one (agents refuse a blank reason).
DEFAULT_DENY = "Blocked by a lesson."


def text(value):
    """``value`` if it is a string, else ``None``."""
    return value if isinstance(value, str) else None


def blocks_text(content):
    """The text of a tool result's ``content``: a string, or a list of blocks whose ``text``
    parts are joined by newlines (Claude Code's tool results, MCP's ``content``)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [block.get("text") for block in content if isinstance(block, dict)]
        return "\n".join(part for part in parts if isinstance(part, str))
    return ""


#: The last lines of the report Gemini CLI's shell tool writes (and Qwen Code's, its fork), after
#: what the command printed: each one line, each starting so.
_REPORT_TAIL = ("Exit Code: ", "Signal: ", "Background PIDs: ", "Process Group PGID: ")
#: What stands for nothing in that report.
_REPORT_NOTHING = ("(empty)", "(none)", "")


def shell_report_output(report):
    """What a shell command printed, out of the report Gemini CLI's and Qwen Code's shell tool
    make of it; any other text as it is.

    The report is ``Command: …``, ``Directory: …`` (older releases), ``Output: …``, an ``Error:
    …`` line and a tail (``Exit Code: N``, ``Signal: …``, ``Background PIDs: …``, ``Process
    Group PGID: N``), each part there only when it says something in newer releases. The output
    is everything from ``Output:`` to the tail: a line of the command's own that starts with
    ``Error:`` or ``Hint:`` is the command's, and stays. A lesson's error lines, found in the
    output, are matched line for line, so the headings must not stick to them.
    """
    lines = report.split("\n")
    if not lines[0].startswith(("Command: ", "Output: ")):
        return report
    end = len(lines)
    while end > 1 and lines[end - 1].startswith(_REPORT_TAIL):
        end -= 1
    error = ""
    if end > 1 and lines[end - 1].startswith("Error: "):
        end -= 1
        error = lines[end][len("Error: ") :].strip()
    start = next((i for i in range(end) if lines[i].startswith("Output: ")), None)
    output = ""
    if start is not None:
        output = "\n".join([lines[start][len("Output: ") :], *lines[start + 1 : end]]).strip()
    kept = [part for part in (output, error) if part not in _REPORT_NOTHING]
    return "\n".join(kept) or report


def absolute(path, cwd):
    """An absolute, normalised path; a relative one is taken against the session's ``cwd``."""
    path = os.path.expanduser(path)
    if not os.path.isabs(path) and cwd:
        path = os.path.join(cwd, path)
    return os.path.normpath(path)


def event_of(payload, events):
    """``(native event name, core event kind)`` of a payload, or ``None`` for one to ignore.

    ``events`` maps the agent's event names to the core's; anything that is not a JSON object
    naming one of them gets no answer.
    """
    if not isinstance(payload, dict):
        return None
    native = payload.get("hook_event_name")
    kind = events.get(native) if isinstance(native, str) else None
    if kind is None:
        return None
    return native, kind


def tool_call(payload):
    """``(native tool name, tool input)`` of a tool event: ``""`` and ``{}`` when absent or odd."""
    native = text(payload.get("tool_name")) or ""
    tool_input = payload.get("tool_input")
    return native, tool_input if isinstance(tool_input, dict) else {}


def paths_of(tool_input, keys, cwd):
    """Absolute paths of the non-empty string values under ``keys`` of ``tool_input``, in order."""
    paths = []
    for key in keys:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            paths.append(absolute(value, cwd))
    return paths


def first_text(tool_input, keys):
    """The first non-empty string value under ``keys`` of ``tool_input``, else ``None``."""
    for key in keys:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def clip(text, limit=ERROR_LIMIT):
    """``text`` cut to about ``limit`` characters, keeping its start and its end.

    A failing command's first lines say what ran and its last ones why it stopped; the middle
    is what a long log can spare.
    """
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n…\n{text[-half:]}"


def new_event(agent, kind, native, session_id, cwd, model=None, call_id=None):
    """The core's event dict with every common field present (see docs/architecture.md).

    ``native`` (the agent's own event name) is kept as ``native_event`` when given: adapters
    whose answer must name it read it back in ``render``.
    """
    event = {"agent": agent, "event": kind}
    if native is not None:
        event["native_event"] = native
    event.update(
        {
            "session_id": session_id,
            "cwd": cwd,
            "model": model,
            "tool": None,
            "command": None,
            "paths": [],
            "content": None,
            "source": None,
            "prompt": None,
            "error": None,
            "call_id": call_id,
        }
    )
    return event


def with_trailer(context, trailer):
    """``context`` followed by the lesson's ``trailer`` line; ``None`` when there is no context."""
    if not context:
        return None
    if trailer:
        return f"{context}\n{trailer}"
    return context


def context_answer(native, context):
    """The ``hookSpecificOutput`` answer that hands ``context`` to the model on event ``native``."""
    return {"hookSpecificOutput": {"hookEventName": native, "additionalContext": context}}


class LazyPattern:
    """A regular expression compiled on first use.

    Importing ``re`` (with ``enum`` and ``functools`` behind it) costs the hook process about
    6 ms, more than matching a whole manifest. Adapters parse some payloads with regexes — a
    patch header, an exit-code line — but most calls never need them, so the import is paid only
    by the payloads that do. Flags go inline in the source (``(?m)``, ``(?i)``).
    """

    __slots__ = ("_compiled", "source")

    def __init__(self, source):
        self.source = source
        self._compiled = None

    def _get(self):
        if self._compiled is None:
            import re

            self._compiled = re.compile(self.source)
        return self._compiled

    def match(self, text):
        return self._get().match(text)

    def search(self, text):
        return self._get().search(text)
