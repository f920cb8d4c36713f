"""Sort failed tool results into the agent's mistakes and everyone else's decisions.

Every agent reports "this call did not work" for very different reasons: the command exited
non-zero, the tool rejected malformed input, the user said no, a permission rule blocked it, the
call hung. Only the first few are mistakes worth a lesson; the others would teach the agent to
avoid things the user merely declined that day. The readers call these helpers so the three
agents classify alike.
"""

from __future__ import annotations

import re

from lessons_core.privacy import redact_head
from lessons_core.scan import events as ev

# The failure classes, as pattern sources (caseless): they are only ever searched together, in
# :data:`_ANY_CLASS_LOWER` (or :func:`_any_class`), so compiling each alone would be wasted.
_REJECTED = (
    r"doesn't want to (?:proceed|take this action)|tool use was rejected|User rejected|"
    r"patch rejected by user|\[Operation Cancelled\]|User cancelled"
)
_DENIED = (
    r"requires approval|was blocked\. For security|haven't granted it yet|"
    r"sandbox denied|not allowed by (?:the )?(?:sandbox|policy)|approval policy|"
    r"Permission to use \S+ has been denied"
)
_INTERRUPTED = (
    r"\[Request interrupted|Interrupted by user|Sibling tool call errored|"
    r"turn_aborted|was cancelled|Request cancelled"
)
_TIMEOUT = r"timed out|timeout (?:after|exceeded|of \d)|Command killed.*timeout|deadline exceeded"
_VALIDATION = (
    r"<tool_use_error>|File has not been read yet|File does not exist|String to replace not found|"
    r"Found \d+ matches of the string to replace|Path does not exist|Path must be absolute|"
    r"not found in registry|0 occurrences found for old_string|apply_patch verification failed|"
    r"InputValidationError|Invalid tool parameters|EISDIR"
)
#: Words that make a short is_error text an error report rather than the user's typed feedback.
_ERRORISH = re.compile(
    r"error|fail|not found|no such|denied|exit|traceback|exception|cannot|can't|invalid|"
    r"undefined|fatal|missing|refused|unable|status code|illegal|unknown|ERR!",
    re.IGNORECASE,
)

#: Harnesses state why a call failed at the start of its result; the rest is command output.
_HEAD = 500

_CLAUDE_EXIT = re.compile(r"\AExit code (\d+)")
_CODEX_EXIT = re.compile(
    r"(?:^Exit code: (-?\d+)$|^Process exited with code (-?\d+)$|exit code:? (-?\d+))",
    re.MULTILINE | re.IGNORECASE,
)
# Some recordings carry the newlines escaped (a literal backslash-n), so accept both.
_GEMINI_EXIT = re.compile(r"(?:^|\\n)Exit Code: (-?\d+)", re.MULTILINE)

#: Lines of an error output worth remembering for failure-time recall.
_ERROR_LINE = re.compile(
    r"error|fail|not found|no such|denied|traceback|exception|cannot|can't|invalid|undefined|"
    r"fatal|missing|refused|unable|unknown|timed out|no matches|ERR!|E\d{3,4}\b|\bexit code\b",
    re.IGNORECASE,
)


#: The classes in the order they win when several match.
_PRIORITY = (ev.REJECTED, ev.DENIED, ev.INTERRUPTED, ev.TIMEOUT, ev.VALIDATION)
#: All class patterns in one, so a text is scanned once.
_CLASSES = tuple(
    zip(_PRIORITY, (_REJECTED, _DENIED, _INTERRUPTED, _TIMEOUT, _VALIDATION), strict=True)
)
_ANY_CLASS: re.Pattern[str] | None = None


def _any_class() -> re.Pattern[str]:
    """All class patterns in one, caseless (compiled on first use: only non-ASCII texts)."""
    global _ANY_CLASS
    if _ANY_CLASS is None:
        _ANY_CLASS = re.compile(
            "|".join(f"(?P<{kind}>{source})" for kind, source in _CLASSES), re.IGNORECASE
        )
    return _ANY_CLASS


def _lower_literals(pattern: str) -> str:
    """``pattern`` with its literal letters lowercased and its escapes (``\\S``, ``\\d``) kept."""
    out: list[str] = []
    escaped = False
    for char in pattern:
        out.append(char if escaped else char.lower())
        escaped = not escaped and char == "\\"
    return "".join(out)


#: The same alternation, case-sensitive, for lowercased ASCII text: on ASCII a caseless match is
#: a match of the lowercased text, and the regex engine runs several times faster without
#: ``IGNORECASE`` (error texts are read for every failed call of a scan).
_ANY_CLASS_LOWER = re.compile(
    "|".join(f"(?P<{kind}>{_lower_literals(source)})" for kind, source in _CLASSES)
)


def _class_of(head: str) -> str | None:
    if head.isascii():
        found = {m.lastgroup for m in _ANY_CLASS_LOWER.finditer(head.lower())}
    else:
        found = {m.lastgroup for m in _any_class().finditer(head)}
    for kind in _PRIORITY:
        if kind in found:
            return kind
    return None


def classify_claude(text: str) -> tuple[str, int | None]:
    """Classify the text of a Claude Code ``is_error`` tool result.

    Returns ``(failure class, exit code or None)``. Claude Code 2.0.x stored the user's typed
    feedback as the whole content of a rejected call, so a short single line that reads like
    neither an error nor a tool message counts as a rejection.
    """
    head = text[:_HEAD]
    m = _CLAUDE_EXIT.match(head)
    code = int(m.group(1)) if m else None
    kind = _class_of(head)
    if kind is not None:
        return kind, code
    stripped = head.strip()
    if (
        code is None
        and len(stripped) < 300
        and "\n" not in stripped
        and not _ERRORISH.search(stripped)
    ):
        return ev.REJECTED, None
    return ev.ERROR, code


def classify_text(text: str) -> str | None:
    """Classify a failure text known to be a failure, without agent specifics."""
    return _class_of(text[:_HEAD])


def codex_exit_code(text: str) -> int | None:
    """The exit code stated in a Codex output text (freeform, unified exec or sandbox text)."""
    head = text[:3000]
    at = head.find("xit")
    if at < 0:
        return None
    m = _CODEX_EXIT.search(head, max(0, at - 40))
    if not m:
        return None
    value = next(g for g in m.groups() if g is not None)
    return int(value)


def gemini_exit_code(text: str) -> int | None:
    """The ``Exit Code: N`` line of Gemini's shell tool output."""
    if "Exit Code: " not in text:
        return None
    m = _GEMINI_EXIT.search(text)
    return int(m.group(1)) if m else None


def error_lines(text: str, limit: int = 5) -> tuple[str, ...]:
    """The lines of an output that state the error, whitespace collapsed, each ≤ 200 chars."""
    out: list[str] = []
    seen: set[str] = set()
    for raw in text.splitlines():
        line = " ".join(raw.split())
        if not line or len(line) < 4 or line in seen:
            continue
        if line.startswith(("Exit code", "Chunk ID", "Wall time", "Original token count")):
            continue
        if _ERROR_LINE.search(line):
            seen.add(line)
            out.append(redact_head(line, 200)[:200])  # redact first: a cut token leaks
            if len(out) >= limit:
                break
    return tuple(out)
