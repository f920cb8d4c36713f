"""What the hook would deliver on real work: every tool call of the real corpus, replayed.

A lesson is only worth its bytes when it arrives on a call it is about. This script replays every
tool call of the real transcripts (``../shared/corpus/real``, all three agents) as the hook
payloads the agent would have sent — PreToolUse for Claude Code and Codex, BeforeTool and
AfterTool for Gemini, and the failure event when the call failed — session by session, through
the real hook runner with its own once-per-session dedup, against a catalogue:

* ``seed`` — the Node original's 143-lesson catalogue (``lessons import`` of its manifest);
* ``scanned`` — what ``lessons scan`` proposes from the same corpus, every candidate promoted
  (what a reviewer who accepts everything would end up with: the worst case).

It prints, per catalogue, injections and denials per 100 tool calls, how many of them came on a
call that in fact failed (the only automatic sign of relevance a replay has), denials of calls
that went on to succeed, and the distinct lessons that fired.

Then the outcome loop runs as it does after a real scan: the replay's deliveries are judged
against the same transcripts (a denial whose call then ran fine is *needless*; see
``lessons_core.outcomes``), the manifest is rebuilt, and the replay runs again with fresh
sessions. ``--rounds`` says how often (default 3): the figures of each round show what the loop
learned. A lesson that fired on a failing call in the first round and no longer fires in the
last is listed: the loop must not silence lessons that were right.

When ``benchmarks/labels/real/`` holds labelled events of the corpus (see ``RULES.md``), the
failures labelled reusable are counted separately: lessons firing on them are the relevant ones.

    python benchmarks/noise.py [--corpus DIR] [--rounds 3] [--catalogue seed|scanned|both] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
CORPUS = SHARED / "corpus" / "real"
SEED = SHARED / "corpus" / "seed-lessons" / "lesson-manifest.json"
LABELS = REPO / "benchmarks" / "labels" / "real"
BIN = Path(sys.executable).parent


class Call:
    """One tool call of a transcript, as the agent's hook would have seen it."""

    __slots__ = (
        "agent",
        "call_id",
        "cwd",
        "end",
        "failed",
        "name",
        "ok",
        "output",
        "raw_output",
        "session",
        "tool_input",
    )

    def __init__(
        self,
        agent: str,
        session: str,
        cwd: str,
        call_id: str,
        name: str,
        tool_input: Any,
        end: int | None = None,
    ) -> None:
        #: Byte offset just past the call's line: the transcript as the agent had written it
        #: when the call was made (``None``: a single-document transcript, used whole).
        self.end = end
        self.agent = agent
        self.session = session
        self.cwd = cwd
        self.call_id = call_id
        self.name = name
        self.tool_input = tool_input if isinstance(tool_input, dict) else {}
        self.failed = False  # the agent's mistake: error, validation, timeout
        self.ok = False  # a result arrived and it was a success
        self.output = ""
        self.raw_output: Any = None  # Codex: the output as the agent recorded it


# -- reading the corpus -------------------------------------------------------------------------


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    for _end, record in _lines_with_ends(path):
        yield record


def _lines_with_ends(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each JSON record of a JSONL file with the byte offset just past its line."""
    end = 0
    with path.open("rb") as fh:
        for raw in fh:
            end += len(raw)
            with contextlib.suppress(ValueError):
                record = json.loads(raw)
                if isinstance(record, dict):
                    yield end, record


def claude_calls(path: Path) -> list[Call]:
    calls: list[Call] = []
    for end, record in _lines_with_ends(path):
        if record.get("type") != "assistant":
            continue
        content = (record.get("message") or {}).get("content")
        for part in content if isinstance(content, list) else ():
            if isinstance(part, dict) and part.get("type") == "tool_use" and part.get("id"):
                calls.append(
                    Call(
                        "claude",
                        str(record.get("sessionId") or path.stem),
                        str(record.get("cwd") or "/"),
                        part["id"],
                        str(part.get("name")),
                        part.get("input"),
                        end,
                    )
                )
    return calls


def _codex_command(name: str, arguments: Any) -> tuple[str, dict[str, Any]]:
    """Codex's on-disk call → the hook's ``tool_name`` and ``tool_input``."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return ("apply_patch", {"command": arguments}) if name == "apply_patch" else (name, {})
    if not isinstance(arguments, dict):
        return name, {}
    if name in ("shell", "container.exec", "local_shell", "exec_command", "shell_command"):
        command = arguments.get("command", arguments.get("cmd"))
        if isinstance(command, list):
            command = (
                command[-1]
                if command[:2] in (["bash", "-lc"], ["sh", "-c"])
                else " ".join(str(x) for x in command)
            )
        return "Bash", {"command": str(command or "")}
    return name, arguments


def codex_calls(path: Path) -> list[Call]:
    calls: list[Call] = []
    session, cwd = path.stem, "/"
    for end, record in _lines_with_ends(path):
        payload = record.get("payload") if "payload" in record else record
        if not isinstance(payload, dict):
            continue
        kind = record.get("type")
        if kind == "session_meta" or ("instructions" in payload and payload.get("id")):
            session = str(payload.get("id") or session)
            cwd = str(payload.get("cwd") or cwd)
            continue
        if kind == "turn_context":
            cwd = str(payload.get("cwd") or cwd)
            continue
        if payload.get("type") in ("function_call_output", "custom_tool_call_output"):
            for call in reversed(calls[-50:]):
                if call.call_id == payload.get("call_id"):
                    call.raw_output = payload.get("output")
                    break
            continue
        if payload.get("type") == "function_call":
            name, tool_input = _codex_command(str(payload.get("name")), payload.get("arguments"))
        elif payload.get("type") == "custom_tool_call":
            name, tool_input = "apply_patch", {"command": str(payload.get("input") or "")}
        else:
            continue
        if payload.get("call_id"):
            calls.append(Call("codex", session, cwd, payload["call_id"], name, tool_input, end))
    return calls


def gemini_calls(path: Path) -> list[Call]:
    if path.suffix == ".json":
        try:
            doc = json.loads(path.read_bytes())
        except ValueError:
            return []
        messages = doc.get("messages") if isinstance(doc, dict) else None
        session = str(doc.get("sessionId") or path.stem) if isinstance(doc, dict) else path.stem
        records = messages if isinstance(messages, list) else []
    else:
        records, session = list(_lines(path)), path.stem
        for record in records:
            if record.get("sessionId"):
                session = str(record["sessionId"])
                break
    seen: dict[str, Call] = {}
    for record in records:
        for tool in record.get("toolCalls") or () if isinstance(record, dict) else ():
            if isinstance(tool, dict) and tool.get("id") and tool["id"] not in seen:
                seen[tool["id"]] = Call(
                    "gemini", session, "/", tool["id"], str(tool.get("name")), tool.get("args")
                )
    return list(seen.values())


READERS = {"claude": claude_calls, "codex": codex_calls, "gemini": gemini_calls}


def corpus_files(corpus: Path) -> list[tuple[str, Path]]:
    out = []
    for agent in READERS:
        root = corpus / agent
        for path in sorted(root.rglob("*")):
            if path.suffix in (".jsonl", ".json") and not path.name.endswith(".meta.json"):
                out.append((agent, path))
    return out


def outcomes_of(agent: str, path: Path, agents: Mapping[str, Any]) -> dict[str, Any]:
    """Call id → the result event the project's own reader made of it."""
    from lessons_core import outcomes
    from lessons_core.scan import events as ev

    return {
        e.call_id: e
        for e in outcomes.read_events(agents, agent, path)
        if e.kind == ev.TOOL_RESULT and e.call_id
    }


def load_corpus(corpus: Path, agents: Mapping[str, Any]) -> list[tuple[Path, list[Call]]]:
    transcripts = []
    for agent, path in corpus_files(corpus):
        calls = READERS[agent](path)
        if not calls:
            continue
        results = outcomes_of(agent, path, agents)
        for call in calls:
            result = results.get(call.call_id)
            if result is not None:
                call.ok = result.failure is None
                call.failed = bool(result.is_mistake)
                call.output = result.text or ""
        transcripts.append((path, calls))
    return transcripts


# -- payloads -----------------------------------------------------------------------------------


def payloads(call: Call, transcript: Path) -> list[tuple[str, dict[str, Any]]]:
    """(phase, payload) pairs the agent's hook receives for ``call``: before, then after."""
    common = {"session_id": call.session, "cwd": call.cwd, "transcript_path": str(transcript)}
    tool = {"tool_name": call.name, "tool_input": call.tool_input, "tool_use_id": call.call_id}
    if call.agent == "claude":
        out = [("before", {**common, **tool, "hook_event_name": "PreToolUse"})]
        if call.failed:
            error = call.output or "Exit code 1"
            out.append(
                (
                    "after",
                    {**common, **tool, "hook_event_name": "PostToolUseFailure", "error": error},
                )
            )
        return out
    if call.agent == "codex":
        response = call.raw_output if call.raw_output is not None else call.output
        return [
            ("before", {**common, **tool, "hook_event_name": "PreToolUse"}),
            (
                "after",
                {**common, **tool, "hook_event_name": "PostToolUse", "tool_response": response},
            ),
        ]
    response: dict[str, Any] = {"llmContent": call.output, "returnDisplay": ""}
    if call.failed:
        response["error"] = {"type": "tool_error", "message": call.output[:2000] or "failed"}
    gemini = {
        "session_id": call.session,
        "cwd": call.cwd,
        "tool_name": call.name,
        "tool_input": call.tool_input,
        "transcript_path": str(transcript),
    }
    return [
        ("before", {**gemini, "hook_event_name": "BeforeTool"}),
        ("after", {**gemini, "hook_event_name": "AfterTool", "tool_response": response}),
    ]


class Capture:
    """An agent's hot adapter that also keeps the decision the core made."""

    def __init__(self, adapter: Any) -> None:
        self.adapter = adapter
        self.AGENT = getattr(adapter, "AGENT", None)
        self.decision: dict[str, Any] | None = None

    def normalize(self, payload: Any) -> Any:
        return self.adapter.normalize(payload)

    def render(self, event: Any, decision: Any) -> Any:
        self.decision = decision
        return self.adapter.render(event, decision)


# -- replaying ----------------------------------------------------------------------------------


class Round:
    """The figures of one replay."""

    def __init__(self) -> None:
        self.calls = 0
        self.failing_calls = 0
        self.injections = 0
        self.injections_on_failures = 0
        self.recall = 0
        self.reinjections = 0
        self.denials = 0
        self.denials_of_working_calls = 0
        self.fired: dict[str, int] = {}
        self.on_failures: set[tuple[str, str]] = set()  # (lesson, call id) pairs
        self.on_labelled: set[tuple[str, str]] = set()  # (lesson, labelled call) pairs
        self.labelled_reached: set[str] = set()
        self.per_agent: dict[str, dict[str, int]] = {}

    def as_json(self, labelled: int) -> dict[str, Any]:
        per100 = 100.0 / self.calls if self.calls else 0.0
        return {
            "calls": self.calls,
            "failingCalls": self.failing_calls,
            "injections": self.injections,
            "injectionsPer100": round(self.injections * per100, 2),
            "injectionsOnFailingCalls": self.injections_on_failures,
            "recallInjections": self.recall,
            "directiveReinjections": self.reinjections,
            "denials": self.denials,
            "denialsPer100": round(self.denials * per100, 2),
            "denialsOfCallsThatSucceeded": self.denials_of_working_calls,
            "distinctLessons": len(self.fired),
            "labelledReusableFailures": labelled,
            "labelledFailuresReached": len(self.labelled_reached),
            "perAgent": self.per_agent,
        }


def replay(
    transcripts: list[tuple[Path, list[Call]]],
    env: dict[str, str],
    round_no: int,
    labelled: set[tuple[str, str]],
    corpus: Path,
) -> Round:
    from lessons_claude import hot_claude
    from lessons_codex import hot_codex
    from lessons_core.hot import manifest as manifest_mod
    from lessons_core.hot import runner
    from lessons_gemini import hot_gemini

    adapters = {"claude": hot_claude, "codex": hot_codex, "gemini": hot_gemini}
    manifest_mod.clear_cache()
    compiled = manifest_mod.load(environ=env).get("lessons", {})
    scheduled = {
        i for i, entry in compiled.items() if entry.get("type") in ("directive", "protocol")
    }
    figures = Round()
    grown = Path(env["LESSONS_HOME"]).parent / "replayed" / f"round-{round_no}"
    grown.mkdir(parents=True, exist_ok=True)
    for number, (transcript, calls) in enumerate(transcripts):
        relative = transcript.relative_to(corpus).as_posix()
        # The hooks see the transcript as it stood at each call (it grows as the session goes
        # on: directive re-injection measures that), so it is copied up to each call's line.
        data = transcript.read_bytes()
        copy = grown / f"{number:03d}-{transcript.name}"
        copy.write_bytes(b"")
        written = 0
        for call in calls:
            if call.end is not None and call.end > written:
                with copy.open("ab") as fh:
                    fh.write(data[written : call.end])
                written = call.end
            seen_as = copy if call.end is not None else transcript
            call.session = f"{call.session}~r{round_no}"  # fresh sessions: dedup starts over
            figures.calls += 1
            figures.failing_calls += call.failed
            agent = figures.per_agent.setdefault(
                call.agent, {"calls": 0, "injections": 0, "denials": 0}
            )
            agent["calls"] += 1
            for phase, payload in payloads(call, seen_as):
                capture = Capture(adapters[call.agent])
                runner.run(
                    capture,
                    stdin=io.BytesIO(json.dumps(payload).encode()),
                    stdout=io.StringIO(),
                    environ=env,
                )
                decision = capture.decision or {}
                delivered = list(decision.get("delivered") or ())
                if not delivered:
                    continue
                for lesson_id in delivered:
                    figures.fired[lesson_id] = figures.fired.get(lesson_id, 0) + 1
                    if call.failed:
                        figures.on_failures.add((lesson_id, f"{relative}#{call.call_id}"))
                if (relative, call.call_id) in labelled:
                    figures.labelled_reached.add(f"{relative}#{call.call_id}")
                    figures.on_labelled.update(
                        (lesson_id, f"{relative}#{call.call_id}") for lesson_id in delivered
                    )
                if decision.get("deny") and phase == "before":
                    figures.denials += 1
                    agent["denials"] += 1
                    figures.denials_of_working_calls += call.ok
                    break  # a denied call does not run: nothing comes after it
                if all(lesson_id in scheduled for lesson_id in delivered):
                    # Standing directives again as the transcript grew: scheduled per session,
                    # not set off by the call they ride with.
                    figures.reinjections += 1
                    continue
                figures.injections += 1
                agent["injections"] += 1
                figures.injections_on_failures += call.failed
                figures.recall += phase == "after" and call.failed
            call.session = call.session.rsplit("~r", 1)[0]
        with copy.open("ab") as fh:
            fh.write(data[written:])  # whole again: the outcome loop judges against it
    return figures


def learn(env: dict[str, str]) -> dict[str, Any]:
    """Judge the logged deliveries against the transcripts, then rebuild the manifest."""
    from lessons_core import outcomes, services

    with services.session(env) as sess:
        report = outcomes.ingest(
            sess.store,
            sess.home,
            agents=sess.plugins.agents(),
            environ=env,
            now=time.time() + 2 * outcomes.SETTLE_SECONDS,
        )
        sess.rebuild_manifest()
        summary = outcomes.summary(sess.store)
    return {"judged": report.outcomes, "demoted": summary["demoted"], "noisy": summary["noisy"]}


# -- catalogues ---------------------------------------------------------------------------------


def lessons_cli(env: Mapping[str, str], *args: str, stdin: str | None = None) -> str:
    proc = subprocess.run(
        [str(BIN / "lessons"), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=dict(env),
        timeout=900,
        check=False,
    )
    if proc.returncode not in (0, 1):
        raise SystemExit(f"lessons {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def make_home(base: Path, name: str) -> dict[str, str]:
    home = base / name
    (home / "user").mkdir(parents=True)
    state = home / "state"
    state.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LESSONS_", "CLAUDE_"))}
    env.update(
        LESSONS_HOME=str(home / "lessons"), LESSONS_STATE_DIR=str(state), HOME=str(home / "user")
    )
    config = home / "lessons"
    config.mkdir()
    (config / "config.json").write_text(json.dumps({"autoScan": False}))
    return env


def seed_catalogue(base: Path) -> dict[str, str]:
    env = make_home(base, "seed")
    lessons_cli(env, "import", "--partial", str(SEED))  # a few seed patterns are refused
    return env


def scanned_catalogue(base: Path, corpus: Path) -> dict[str, str]:
    env = make_home(base, "scanned")
    lessons_cli(env, "scan", str(corpus))
    out = lessons_cli(env, "candidates", "--json")
    found = [json.loads(line) for line in out.splitlines() if line.strip()]
    ids = [c["id"] for c in found if c.get("status", "pending") == "pending"]
    if ids:
        lessons_cli(env, "promote", *ids)
    return env


def load_labels() -> set[tuple[str, str]]:
    """(transcript, call id) of every failure labelled reusable in ``benchmarks/labels/real``."""
    out: set[tuple[str, str]] = set()
    for path in sorted(LABELS.glob("*.jsonl")) if LABELS.is_dir() else ():
        for record in _lines(path):
            call_id = record.get("call_id")
            if record.get("reusable") and call_id:
                out.add((str(record.get("file")), str(call_id)))
    return out


# -- the run ------------------------------------------------------------------------------------


def run_catalogue(
    name: str, env: dict[str, str], corpus: Path, rounds: int, labelled: set[tuple[str, str]]
) -> dict[str, Any]:
    from lessons_core import services

    with services.session(env) as sess:
        transcripts = load_corpus(corpus, sess.plugins.agents())
        size = len(sess.store.list_lessons())
    result: dict[str, Any] = {"catalogue": name, "lessons": size, "rounds": []}
    first: Round | None = None
    last: Round | None = None
    for n in range(rounds):
        state = Path(env["LESSONS_STATE_DIR"])
        for child in state.iterdir():
            if child.is_dir():
                for item in child.iterdir():
                    item.unlink()
                child.rmdir()
            else:
                child.unlink()
        figures = replay(transcripts, env, n, labelled, corpus)
        entry = figures.as_json(len(labelled))
        first = first or figures
        last = figures
        if n + 1 < rounds:
            entry["learned"] = learn(env)
        result["rounds"].append(entry)
    if first is not None and last is not None:
        lost = sorted({lesson for lesson, _ in first.on_failures} - set(last.fired))
        result["silencedLessonsThatFiredOnFailures"] = lost
        result["labelledPairsLost"] = sorted(
            f"{lesson} @ {where}" for lesson, where in first.on_labelled - last.on_labelled
        )
        result["labelledPairsFirst"] = len(first.on_labelled)
        result["labelledLessonsSilenced"] = sorted(
            {lesson for lesson, _ in first.on_labelled} - set(last.fired)
        )
    return result


def print_report(results: list[dict[str, Any]]) -> None:
    for res in results:
        print(f"\n== catalogue {res['catalogue']}: {res['lessons']} lessons")
        print(
            f"{'round':>5} {'calls':>6} {'inj':>5} {'inj/100':>8} {'on fail':>8} "
            f"{'recall':>6} {'deny':>5} {'deny/100':>8} {'deny ok':>8} {'lessons':>8} "
            f"{'labelled':>9} {'reinject':>8}"
        )
        for n, r in enumerate(res["rounds"]):
            print(
                f"{n:>5} {r['calls']:>6} {r['injections']:>5} {r['injectionsPer100']:>8.2f} "
                f"{r['injectionsOnFailingCalls']:>8} {r['recallInjections']:>6} "
                f"{r['denials']:>5} {r['denialsPer100']:>8.2f} "
                f"{r['denialsOfCallsThatSucceeded']:>8} {r['distinctLessons']:>8} "
                f"{r['labelledFailuresReached']:>4}/{r['labelledReusableFailures']:<4} "
                f"{r['directiveReinjections']:>8}"
            )
            learned = r.get("learned")
            if learned:
                print(
                    f"      outcome loop: judged {learned['judged']}; compiled softer: "
                    f"{learned['demoted'] or 'none'}; noisy: {len(learned['noisy'])}"
                )
        pairs = res.get("labelledPairsLost") or []
        print(
            f"lessons that fired on a labelled reusable failure in round 0: "
            f"{res.get('labelledPairsFirst', 0)}; no longer firing there in the last round: "
            f"{len(pairs)}"
        )
        for pair in pairs:
            print(f"  {pair}")
        silenced = res.get("labelledLessonsSilenced") or []
        print(
            "lessons that fired on a labelled reusable failure in round 0 and no longer fire at "
            f"all: {len(silenced)}" + (f" ({', '.join(silenced)})" if silenced else "")
        )
        lost = res.get("silencedLessonsThatFiredOnFailures") or []
        print(
            f"lessons that fired on a failing call in round 0 and no longer fire: {len(lost)}"
            + (f" ({', '.join(lost)})" if lost else "")
        )
    print(
        "\ninj = context delivered (hints, failure recall); on fail = of those, on a call that"
        " failed;\ndeny ok = denials of calls that in fact succeeded; labelled = reusable"
        " failures (benchmarks/labels/real) a lesson reached;\nreinject = standing directives"
        " delivered again as a session's transcript grew (per session, not per call)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--catalogue", choices=["seed", "scanned", "both"], default="both")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}: nothing to replay", file=sys.stderr)
        return 0
    labelled = load_labels()
    results = []
    with tempfile.TemporaryDirectory(prefix="lessons-noise-") as tmp:
        base = Path(tmp)
        if args.catalogue in ("seed", "both"):
            if SEED.is_file():
                env = seed_catalogue(base)
                results.append(run_catalogue("seed", env, args.corpus, args.rounds, labelled))
            else:
                print(f"no seed catalogue at {SEED}", file=sys.stderr)
        if args.catalogue in ("scanned", "both"):
            env = scanned_catalogue(base, args.corpus)
            results.append(run_catalogue("scanned", env, args.corpus, args.rounds, labelled))
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_report(results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
