"""The whole loop, measured: learn from a project's earlier sessions, deliver on its later ones.

Recall and precision per event say how well each part works; the promise is that a mistake made
once is met by its lesson the next time. So, per project, the earlier sessions are scanned and
the later ones replayed through the hooks, and what is counted is whether the right lesson
reached a later failure that repeats an earlier kind of mistake.

**Projects and sessions.** A project is a folder of a corpus (``<corpus>/<agent>/<owner__repo>``
under ``../shared/corpus``, ``real`` and ``real2``). Its transcripts are grouped into sessions by
the session the locked split names for each (``benchmarks/labels/split.json``: a sub-agent's
file goes with its session) and ordered by their first timestamp, read by the agent's own
reader. The earlier 60 % of a project's sessions (rounded, at least one, and at least one left)
are *learned from*; the later ones are *replayed*. A project of one session is left out.

**Learning.** The earlier sessions' files are copied (same relative paths, Claude's sidecars
with them) and scanned with the real ``lessons scan`` into a scratch ``LESSONS_HOME``; then,
in two copies of that home:

* ``eager`` — every candidate is accepted: ``lessons promote`` of the pending and the held ones
  (each keeps the type the scanner proposed);
* ``review`` — what ``lessons review`` offers and proposes by default: the pending candidates
  only (a scan holds back those over its cap, and review does not show them), accepted as it
  proposes (``lessons review --accept``: a hint).

Both accept with ``--scope global``. The corpus's working directories do not exist on the
machine that replays it, and the hook names a project only by a directory it can see, so a
lesson scoped to its project would never fire; each project learns into a home of its own, so
"global" there means this project's folder and nothing else. When no scan held a candidate back
and the scanner proposes only hints, the two variants learn the same lessons.

**Replay.** Each later session is replayed through the hook commands' own entry point (the
runner with the agent's hot adapter, in process, as ``lessons-<agent>-hook`` calls it) with the
transcript growing as it would live: a session start, each typed user prompt (Claude and Codex
``UserPromptSubmit``, Gemini ``BeforeAgent``), and each tool call's payloads as the agent sends
them (before the call, and after it: Claude's ``PostToolUseFailure`` when it failed, Codex's
``PostToolUse``, Gemini's ``AfterTool``; see ``benchmarks/noise.py``). A Codex code-mode script
that makes one tool call is replayed as that call: Codex dispatches it as a direct call, hooks
and all. A call a guard denies does not run, so nothing comes after it. A Claude Code call its
input checks refused (a ``<tool_use_error>`` result: a file not read yet, an ``old_string`` not
found, input that fails the schema) is sent nothing at all: Claude Code fires no hook for it
(``tests/e2e/test_claude_refusals_e2e.py``), so a lesson about it can come only before it. It
still counts as a call, and its labelled event is still a repeat to catch.

OpenCode's sessions (exports, ``opencode export``) are replayed as its plugin
(``opencode_plugin.js``) calls the hook: ``chat.message`` with the typed text parts of each
user message, then ``session.start`` at the first model request (the system-prompt transform
asks for the session block there, so after the first prompt), and for each tool part
``tool.execute.before`` and, by its recorded state, ``tool.execute.after`` (its output cut as
the plugin cuts it, a shell call's exit code) or ``tool.error`` (a call that threw). A task's
child session is sent under its own id, its start naming its parent. Copilot CLI's session logs
are replayed as the hooks ``lessons install copilot`` registers receive them: camelCase
payloads that name no event (the hook command's argument does), ``sessionStart``,
``userPromptSubmitted``, ``preToolUse``, then ``postToolUse`` with the result the model read or
``postToolUseFailure`` with the error: the shapes of Copilot CLI 1.0.102, the release the
adapter is verified against (the corpus's logs come from older ones). Neither agent sends its
hooks a transcript path (OpenCode keeps one database for every session; Copilot names its log
only at the stop), so nothing grows for them. As for the other agents, the end of a turn and a
compaction are not sent: neither answers with a lesson.

**Judged by hand, the lesson rule where no one has.** Whether a later event repeats an earlier
one's kind, and whether a stored lesson is about a labelled event, are read from the hand
verdicts in ``benchmarks/labels/judged/value-relevance.json`` (each with its reason). The
*lesson rule* (``capture_eval.says_lesson``: the one side's words, tool names left out, share a
key word with the other's trigger and one with its fix) decides only the pairs no one has
judged yet, and the report counts them; ``--word-rule`` uses the rule alone. The rule is
lenient: it takes a lesson about the Read tool's parameters for one about an Edit's
indentation (both say "read"), and an Edit after a branch switch for a repeat of creating a
branch that exists.
On the run the verdicts were written for, it put 51 repeats in the ceiling where a reader
finds 33, and called 31 of 35 deliveries relevant where a reader finds 22.

**Ceiling.** The labelled reusable events (``benchmarks/labels/``, with the lesson a reviewer
would write) of the replayed sessions that repeat the kind of a labelled reusable event of the
same project's earlier sessions.

**Catches.** A repeat is caught *before* when a lesson about it was delivered earlier in its
session: at the session start, on a prompt, or on an earlier call; *at* when it was delivered
on the failing call itself, before it ran (a hint or a denial) or after it failed
(failure-time recall). A call Claude Code refused before any hook ran gets its lesson with the
session's next event, which reads the refusal back from the transcript (catch-up); the delivery
log names the refused call, and the replay counts that lesson on it, after it failed ("caught
up"), and as coming before a later call only from the call after it on. A repeat caught before
is not counted at.

**Deliveries** are the lessons in the hook's answers (a hint, a denial, recall, a directive),
each lesson of each answer once; a standing directive given again as the transcript grew is a
re-injection, not counted. Per 100 replayed tool calls. A delivery is **relevant** when its
lesson is about a labelled reusable event of its session on the call it came with or on one of
the :data:`WINDOW` calls after it (a session start or a prompt comes with the call that follows
it). A lesson about an unlabelled mistake counts as not relevant.

    python benchmarks/value.py [--corpora DIR] [--window N] [--variant eager|review|both] [--json]

It exits 2 when the replay cannot run (no corpus, no labels, no project of two sessions, a scan
that failed, no call replayed): a run that measured nothing never prints a zero.
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from siblings import capture_eval, labels_split, noise

REPO = Path(__file__).resolve().parent.parent
CORPORA = REPO.parent / "shared" / "corpus"
LABELS = REPO / "benchmarks" / "labels"
#: Hand verdicts on (lesson, labelled event) pairs: see :class:`Relevance`.
JUDGED = LABELS / "judged" / "value-relevance.json"
CORPUS_NAMES = ("real", "real2")
#: The share of a project's sessions learned from (the earlier ones).
EARLIER = 0.6
#: A delivery is relevant when its lesson is about a labelled event this many calls ahead.
WINDOW = 20
VARIANTS = ("eager", "review")
#: Agents whose calls ``noise.py`` turns into hook payloads.
REPLAYED = ("claude", "codex", "copilot", "gemini", "opencode")
#: The targets of the issue, beside the figures.
TARGETS = {
    "caught": "≥ 50 % of the ceiling",
    "before": "≥ 1/3 of the catches",
    "per100": "< 2 per 100 calls",
    "relevant": "≥ 60 % of deliveries",
}


class CannotRun(Exception):
    """The replay cannot run: the message says why and what to do."""


# -- sessions -----------------------------------------------------------------------------------


@dataclass
class Session:
    """One session of a project: its transcripts (a sub-agent's files with it)."""

    corpus: str
    agent: str
    project: str
    key: str
    files: list[Path] = field(default_factory=list)
    start: float = float("inf")

    @property
    def name(self) -> str:
        return f"{self.corpus}/{self.agent}/{self.project}"


def _epoch(value: Any) -> float | None:
    """A reader's event time (ISO 8601, or epoch seconds or milliseconds) as epoch seconds."""
    if value is None:
        return None
    text = str(value).strip()
    try:
        number = float(text)
    except ValueError:
        try:
            return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return number / 1000 if number > 1e11 else number


def transcripts(corpus: Path) -> list[tuple[str, str, Path]]:
    """(agent, project, file) of every transcript of a corpus folder."""
    out = []
    for path in sorted(corpus.glob("*/*/**/*")):
        if (
            path.is_file()
            and path.suffix in (".jsonl", ".json")
            and not path.name.endswith((".meta.json", ".expected.json"))
        ):
            agent, project = path.relative_to(corpus).parts[:2]
            out.append((agent, project, path))
    return out


def sessions_of(
    corpora: Path, names: Sequence[str], agents: Mapping[str, Any], split_files: Mapping[str, str]
) -> dict[str, list[Session]]:
    """Project (``corpus/agent/repo``) → its sessions, earliest first."""
    from lessons_core.outcomes.transcripts import read_events

    split = labels_split()
    projects: dict[str, dict[str, Session]] = {}
    for name in names:
        corpus = corpora / name
        if not corpus.is_dir():
            continue
        for agent, project, path in transcripts(corpus):
            rel = path.relative_to(corpus).as_posix()
            key = split_files.get(f"{name}/{rel}") or split.session_of(path, agent) or rel
            found = projects.setdefault(f"{name}/{agent}/{project}", {})
            session = found.setdefault(key, Session(name, agent, project, key))
            session.files.append(path)
            for event in read_events(agents, agent, path):
                when = _epoch(event.time)
                if when is not None:
                    session.start = min(session.start, when)
                    break
    return {
        project: sorted(found.values(), key=lambda s: (s.start, s.key))
        for project, found in sorted(projects.items())
    }


def cut(sessions: Sequence[Session]) -> tuple[list[Session], list[Session]]:
    """The earlier :data:`EARLIER` share of the sessions and the later rest (each non-empty)."""
    k = min(len(sessions) - 1, max(1, round(EARLIER * len(sessions))))
    return list(sessions[:k]), list(sessions[k:])


# -- labels and the ceiling ---------------------------------------------------------------------


def reusable(labels: Iterable[Any]) -> dict[tuple[str, str], list[Any]]:
    """(corpus, file) → its labelled reusable events that name a call and carry a lesson."""
    out: dict[tuple[str, str], list[Any]] = {}
    for label in labels:
        if label.reusable and label.lesson and label.call_id:
            out.setdefault((label.corpus, label.file), []).append(label)
    return out


def labels_in(
    sessions: Iterable[Session], corpora: Path, by_file: Mapping[tuple[str, str], list[Any]]
) -> list[Any]:
    """The labelled reusable events of ``sessions``' transcripts."""
    out: list[Any] = []
    for session in sessions:
        for path in session.files:
            rel = path.relative_to(corpora / session.corpus).as_posix()
            out.extend(by_file.get((session.corpus, rel), ()))
    return out


def repeats(earlier: Any, later: Any) -> bool:
    """Whether ``later`` repeats the kind of mistake ``earlier`` was: the lesson rule, with the
    earlier label's lesson in the place of a candidate."""
    said = {
        "trigger": earlier.lesson["trigger"],
        "mistake": earlier.lesson["mistake"],
        "fix": earlier.lesson["fix"],
    }
    tools = f"{earlier.tool or ''} {later.tool or ''}"
    return bool(capture_eval().says_lesson(said, later.lesson, tools))


def ceiling(earlier: Sequence[Any], later: Sequence[Any], relevance: Relevance) -> list[Any]:
    """The later labelled events that repeat an earlier one's kind: by the hand verdicts of
    ``relevance`` where it has one, else by the lesson rule (:func:`repeats`)."""
    return [lb for lb in later if relevance.repeats_earlier(earlier, lb)]


def about(words: Mapping[str, str] | None, label: Any, tool: str = "") -> bool:
    """Whether a stored lesson (``noise.lesson_words``) is about a labelled event, by the
    lesson rule alone."""
    if words is None:
        return False
    tools = f"{label.tool or ''} {tool}"
    return bool(capture_eval().says_lesson(words, label.lesson, tools))


def _event(label: Any) -> str:
    """A labelled event as the hand verdicts name it: ``corpus/file#call id``."""
    return f"{label.key}#{label.call_id}"


@dataclass
class Relevance:
    """Whether a stored lesson is about a labelled event, and whether a later event repeats an
    earlier one's kind: the hand verdict when one is on record (:data:`JUDGED`), else the
    lesson rule (:func:`about`, :func:`repeats`).

    The lesson rule asks only for a shared key word with the label's trigger and one with its
    fix, so it takes a lesson about the Read tool's parameters for one about an Edit's
    indentation, since both say "read", and an Edit after a branch switch for a repeat of
    creating a branch that exists. Catches, the ceiling and relevance are only as honest as
    this test, so each pair the rule accepted has been read and judged; a pair no one judged
    yet (a lesson worded anew, a label added) falls back to the rule and is counted, so the
    report says how much of it rests on the rule.
    """

    verdicts: Mapping[tuple[str, str], bool] = field(default_factory=dict)
    #: later event -> the earlier event it repeats, or None: it repeats none
    repeated: Mapping[str, str | None] = field(default_factory=dict)
    judged: set[tuple[str, str]] = field(default_factory=set)
    by_rule: set[tuple[str, str]] = field(default_factory=set)

    @classmethod
    def load(cls, path: Path = JUDGED) -> Relevance:
        try:
            doc = json.loads(path.read_text("utf-8"))
            verdicts = {(p["lesson"], p["label"]): bool(p["relevant"]) for p in doc["pairs"]}
            repeated = {r["later"]: r["repeats"] for r in doc["repeats"]}
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise CannotRun(f"hand verdicts unreadable ({path.name}): {exc}") from None
        return cls(verdicts, repeated)

    def repeats_earlier(self, earlier: Sequence[Any], later: Any) -> bool:
        """Whether ``later`` repeats the kind of one of the ``earlier`` events."""
        event = _event(later)
        if event in self.repeated:
            self.judged.add(("(repeats)", event))
            return self.repeated[event] in {_event(e) for e in earlier}
        said = any(repeats(e, later) for e in earlier)
        if said:
            self.by_rule.add(("(repeats)", event))
        return said

    def __call__(self, words: Mapping[str, str] | None, label: Any, tool: str = "") -> bool:
        if words is None:
            return False
        pair = (words.get("summary", ""), _event(label))
        if pair in self.verdicts:
            self.judged.add(pair)
            return self.verdicts[pair]
        said = about(words, label, tool)
        if said:
            self.by_rule.add(pair)
        return said


# -- learning -----------------------------------------------------------------------------------


def _cli(env: Mapping[str, str], *args: str) -> str:
    try:
        return str(noise().lessons_cli(env, *args))
    except SystemExit as exc:
        raise CannotRun(str(exc.code)) from None


def _candidates(env: Mapping[str, str], status: str) -> list[dict[str, Any]]:
    out = _cli(env, "candidates", "--json", "--status", status)
    return [json.loads(line) for line in out.splitlines() if line.strip()]


@dataclass
class Learned:
    """The homes that learned from a project's earlier sessions, by variant, and what the scan
    offered: pending and held candidates."""

    envs: dict[str, dict[str, str]]
    pending: int
    held: int


def learn(
    base: Path, slug: str, corpora: Path, earlier: Sequence[Session], variants: Sequence[str]
) -> Learned:
    """Scan ``earlier`` into a scratch home, then accept its candidates each variant's way."""
    nz = noise()
    scanned = nz.make_home(base, f"{slug}-scanned")
    folder = base / f"{slug}-earlier"
    for session in earlier:
        root = corpora / session.corpus
        for path in session.files:
            sidecar = path.with_name(path.name.rsplit(".", 1)[0] + ".meta.json")
            for source in (path, sidecar):
                if source.is_file():
                    target = folder / source.relative_to(root)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(source.read_bytes())
    _cli(scanned, "scan", str(folder))
    offered = {status: _candidates(scanned, status) for status in ("pending", "held")}
    pending = [str(c["id"]) for c in offered["pending"]]
    held = [str(c["id"]) for c in offered["held"]]
    out = {}
    for variant in variants:
        home = base / f"{slug}-{variant}"
        shutil.copytree(Path(scanned["LESSONS_HOME"]).parent, home)
        env = dict(scanned)
        env.update(
            LESSONS_HOME=str(home / "lessons"),
            LESSONS_STATE_DIR=str(home / "state"),
            HOME=str(home / "user"),
        )
        if variant == "eager" and (pending or held):
            _cli(env, "promote", "--scope", "global", *pending, *held)
        elif variant == "review" and pending:
            accept = [arg for i in pending for arg in ("--accept", i)]
            _cli(env, "review", "--scope", "global", *accept)
        out[variant] = env
    return Learned(out, len(pending), len(held))


# -- replay -------------------------------------------------------------------------------------


#: The phase of a lesson given for a call the agent refused without firing a hook: it rides
#: with the session's next event (the hook reads the refusal back from the transcript), and is
#: counted on the refused call, after it failed.
CAUGHT_UP = "caught up"


@dataclass(frozen=True)
class Delivery:
    """A lesson in a hook's answer: at which call of the session (0-based) and in which phase
    (``start`` and ``prompt`` come before the call ``index``; ``before`` and ``after`` on it;
    :data:`CAUGHT_UP` after it too, given with the next event)."""

    lesson: str
    index: int
    phase: str


@dataclass
class Replayed:
    """One session as it was replayed."""

    session: Session
    calls: int = 0
    prompts: int = 0
    #: (corpus-relative file, call id) → the call's index in the session.
    index: dict[tuple[str, str], int] = field(default_factory=dict)
    tool_of: dict[int, str] = field(default_factory=dict)
    deliveries: list[Delivery] = field(default_factory=list)
    reinjections: int = 0
    #: The indexes of the calls a sub-agent made.
    in_subagent: set[int] = field(default_factory=set)


def _prompts(agent: str, path: Path, agents: Mapping[str, Any]) -> list[tuple[int, str]]:
    """(position, text) of each typed user prompt, by the agent's own reader; the position is
    the byte offset of its record (Claude, Codex) or its message's index (Gemini)."""
    from lessons_core.outcomes.transcripts import read_events
    from lessons_core.scan import events as ev

    events = read_events(agents, agent, path)
    # A failed call's result may be read as user text too (a rejection's reason); only what
    # was typed as a message of its own is a prompt.
    results = {e.line for e in events if e.kind == ev.TOOL_RESULT}
    out = []
    for event in events:
        if (
            event.kind == ev.USER_TEXT
            and event.text
            and not event.sidechain
            and event.line not in results
        ):
            where = event.line if agent == "gemini" else event.offset
            out.append((int(where or 0), str(event.text)))
    return out


def _gemini_order(path: Path) -> dict[str, int]:
    """Gemini: tool call id → the index of the message holding it (a prompt's position)."""
    records: list[Any]
    if path.suffix == ".json":
        try:
            doc = json.loads(path.read_bytes())
        except ValueError:
            return {}
        records = (doc.get("messages") if isinstance(doc, dict) else None) or []
        base = 0
    else:
        records, base = list(noise()._lines(path)), 1
    out: dict[str, int] = {}
    for n, record in enumerate(records if isinstance(records, list) else []):
        for tool in (record.get("toolCalls") or ()) if isinstance(record, dict) else ():
            if isinstance(tool, dict) and tool.get("id"):
                out.setdefault(str(tool["id"]), n + base)
    return out


def _steps(agent: str, path: Path, calls: list[Any], agents: Mapping[str, Any]) -> list[Any]:
    """The prompts (strings) and calls of one transcript, in the order they happened."""
    prompts = _prompts(agent, path, agents)
    if agent == "gemini":
        order = _gemini_order(path)
        placed = [(order.get(c.call_id, 1 << 60), 1, n, c) for n, c in enumerate(calls)]
    else:
        placed = [((c.end or 1) - 1, 1, n, c) for n, c in enumerate(calls)]
    placed += [(where, 0, n, text) for n, (where, text) in enumerate(prompts)]
    return [step for *_, step in sorted(placed, key=lambda p: p[:3])]


def subagent_of(agent: str, path: Path) -> str | None:
    """The sub-agent a transcript file belongs to (Claude Code's ``agent-<id>.jsonl``), else
    ``None``. Other agents' sub-agents are not told apart in the replay."""
    if agent == "claude" and path.name.startswith("agent-"):
        return path.stem.removeprefix("agent-")
    return None


def replay_session(
    session: Session,
    env: Mapping[str, str],
    agents: Mapping[str, Any],
    corpora: Path,
    scratch: Path,
    tag: str,
    subagents: str = "own",
) -> Replayed:
    """Replay one session through the hook runner with the agent's hot adapter.

    ``subagents``: ``own`` sends a sub-agent's calls with its ``agent_id``, as the agent does,
    so the hooks keep its dedup record apart and give it the parent's lessons again (the rule
    the hooks follow); ``shared`` sends them as the parent's, as if a sub-agent inherited what
    its parent was given."""
    from lessons_core.hot import manifest as manifest_mod
    from lessons_core.hot import runner

    nz = noise()
    manifest_mod.clear_cache()
    compiled = manifest_mod.load(environ=dict(env)).get("lessons", {})
    standing = {i for i, e in compiled.items() if e.get("type") in ("directive", "protocol")}
    out = Replayed(session)
    given: set[str] = set()
    sid = f"{session.key}~{tag}"
    started: set[str] = set()

    log = Path(env["LESSONS_HOME"]) / "deliveries.jsonl"
    read = [log.stat().st_size if log.exists() else 0]
    calls_by_id: dict[str, int] = {}

    def caught_up() -> dict[str, int]:
        """The lessons this hook call delivered for a call it did not come with (a refusal no
        hook saw, caught up from the transcript: the log names the refused call), by lesson."""
        if not log.exists():
            return {}
        with log.open("rb") as fh:
            fh.seek(read[0])
            new = fh.read()
        read[0] += len(new)
        out: dict[str, int] = {}
        for line in new.splitlines():
            entry = json.loads(line)
            at = calls_by_id.get(str(entry.get("callId")))
            if entry.get("event") == "post_failure" and at is not None:
                out[str(entry.get("id"))] = at
        return out

    def hook(event: str, payload: dict[str, Any], index: int, phase: str) -> dict[str, Any]:
        capture = nz.Capture(nz.adapter(session.agent, event))
        runner.run(
            capture,
            stdin=io.BytesIO(json.dumps(payload).encode()),
            stdout=io.StringIO(),
            environ=dict(env),
        )
        decision: dict[str, Any] = capture.decision or {}
        delivered = [str(i) for i in decision.get("delivered") or ()]
        refused = caught_up()
        if delivered and all(i in standing and i in given for i in delivered):
            out.reinjections += 1
            return decision
        for lesson in delivered:
            if lesson in refused and phase != "after":
                # With the next event after a refused call: on that call, after it failed.
                out.deliveries.append(Delivery(lesson, refused[lesson], CAUGHT_UP))
            else:
                out.deliveries.append(Delivery(lesson, index, phase))
        given.update(delivered)
        return decision

    root = corpora / session.corpus
    for number, path in enumerate(session.files):
        rel = path.relative_to(root).as_posix()
        steps = _file_steps(session.agent, path, agents)
        calls = [value for kind, value in steps if kind == "call"]
        results = nz.outcomes_of(session.agent, path, agents)
        for call in calls:
            result = results.get(call.call_id)
            if result is not None:
                nz.record_result(call, result)
        data = path.read_bytes()
        grown = scratch / tag / f"{number:03d}-{path.name}"
        grown.parent.mkdir(parents=True, exist_ok=True)
        grown.write_bytes(data if session.agent == "gemini" else b"")
        written = 0
        cwd = next((c.cwd for c in calls), "/")
        sub = subagent_of(session.agent, path)
        file_sid = _session_of(session.agent, steps, sid, tag, subagents)
        if sub is None and file_sid != sid:
            sub = file_sid  # an OpenCode task's own session
        for kind, value in steps:
            if kind in ("start", "prompt"):
                if kind == "start":
                    if file_sid in started:
                        continue
                    started.add(file_sid)
                else:
                    out.prompts += 1
                event, payload = nz.session_payload(
                    session.agent, kind, value, file_sid, cwd, grown
                )
                hook(event, payload, out.calls, kind)
                continue
            call = value
            if call.end is not None and call.end > written:
                with grown.open("ab") as fh:
                    fh.write(data[written : call.end])
                written = call.end
            call.session = file_sid
            index = out.calls
            out.calls += 1
            if sub is not None:
                out.in_subagent.add(index)
            out.index[(rel, call.call_id)] = index
            calls_by_id[call.call_id] = index
            out.tool_of[index] = call.name
            for phase, event, payload in nz.payloads(call, grown):
                if sub is not None and subagents == "own" and session.agent == "claude":
                    payload = {**payload, "agent_id": sub}
                decision = hook(event, payload, index, phase)
                if decision.get("deny") and phase == "before":
                    break  # a denied call does not run: nothing comes after it
    return out


def _file_steps(agent: str, path: Path, agents: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The steps of one transcript (``noise.opencode_steps`` says what they are): OpenCode's
    and Copilot CLI's as their readers there give them; for the others, the calls of
    ``noise.READERS`` and the prompts in the order they happened, after a session start."""
    nz = noise()
    if agent in nz.STEPS:
        return list(nz.STEPS[agent](path))
    calls = nz.READERS[agent](path)
    steps: list[tuple[str, Any]] = [("start", None)]
    for step in _steps(agent, path, calls, agents):
        steps.append(("prompt", step) if isinstance(step, str) else ("call", step))
    return steps


def _session_of(
    agent: str, steps: Sequence[tuple[str, Any]], sid: str, tag: str, subagents: str
) -> str:
    """The session id one transcript's payloads carry: the replayed session's, but for an
    OpenCode task's child session (its start names a parent), which the plugin reports under
    its own id; ``shared`` sends it as the parent's."""
    parent = next((value for kind, value in steps if kind == "start"), None)
    if agent != "opencode" or not parent or subagents == "shared":
        return sid
    child = next((value.session for kind, value in steps if kind == "call"), None)
    return f"{child}~{tag}" if child else sid


# -- counting -----------------------------------------------------------------------------------


@dataclass
class Figures:
    """What one agent (or all) scored on one variant."""

    projects: int = 0
    pending: int = 0  # candidates the scan of the earlier sessions offered for review
    held: int = 0  # and those it held back over its cap
    not_hints: int = 0  # lessons made of them of another type than a hint
    sessions_learned: int = 0
    sessions_replayed: int = 0
    lessons: int = 0
    calls: int = 0
    prompts: int = 0  # typed prompts replayed
    labelled: int = 0  # labelled reusable events in the replayed sessions
    ceiling: int = 0
    before: int = 0
    before_again: int = 0  # of those, the lesson came with an earlier failure of the kind
    at_before_it_ran: int = 0
    at_after_it_failed: int = 0
    unplaced: int = 0  # repeats whose call the replay did not find
    missed_unlearned: int = 0  # missed repeats no learned lesson is about (the rest: not given)
    deliveries: int = 0
    at_start: int = 0  # of the deliveries: at the session start,
    on_prompt: int = 0  # on a prompt,
    before_a_call: int = 0  # before a call ran,
    after_a_call: int = 0  # after it (failure-time recall, Gemini's and Codex's after-call)
    relevant: int = 0
    subagent_calls: int = 0  # calls a sub-agent made
    in_subagents: int = 0  # of the deliveries: to a sub-agent's calls,
    in_subagents_relevant: int = 0  # and relevant by the rule
    reinjections: int = 0
    caught: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)

    def add(self, other: Figures) -> None:
        for name, value in vars(other).items():
            setattr(self, name, getattr(self, name) + value)

    @property
    def at(self) -> int:
        return self.at_before_it_ran + self.at_after_it_failed

    def as_json(self) -> dict[str, Any]:
        catches = self.before + self.at
        return {
            **vars(self),
            "catches": catches,
            "caughtShare": _share(catches, self.ceiling),
            "beforeShare": _share(self.before, catches),
            "deliveriesPer100": round(100 * self.deliveries / self.calls, 2)
            if self.calls
            else None,
            "relevantShare": _share(self.relevant, self.deliveries),
        }


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def count(
    replayed: Replayed,
    repeat: Sequence[Any],
    labelled: Sequence[Any],
    lessons: Mapping[str, Mapping[str, str]],
    corpora: Path,
    window: int = WINDOW,
    about: Callable[[Mapping[str, str] | None, Any, str], bool] = about,
) -> Figures:
    """The catches of ``repeat`` (the session's share of the ceiling) and the relevance of every
    delivery against ``labelled`` (the session's labelled reusable events); ``about`` says
    whether a lesson is about a labelled event (:class:`Relevance`, or the lesson rule)."""
    figures = Figures(sessions_replayed=1, calls=replayed.calls, labelled=len(labelled))
    figures.prompts = replayed.prompts
    figures.ceiling = len(repeat)
    figures.reinjections = replayed.reinjections
    figures.subagent_calls = len(replayed.in_subagent)

    def where(label: Any) -> int | None:
        return replayed.index.get((label.file, label.call_id))

    placed = [(where(lb), lb) for lb in labelled]
    phases = {"start": "at_start", "prompt": "on_prompt", "before": "before_a_call"}
    for delivery in replayed.deliveries:
        figures.deliveries += 1
        name = phases.get(delivery.phase, "after_a_call")
        setattr(figures, name, getattr(figures, name) + 1)
        words = lessons.get(delivery.lesson)
        sub = delivery.index in replayed.in_subagent and delivery.phase in ("before", "after")
        figures.in_subagents += sub
        if any(
            at is not None
            and delivery.index <= at <= delivery.index + window
            and about(words, lb, replayed.tool_of.get(at, ""))
            for at, lb in placed
        ):
            figures.relevant += 1
            figures.in_subagents_relevant += sub
    for label in repeat:
        name = f"{replayed.session.corpus}/{label.file}#{label.call_id}"
        at = where(label)
        if at is None:
            figures.unplaced += 1
            figures.missed.append(name)
            continue
        tool = replayed.tool_of.get(at, "")
        reached = [d for d in replayed.deliveries if about(lessons.get(d.lesson), label, tool)]
        # A lesson caught up after a refusal arrives with the next call at the earliest.
        early = [
            d
            for d in reached
            if d.index + (d.phase == CAUGHT_UP) < at or d.phase in ("start", "prompt")
        ]
        early = [d for d in early if d.index <= at]
        if early:
            figures.before += 1
            first = min(early, key=lambda d: d.index)
            how = f"before, {at - first.index} calls earlier ({first.phase})"
            said = lessons.get(first.lesson)
            if any(
                q is not None and first.index <= q < at and about(said, lb, replayed.tool_of[q])
                for q, lb in placed
            ):
                figures.before_again += 1  # it came with an earlier failure of the same kind
                how += ", with an earlier failure of its kind"
        elif pre := [d for d in reached if d.index == at and d.phase == "before"]:
            figures.at_before_it_ran += 1
            first, how = pre[0], "at, before it ran"
        elif post := [d for d in reached if d.index == at and d.phase in ("after", CAUGHT_UP)]:
            figures.at_after_it_failed += 1
            first = post[0]
            how = "at, after it failed" + (" (caught up)" if first.phase == CAUGHT_UP else "")
        else:
            if not any(about(words, label, tool) for words in lessons.values()):
                figures.missed_unlearned += 1
                name += " (no lesson about it learned)"
            figures.missed.append(name)
            continue
        # The lesson's summary beside the label's trigger: what a reader judges by hand.
        summary = (lessons.get(first.lesson) or {}).get("summary", first.lesson)
        figures.caught.append(f"{name} ({how}): {summary!r} for {label.lesson['trigger']!r}")
    return figures


def lesson_words(env: Mapping[str, str]) -> tuple[dict[str, dict[str, str]], int]:
    """The stored lessons' words (``noise.lesson_words``) by id, and how many are not hints."""
    from lessons_core import services

    with services.session(dict(env)) as sess:
        stored = sess.store.list_lessons()
    words = {lesson.id: noise().lesson_words(lesson) for lesson in stored}
    return words, sum(lesson.type != "hint" for lesson in stored)


def measure_project(
    sessions: Sequence[Session],
    learned: Learned,
    by_file: Mapping[tuple[str, str], list[Any]],
    corpora: Path,
    scratch: Path,
    window: int = WINDOW,
    subagents: str = "own",
    relevance: Relevance | None = None,
) -> dict[str, Figures]:
    """Variant → the figures of one project, learned as ``learned`` says and replayed on its
    later sessions (``sessions`` earliest first); ``relevance`` holds the hand verdicts (none:
    the lesson rule throughout)."""
    if relevance is None:
        relevance = Relevance()
    from lessons_core import services

    earlier, later = cut(sessions)
    known = labels_in(earlier, corpora, by_file)
    out = {}
    for variant, env in learned.envs.items():
        with services.session(dict(env)) as sess:
            agents = sess.plugins.agents()
        words, not_hints = lesson_words(env)
        total = Figures(projects=1, sessions_learned=len(earlier), lessons=len(words))
        total.pending, total.held, total.not_hints = learned.pending, learned.held, not_hints
        for n, session in enumerate(later):
            labelled = labels_in([session], corpora, by_file)
            repeat = ceiling(known, labelled, relevance)
            if session.agent not in REPLAYED:
                total.ceiling += len(repeat)
                total.labelled += len(labelled)
                continue
            replayed = replay_session(
                session, env, agents, corpora, scratch, f"{variant}-{n}", subagents
            )
            total.add(count(replayed, repeat, labelled, words, corpora, window, relevance))
        out[variant] = total
    return out


# -- the run ------------------------------------------------------------------------------------


def run(
    corpora: Path,
    names: Sequence[str],
    variants: Sequence[str],
    window: int = WINDOW,
    subagents: str = "own",
    judged: bool = True,
) -> dict[str, Any]:
    """Every project of two sessions or more, learned and replayed; the figures per agent.
    ``judged``: take the hand verdicts on record (:class:`Relevance`), else the lesson rule."""
    from lessons_core import services

    ce = capture_eval()
    present = [n for n in names if (corpora / n).is_dir()]
    if not present:
        raise CannotRun(
            f"no corpus ({', '.join(names)}) under {corpora}: give --corpora the folder holding"
            " them"
        )
    try:
        labels = ce.load_labels(LABELS)
        split = ce.load_split()
    except (OSError, ValueError) as exc:
        raise CannotRun(f"labels unreadable: {exc}") from None
    by_file = reusable(labels)
    relevance = Relevance.load() if judged else Relevance()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="lessons-value-") as tmp:
        base = Path(tmp)
        probe = noise().make_home(base, "probe")
        with services.session(probe) as sess:
            agents = sess.plugins.agents()
        projects = sessions_of(corpora, present, agents, split.files)
        usable = {p: s for p, s in projects.items() if len(s) >= 2}
        if not usable:
            raise CannotRun("no project has two sessions: nothing earlier to learn from")
        per_agent: dict[str, dict[str, Figures]] = {v: {} for v in variants}
        per_project: dict[str, dict[str, Any]] = {}
        for n, (project, sessions) in enumerate(usable.items()):
            earlier, _later = cut(sessions)
            learned = learn(base, f"p{n:02d}", corpora, earlier, variants)
            figures = measure_project(
                sessions,
                learned,
                by_file,
                corpora,
                base / f"p{n:02d}-replay",
                window,
                subagents,
                relevance,
            )
            agent = sessions[0].agent
            per_project[project] = {v: f.as_json() for v, f in figures.items()}
            for variant, f in figures.items():
                per_agent[variant].setdefault(agent, Figures()).add(f)
    replayed_calls = sum(f.calls for v in per_agent.values() for f in v.values())
    if not replayed_calls:
        raise CannotRun("no call was replayed: the hooks saw nothing, so nothing was measured")
    result: dict[str, Any] = {
        "earlierShare": EARLIER,
        "window": window,
        "subagents": subagents,
        "judged": judged,
        "pairsJudged": len(relevance.judged),
        "pairsByRule": [list(p) for p in sorted(relevance.by_rule)],
        "seconds": round(time.monotonic() - started, 1),
        "projectsLeftOut": sorted(p for p, s in projects.items() if len(s) < 2),
        "projects": per_project,
        "variants": {},
    }
    for variant, agents_figures in per_agent.items():
        overall = Figures()
        for agent, f in agents_figures.items():
            if agent in REPLAYED:
                overall.add(f)
        result["variants"][variant] = {
            "perAgent": {a: f.as_json() for a, f in sorted(agents_figures.items())},
            "overall": overall.as_json(),
        }
    return result


def _pct(value: float | None) -> str:
    return "  –  " if value is None else f"{100 * value:4.0f} %"


def render(result: Mapping[str, Any]) -> str:
    lines = [
        f"earlier {int(100 * result['earlierShare'])} % of each project's sessions learned from,"
        f" the rest replayed; relevance window: the call a lesson came with and {result['window']}"
        f" after it; {result['seconds']} s",
        f"projects of one session, left out: {len(result['projectsLeftOut'])}",
        (
            f"whether a lesson is about a labelled event, and a later event repeats an earlier"
            f" one's kind: the hand verdict for {result['pairsJudged']} pairs ({JUDGED.name}),"
            f" the lesson rule for {len(result['pairsByRule'])} no one has judged"
            if result["judged"]
            else "whether a lesson is about a labelled event, and a later event repeats an"
            " earlier one's kind: the lesson rule alone (--word-rule)"
        ),
    ]
    lines += [
        f"  by the rule, not judged: {lesson!r} / {label}"
        for lesson, label in result["pairsByRule"]
    ]
    head = (
        f"{'':<10} {'proj':>4} {'sess':>5} {'less':>5} {'calls':>6} {'label':>5} {'ceil':>4}"
        f" {'before':>6} {'at pre':>6} {'at post':>7} {'caught':>7} {'bef/c':>6}"
        f" {'deliv':>5} {'/100':>5} {'relev':>5} {'relev%':>7}"
    )
    for variant, part in result["variants"].items():
        lines += ["", f"== {variant}", head]
        rows = [*part["perAgent"].items(), ("overall", part["overall"])]
        for name, f in rows:
            if name not in (*REPLAYED, "overall"):
                lines.append(
                    f"{name:<10} {f['projects']:>4}  ceiling {f['ceiling']} of"
                    f" {f['labelled']} labelled: not replayed (no payloads for this agent),"
                    " left out of the totals"
                )
                continue
            per100 = f["deliveriesPer100"]
            lines.append(
                f"{name:<10} {f['projects']:>4} {f['sessions_replayed']:>5} {f['lessons']:>5}"
                f" {f['calls']:>6} {f['labelled']:>5} {f['ceiling']:>4} {f['before']:>6}"
                f" {f['at_before_it_ran']:>6} {f['at_after_it_failed']:>7}"
                f" {_pct(f['caughtShare']):>7} {_pct(f['beforeShare']):>6}"
                f" {f['deliveries']:>5} {'–' if per100 is None else f'{per100:.2f}':>5}"
                f" {f['relevant']:>5} {_pct(f['relevantShare']):>7}"
            )
        o = part["overall"]
        lines.append(
            f"targets: caught {TARGETS['caught']} (here {_pct(o['caughtShare']).strip()}),"
            f" before {TARGETS['before']} ({_pct(o['beforeShare']).strip()}), deliveries"
            f" {TARGETS['per100']} ({o['deliveriesPer100']}), relevant {TARGETS['relevant']}"
            f" ({_pct(o['relevantShare']).strip()})"
        )
        lines.append(
            f"of the {o['before']} caught before, {o['before_again']} got the lesson with an"
            " earlier failure of their kind in the same session (the replay cannot show whether"
            " it would have spared them), the rest ahead of the session's first such failure"
        )
        missed = o["ceiling"] - o["catches"]
        lines.append(
            f"of the {missed} missed, {o['missed_unlearned']} had no lesson about them learned"
            f" from the earlier sessions, {missed - o['missed_unlearned'] - o['unplaced']} had"
            f" one that was not delivered in time, {o['unplaced']} were not found in the replay"
        )
        lines.append(
            f"deliveries: {o['at_start']} at a session start, {o['on_prompt']} on a prompt,"
            f" {o['before_a_call']} before a call, {o['after_a_call']} after one;"
            f" {o['reinjections']} directive re-injections not counted"
        )
        lines.append(
            f"sub-agents ({result['subagents']}: "
            + (
                "each keeps its own record, as the hooks do"
                if result["subagents"] == "own"
                else "each shares its parent's record"
            )
            + f"): {o['subagent_calls']} calls, {o['in_subagents']} deliveries to them,"
            f" {o['in_subagents_relevant']} relevant"
        )
        lines.append(
            f"learned from {o['sessions_learned']} earlier sessions: {o['pending']} candidates"
            f" offered for review, {o['held']} held back; {o['lessons']} lessons, of them"
            f" {o['not_hints']} of another type than a hint; {o['prompts']} prompts replayed"
        )
        for name in o["caught"]:
            lines.append(f"  caught: {name}")
        for name in o["missed"]:
            lines.append(f"  missed: {name}")
    lines += [
        "",
        "proj = projects of two sessions or more; sess = sessions replayed; less = lessons"
        " learned; label = labelled reusable events in the replayed sessions; ceil = those that"
        " repeat an earlier session's kind of mistake (lesson rule); before = a lesson about it"
        " came earlier in its session; at pre/at post = on the failing call, before it ran /"
        " after it failed; caught = (before + at) / ceil; bef/c = before / caught; deliv ="
        " lessons delivered (re-injected directives not counted); relev = deliveries about a"
        " labelled event on their call or within the window",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", type=Path, default=CORPORA)
    parser.add_argument("--corpus", action="append", choices=CORPUS_NAMES, dest="names")
    parser.add_argument("--window", type=int, default=WINDOW)
    parser.add_argument("--variant", choices=[*VARIANTS, "both"], default="both")
    parser.add_argument(
        "--subagents",
        choices=("own", "shared"),
        default="own",
        help="a sub-agent's calls keep their own dedup record (the hooks' rule) or share the"
        " parent's",
    )
    parser.add_argument(
        "--word-rule",
        action="store_true",
        help="judge whether a lesson is about a labelled event by the lesson rule alone, not by"
        " the hand verdicts on record",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.window < 0:
        parser.error(f"--window {args.window}: give how many calls ahead count, 0 or more")
    variants = VARIANTS if args.variant == "both" else (args.variant,)
    try:
        result = run(
            args.corpora,
            args.names or CORPUS_NAMES,
            variants,
            args.window,
            args.subagents,
            judged=not args.word_rule,
        )
    except CannotRun as exc:
        print(f"value: the replay cannot run: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2) if args.json else render(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
