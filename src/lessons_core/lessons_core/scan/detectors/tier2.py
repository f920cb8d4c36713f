"""Tier 2: mistake → correction patterns found by heuristics, without the agent's help.

For every tool result that failed through the agent's own doing, a window of the events that
follow is searched for what happened next:

* a *similar* later call (same executable and subcommand, or same tool on the same file) that
  worked, with a different command or input — the correction (``error_then_success``);
* the user correcting the agent in between ("no, use …", "that's wrong", "don't …");
* the same failing call repeated three times or more (``retry_loop``);
* the failure being a hang or timeout;
* the agent explaining its own mistake ("I see the issue", "the problem was").

A user's rejection of a call *with a reason* ("use pnpm") is a detection too, and so is an
explicit user correction after a call that did not fail: the user's words say what was wrong.

Not every corrected failure is a lesson. A person calls a failure a mistake when it would
happen again elsewhere: a tool refusing the call (the file was not read, the text to replace
is stale, the path is relative), a command that is not on PATH, an option that does not exist,
a path the shell read as syntax, the working directory left elsewhere by an earlier ``cd``.
A test run that failed until the code was edited, a file that was not where the agent looked,
or a typo in one repository's names are one-off facts, and are dropped. The lesson says what
went wrong in general terms (:mod:`lessons_core.scan.detectors.failures`), what the fixing call
changed, and carries a trigger that fires on the wrong call but not on its fix
(:mod:`lessons_core.scan.detectors.triggers`). Confidence and priority follow
:mod:`lessons_core.scan.scoring`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import PurePosixPath
from typing import Any

from lessons_core.models import Candidate, Config, Evidence
from lessons_core.patterns import kept_programs
from lessons_core.privacy import redact_head
from lessons_core.scan import events as ev
from lessons_core.scan import scoring
from lessons_core.scan.detectors import edit_causes, failures, triggers
from lessons_core.scan.detectors.failures import MistakeClass, error_lines, strip_tags

NAME = "tier2"
#: How many events after a failure are searched for its correction.
WINDOW = 40
RETRY_THRESHOLD = 3

USER_CORRECTION = kept_programs.compile(
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
_INSTEAD = kept_programs.compile(r"\binstead\b|\bnot\s+\S+,\s*(?:but|use)\b", re.IGNORECASE)
#: A rejection's reason is a correction when it tells the agent what to do instead; a question
#: or a remark about the task ("do we even need this?") is not.
_DIRECTIVE = kept_programs.compile(
    r"^\W*(?:(?:use|try|prefer|avoid|always|only|run|call)\s+\S+"
    r"|I(?:'d|\s+would)\s+(?:actually\s+|much\s+)?(?:rather|prefer|like|love)\b)",
    re.IGNORECASE,
)
SELF_DIAGNOSIS = kept_programs.compile(
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
_EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
#: Classes where the tool, not a shell, refused the call: the lesson is about the tool.
_TOOL_REFUSALS = frozenset(
    {
        failures.NOT_READ,
        failures.STALE_TEXT,
        failures.AMBIGUOUS_TEXT,
        failures.RELATIVE_PATH,
        failures.IS_DIRECTORY,
        failures.UNKNOWN_TOOL,
        failures.BAD_PARAMETERS,
        failures.TOO_LARGE,
    }
)
#: Refusals whose cause the call itself does not show: the file was not read yet in this
#: session, it changed since, the text to replace occurs twice in it, or a path is relative
#: (a path glob cannot tell a relative path from an absolute one). Before the call runs nothing
#: tells the wrong call from the many right ones, so a trigger on the tool or on the file's
#: extension would fire on every edit of every ``.py`` file. Such a lesson is as narrow as its
#: mistake only at the refusal itself: it carries no trigger, the refusal's own words as its
#: error line, and comes back through failure-time recall (``intake.to_lesson`` gives a detected
#: lesson without a trigger no tool gate either).
FAILURE_TIME_CLASSES = frozenset(
    {
        failures.NOT_READ,
        failures.STALE_TEXT,
        failures.AMBIGUOUS_TEXT,
        failures.RELATIVE_PATH,
        failures.TOO_LARGE,
    }
)
#: Tools where a failure saying "no such script/command" is fixed by another subcommand of the
#: same tool (``npm test`` → ``npm run test:unit``). Elsewhere (git, docker) another subcommand
#: is another task, not a correction.
FALLBACK_TOOLS = frozenset(
    {"npm", "pnpm", "yarn", "bun", "make", "just", "task", "mise", "cargo", "uv", "poetry", "pip"}
)
_MISUSE = kept_programs.compile(
    r"missing script|unknown (?:command|subcommand|script|target)|no rule to make target|"
    r"no such (?:command|subcommand|task)|did you mean|not a valid command|is not a task",
    re.IGNORECASE,
)
#: Tools that steer the conversation rather than act on the project.
_META_TOOLS = frozenset(
    {"ExitPlanMode", "EnterPlanMode", "TodoWrite", "AskUserQuestion", "Agent", "Task"}
)
#: The pseudo-class of a path that failed because an earlier ``cd`` moved the shell.
CWD_DRIFT = failures.MistakeClass(
    "cwd_drift",
    r"(?!)",
    "the working directory stayed where an earlier cd left it",
    "the shell was still in the directory an earlier `cd {dir}` moved it to, so a relative"
    " path or `cd` no longer pointed where the agent meant",
    "Use absolute paths (or `cd` inside a subshell) instead of relying on the working directory",
)
#: The pseudo-class of a command the sandbox kept from what it needed, fixed by the same
#: command run with escalated permissions (Codex's ``sandbox_permissions``).
SANDBOX = failures.MistakeClass(
    "sandbox",
    r"(?!)",
    "ask for escalated permissions",
    "the agent's sandbox kept the command from what it needed (the network, a port, files"
    " outside the workspace), so it failed until it ran with escalated permissions",
    "Run it with escalated sandbox permissions (`sandbox_permissions: require_escalated`)",
)
#: The pseudo-class of relative paths given from the wrong working directory: the call's
#: ``workdir`` was another folder than the one its paths are relative to.
WORKDIR_DRIFT = failures.MistakeClass(
    "workdir_drift",
    r"(?!)",
    "run it from the folder its paths are relative to",
    "the call ran in `{dir}`, where its relative paths do not exist",
    "Set the working directory the paths are relative to, or give paths from the one set",
)
#: The pseudo-class of a quoted argument starting with ``-`` that the command took for an
#: option (``rg "- name"``): the class of an unknown option, said of what really went wrong.
DASH_ARGUMENT = failures.MistakeClass(
    "dash_argument",
    r"(?!)",
    "a pattern starting with `-` is read as an option",
    "a pattern or text argument starting with `-` was read as an option",
    "Put `--` (or `-e`) before a pattern argument that starts with `-`",
)
#: The pseudo-class of a command that needed another step first, which its error named
#: (``Run "pnpm install"``): the step ran, and the same command then worked.
PREREQUISITE = failures.MistakeClass(
    "prerequisite",
    r"(?!)",
    "run the step its error names first",
    "the command needed `{step}` to run first, as its error said",
    "Run `{step}` first, then the command again",
)
#: The pseudo-class of a failure in generated output gone stale (``.next/types/x.ts`` after an
#: upgrade): a call deleted the folder the error named a file in, and the command then worked.
STALE_OUTPUT = failures.MistakeClass(
    "stale_output",
    r"(?!)",
    "delete the stale generated folder and run it again",
    "the error was in a generated file under `{dir}` left from an earlier build, not in the"
    " project's own sources",
    "Delete `{dir}` so it is generated afresh, then run the command again",
)
#: The words of a refused edit whose fix shows why its text was not found
#: (:mod:`.edit_causes`), in place of the general ones of :data:`failures.STALE_TEXT`: one
#: title per cause, so the intake merges the sessions of one cause and keeps causes apart.
EDIT_CAUSES = {
    edit_causes.INDENTATION: failures.MistakeClass(
        failures.STALE_TEXT,
        r"(?!)",
        "copy the leading tabs or spaces of the lines to replace",
        "the text to replace had other leading whitespace than the file (tabs for spaces, or"
        " one level of indentation too many or too few on its lines), so the {tool} was"
        " refused",
        "Copy the lines to replace from a fresh Read, counting their leading tabs or spaces,"
        " or anchor the text on a unique fragment without the indentation",
    ),
    edit_causes.OLDER_VERSION: failures.MistakeClass(
        failures.STALE_TEXT,
        r"(?!)",
        "read the lines again after editing the file",
        "the text to replace was written from an older version of the file: an earlier edit"
        " in this session had already changed it since it was last read, so the {tool} was"
        " refused",
        "Read the lines again after each edit of the file and copy the text to replace from"
        " that Read",
    ),
    edit_causes.RETYPED: failures.MistakeClass(
        failures.STALE_TEXT,
        r"(?!)",
        "copy long lines instead of retyping them",
        "a long line of the text to replace was retyped with characters dropped or changed,"
        " so the {tool} was refused",
        "Copy long lines from a fresh Read instead of retyping them, or replace a shorter"
        " unique fragment of the line",
    ),
}
#: A step an error tells the user to run: ``Run "pnpm install"``, ``try `go mod tidy` ``.
_NAMED_STEP = kept_programs.compile(
    r"""\b(?:run|try|use|execute)\s+[`'"\u2018\u201c]([^`'"\u2019\u201d\n]{3,80})[`'"\u2019\u201d]""",
    re.IGNORECASE,
)
#: Pseudo-classes whose lesson is recalled when the failure happens: nothing in the command
#: line tells the wrong working directory from the right one, nor a command run too early
#: from the same command run after its step.
#: Nor does a command that could not authenticate: the same ``git push origin`` works where a
#: key is loaded, so only the refusal tells the lesson is due.
_COMMAND_FAILURE_TIME = frozenset(
    {WORKDIR_DRIFT.name, PREREQUISITE.name, STALE_OUTPUT.name, failures.AUTHENTICATION}
)
#: Output of a test, build or lint run that failed on the code, not on the call: a rerun that
#: worked with other arguments ran other code (fewer tests, another file), it did not fix a
#: misuse of the command.
_WORK_FAILURE = kept_programs.compile(
    r"\b\d+ (?:failed|failing|errors?)\b|\bTests?:\s|AssertionError|\bFAIL(?:ED)?\b|"
    r"error TS\d+|error\[E\d+\]|:\d+:\d+: error|SyntaxError|TypeError|ReferenceError|"
    r"NameError|AttributeError|panic:|Traceback \(most recent call last\)",
)
#: A shell command that rewrites a file in place (``sed -i``, ``perl -pi``, a script that
#: writes it): what an edit the edit tool kept refusing was done with instead.
_REWRITES = kept_programs.compile(
    r"\bsed\s+(?:-\w*\s+)*-i|\bperl\s+-\w*i|\.write(?:_text)?\(|writeFileSync|>\s*\S"
)
_REJECTION_REASON = kept_programs.compile(
    r"(?:reason for the rejection|the user said):\s*(?P<reason>\S.*)", re.IGNORECASE | re.DOTALL
)


#: Executables that stand for one another (``pip3`` failing is corrected by a ``pip`` that
#: works in the right environment).
_SAME_EXE = {"pip3": "pip", "python3": "python", "pytest-3": "pytest", "nodejs": "node"}


def _exe(name: str) -> str:
    return _SAME_EXE.get(name, name)


def _key(call: ev.Event) -> tuple[str, ...]:
    """What makes two calls "the same kind of call"."""
    tool = call.tool or "?"
    if call.command:
        shape = triggers.main_shape(call.command)
        if shape is not None:
            return (tool, _exe(shape.exe), shape.sub or "")
        return (tool, call.command)
    if call.paths and tool in _FILE_TOOLS:
        # Editing a file and rewriting it whole are one kind of call: a Write can fix an Edit.
        return ("edit" if tool in _EDIT_TOOLS else tool, call.paths[0])
    return (tool,)


def _keys(call: ev.Event) -> set[tuple[str, ...]]:
    """The kinds of every simple command in a call (``a && b`` is both an ``a`` and a ``b``)."""
    if not call.command:
        return {_key(call)}
    tool = call.tool or "?"
    out = {_key(call)}
    for shape in triggers.shapes(call.command):
        out.add((tool, _exe(shape.exe), shape.sub or ""))
    return out


def _same_input(a: ev.Event, b: ev.Event) -> bool:
    """Whether two calls are one call repeated: the same command, run in the same directory
    with the same permissions (the same command escalated, or in another ``workdir``, is the
    fix of a sandbox refusal or of a wrong directory)."""
    if a.command or b.command:
        return (
            " ".join((a.command or "").split()) == " ".join((b.command or "").split())
            and a.cwd == b.cwd
            and a.escalated == b.escalated
        )
    return False


def _step_taken(
    error: str, events: list[ev.Event], i: int, j: int, results: dict[int, ev.Event]
) -> str | None:
    """The step a failure's text told the agent to run (``Run "pnpm install"``) when a call
    between the failure (``i``) and the same command working (``j``) ran it and worked."""
    named = [" ".join(m.group(1).split()) for m in _NAMED_STEP.finditer(error[:2000])]
    if not named:
        return None
    for k in range(i + 1, j):
        other = events[k]
        if other.kind != ev.TOOL_CALL or not other.command:
            continue
        res = results.get(id(other))
        if res is None or res.failure is not None:
            continue
        command = " ".join(other.command.split())
        for step in named:
            if step in command:
                return step
    return None


#: A path an error names: words with a slash in them (``.next/dev/types/validator.ts(17,62)``).
_ERROR_PATH = kept_programs.compile(r"[\w.@~+-]*(?:/[\w.@+-]+)+")


def _cleared(
    error: str, events: list[ev.Event], i: int, j: int, results: dict[int, ev.Event]
) -> str | None:
    """The folder a call after a failure (``i``) deleted, up to the command working (``j``, which
    may do it itself: ``rm -rf .next && tsc``), when the error named a file inside it: generated
    output the error came from (a type error in ``.next/types/``), not the project's sources."""
    paths = {m.group(0).rstrip(".:") for m in _ERROR_PATH.finditer(error[:2000])}
    if not paths:
        return None
    for k in range(i + 1, j + 1):
        other = events[k]
        if other.kind != ev.TOOL_CALL or not other.command or "rm" not in other.command:
            continue
        res = results.get(id(other))
        if res is None or res.failure is not None:
            continue
        for seg in triggers.segments(other.command):
            if not seg or seg[0] != "rm":
                continue
            for word in seg[1:]:
                folder = _removed_folder(word)
                if folder and any(_inside(path, folder) for path in paths):
                    return folder
    return None


def _removed_folder(word: str) -> str | None:
    """The folder an ``rm`` argument names, or ``None`` for a flag, a glob or a folder so wide
    (``.``, ``/``, ``~``) that everything is inside it."""
    if word.startswith("-") or any(c in word for c in "*?[$"):
        return None
    folder = word.rstrip("/")
    folder = folder[2:] if folder.startswith("./") else folder
    if folder in ("", ".", "..", "~") or folder.startswith("../"):
        return None
    return folder


def _inside(path: str, folder: str) -> bool:
    """Whether ``path`` (from an error, relative or absolute) lies under ``folder`` (an ``rm``
    argument, relative or absolute): the file itself deleted is not a folder cleared."""
    path = path[2:] if path.startswith("./") else path
    if path.startswith(folder + "/") or f"/{folder}/" in path:
        return True
    if folder.startswith("/") and not path.startswith("/"):
        head = path.split("/", 1)[0]
        return folder.endswith("/" + head) and "/" in path
    return False


def _wrapped_inside(call: ev.Event) -> dict[tuple[str, str], tuple[str, str]]:
    """What the failing call ran through a wrapper: ``(executable, subcommand)`` → ``(wrapper,
    executable as written)`` (empty for a call without one, the usual case). Of nested wrappers
    that run the same command (``fnm exec … corepack pnpm test``) the outermost is kept: a fix
    that dropped it may keep the inner one."""
    if not call.command:
        return {}
    inside: dict[tuple[str, str], tuple[str, str]] = {}
    for wrapper, shape in triggers.wrapped(call.command):
        inside.setdefault((_exe(shape.exe), shape.sub or ""), (wrapper, shape.exe))
    return inside


def _wrapping(
    key: tuple[str, ...], inside: dict[tuple[str, str], tuple[str, str]], other: ev.Event
) -> tuple[str, str, str] | None:
    """How ``other`` runs the failing call's command (``key``) through a wrapper, or without
    the one it had (``inside``, from :func:`_wrapped_inside`): ``("added", "pnpm", "vitest")``
    for ``vitest`` fixed by ``pnpm exec vitest``, ``("dropped", "rtk", "bun")`` for ``rtk bun
    run test`` fixed by ``bun run test``."""
    command = other.command
    if not command or len(key) != 3:
        return None
    if key[1] in command:  # (a substring test first: most calls hold no such word)
        for wrapper, shape in triggers.wrapped(command):
            if (key[0], _exe(shape.exe), shape.sub or "") == key:
                return ("added", wrapper, shape.exe)
    if inside:
        main = triggers.main_shape(command)
        if main is not None:
            found = inside.get((_exe(main.exe), main.sub or ""))
            if found is not None:
                return ("dropped", found[0], found[1])
    return None  # file tools: a retry of the same edit usually differs in its strings


def _one_line(text: str, limit: int = 160) -> str:
    text = " ".join(redact_head(text, limit).split())  # redact, then cut: a cut token leaks
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: Where a sentence ends (:func:`_first_sentence`).
_SENTENCE_END = kept_programs.compile(r"(?<=[.!?])\s")
#: Where one ends before the next begins: a mark and a space, or a new line. The dot of
#: ``app.py`` or ``./run.sh`` ends nothing.
_SENTENCE_BREAK = kept_programs.compile(r"[.!?]\s+|\n")
#: A word a fix added that can name a subcommand or a flag.
_ADDED_WORD = kept_programs.compile(r"[A-Za-z][\w-]*|--?[A-Za-z][\w-]*")
#: The harness's own words when a call was declined (what follows them is the user's).
_REJECTION_HEAD = kept_programs.compile(
    r"\W*(?:The user doesn't want|User rejected|\[Operation Cancel|patch rejected)"
)


def _first_sentence(text: str) -> str:
    """The sentence of ``text`` that says what went wrong, from its start: the last sentence
    break before the diagnosis, not any dot (a file name's would cut a word in two)."""
    m = SELF_DIAGNOSIS.search(text)
    start = 0
    if m:
        for brk in _SENTENCE_BREAK.finditer(text, 0, m.start()):
            start = brk.end()
    chunk = text[start:].lstrip()
    sentence = _SENTENCE_END.split(chunk, maxsplit=1)[0]
    return _one_line(sentence, 240)


class Finding:
    """One detection: ``call`` and its ``result`` (the mistake), the ``fix`` call, the user's
    words and the agent's own diagnosis when there were any, and the scoring ``signals``."""

    __slots__ = (
        "call",
        "cleared",
        "cls",
        "diagnosis",
        "diagnosis_at",
        "drift_dir",
        "edit_cause",
        "edited",
        "fix",
        "fix_failure",
        "generic",
        "read_between",
        "rejected",
        "result",
        "retries",
        "signals",
        "step",
        "user_at",
        "user_text",
        "wrapper",
    )

    def __init__(self, call: ev.Event, result: ev.Event) -> None:
        self.call = call
        self.result = result
        self.fix: ev.Event | None = None
        #: The fix's own result when it got past the mistake and then failed for another
        #: reason (the tests it finally ran): the fix text must not say it worked.
        self.fix_failure: ev.Event | None = None
        self.signals: set[str] = set()
        self.user_text: str | None = None
        self.diagnosis: str | None = None
        self.user_at = -1
        self.diagnosis_at = -1
        #: The failing results of the same call repeated before the fix (the first included).
        self.retries: list[ev.Event] = [result]
        self.cls: MistakeClass | None = None
        self.drift_dir: str | None = None
        self.edited = False  # a file was edited between the failure and the fix
        self.read_between = False
        self.rejected = False
        #: ``(how, wrapper, executable)`` when the fix added or dropped a wrapper.
        self.wrapper: tuple[str, str, str] | None = None
        #: A failure no class knows, kept for what its fix changed (see :func:`_judge`).
        self.generic = False
        #: The step the error named that ran between the failure and the same command working.
        self.step: str | None = None
        #: The generated folder a call deleted before the command worked (:func:`_cleared`).
        self.cleared: str | None = None
        #: Why an edit's text was not found, when its fix shows it (:mod:`.edit_causes`).
        self.edit_cause: str | None = None


def _sessions(events: Sequence[ev.Event]) -> Iterator[list[ev.Event]]:
    if events:
        first = events[0].session_id
        if all(event.session_id == first for event in events):  # the usual batch: one session
            yield events if isinstance(events, list) else list(events)
            return
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


def _link(events: list[ev.Event]) -> tuple[dict[int, ev.Event], dict[int, ev.Event], list[int]]:
    """Each result's call and each call's result, keyed by the event's identity, and where the
    findings may start (failed results, user text).

    A result belongs to the latest call before it with its call id, not to any call of that
    id: some models number their calls per message (``functions.bash:0`` again in every
    answer), so one id names many calls of a session, each followed by its own result.
    """
    open_calls: dict[str, ev.Event] = {}
    call_of: dict[int, ev.Event] = {}
    result_of: dict[int, ev.Event] = {}
    starts: list[int] = []
    for i, event in enumerate(events):
        kind = event.kind
        if kind == ev.TOOL_CALL:
            if event.call_id:
                open_calls[event.call_id] = event
        elif kind == ev.TOOL_RESULT:
            call = open_calls.get(event.call_id) if event.call_id else None
            if call is not None:
                call_of[id(event)] = call
                result_of.setdefault(id(call), event)
            if event.failure:
                starts.append(i)
        elif kind == ev.USER_TEXT:
            starts.append(i)
    return call_of, result_of, starts


def _detect_session(events: list[ev.Event], cfg: Config) -> Iterator[tuple[Finding, Candidate]]:
    # Only failed results and user text can start a finding: the one pass that links calls
    # to their results also notes where those are, and the rest is not walked again.
    calls, results, starts = _link(events)
    consumed: set[int] = set()
    corrected: set[int] = set()
    for i in starts:
        event = events[i]
        if event.kind == ev.TOOL_RESULT and id(event) not in consumed:
            call = calls.get(id(event))
            if call is None or call.sidechain != event.sidechain or not _actionable(call):
                continue
            if event.is_mistake or (
                event.failure == ev.DENIED and call.command and not call.escalated
            ):
                if event.exit_code == 1 and not event.text.strip():
                    continue  # a probe that found nothing (grep, rg, test): not a mistake
                finding = dropped = _follow(events, i, call, calls, results, consumed)
                if finding is not None:
                    finding = _judge(finding, events, i, results)
            elif event.failure == ev.REJECTED:
                finding, dropped = _rejection(events, i, call, results), None
            else:
                continue
            if finding is not None and finding.fix is not None:
                candidate = _candidate(finding, cfg)
                if candidate is not None:
                    corrected.add(id(finding.fix))
                    yield finding, candidate
                    continue
            if dropped is not None and dropped.fix is not None:
                # A finding dropped once its fix was known leaves the repeats that were another
                # command to be judged on their own (a probe in one folder, then the mistake in
                # another); the same command again stays counted.
                _release_others(call, dropped.retries, calls, consumed)
        elif event.kind == ev.USER_TEXT and _is_correction(event.text):
            finding = _user_correction(events, i, results)
            if finding is not None and finding.fix is not None and _actionable(finding.call):
                if id(finding.fix) in corrected:
                    continue
                candidate = _candidate(finding, cfg)
                if candidate is not None:
                    corrected.add(id(finding.fix))
                    yield finding, candidate


def _release_others(
    call: ev.Event, retries: list[ev.Event], calls: dict[int, ev.Event], consumed: set[int]
) -> None:
    """Give back the repeats of a finding that came to nothing and were another command than
    ``call``, so each is judged on its own; the same command again stays counted."""
    own = " ".join((call.command or "").split())
    for repeat in retries[1:]:
        other = calls.get(id(repeat))
        if other is not None and " ".join((other.command or "").split()) != own:
            consumed.discard(id(repeat))


def _actionable(call: ev.Event) -> bool:
    """Only calls a lesson can be about: a command, a file, or a tool that refused its input.
    A rejected plan or a failed web fetch has nothing to match the next time."""
    if call.tool in _META_TOOLS or (call.tool or "").startswith("mcp__"):
        return False
    return bool(call.command) or bool(call.paths) or call.tool in _FILE_TOOLS


def _culprit_is_setup(command: str, output: str) -> bool:
    """Whether the error names a set-up step (``cd: no such file …``) as what failed."""
    head = output[:600]
    for shape in triggers.shapes(command):
        if shape.exe in triggers.SETUP_COMMANDS and re.search(
            rf"(?:^|[\s(:]){re.escape(shape.exe)}(?::|\s*:)", head
        ):
            return True
    return False


@functools.lru_cache(maxsize=4096)
def _diagnoses(text: str) -> bool:
    """Whether the agent's text says what went wrong. Remembered: a message lies in the window
    of every failure before it, and is searched for each of them."""
    return SELF_DIAGNOSIS.search(text) is not None


@functools.lru_cache(maxsize=4096)
def _is_correction(text: str) -> bool:
    head = text.strip()[:300]
    if not head or head.startswith(("<", "[", "{", "/")):
        return False
    return bool(USER_CORRECTION.match(head)) or (len(head) < 200 and bool(_INSTEAD.search(head)))


def _follow(
    events: list[ev.Event],
    i: int,
    call: ev.Event,
    calls: dict[int, ev.Event],
    results: dict[int, ev.Event],
    consumed: set[int],
) -> Finding | None:
    failed = events[i]
    finding = Finding(call, failed)
    if failed.failure == ev.TIMEOUT:
        finding.signals.add(scoring.HANG_OR_TIMEOUT)
    key = _key(call)
    exe_key = None
    if call.command and len(key) == 3 and key[1] in FALLBACK_TOOLS and _MISUSE.search(failed.text):
        exe_key = key[:2]
    fallback: ev.Event | None = None  # same executable, other subcommand: a weaker match
    fallback_at = fix_at = -1
    first = failures.mistake_class(failed.text)
    got_past = first is not None and first.name in _GOT_PAST_CLASSES
    inside = _wrapped_inside(call)
    taken = {id(failed)}  # the failures counted as this one's repeats
    edited_at: list[int] = []
    read_paths: set[str] = set()
    for j in range(i + 1, min(len(events), i + 1 + WINDOW)):
        other = events[j]
        if (
            other.kind == ev.TOOL_RESULT
            and other.is_mistake
            and id(other) not in consumed
            and id(other) not in taken
        ):
            sibling = calls.get(id(other))
            if sibling is not None and sibling is not call and _key(sibling) == key:
                # a parallel call of the same kind, sent before this failure came back (a
                # later call's failure was counted, and consumed, when the call was met)
                finding.retries.append(other)
                taken.add(id(other))
                consumed.add(id(other))
        elif (
            other.kind == ev.USER_TEXT and finding.user_text is None and _is_correction(other.text)
        ):
            finding.user_text, finding.user_at = other.text, j
        elif other.kind == ev.ASSISTANT_TEXT and finding.diagnosis is None:
            if _diagnoses(other.text):
                finding.diagnosis, finding.diagnosis_at = _first_sentence(other.text), j
        elif other.kind == ev.TOOL_CALL:
            if (
                other.tool == "Read"
                and call.tool in _FILE_TOOLS
                and call.paths
                and call.paths[0] in other.paths
            ):
                finding.read_between = True
            if other.sidechain != call.sidechain:
                continue
            keys = _keys(other)
            if other.tool == "Read" and other.paths:
                read_paths.update(other.paths)
            wrap = None if key in keys else _wrapping(key, inside, other)
            same = key in keys or wrap is not None
            if not same and _remedies(first, call, other, read_paths, results):
                finding.fix, fix_at = other, j
                finding.signals.add(scoring.ERROR_THEN_SUCCESS)
                break
            if not same:
                if other.tool in _EDIT_TOOLS or (other.command or "").startswith("apply_patch"):
                    edited_at.append(j)
                if exe_key is not None and fallback is None:
                    res = results.get(id(other))
                    worked = res is not None and res.failure is None
                    if worked and any(k[:2] == exe_key for k in keys) and not _asks_for_help(other):
                        fallback, fallback_at = other, j
                continue
            res = results.get(id(other))
            if res is None:
                continue
            if res.failure is None and _asks_for_help(other):
                continue  # it read how the command is called: the corrected call comes next
            if res.failure is None:
                if _same_input(other, call):
                    step = _step_taken(failed.text, events, i, j, results)
                    cleared = None if step else _cleared(failed.text, events, i, j, results)
                    if step is None and cleared is None and not _refused_arguments(failed):
                        # The same call worked on a second try: flaky, or made to work by
                        # something between; another command failing in between is its own.
                        _release_others(call, finding.retries, calls, consumed)
                        return None
                    finding.step = step  # it worked once the step its error named had run
                    finding.cleared = cleared  # or once the stale output it named was gone
                finding.fix, fix_at, finding.wrapper = other, j, wrap
                finding.signals.add(scoring.ERROR_THEN_SUCCESS)
                break
            if got_past and res.is_mistake and not _same_input(other, call):
                later = failures.mistake_class(res.text)
                if later is None or later is not first:
                    # The path is found now (the script, the command, the option); what failed
                    # next (the tests it ran) is another matter. Whether the first failure was
                    # the lesson is for the judge to say.
                    finding.fix, fix_at, finding.wrapper = other, j, wrap
                    finding.fix_failure = res
                    finding.signals.add(scoring.ERROR_THEN_SUCCESS)
                    break
            if res.is_mistake:
                finding.retries.append(res)
                taken.add(id(res))
                consumed.add(id(res))
            elif other.tool in _EDIT_TOOLS:
                edited_at.append(j)
    if len(finding.retries) >= RETRY_THRESHOLD:
        finding.signals.add(scoring.RETRY_LOOP)
    if finding.fix is None and fallback is not None:
        finding.fix, fix_at = fallback, fallback_at
        finding.signals.add(scoring.ERROR_THEN_SUCCESS)
    if finding.fix is None:
        # Nothing fixed it: a later failure of another command of the same kind (a lint run,
        # then the lint run given an option it does not have) is a mistake of its own.
        _release_others(call, finding.retries, calls, consumed)
        return None
    finding.edited = any(j < fix_at for j in edited_at)
    # Only what was said before the fix explains it.
    if 0 <= finding.user_at < fix_at:
        finding.signals.add(scoring.USER_CORRECTION)
    else:
        finding.user_text = None
    if 0 <= finding.diagnosis_at < fix_at:
        finding.signals.add(scoring.SELF_DIAGNOSIS)
    else:
        finding.diagnosis = None
    return finding


#: Flags and subcommands that only ask a command about itself.
_HELP_WORDS = frozenset({"--help", "-h", "--version", "help"})


def _asks_for_help(call: ev.Event) -> bool:
    """Whether ``call`` only asked its command how it is called (``eval run --help``, ``gh
    help run``): a look at the manual, not a corrected form of what failed, which is the next
    call of the kind that does the work."""
    shape = triggers.main_shape(call.command) if call.command else None
    if shape is None:
        return False
    return shape.sub == "help" or any(flag in _HELP_WORDS for flag in shape.flags)


#: Failures whose fix may itself fail for a reason of its own: a later call of the same kind
#: that no longer fails this way got past the mistake (``rtk bun run test`` refused, then
#: ``bun run test`` ran the tests, and some failed).
_GOT_PAST_CLASSES = frozenset(
    {
        failures.MISSING_PATH,
        failures.COMMAND_NOT_FOUND,
        failures.UNKNOWN_OPTION,
        failures.UNKNOWN_SUBCOMMAND,
        failures.SHELL_SYNTAX,
    }
)
#: Classes whose fix is running the command through the project's environment.
_ENVIRONMENT_CLASSES = frozenset(
    {failures.COMMAND_NOT_FOUND, failures.MANAGED_ENVIRONMENT, failures.MODULE_NOT_FOUND}
)
#: Tools (and shell commands) that list a directory.
_LISTING_TOOLS = frozenset({"Glob", "LS", "list_directory"})
_LISTING_COMMANDS = frozenset({"ls", "find", "tree", "fd"})


def _remedies(
    cls: MistakeClass | None,
    call: ev.Event,
    other: ev.Event,
    read_paths: set[str],
    results: dict[int, ev.Event],
) -> bool:
    """Whether ``other`` (another kind of call) is what the failure's own words ask for: a
    listing after reading a directory, an edit of a file read after "File has not been read"."""
    if cls is None or call.command:
        return False
    res = results.get(id(other))
    if res is None or res.failure is not None:
        return False
    if cls.name == failures.IS_DIRECTORY:
        if other.tool in _LISTING_TOOLS:
            return True
        shape = triggers.main_shape(other.command) if other.command else None
        return shape is not None and shape.exe in _LISTING_COMMANDS
    if cls.name == failures.NOT_READ:
        return other.tool in _EDIT_TOOLS and bool(other.paths) and other.paths[0] in read_paths
    if cls.name in (failures.STALE_TEXT, failures.AMBIGUOUS_TEXT) and other.command and call.paths:
        # The edit the tool kept refusing, made by a command that rewrites the same file.
        name = PurePosixPath(call.paths[0]).name
        named = call.paths[0] in other.command or ("." in name and name in other.command)
        return named and _REWRITES.search(other.command) is not None
    return False


def _judge(
    finding: Finding, events: list[ev.Event], i: int, results: dict[int, ev.Event]
) -> Finding | None:
    """Keep a corrected failure only when a person would call it a reusable mistake."""
    call, result, fix = finding.call, finding.result, finding.fix
    assert fix is not None
    cls = failures.mistake_class(result.text)
    if finding.step is not None:
        finding.cls = PREREQUISITE
        return finding
    if call.command and not finding.edited:
        if finding.cleared is None:
            fix_at = next((k for k in range(i + 1, len(events)) if events[k] is fix), i)
            finding.cleared = _cleared(result.text, events, i, fix_at, results)
        if finding.cleared is not None:
            finding.cls = STALE_OUTPUT
            return finding
    if call.command and fix.escalated and not call.escalated and not finding.edited:
        finding.cls = SANDBOX  # the same command, once it could leave the sandbox, worked
        return finding
    if result.failure == ev.DENIED:
        return None  # refused, and not resolved by asking for the permission
    setup_failed = bool(call.command) and _culprit_is_setup(call.command or "", result.text)
    missing = cls is not None and cls.name == failures.MISSING_PATH
    if setup_failed or missing or _cd_to_root(fix):
        drift = _drift(events, i, call, fix, results)
        if drift is not None:
            finding.cls, finding.drift_dir = CWD_DRIFT, drift
            return finding
        workdir = _workdir_drift(call, fix) if missing else None
        if workdir is not None:
            finding.cls, finding.drift_dir = WORKDIR_DRIFT, workdir
            return finding
        if setup_failed or missing:
            return None  # a file that was not where the agent looked: a one-off fact
    if (
        cls is not None
        and cls.name in _TOOL_REFUSALS
        and call.command
        and not _refused_arguments(result)
    ):
        cls = None  # the words came from the command's output, not from the tool refusing it
    if (
        (cls is None or cls.name == failures.UNKNOWN_OPTION)
        and call.command
        and fix.command
        and not finding.edited
        and triggers.dash_argument_trigger(call.command, fix.command) is not None
    ):
        finding.cls = DASH_ARGUMENT
        return finding
    if cls is None:
        if result.failure == ev.TIMEOUT:
            return finding if not finding.edited else None
        if finding.edited:
            # A test, build or lint run that failed: what fixed it was (nearly always) a
            # change to the code.
            return None
        if scoring.USER_CORRECTION in finding.signals:
            return finding
        if not call.command or _WORK_FAILURE.search(result.text[:3000]):
            return None
        # A failure no class knows, fixed by the same command with something changed: a
        # mistake when what changed can be named (:func:`_generic_trigger`).
        finding.generic = True
        return finding
    if not cls.reusable:
        return None
    if finding.edited and cls.name not in _TOOL_REFUSALS:
        return None  # the call worked once the code changed: the code was the problem
    finding.cls = cls
    if cls.name == failures.STALE_TEXT:
        finding.edit_cause = _edit_cause(finding, events, i, results)
    return finding


def _edit_cause(
    finding: Finding, events: list[ev.Event], i: int, results: dict[int, ev.Event]
) -> str | None:
    """Why the refused edit's text was not found, from the call that then worked and the edits
    of the same file made since it was last read (:func:`edit_causes.cause`)."""
    call, fix = finding.call, finding.fix
    if call.edit is None or fix is None or not call.paths:
        return None
    earlier = _edits_since_read(call, events, i, results)
    if fix.edit is not None:
        return edit_causes.cause(call.edit[0], fix.edit[0], earlier)
    if fix.command:
        script = edit_causes.script_text(fix.command)
        return edit_causes.cause(call.edit[0], script, earlier, script=True)
    return edit_causes.cause(call.edit[0], None, earlier)


def _edits_since_read(
    call: ev.Event, events: list[ev.Event], i: int, results: dict[int, ev.Event]
) -> list[tuple[str, str]]:
    """The edits of ``call``'s file that worked after the file was last read and before
    ``call`` (from the failed result at ``i`` backwards): what the file looked like when it
    was read is not what it was when the call was made."""
    path = call.paths[0]
    name = PurePosixPath(path).name
    out: list[tuple[str, str]] = []
    started = False
    for k in range(i - 1, -1, -1):
        other = events[k]
        if other is call:
            started = True
            continue
        if not started or other.kind != ev.TOOL_CALL or other.sidechain != call.sidechain:
            continue
        if other.edit is not None and path in other.paths:
            res = results.get(id(other))
            if res is not None and res.failure is None:
                out.append(other.edit)
        elif path in other.paths or (other.command and name and name in other.command):
            break  # the file was read (or otherwise looked at) here
    return out


def _cd_to_root(fix: ev.Event) -> bool:
    """Whether the fix starts by changing to an absolute directory (``cd /repo && …``)."""
    if not fix.persistent_shell or not fix.command:
        return False
    segs = triggers.segments(fix.command)
    return bool(segs) and len(segs[0]) >= 2 and segs[0][0] == "cd" and segs[0][1][:1] in "/~"


def _cd_target(command: str) -> str | None:
    """Where a command line ``cd``s for good: the first ``cd`` of its top level (none inside
    a subshell ``( … )``), relative or absolute."""
    if command.lstrip().startswith("("):
        return None
    for seg in triggers.segments(command):
        if len(seg) >= 2 and seg[0] == "cd":
            return seg[1]
    return None


def _workdir_drift(call: ev.Event, fix: ev.Event) -> str | None:
    """The working directory a call ran in when its relative paths belonged to another one:
    the fix ran the same command in another ``workdir``, or gave the paths without the part
    of them the working directory already was (``packages/api/src/x.ts`` run in
    ``packages/api/src``, fixed by ``x.ts``)."""
    if not call.command or not fix.command:
        return None
    if call.cwd and fix.cwd and call.cwd != fix.cwd:
        return call.cwd
    where = call.cwd or call.project
    if not where:
        return None
    parts = set(PurePosixPath(where).parts)
    fix_words = {w for seg in triggers.segments(fix.command) for w in seg}
    for seg in triggers.segments(call.command):
        for word in seg[1:]:
            if "/" not in word or word.startswith(("/", "~", "$", "-")):
                continue
            head = word.split("/", 1)[0]
            if head in parts and any(word.endswith("/" + f) for f in fix_words if f):
                return where
    return None


def _drift(
    events: list[ev.Event], i: int, call: ev.Event, fix: ev.Event, results: dict[int, ev.Event]
) -> str | None:
    """The directory an earlier ``cd`` left the shell in, when that is why a path failed.

    It is when the agent's shell keeps its directory, an earlier successful call of the session
    ``cd``-ed into a relative directory for good, and the fix reached the same thing by an
    absolute path or without the ``cd``; or the earlier ``cd`` went to a subdirectory by its
    absolute path and the fix went back to the folder above it.
    """
    if not call.persistent_shell or not call.command or not fix.command:
        return None
    moved = None
    root = _cd_to_root(fix) and triggers.segments(fix.command)[0][1].rstrip("/")
    for j in range(i - 1, -1, -1):
        other = events[j]
        if other.kind != ev.TOOL_CALL or not other.command or other.sidechain != call.sidechain:
            continue
        res = results.get(id(other))
        if res is None or res.failure is not None:
            continue
        target = _cd_target(other.command)
        if target is None:
            continue
        if target.startswith(("/", "~", "$", "-")):
            if root and target.rstrip("/").startswith(root + "/"):
                moved = target  # an absolute cd into a subdirectory of where the fix went
            break  # an absolute cd put the shell where it meant: an older cd no longer counts
        moved = target
        break
    if moved is None:
        return None
    own_cd = triggers.top_level_cd(call.command)
    if own_cd is not None and triggers.top_level_cd(fix.command) is None:
        return moved  # ``cd test && …`` failed where the same work without the ``cd`` worked
    if own_cd is None and _cd_to_root(fix):
        return moved  # the same work worked once the fix went back to an absolute directory
    fix_words = [w for seg in triggers.segments(fix.command) for w in seg]
    for seg in triggers.segments(call.command):
        for word in seg[1:]:
            if word.startswith(("-", "/", "~", "$")) or ("/" not in word and "." not in word):
                continue
            if any(f.startswith("/") and f.endswith("/" + word) for f in fix_words):
                return moved
    return None


def _rejection(
    events: list[ev.Event], i: int, call: ev.Event, results: dict[int, ev.Event]
) -> Finding | None:
    """A call the user rejected with a reason that says what to do instead, and the next call
    that did it."""
    result = events[i]
    reason = _rejection_reason(events, i, result.text)
    if reason is None or not (_is_correction(reason) or _DIRECTIVE.match(reason)):
        return None
    finding = Finding(call, result)
    finding.user_text = reason
    finding.rejected = True
    finding.signals.add(scoring.USER_CORRECTION)
    for j in range(i + 1, min(len(events), i + 1 + WINDOW)):
        other = events[j]
        if other.kind != ev.TOOL_CALL or other.tool != call.tool:
            continue
        res = results.get(id(other))
        if res is None or res.failure is not None or _same_input(other, call):
            continue
        if _answers(other, call, reason) or (call.tool in _EDIT_TOOLS and not call.command):
            finding.fix = other
            return finding
        return None
    return None


def _rejection_reason(events: list[ev.Event], i: int, text: str) -> str | None:
    """The user's reason for a rejection: stated in the result, typed as the whole result
    (older Claude Code), or the user's next message before any other call."""
    m = _REJECTION_REASON.search(text)
    if m:
        return m.group("reason").strip()
    if not _REJECTION_HEAD.match(text):
        return text.strip() or None  # the typed feedback is the whole result
    for j in range(i + 1, min(len(events), i + 4)):
        other = events[j]
        if other.kind == ev.TOOL_CALL:
            return None
        if other.kind == ev.USER_TEXT:
            return other.text.strip() or None
    return None


def _user_correction(
    events: list[ev.Event], i: int, results: dict[int, ev.Event]
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
    result = results.get(id(before))
    if result is None or result.failure in (ev.DENIED, ev.INTERRUPTED):
        return None
    finding = Finding(before, result)
    finding.user_text = events[i].text
    finding.signals.add(scoring.USER_CORRECTION)
    for j in range(i + 1, min(len(events), i + 1 + WINDOW)):
        other = events[j]
        if other.kind == ev.USER_TEXT:
            break
        if other.kind == ev.ASSISTANT_TEXT and finding.diagnosis is None and _diagnoses(other.text):
            finding.diagnosis = _first_sentence(other.text)
            finding.signals.add(scoring.SELF_DIAGNOSIS)
        if other.kind == ev.TOOL_CALL and other.tool == before.tool:
            res = results.get(id(other))
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


# -- the candidate ------------------------------------------------------------------------------


def _head(call: ev.Event, error: str = "") -> str:
    """What was called, in a few words: ``git gc``, ``pytest``, ``Edit``; in a pipeline or a
    chain, the simple command the error names (``cat`` of ``sed … | cat -A``)."""
    named = triggers.named_segment(call.command, error) if call.command else None
    shape = named[1] if named is not None else None
    if shape is None and call.command:
        shape = triggers.main_shape(call.command)
    if shape is not None:
        return f"{shape.exe} {shape.sub}" if shape.sub else shape.exe
    return call.tool or "call"


def _describe_call(call: ev.Event) -> str:
    if call.command:
        return f"`{_one_line(call.command, 120)}`"
    if call.paths:
        return f"{call.tool} on {PurePosixPath(call.paths[0]).name or call.paths[0]}"
    return f"the {call.tool} call"


def _gist(result: ev.Event, lines: tuple[str, ...]) -> str:
    """The error in one short line, without shell prefixes or markup."""
    text = lines[0] if lines else _one_line(strip_tags(result.text))
    text = _NOISE_PREFIX.sub("", text).strip()
    return _one_line(text, 120)


_NOISE_PREFIX = kept_programs.compile(
    r"^(?:Output:\s*|Error:\s*|(?:/usr)?(?:/bin/)?(?:ba|z)?sh: (?:-c: )?(?:line \d+: )?|"
    r"\(eval\):(?:\w+:)?\d+: )+"
)


def _trigger(finding: Finding) -> str | None:
    """A pattern that fires on the wrong call and not on its fix (``None``: tool name only)."""
    call, fix, cls = finding.call, finding.fix, finding.cls
    assert fix is not None
    if _failure_time(finding):
        return None
    if not call.command:
        if call.paths and call.tool in _FILE_TOOLS:
            return triggers.path_trigger(call.paths[0])
        return None
    failing, fixed = call.command, fix.command or ""
    name = cls.name if cls is not None else None
    if name == CWD_DRIFT.name:
        # An absolute ``cd`` into a subdirectory looks like the fix's own ``cd``: such a drift
        # is recalled when the failure happens (:func:`_failure_time`).
        return None if (finding.drift_dir or "").startswith("/") else triggers.RELATIVE_CD
    wrapper = _wrapper_trigger(finding)
    if wrapper is not None:
        return wrapper
    named = triggers.named_segment(failing, finding.result.text)
    if finding.generic:
        return _generic_trigger(finding, named)
    if name == failures.SHELL_SYNTAX:
        found = None
        if "no matches found" in finding.result.text[:1500]:
            found = triggers.glob_trigger(failing, fixed)  # zsh: an unmatched glob
        found = found or triggers.unquoted_path_trigger(failing)
        if found is None or triggers.matches(found, fixed):
            return None  # no word the shell misread that the fix wrote otherwise: no lesson
        return found
    if named is not None:
        # The error named one simple command of the line: the trigger is built on it, against
        # the fix's command of the same kind (none when the fix dropped it), and still checked
        # against the whole fixing call.
        fixed_whole = fixed
        failing = named[0]
        fixed = triggers.segment_of(fixed_whole, named[1].exe, named[1].sub) or ""
    else:
        fixed_whole = fixed
    base = triggers.base_trigger(failing)
    if base is None:
        return None
    if name == SANDBOX.name:
        shape = triggers.main_shape(failing)
        return base if shape is not None and shape.sub else None
    if name == DASH_ARGUMENT.name:
        dashed = triggers.dash_argument_trigger(failing, fixed)
        return dashed if dashed and not triggers.matches(dashed, fixed_whole) else None
    if name == failures.UNKNOWN_OPTION:
        flag = triggers.option_named(finding.result.text, failing)
        if flag is not None:
            flagged = triggers.with_flag(base, flag)
            return flagged if not triggers.matches(flagged, fixed_whole) else None
    if name == failures.UNKNOWN_SUBCOMMAND:
        # The script exists, where the fix ran it: an option moved the command elsewhere.
        moved = triggers.value_flag_trigger(failing, fixed)
        if moved is not None and triggers.matches(moved, failing):
            return moved if not triggers.matches(moved, fixed_whole) else None
    pattern = triggers.command_trigger(failing, fixed or None)
    if pattern is not None and not triggers.matches(pattern, fixed_whole):
        return pattern
    tight = triggers.tight_trigger(failing)
    if (
        tight is not None
        and triggers.matches(tight, failing)
        and not triggers.matches(tight, fixed_whole)
    ):
        return tight
    if name in _ENVIRONMENT_CLASSES or finding.result.failure == ev.TIMEOUT:
        # Run bare (from PATH, in the foreground) where the fix went through a virtual
        # environment, a runner or a ``timeout``.
        for bare in (triggers.anchored(base), triggers.first_word_trigger(failing)):
            if bare and triggers.matches(bare, failing) and not triggers.matches(bare, fixed_whole):
                return bare
    shape, fixed_shape = triggers.main_shape(failing), triggers.main_shape(fixed)
    if shape is not None and fixed_shape is not None and fixed_shape.exe == shape.exe:
        # What the fix added: a flag (``--offline``) or a plain word (``vitest run``).
        own = {w for seg in triggers.segments(failing) for w in seg}
        added = [
            w
            for seg in triggers.segments(fixed)
            for w in seg
            if w not in own and _ADDED_WORD.fullmatch(w)
        ]
        for word in dict.fromkeys([*fixed_shape.flags, *added]):
            if word in shape.flags or word in triggers.NOISE_FLAGS or word in own:
                continue
            pattern = triggers.without_flag(base, word)
            if triggers.matches(pattern, failing) and not triggers.matches(pattern, fixed_whole):
                return pattern
    return None


def _wrapper_trigger(finding: Finding) -> str | None:
    """The wrapper the fix dropped, around the executable it wrapped (``rtk`` … ``bun``); or,
    for a fix that added one, the executable run bare (``vitest`` first in its command)."""
    if finding.wrapper is None or finding.call.command is None or finding.fix is None:
        return None
    how, wrapper, exe = finding.wrapper
    failing, fixed = finding.call.command, finding.fix.command or ""
    if how == "dropped":
        pattern = triggers.wrapper_trigger(wrapper, exe)
    else:
        pattern = triggers.leading_trigger(exe)
    if triggers.matches(pattern, failing) and not triggers.matches(pattern, fixed):
        return pattern
    return None


def _generic_trigger(
    finding: Finding, named: tuple[str, triggers.Shape] | None = None
) -> str | None:
    """For a failure no class knows, a pattern for what the failing call had and its fix did
    not: the piece of syntax the error quotes, an argument starting with ``-``, or a flag the
    fix dropped. Never the mere absence of what the fix added: that fires on every plain call
    of the command (every ``go build`` without ``-tags``)."""
    call, fix = finding.call, finding.fix
    assert call.command is not None and fix is not None
    failing, fixed = call.command, fix.command or ""
    found = triggers.culprit_trigger(finding.result.text, failing, fixed)
    if found is None:
        shape = triggers.main_shape(fixed)
        if shape is None or (named is not None and named[1].exe != shape.exe):
            return None  # (the error named another command of the line: not this one's flag)
        segment = triggers.segment_of(failing, shape.exe, shape.sub)
        own = triggers.segment_of(fixed, shape.exe, shape.sub) or fixed
        if segment is None:
            return None
        words = {w for w in segment.split() if not w.startswith("-")}
        if any(w not in words for w in own.split() if not w.startswith("-")):
            return None  # the fix changed what it worked on too: the flag may be innocent
        pattern = triggers.command_trigger(segment, own)
        base = triggers.base_trigger(segment)
        found = pattern if pattern != base else None  # only with a flag the fix dropped
    if found is not None and triggers.matches(found, failing):
        return found if not triggers.matches(found, fixed) else None
    return None


def _recallable(finding: Finding) -> bool:
    """Whether a failure no class knows, fixed by a call nothing in the command line tells from
    it (``git push origin`` then ``git push`` to a URL, a ``git apply`` of a hand-written patch
    then one of a generated patch), is still a lesson: one recalled when its error comes back.

    Only when the error is the command's own complaint about the call: it has lines that state
    an error; the end of the output, where a long run reports, is no test, build or lint
    failure; neither end names a one-off (a path that is not there, a permission); and the fix
    rewrote no file on its way (then the code was the problem, not the call); and when the error
    names one command of a pipeline, the fix still runs that command (a fix that dropped it
    tells nothing about how to call it). A fix that worked on another target (another URL,
    file, branch or query) says the first was wrong, not how to call the command: as in
    :func:`_generic_trigger`, such a failure was a fact of its target and yields nothing.
    """
    call, result, fix = finding.call, finding.result, finding.fix
    if not finding.generic or fix is None or not result.text or not call.command:
        return False
    if not _kept_target(call.command, fix.command or ""):
        return False
    named = triggers.named_segment(call.command, result.text)
    if named is not None and all(
        shape.exe != named[1].exe for shape in triggers.shapes(fix.command or "")
    ):
        return False
    if not error_lines(result.text):
        return False
    tail = result.text[-3000:]
    if _WORK_FAILURE.search(tail):
        return False
    for end in (result.text[:1500], result.text[-1500:]):
        cls = failures.mistake_class(end)
        if cls is not None and not cls.reusable:
            return False
    return not (fix.command and _REWRITES.search(fix.command))


def _kept_target(failing: str, fixed: str) -> bool:
    """Whether the fix ran the failing command's main command on all it named: every word of
    that command that is no option is still in the fix's command of the same kind."""
    shape = triggers.main_shape(failing)
    if shape is None:
        return False
    segment = triggers.segment_of(failing, shape.exe, shape.sub)
    own = triggers.segment_of(fixed, shape.exe, shape.sub)
    if segment is None or own is None:
        return False
    kept = set(own.split())
    return all(word in kept for word in segment.split() if not word.startswith("-"))


def _refused_arguments(result: ev.Event) -> bool:
    """Whether the tool refused a call's arguments before running anything (OpenCode's bash
    tool without its required ``description``): the same command with the arguments right is
    its fix, not a flaky second try, and nothing in the command line shows the mistake."""
    if result.failure != ev.VALIDATION:
        return False
    cls = failures.mistake_class(result.text)
    return cls is not None and cls.name == failures.BAD_PARAMETERS


def _failure_time(finding: Finding) -> bool:
    """Whether the finding is a tool's refusal the call does not show (see
    :data:`FAILURE_TIME_CLASSES`), or a wrong working directory the command line does not
    show: its lesson is recalled at the failure, never before a call."""
    cls = finding.cls
    if cls is None:
        return False
    if finding.call.command:
        absolute_drift = cls is CWD_DRIFT and (finding.drift_dir or "").startswith("/")
        refused = cls.name == failures.BAD_PARAMETERS and _refused_arguments(finding.result)
        return cls.name in _COMMAND_FAILURE_TIME or absolute_drift or refused
    return cls.name in FAILURE_TIME_CLASSES


def _refusal_lines(cls: MistakeClass, text: str) -> tuple[str, ...]:
    """The line of a tool's refusal that states it, without the tool's echo of the input (the
    text that was not found is one repository's code, not the mistake's words)."""
    for raw in strip_tags(text).splitlines():
        line = " ".join(raw.split())
        if line and cls.pattern.search(line):
            return (redact_head(line, 200)[:200],)
    return ()


def _candidate(finding: Finding, cfg: Config) -> Candidate | None:
    call, result, fix = finding.call, finding.result, finding.fix
    assert fix is not None
    trigger = _trigger(finding)
    if trigger is not None and call.command and not triggers.compiler_accepts(trigger):
        trigger = None  # a shape the manifest compiler would refuse is no trigger at all
    bare = trigger is None or triggers.is_bare_executable(trigger)
    if call.command and bare and not _failure_time(finding):
        if not _recallable(finding):
            return None  # nothing tells the wrong call from its fix: no lesson to deliver
        trigger = None  # told by its error alone: recalled when that error comes back
    lines = error_lines(result.text) if result.text else ()
    cls = finding.cls
    refused = bool(call.command) and _refused_arguments(result)
    if _failure_time(finding) and not call.command:
        assert cls is not None
        lines = _refusal_lines(cls, result.text) or lines
    elif refused:
        # The schema's complaint, whole: the key it names sits on a line of its own.
        lines = (_one_line(strip_tags(result.text), 200),)
    if finding.step is not None and not lines:
        lines = tuple(
            redact_head(line, 200)[:200]
            for line in (" ".join(raw.split()) for raw in result.text.splitlines())
            if finding.step in line
        )[:1]  # the line that names the step: what failure-time recall matches
    tool_name = call.tool or "call"
    head = tool_name if refused else _head(call, result.text)
    wrapper = finding.wrapper
    if finding.rejected:
        mistake = f"{_describe_call(call)} was rejected by the user"
        summary = f"{head}: the user wanted another way"
    elif wrapper is not None and (cls is None or cls.name not in _ENVIRONMENT_CLASSES):
        how, name, exe = wrapper
        gist = _gist(result, lines)
        if how == "dropped":
            mistake = f"{_describe_call(call)} failed: `{name}` could not run `{exe}` (“{gist}”)"
            summary = f"{exe}: run it without `{name}`"
        else:
            mistake = f"{_describe_call(call)} failed run bare (“{gist}”)"
            summary = f"{exe}: run it through `{name}`"
    elif cls is not None:
        cls = EDIT_CAUSES.get(finding.edit_cause or "", cls)
        general = cls.mistake.format(
            tool=tool_name,
            dir=finding.drift_dir or finding.cleared or "",
            step=finding.step or "",
        )
        mistake = f"{_describe_call(call)} failed: {general} (“{_gist(result, lines)}”)"
        summary = f"{head}: {cls.title}"
    elif result.failure in ev.MISTAKES:
        mistake = f"{_describe_call(call)} failed (“{_gist(result, lines)}”)"
        summary = f"{head}: {'it hung' if result.failure == ev.TIMEOUT else 'needed another way'}"
    else:
        mistake = f"{_describe_call(call)} was not what the user wanted"
        summary = f"{head}: the user corrected it"
    if finding.user_text:
        mistake += f"; the user said: “{_one_line(strip_tags(finding.user_text), 200)}”"
    mistake = mistake.rstrip(".") + "."
    fixed = _fix_text(finding, cls, tool_name)
    signals = set(finding.signals)
    if cls is not None:
        signals.add(scoring.KNOWN_MISTAKE)
    return Candidate(
        id="",
        tier=2,
        agent=call.agent,
        tool=call.tool,
        trigger=trigger,
        mistake=mistake,
        fix=fixed,
        summary=_one_line(summary, 100).rstrip("…"),
        tags=triggers.tags_for(call.tool, call.command, call.paths),
        confidence=scoring.confidence(signals, cfg.scoring),
        priority=scoring.priority(signals),
        evidence=tuple(
            Evidence(r.file, r.line, r.call_id or call.call_id, r.session_id)
            for r in finding.retries
        ),
        error_lines=lines,
        project=_project(finding),
        detector=NAME,
    )


def _project(finding: Finding) -> str | None:
    """The project of the lesson: the call's, except that a call made from the subdirectory an
    earlier ``cd`` left the shell in belongs to the repository it drifted from."""
    project, moved, fix = finding.call.project, finding.drift_dir, finding.fix
    if not project or not moved or finding.cls is not CWD_DRIFT:
        return project
    project = project.rstrip("/") or project
    if fix is not None and _cd_to_root(fix):
        root = triggers.segments(fix.command or "")[0][1].rstrip("/")
        if project.startswith(root + "/"):
            return root  # the fix went back to the repository the shell had drifted from
    tail = "/" + moved.strip("/")
    if not moved.startswith((".", "/")) and project.endswith(tail):
        return project[: -len(tail)] or project
    return project


def _fix_text(finding: Finding, cls: MistakeClass | None, tool_name: str) -> str:
    """What worked, from the fixing call: the command that ran, or the tool on the file; never
    the agent's prose around it."""
    fix = finding.fix
    assert fix is not None
    if fix.command:
        did = f"`{_one_line(fix.command, 160)}` worked"
        if finding.fix_failure is not None:
            later = finding.fix_failure
            gist = _gist(later, error_lines(later.text) if later.text else ())
            did = (
                f"`{_one_line(fix.command, 160)}` got past it "
                f"(and then failed for a reason of its own: “{gist}”)"
            )
        wrapper = finding.wrapper
        if wrapper is not None and (cls is None or cls.name not in _ENVIRONMENT_CLASSES):
            how, name, exe = wrapper
            way = f"without `{name}`" if how == "dropped" else f"through `{name}`"
            worked = f"Run `{exe}` {way}: {did}"
        elif cls is None:
            worked = f"Run `{_one_line(fix.command, 160)}` instead"
        else:
            way = cls.fix.format(tool=tool_name, step=finding.step or "", dir=finding.cleared or "")
            worked = f"{way}: {did}"
    else:
        target = PurePosixPath(fix.paths[0]).name if fix.paths else ""
        on = f" on {target}" if target else ""
        generic = f"the {fix.tool or 'tool'} call{on} then worked"
        worked = f"{cls.fix.format(tool=tool_name)}; {generic}" if cls is not None else generic
        if (
            finding.read_between
            and finding.call.tool in _EDIT_TOOLS
            and (cls is None or cls.name != failures.NOT_READ)
            and finding.edit_cause is None
        ):
            worked = f"Read the file again before the {tool_name}; {generic}"
        worked = worked[:1].upper() + worked[1:]
    # The agent's own words (``finding.diagnosis``) raise the confidence but stay out: what it
    # said it was doing is often narration, and the fix must be what the calls show.
    return worked.rstrip(".") + "."
