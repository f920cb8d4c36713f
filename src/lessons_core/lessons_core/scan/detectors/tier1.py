"""Tier 1: ``#lesson … #/lesson`` blocks the agent wrote itself.

The session-start protocol (:mod:`lessons_core.protocol`) tells the agent it may record a mistake
and its fix as a block of ``field: value`` lines. Only the agent's own prose counts: a block
quoted back in a tool result (a file that documents the protocol, a grep hit) or pasted by the
user is not the agent reporting a lesson, so only assistant-text events are read. The protocol's
own example and blocks still holding placeholders are rejected, because an agent that echoes the
template has not learned anything.

Parsing is forgiving of what models actually write: any field order, ``problem``/``solution`` for
``mistake``/``fix``, CRLF line ends, indentation, Markdown bullets, numbered items and quotes, bold
keys (``**tool**:`` and ``**tool:**``), code fences around or inside the block, and values that
continue on the next lines.

A value is a placeholder only when it is *nothing but* a placeholder (``<what went wrong>``,
``TODO``): ``git checkout <branch> fails`` is a real lesson that quotes a usage line. A trigger
written as prose ("running tests") is kept as written, so intake refuses it like any other prose
trigger instead of it becoming a pattern on the word ``running``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from lessons_core.models import Candidate, Config, Evidence
from lessons_core.patterns import kept_programs
from lessons_core.privacy import redact_head
from lessons_core.scan import events as ev
from lessons_core.scan import scoring
from lessons_core.scan.detectors import triggers

NAME = "tier1"

try:  # the protocol module defines the block's spelling; fall back to the same defaults
    from lessons_core import protocol as _protocol

    OPEN: str = getattr(_protocol, "OPEN", "#lesson")
    CLOSE: str = getattr(_protocol, "CLOSE", "#/lesson")
    _ALIASES: dict[str, str] = dict(getattr(_protocol, "ALIASES", {}))
    _TEMPLATE_TEXT: str = str(getattr(_protocol, "PROTOCOL_TEXT", ""))
except ImportError:  # pragma: no cover - the protocol ships with the core
    OPEN, CLOSE, _ALIASES, _TEMPLATE_TEXT = "#lesson", "#/lesson", {}, ""

ALIASES: dict[str, str] = {
    "problem": "mistake",
    "error": "mistake",
    "solution": "fix",
    "remediation": "fix",
    "correction": "fix",
    "pattern": "trigger",
    "triggers": "trigger",
    "command": "trigger",
    "title": "summary",
    "tag": "tags",
    **_ALIASES,
}
KNOWN = frozenset(
    {"tool", "trigger", "mistake", "fix", "tags", "summary", "scope", "type", "priority"}
)

_OPEN_AT = re.escape(OPEN) + r"(?![/\w-])"
#: From an opening marker to the next closing one, with no other opening marker between (prose
#: that names ``#lesson`` before a real block must not swallow it).
_BLOCK = kept_programs.compile(
    _OPEN_AT + r"((?:(?!" + _OPEN_AT + r").)*?)" + re.escape(CLOSE), re.DOTALL
)
#: ``key: value`` after any Markdown decoration: quote marks, bullets, numbers, bold or italic
#: markers (closing either before the colon, ``**tool**:``, or after it, ``**tool:**``).
_FIELD = kept_programs.compile(
    r"^[\s>*+_`-]*(?:\d{1,2}[.)]\s+)?[*_`]*([A-Za-z][A-Za-z _-]{0,20}?)[*_`]*\s*:[*_`]*\s?(.*)$"
)
#: A line that is decoration only (a code fence, a bare bullet or quote mark): never a value.
_DECORATION = kept_programs.compile(r"^(?:```|~~~).*$|^[\s>*+_`-]*$")
#: Markers of an unfilled template; a value made of nothing else is a placeholder.
_PLACEHOLDER = kept_programs.compile(
    r"<[A-Za-z][A-Za-z0-9 _/|-]{0,40}>|\.\.\.|…|\bTODO\b|\bTBD\b|\bFIXME\b|\bXXX\b|\{\{.*?\}\}"
)
#: A value cut off with an ellipsis ("the build failed because of ..."), not Go's ``./...``.
_CUT_OFF = kept_programs.compile(r"(?<!/)(?:\.\.\.|…)\W*$")
_REGEX_HINT = kept_programs.compile(r"\\[bdswBDSW.]|\(\?|\.\*|\[\^|\$$|^\^|\\\(|\|")
#: Regex syntax removed from a trigger to read the command words in it (for tags).
_REGEX_SYNTAX = kept_programs.compile(r"\(\?[^)]*\)|\\[bBsSdDwW]|[\\^$()|*+?\[\]{}]")
_FILE_TOOLS = frozenset({"Read", "Edit", "Write", "MultiEdit", "NotebookEdit"})
_TOOL_NAMES = {
    "bash": "Bash",
    "shell": "Bash",
    "sh": "Bash",
    "terminal": "Bash",
    "run_shell_command": "Bash",
    "exec_command": "Bash",
    "read": "Read",
    "read_file": "Read",
    "edit": "Edit",
    "replace": "Edit",
    "apply_patch": "Edit",
    "write": "Write",
    "write_file": "Write",
    "glob": "Glob",
    "grep": "Grep",
    "webfetch": "WebFetch",
    "web_fetch": "WebFetch",
}


def parse_blocks(text: str) -> list[dict[str, str]]:
    """Every ``#lesson`` block in ``text`` as a dict of canonical field names → values."""
    if CLOSE not in text:
        return []  # (an opening marker alone would make the search walk the whole text)
    return [parse_fields(m.group(1)) for m in _BLOCK.finditer(text)]


def parse_fields(body: str) -> dict[str, str]:
    """``key: value`` lines; unknown keys are kept, continuation lines join the last field."""
    fields: dict[str, str] = {}
    last: str | None = None
    for raw in body.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw.strip()
        if not line or _DECORATION.match(line):
            continue
        m = _FIELD.match(line)
        key = m.group(1).strip(" _").lower().replace(" ", "_").replace("-", "_") if m else None
        if m and key is not None and (ALIASES.get(key, key) in KNOWN or last is None):
            key = ALIASES.get(key, key)
            fields[key] = m.group(2).strip().strip("`").strip()
            last = key
        elif last is not None:
            fields[last] = f"{fields[last]} {line}".strip()
    return fields


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _template_values() -> frozenset[str]:
    values: set[str] = set()
    for block in parse_blocks(_TEMPLATE_TEXT):
        values.update(_norm(v) for v in block.values() if v)
    return frozenset(values)


TEMPLATE_VALUES = _template_values()


def rejection(fields: dict[str, str]) -> str | None:
    """Why a parsed block is not a lesson, or ``None`` when it is one."""
    mistake = fields.get("mistake", "")
    fix = fields.get("fix", "")
    if not mistake or not fix:
        return "missing mistake or fix"
    for name in ("mistake", "fix", "trigger", "tool"):
        value = fields.get(name, "")
        if value and is_placeholder(value) and not (name == "trigger" and "(?<" in value):
            return f"placeholder in {name}"
    if _norm(mistake) in TEMPLATE_VALUES or _norm(fix) in TEMPLATE_VALUES:
        return "protocol template"
    return None


def is_placeholder(value: str) -> bool:
    """Whether a value is an unfilled template slot: nothing but placeholders (and punctuation),
    or text cut off with an ellipsis. A placeholder inside longer text is a quoted usage line."""
    if _CUT_OFF.search(value):
        return True
    if not _PLACEHOLDER.search(value):
        return False
    return not re.search(r"\w", _PLACEHOLDER.sub("", value))


def canonical_tool(value: str | None) -> str | None:
    if not value:
        return None
    value = value.strip().strip("`")
    return _TOOL_NAMES.get(value.lower(), value)


def trigger_for(tool: str | None, trigger: str | None) -> str | None:
    """Keep a trigger that already is a regex (or a glob for file tools); generalise a literal
    command line the way Tier 2 does."""
    if not trigger:
        return None
    from lessons_core.scan.intake import prose_trigger

    if prose_trigger(trigger):
        return trigger  # as written: intake refuses a prose trigger
    if tool in _FILE_TOOLS:
        if "*" in trigger:
            return trigger
        return triggers.path_trigger(trigger) or trigger
    if _REGEX_HINT.search(trigger):
        try:
            re.compile(trigger)
        except re.error:
            return re.escape(trigger)
        # Kept as written even when unsafe: intake then holds the block for review.
        return trigger
    return triggers.command_trigger(trigger) or re.escape(trigger)


def _summary(fields: dict[str, str]) -> str:
    # Redact before cutting: a token cut in half no longer matches its rule.
    if fields.get("summary") and not is_placeholder(fields["summary"]):
        # (a left-over ``<one line>`` falls back to the mistake)
        return redact_head(fields["summary"], 120)[:120]
    # The first sentence: a stop after a word, not the dots of ``./...`` or ``../``.
    first = re.split(r"(?<=\w[.;!?])\s", fields["mistake"], maxsplit=1)[0]
    return redact_head(first, 120).rstrip(".;!? ")[:120]


def _tags(fields: dict[str, str], tool: str | None, trigger_text: str | None) -> tuple[str, ...]:
    tags = [t.strip() for t in re.split(r"[,\s]+", fields.get("tags", "")) if t.strip()]
    if not tags:
        is_cmd = tool in (None, "Bash")
        plain = _REGEX_SYNTAX.sub(" ", trigger_text or "") if is_cmd else None
        tags = list(triggers.tags_for(tool, plain.strip() if plain else None))
    return tuple(dict.fromkeys(tags))


def _priority(fields: dict[str, str]) -> int:
    try:
        return max(1, min(10, int(fields.get("priority", "6"))))
    except ValueError:
        return 6


def candidate_from(fields: dict[str, str], event: ev.Event, config: Config) -> Candidate:
    tool = canonical_tool(fields.get("tool"))
    raw_trigger = fields.get("trigger") or None
    return Candidate(
        id="",
        tier=1,
        agent=event.agent,
        tool=tool,
        trigger=trigger_for(tool, raw_trigger),
        mistake=fields["mistake"],
        fix=fields["fix"],
        summary=_summary(fields),
        tags=_tags(fields, tool, raw_trigger),
        confidence=scoring.confidence((), config.scoring, base=scoring.TIER1_CONFIDENCE),
        priority=_priority(fields),
        evidence=(Evidence(event.file, event.line, None, event.session_id),),
        project=event.project,
        detector=NAME,
    )


def _texts(events: Sequence[ev.Event]) -> Iterator[tuple[str, ev.Event]]:
    """Assistant texts, with a block split over consecutive text events joined back together."""
    pending: list[str] = []
    first: ev.Event | None = None
    for event in events:
        if event.kind != ev.ASSISTANT_TEXT:
            continue
        text = event.text
        if pending:
            pending.append(text)
            if CLOSE in text or len(pending) >= 4:
                assert first is not None
                yield "\n".join(pending), first
                pending, first = [], None
            continue
        if OPEN not in text:
            continue
        tail = text[text.rfind(OPEN) :]
        if CLOSE not in tail:
            pending, first = [text], event
            continue
        yield text, event
    if pending and first is not None:
        yield "\n".join(pending), first


def detect(
    events: Sequence[ev.Event], *, config: Config | None = None, **_: Any
) -> Iterable[Candidate]:
    """Candidates from every well-formed ``#lesson`` block in assistant text."""
    cfg = config or Config()
    for text, event in _texts(events):
        for fields in parse_blocks(text):
            if rejection(fields) is None:
                yield candidate_from(fields, event, cfg)
