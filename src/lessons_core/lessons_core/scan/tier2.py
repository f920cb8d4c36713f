"""Tier 2: mistake → correction patterns found by heuristics, without the agent's help.

For every tool result that failed through the agent's own doing (not a rejection or a permission
denial), a window of the events that follow is searched for what happened next:

* a *similar* later call (same executable and subcommand, or same tool on the same file) that
  worked, with a different command or input — the correction (``error_then_success``);
* the user correcting the agent in between ("no, use …", "that's wrong", "don't …");
* the same failing call repeated three times or more (``retry_loop``);
* the failure being a hang or timeout;
* the agent explaining its own mistake ("I see the issue", "the problem was").

An explicit user correction after a call that did not fail is a detection too: the user's words
say what was wrong. Confidence and priority follow :mod:`lessons_core.scan.scoring`. A detection
needs a fix to become a candidate; a failure nobody fixed teaches nothing.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from lessons_core.models import Candidate, Config, Evidence
from lessons_core.privacy import redact_head
from lessons_core.scan import events as ev
from lessons_core.scan import scoring, triggers
from lessons_core.scan.failures import error_lines

NAME = "tier2"
#: How many events after a failure are searched for its correction.
WINDOW = 30
RETRY_THRESHOLD = 3

USER_CORRECTION = re.compile(
    r"""^\W*(?:
        no(?:pe)?\b[,.!]?\s*(?:use|do|don'?t|not|that|it|you|we|run|the|instead|stop|wrong)?
      | that'?s\s+(?:wrong|not\s+(?:right|correct|what|how))
      | (?:this|that|it)\s+(?:is|was)\s+wrong
      | wrong\b
      | don'?t\b | do\s+not\b | never\b | stop\b
      | (?:you\s+)?should(?:n'?t|\s+not)?\s+(?:use|have|run|be)
      | actually[,\s]
      | please\s+(?:use|don'?t|do\s+not|stop)
      | use\s+\S+\s+instead
    )""",
    re.IGNORECASE | re.VERBOSE,
)
_INSTEAD = re.compile(r"\binstead\b|\bnot\s+\S+,\s*(?:but|use)\b", re.IGNORECASE)
SELF_DIAGNOSIS = re.compile(
    r"""\b(?:
        I\s+see\s+(?:the|what)\s+(?:issue|problem|mistake|error)
      | the\s+(?:issue|problem|error|mistake|culprit)\s+(?:was|is|here\s+is)
      | (?:that'?s|this\s+is)\s+why
      | I\s+was\s+wrong | my\s+mistake | I\s+made\s+a\s+mistake
      | the\s+fix\s+is | turns\s+out | root\s+cause
      | (?:it\s+)?looks\s+like\s+the\s+(?:issue|problem)
      | I\s+(?:need|have)\s+to\s+(?:first|use|read)
      | should\s+have\s+(?:used|run|read|checked)
    )""",
    re.IGNORECASE | re.VERBOSE,
)
_FILE_TOOLS = frozenset({"Read", "Edit", "Write", "MultiEdit", "NotebookEdit"})
#: Tools where a failure saying "no such script/command" is fixed by another subcommand of the
#: same tool (``npm test`` → ``npm run test:unit``). Elsewhere (git, docker) another subcommand
#: is another task, not a correction.
FALLBACK_TOOLS = frozenset(
    {"npm", "pnpm", "yarn", "bun", "make", "just", "task", "mise", "cargo", "uv", "poetry", "pip"}
)
_MISUSE = re.compile(
    r"missing script|unknown (?:command|subcommand|script|target)|no rule to make target|"
    r"no such (?:command|subcommand|task)|did you mean|not a valid command|is not a task",
    re.IGNORECASE,
)
#: Tools that steer the conversation rather than act on the project.
_META_TOOLS = frozenset(
    {"ExitPlanMode", "EnterPlanMode", "TodoWrite", "AskUserQuestion", "Agent", "Task"}
)


def _key(call: ev.Event) -> tuple[str, ...]:
    """What makes two calls "the same kind of call"."""
    tool = call.tool or "?"
    if call.command:
        shape = triggers.main_shape(call.command)
        if shape is not None:
            return (tool, shape.exe, shape.sub or "")
        return (tool, call.command)
    if call.paths and tool in _FILE_TOOLS:
        return (tool, call.paths[0])
    return (tool,)


def _keys(call: ev.Event) -> set[tuple[str, ...]]:
    """The kinds of every simple command in a call (``a && b`` is both an ``a`` and a ``b``)."""
    if not call.command:
        return {_key(call)}
    tool = call.tool or "?"
    out = {_key(call)}
    for shape in triggers.shapes(call.command):
        out.add((tool, shape.exe, shape.sub or ""))
    return out


def _same_input(a: ev.Event, b: ev.Event) -> bool:
    if a.command or b.command:
        return " ".join((a.command or "").split()) == " ".join((b.command or "").split())
    return False  # file tools: a retry of the same edit usually differs in its strings


def _one_line(text: str, limit: int = 160) -> str:
    text = " ".join(redact_head(text, limit).split())  # redact, then cut: a cut token leaks
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _first_sentence(text: str) -> str:
    m = SELF_DIAGNOSIS.search(text)
    start = 0
    if m:
        start = max(text.rfind(c, 0, m.start()) for c in ".!?\n") + 1
    chunk = text[start:].lstrip()
    sentence = re.split(r"(?<=[.!?])\s", chunk, maxsplit=1)[0]
    return _one_line(sentence, 240)


class Finding:
    """One detection: ``call`` and its ``result`` (the mistake), the ``fix`` call, the user's
    words and the agent's own diagnosis when there were any, and the scoring ``signals``."""

    __slots__ = (
        "call",
        "diagnosis",
        "diagnosis_at",
        "fix",
        "result",
        "retries",
        "signals",
        "user_at",
        "user_text",
    )

    def __init__(self, call: ev.Event, result: ev.Event) -> None:
        self.call = call
        self.result = result
        self.fix: ev.Event | None = None
        self.signals: set[str] = set()
        self.user_text: str | None = None
        self.diagnosis: str | None = None
        self.user_at = -1
        self.diagnosis_at = -1
        self.retries = 1


def _sessions(events: Sequence[ev.Event]) -> Iterator[list[ev.Event]]:
    groups: dict[str | None, list[ev.Event]] = {}
    for event in events:
        groups.setdefault(event.session_id, []).append(event)
    yield from groups.values()


def detect(
    events: Sequence[ev.Event], *, config: Config | None = None, **_: Any
) -> Iterable[Candidate]:
    """Heuristic candidates from one transcript's events (grouped by session)."""
    for _finding, candidate in findings(events, config=config):
        yield candidate


def findings(
    events: Sequence[ev.Event], *, config: Config | None = None
) -> Iterator[tuple[Finding, Candidate]]:
    """Each detection with the events it rests on (the failing call and its result, the fix,
    what the user said): for detectors that write the lesson of a finding another way."""
    cfg = config or Config()
    for session_events in _sessions(events):
        yield from _detect_session(session_events, cfg)


def _detect_session(events: list[ev.Event], cfg: Config) -> Iterator[tuple[Finding, Candidate]]:
    calls: dict[str, ev.Event] = {}
    results: dict[str, ev.Event] = {}
    for event in events:
        if event.call_id:
            if event.kind == ev.TOOL_CALL:
                calls[event.call_id] = event
            elif event.kind == ev.TOOL_RESULT:
                results.setdefault(event.call_id, event)
    consumed: set[int] = set()
    corrected: set[int] = set()
    for i, event in enumerate(events):
        if event.kind == ev.TOOL_RESULT and event.is_mistake and i not in consumed:
            if event.exit_code == 1 and not event.text.strip():
                continue  # a probe that found nothing (grep, rg, test): not a mistake
            call = calls.get(event.call_id or "")
            if call is None or call.sidechain != event.sidechain:
                continue
            finding = _follow(events, i, call, results, consumed)
            if finding is not None and _actionable(finding):
                if finding.fix is not None:
                    corrected.add(id(finding.fix))
                yield finding, _candidate(finding, cfg)
        elif event.kind == ev.USER_TEXT and _is_correction(event.text):
            finding = _user_correction(events, i, results)
            if finding is not None and finding.fix is not None and _actionable(finding):
                if id(finding.fix) in corrected:
                    continue
                corrected.add(id(finding.fix))
                yield finding, _candidate(finding, cfg)


def _actionable(finding: Finding) -> bool:
    """Only calls a trigger can describe (a command or a file) make lessons; a rejected plan or
    a failed web fetch has nothing to match the next time."""
    call = finding.call
    if call.tool in _META_TOOLS:
        return False
    return bool(call.command) or (call.tool in _FILE_TOOLS and bool(call.paths))


def _culprit_is_setup(command: str, output: str) -> bool:
    """Whether the error names a set-up step (``cd: no such file …``) as what failed."""
    head = output[:600]
    for shape in triggers.shapes(command):
        if shape.exe in triggers.SETUP_COMMANDS and re.search(
            rf"(?:^|[\s(:]){re.escape(shape.exe)}(?::|\s*:)", head
        ):
            return True
    return False


def _is_correction(text: str) -> bool:
    head = text.strip()[:300]
    if not head or head.startswith(("<", "[", "{", "/")):
        return False
    return bool(USER_CORRECTION.match(head)) or (len(head) < 200 and bool(_INSTEAD.search(head)))


def _follow(
    events: list[ev.Event],
    i: int,
    call: ev.Event,
    results: dict[str, ev.Event],
    consumed: set[int],
) -> Finding | None:
    failed = events[i]
    if call.command and _culprit_is_setup(call.command, failed.text):
        return None  # ``cd missing-dir && …``: the set-up step failed, nothing to teach
    finding = Finding(call, failed)
    if failed.failure == ev.TIMEOUT:
        finding.signals.add(scoring.HANG_OR_TIMEOUT)
    key = _key(call)
    exe_key = None
    if call.command and len(key) == 3 and key[1] in FALLBACK_TOOLS and _MISUSE.search(failed.text):
        exe_key = key[:2]
    fallback: ev.Event | None = None  # same executable, other subcommand: a weaker match
    fallback_at = fix_at = -1
    read_between = False
    for j in range(i + 1, min(len(events), i + 1 + WINDOW)):
        other = events[j]
        if other.kind == ev.USER_TEXT and finding.user_text is None and _is_correction(other.text):
            finding.user_text, finding.user_at = other.text, j
        elif other.kind == ev.ASSISTANT_TEXT and finding.diagnosis is None:
            if SELF_DIAGNOSIS.search(other.text):
                finding.diagnosis, finding.diagnosis_at = _first_sentence(other.text), j
        elif other.kind == ev.TOOL_CALL:
            if (
                other.tool == "Read"
                and call.tool in _FILE_TOOLS
                and call.paths
                and call.paths[0] in other.paths
            ):
                read_between = True
            if other.sidechain != call.sidechain:
                continue
            keys = _keys(other)
            if key not in keys:
                if exe_key is not None and fallback is None:
                    res = results.get(other.call_id or "")
                    worked = res is not None and res.failure is None
                    if worked and any(k[:2] == exe_key for k in keys):
                        fallback, fallback_at = other, j
                continue
            res = results.get(other.call_id or "")
            if res is None:
                continue
            if res.failure is None:
                if _same_input(other, call):
                    return None  # the same call worked on a second try: flaky, not a mistake
                finding.fix, fix_at = other, j
                finding.signals.add(scoring.ERROR_THEN_SUCCESS)
                break
            if res.is_mistake:
                finding.retries += 1
                with contextlib.suppress(ValueError):  # the result may sit past the window
                    consumed.add(events.index(res, j))
    if finding.retries >= RETRY_THRESHOLD:
        finding.signals.add(scoring.RETRY_LOOP)
    if finding.fix is None and fallback is not None:
        finding.fix, fix_at = fallback, fallback_at
        finding.signals.add(scoring.ERROR_THEN_SUCCESS)
    if finding.fix is None:
        return None
    # Only what was said before the fix explains it.
    if 0 <= finding.user_at < fix_at:
        finding.signals.add(scoring.USER_CORRECTION)
    else:
        finding.user_text = None
    if 0 <= finding.diagnosis_at < fix_at:
        finding.signals.add(scoring.SELF_DIAGNOSIS)
    else:
        finding.diagnosis = None
    if read_between and finding.diagnosis is None and call.paths:
        finding.diagnosis = f"Read {call.paths[0]} first, then retry the {call.tool}."
    return finding


def _user_correction(
    events: list[ev.Event], i: int, results: dict[str, ev.Event]
) -> Finding | None:
    """A user correction right after a call: the call before it is the mistake, the next
    call of the same tool the fix."""
    before = None
    for j in range(i - 1, max(-1, i - 6), -1):
        if events[j].kind == ev.TOOL_CALL:
            before = events[j]
            break
        if events[j].kind == ev.USER_TEXT:
            break
    if before is None:
        return None
    result = results.get(before.call_id or "")
    if result is None or result.failure in (ev.DENIED, ev.INTERRUPTED):
        return None
    finding = Finding(before, result)
    finding.user_text = events[i].text
    finding.signals.add(scoring.USER_CORRECTION)
    for j in range(i + 1, min(len(events), i + 1 + WINDOW)):
        other = events[j]
        if other.kind == ev.USER_TEXT:
            break
        if (
            other.kind == ev.ASSISTANT_TEXT
            and finding.diagnosis is None
            and SELF_DIAGNOSIS.search(other.text)
        ):
            finding.diagnosis = _first_sentence(other.text)
            finding.signals.add(scoring.SELF_DIAGNOSIS)
        if other.kind == ev.TOOL_CALL and other.tool == before.tool:
            res = results.get(other.call_id or "")
            if (
                res is not None
                and res.failure is None
                and not _same_input(other, before)
                and _answers(other, before, events[i].text)
            ):
                finding.fix = other
                if result.is_mistake:
                    finding.signals.add(scoring.ERROR_THEN_SUCCESS)
                return finding
            return None
    return None


def _answers(fix: ev.Event, before: ev.Event, said: str) -> bool:
    """Whether the call after a user's correction follows it: the same kind of call, or one
    the user named ("no, use uv add" → ``uv add …``). "Don't forget the tests" followed by
    ``pytest`` after a ``git commit`` is a new task, not a corrected commit."""
    if _key(fix)[:2] == _key(before)[:2] or (fix.paths and fix.paths == before.paths):
        return True
    words = set(re.findall(r"[\w.+-]+", said.lower()))
    if fix.command:
        return any(
            shape.exe.lower() in words or (shape.sub or "").lower() in words
            for shape in triggers.shapes(fix.command)
        )
    return False


def _describe_call(call: ev.Event) -> str:
    if call.command:
        return f"`{_one_line(call.command, 200)}`"
    if call.paths:
        return f"{call.tool} on {call.paths[0]}"
    return f"the {call.tool} call"


_NOISE_PREFIX = re.compile(
    r"^(?:Output:\s*|Error:\s*|(?:/usr)?(?:/bin/)?(?:ba|z)?sh: (?:-c: )?(?:line \d+: )?|"
    r"\(eval\):(?:\w+:)?\d+: |</?tool_use_error>)+"
)


def _summary(call: ev.Event, lines: tuple[str, ...], finding: Finding) -> str:
    """A short title: what was run and the gist of what went wrong (``pytest: command not
    found``), which also makes the lesson's slug readable."""
    shape = triggers.main_shape(call.command) if call.command else None
    if shape is not None:
        head = f"{shape.exe} {shape.sub}" if shape.sub else shape.exe
    elif call.paths:
        head = f"{call.tool} {call.paths[0].rsplit('/', 1)[-1]}"
    else:
        head = call.tool or "call"
    if lines:
        gist = _NOISE_PREFIX.sub("", lines[0])
        gist = re.sub(rf"^{re.escape(head.split()[0])}:\s*", "", gist)
        gist = gist.replace("</tool_use_error>", "").strip()
    elif finding.user_text:
        gist = "the user corrected it"
    else:
        gist = "needed a different call"
    return _one_line(f"{head}: {gist}", 100)


def _candidate(finding: Finding, cfg: Config) -> Candidate:
    call, result, fix = finding.call, finding.result, finding.fix
    assert fix is not None
    lines = error_lines(result.text) if result.text else ()
    if result.failure in ev.MISTAKES:
        what = lines[0] if lines else _one_line(result.text or "it failed", 160)
        exit_note = f" (exit {result.exit_code})" if result.exit_code not in (None, 0) else ""
        mistake = f"{_describe_call(call)} failed{exit_note}: {what}"
    else:
        mistake = f"{_describe_call(call)} was not what the user wanted"
    if finding.user_text:
        mistake += f"; the user said: “{_one_line(finding.user_text, 200)}”"
    if fix.command:
        fixed = f"Run `{_one_line(fix.command, 200)}` instead"
    else:
        tool = fix.tool or "tool"
        article = "An" if tool[:1].upper() in "AEIOU" else "A"
        fixed = f"{article} {tool} on {fix.paths[0]} worked" if fix.paths else ""
    if finding.diagnosis:
        fixed = f"{finding.diagnosis} {fixed}".strip()
    fixed = fixed.rstrip(".") + "." if fixed else ""
    if call.command:
        trigger = triggers.command_trigger(call.command, fix.command)
    elif call.paths and call.tool in _FILE_TOOLS:
        trigger = triggers.path_trigger(call.paths[0])
    else:
        trigger = None
    signals = finding.signals
    summary = _summary(call, lines, finding)
    return Candidate(
        id="",
        tier=2,
        agent=call.agent,
        tool=call.tool,
        trigger=trigger,
        mistake=mistake,
        fix=fixed,
        summary=summary,
        tags=triggers.tags_for(call.tool, call.command, call.paths),
        confidence=scoring.confidence(signals, cfg.scoring),
        priority=scoring.priority(signals),
        evidence=(Evidence(result.file, result.line, call.call_id, result.session_id),),
        error_lines=lines,
        project=call.project,
        detector=NAME,
    )
