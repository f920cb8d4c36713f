"""Whole-process latency of a PreToolUse hook call, against the interpreter's own start-up.

What an agent waits for is a process: interpreter start, imports, reading the manifest, matching,
writing the answer. So this starts the hook command as a subprocess for every call, exactly as
an agent does, feeding it the agent's own pre-tool payload on stdin (Claude Code and Codex
``PreToolUse``; Gemini ``BeforeTool``, or ``AfterTool`` for the hint and edit kinds, because
Gemini hints are delivered with the tool's result; Qwen Code likewise at ``PostToolUse`` and
GitHub Copilot CLI at ``postToolUse``, its camelCase payload with the event on the command line;
OpenCode and Kilo CLI the ``tool.execute.before`` payload of the plugin file the installer
writes), and times it from spawn to exit. Codex edits arrive as ``apply_patch`` with the patch
text. Every hook run is interleaved with a run of the
bare interpreter (``python -I -c pass``), so the floor is measured under the same machine load
and the ratio stays meaningful on a busy machine.

Catalogues:

* ``seed`` — the 143-lesson catalogue of the Node original, imported with ``lessons import``
  (skipped when the shared corpus is not beside the checkout);
* ``generated-2000`` — 2,000 synthetic lessons (hints, guards, nudges, path lessons, directives)
  with texts of realistic length.

Payload kinds: ``no-match`` (a Bash call no lesson is about), ``hint`` (adds context),
``guard`` (denied), ``edit-path`` (an Edit whose path matches a glob lesson). Each hint run uses a
fresh session id, so dedup never turns a measured hint call into a cheap "already seen" one.

Targets: median ≤ 18 ms, p99 ≤ 25 ms (≤ 30 ms with 2,000 lessons), median ≤ 2.0× the floor.
The floor's own p99 is printed too: when it spikes, the machine was busy, not the hook.

The payloads name a transcript that does not exist, unless ``--transcript KIB`` is given: then
it is a file of that many KiB of ordinary calls and results in Claude Code's shape, and every
hook run first appends one more call and its result (about 2 KiB), as a session does, so the
catch-up of refused calls (``lessons_core.hot.catchup``) has new lines to read. The no-match and
guard runs of a kind then share one session (the state a session keeps between its calls), the
hint runs keep a fresh one each (each is a session's first look at the whole transcript, up to
256 KiB).

    python benchmarks/hook_latency.py [--runs 40] [--command "…"] [--catalogue seed|generated]
        [--transcript KIB]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SEED = REPO.parent / "shared" / "corpus" / "seed-lessons" / "lesson-manifest.json"

TARGET_MEDIAN_MS = 18.0
TARGET_P99_MS = 25.0
TARGET_P99_LARGE_MS = 30.0
TARGET_RATIO = 2.0

#: payload kind -> (tool name, tool_input) per catalogue
SEED_CALLS = {
    "no-match": ("Bash", {"command": "ls -la"}),
    "hint": ("Bash", {"command": 'git commit -m "update readme"'}),
    "guard": ("Bash", {"command": "npx vitest run"}),
    "edit-path": (
        "Edit",
        {"file_path": "/tmp/bench-project/scripts/run.sh", "old_string": "a", "new_string": "b"},
    ),
}
GENERATED_CALLS = {
    "no-match": ("Bash", {"command": "ls -la"}),
    "hint": ("Bash", {"command": "tool40 sub --verbose"}),
    "guard": ("Bash", {"command": "danger13 --now"}),
    "edit-path": (
        "Edit",
        {
            "file_path": "/tmp/bench-project/area16/module.ext16",
            "old_string": "a",
            "new_string": "b",
        },
    ),
}


def _bin(name: str) -> str:
    candidate = Path(sys.executable).parent / name
    return str(candidate) if candidate.exists() else name


def _installed_command(agent: str) -> list[str]:
    """The command ``lessons install`` registers by default (the ``file`` style: the interpreter
    with ``-I -S``, the adapter's ``hook.py`` and the directories of the packages it imports),
    as the installers build it. This is what an agent starts; the console script
    ``lessons-<agent>-hook`` is slower to start (``site``, and the wrapper's own ``import re``),
    so timing it overstated the hook."""
    import importlib

    from lessons_core import installing

    spec = importlib.import_module(f"lessons_{agent}.plugin").agent_spec()
    return shlex.split(installing.hook_command(spec, installing.STYLE_FILE, {}))


def _env(home: Path, state: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["LESSONS_HOME"] = str(home)
    env["LESSONS_STATE_DIR"] = str(state)
    env.pop("LESSONS_HOOK_LOG", None)
    # Installed packages come with compiled bytecode; let the warm-up runs write it here too,
    # or every measured run would compile the hot modules from source.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _seed_catalogue(home: Path) -> bool:
    if not SEED.is_file():
        print(f"seed catalogue not found beside the checkout; skipping it ({SEED.name})")
        return False
    env = _env(home, home / "state")
    subprocess.run(
        [_bin("lessons"), "import", "--partial", str(SEED)],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    subprocess.run([_bin("lessons"), "build"], env=env, check=False, stdout=subprocess.DEVNULL)
    return True


def _generated_lessons(count: int) -> list[object]:
    from lessons_core.models import Lesson, LessonType, MatchTarget, Triggers

    filler = (
        "This went wrong in an earlier session because the defaults of the tool differ between "
        "versions and the error message points somewhere else entirely. "
    )
    lessons: list[object] = []
    for n in range(count):
        kind = n % 20
        common = {
            "id": f"01BENCH{n:019d}",
            "slug": f"bench-{n}",
            "summary": f"generated lesson {n} about a recurring mistake",
            "mistake": filler * 2,
            "remediation": f"Run the documented variant {n} instead. " + filler,
            "priority": 1 + n % 10,
            "confidence": 0.5 + (n % 50) / 100,
            "tags": ["lang:python"] if n % 3 == 0 else ["lang:go"],
        }
        if kind < 13:
            triggers = Triggers(
                tool_names=["Bash"],
                command_patterns=[rf"\btool{n}\s+sub\b"],
            )
            lessons.append(Lesson(**common, triggers=triggers))
        elif kind < 15:
            triggers = Triggers(tool_names=["Bash"], command_patterns=[rf"\bdanger{n}\b"])
            lessons.append(
                Lesson(
                    **common,
                    type=LessonType.GUARD,
                    triggers=triggers,
                    command_match_target=MatchTarget.EXECUTABLE,
                    injection="Refused: `{command}` is known to break things here.",
                )
            )
        elif kind < 16:
            triggers = Triggers(tool_names=["Bash"], command_patterns=[rf"\bnudgeme{n}\b"])
            lessons.append(Lesson(**common, type=LessonType.NUDGE, triggers=triggers))
        elif kind < 19:
            triggers = Triggers(
                tool_names=["Edit", "Write"],
                path_patterns=[f"**/area{n}/*.ext{n}"],
            )
            lessons.append(Lesson(**common, triggers=triggers))
        else:
            lessons.append(Lesson(**common, type=LessonType.DIRECTIVE))
    return lessons


def _generated_catalogue(home: Path, count: int) -> bool:
    from lessons_core.compiler.build import build
    from lessons_core.models import Config
    from lessons_core.store.sqlite import open_sqlite_store

    store = open_sqlite_store(home)
    try:
        store.add_lessons(_generated_lessons(count))  # type: ignore[arg-type]
        result = build(store, Config(), home)
    finally:
        store.close()
    if result.refused:
        print(f"warning: {len(result.refused)} generated lessons refused")
    return True


AGENTS = ("claude", "codex", "gemini", "qwen", "opencode", "kilo", "copilot")
#: Hosts of the OpenCode plugin: the payload is the one its plugin file sends.
PLUGIN_HOSTS = ("opencode", "kilo")


def _codex_call(tool: str, tool_input: dict[str, object]) -> tuple[str, dict[str, object]]:
    """Codex runs shell calls as ``Bash`` and edits as ``apply_patch`` with the patch text."""
    if tool != "Edit":
        return tool, tool_input
    path = tool_input["file_path"]
    old, new = tool_input["old_string"], tool_input["new_string"]
    patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n-{old}\n+{new}\n*** End Patch\n"
    return "apply_patch", {"command": patch}


def _gemini_call(
    kind: str, tool: str, tool_input: dict[str, object]
) -> tuple[str, str, dict[str, object]]:
    """Gemini's native names; hints reach the model only at AfterTool, so those are timed there."""
    event = "AfterTool" if kind in ("hint", "edit-path") else "BeforeTool"
    if tool == "Edit":
        return event, "replace", tool_input
    return event, "run_shell_command", tool_input


def _qwen_call(
    kind: str, tool: str, tool_input: dict[str, object]
) -> tuple[str, str, dict[str, object]]:
    """Qwen Code's native names; its PreToolUse context never reaches the model, so hints are
    timed at PostToolUse, where they are delivered."""
    event = "PostToolUse" if kind in ("hint", "edit-path") else "PreToolUse"
    return event, "edit" if tool == "Edit" else "run_shell_command", tool_input


def _plugin_call(tool: str, tool_input: dict[str, object]) -> dict[str, object]:
    """The plugin file's ``tool.execute.before`` payload (OpenCode and Kilo CLI): lower-case tool
    names, camel-case file arguments; a hint found there rides with the call's result."""
    if tool == "Edit":
        args: dict[str, object] = {
            "filePath": tool_input.get("file_path"),
            "oldString": tool_input.get("old_string"),
            "newString": tool_input.get("new_string"),
        }
    else:
        args = dict(tool_input)
    return {"hook_event_name": "tool.execute.before", "tool": tool.lower(), "args": args}


def _copilot_call(
    kind: str, tool: str, tool_input: dict[str, object]
) -> tuple[str, str, dict[str, object]]:
    """Copilot CLI's camelCase event (named on the hook's command line, as the installer
    registers it) and native names; its preToolUse reads no context, so hints are timed at
    postToolUse, where they are delivered."""
    event = "postToolUse" if kind in ("hint", "edit-path") else "preToolUse"
    if tool == "Edit":
        path, old, new = tool_input["file_path"], tool_input["old_string"], tool_input["new_string"]
        return event, "edit", {"path": path, "old_str": old, "new_str": new}
    return event, "bash", {**tool_input, "description": "bench"}


def _argv(hook: list[str], agent: str, kind: str) -> list[str]:
    """The hook command line for one call (Copilot's names its event)."""
    if agent == "copilot":
        return [*hook, _copilot_call(kind, "Bash", {})[0]]
    return hook


def _payload(
    tool: str,
    tool_input: dict[str, object],
    session: str,
    agent: str = "claude",
    kind: str = "",
    transcript: Path | None = None,
) -> bytes:
    if agent == "copilot":
        event, native, native_input = _copilot_call(kind, tool, tool_input)
        camel: dict[str, object] = {
            "sessionId": session,
            "timestamp": 1796324617162,
            "cwd": "/tmp/bench-project",
            "toolName": native,
            "toolArgs": native_input,
        }
        if event == "postToolUse":
            camel["toolResult"] = {"resultType": "success", "textResultForLlm": "done"}
        return json.dumps(camel).encode()
    body: dict[str, object] = {
        "session_id": session,
        "transcript_path": str(transcript) if transcript else "/tmp/bench.jsonl",
        "cwd": "/tmp/bench-project",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
    }
    if agent in PLUGIN_HOSTS:
        plugin = {"session_id": session, "cwd": body["cwd"], "call_id": "call_bench"}
        return json.dumps({**plugin, **_plugin_call(tool, tool_input)}).encode()
    if agent == "claude":
        body.update(permission_mode="default", tool_use_id="toolu_bench")
    elif agent == "codex":
        body["tool_name"], body["tool_input"] = _codex_call(tool, tool_input)
        body.update(model="gpt-5", tool_use_id="call_bench")
    elif agent == "qwen":
        event, native, native_input = _qwen_call(kind, tool, tool_input)
        body.update(hook_event_name=event, tool_name=native, tool_input=native_input)
        body.update(permission_mode="yolo", tool_use_id="toolu_bench", tool_call_id="call_bench")
        if event == "PostToolUse":
            body["tool_response"] = {"llmContent": "done", "returnDisplay": "done"}
    else:
        event, native, native_input = _gemini_call(kind, tool, tool_input)
        body.update(hook_event_name=event, tool_name=native, tool_input=native_input)
        if event == "AfterTool":
            body["tool_response"] = {"llmContent": "done", "returnDisplay": "done"}
    return json.dumps(body).encode()


def _time(argv: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, bytes]:
    start = time.perf_counter()
    proc = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, env=env, check=False)
    elapsed = (time.perf_counter() - start) * 1000
    if proc.returncode != 0:
        raise SystemExit(f"hook exited {proc.returncode}: {shlex.join(argv)}")
    return elapsed, proc.stdout


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def _describe(out: bytes) -> str:
    if not out.strip():
        return "nothing"
    answer = json.loads(out)
    specific = answer.get("hookSpecificOutput", answer)
    if specific.get("permissionDecision") == "deny" or answer.get("decision") == "deny":
        return "deny"
    if answer.get("deny"):  # the plugin file's answer (OpenCode, Kilo CLI)
        return "deny"
    if specific.get("additionalContext") or answer.get("context"):
        return "context"
    return "other"


#: One ordinary call and its result, as Claude Code writes them (about 2 KiB).
_CALL = json.dumps(
    {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_b",
                    "name": "Bash",
                    "input": {"command": "ls -la"},
                }
            ],
        },
    },
    separators=(",", ":"),
)
_RESULT = json.dumps(
    {
        "type": "user",
        "message": {
            "role": "user",
            "content": [
                {
                    "tool_use_id": "toolu_b",
                    "type": "tool_result",
                    "content": "drwxr-xr-x 2 u u 4096 src\n" * 70,
                }
            ],
        },
    },
    separators=(",", ":"),
)


def _grow(transcript: Path | None) -> None:
    """One more call and its result at the end of the session's transcript."""
    if transcript is not None:
        with transcript.open("a", encoding="utf-8") as handle:
            handle.write(_CALL + "\n" + _RESULT + "\n")


def _transcript(folder: Path, kib: int) -> Path | None:
    """A transcript of ``kib`` KiB of ordinary calls, or ``None`` for the payloads' old path."""
    if kib <= 0:
        return None
    path = folder / "transcript.jsonl"
    path.write_text("")
    while path.stat().st_size < kib * 1024:
        _grow(path)
    return path


def measure(
    name: str,
    home: Path,
    calls: dict[str, tuple[str, dict[str, object]]],
    hook: list[str],
    runs: int,
    large: bool,
    agent: str = "claude",
    transcript_kib: int = 0,
) -> bool:
    state = home / "state"
    env = _env(home, state)
    floor_argv = [sys.executable, "-I", "-c", "pass"]
    ok = True
    print(f"\n== {agent}, {name} ({hook[-1] if len(hook) == 1 else shlex.join(hook)[:60]}) ==")
    print(
        f"{'payload':<10} {'outcome':<8} {'median':>8} {'p99':>8} {'floor':>8} "
        f"{'fl.p99':>8} {'ratio':>6}"
    )
    for kind, (tool, tool_input) in calls.items():
        # one warm-up of each, so the page cache holds the files
        argv = _argv(hook, agent, kind)
        transcript = _transcript(home, transcript_kib)
        warm = _payload(tool, tool_input, f"warm-{agent}-{kind}", agent, kind, transcript)
        _time(argv, warm, env)
        _time(floor_argv, b"", env)
        hook_ms: list[float] = []
        floor_ms: list[float] = []
        outcome = ""
        shared = transcript is not None and kind in ("no-match", "guard")
        for i in range(runs):
            session = f"{agent}-{name}-{kind}" + ("" if shared else f"-{i}")
            payload = _payload(tool, tool_input, session, agent, kind, transcript)
            _grow(transcript)
            elapsed, out = _time(argv, payload, env)
            hook_ms.append(elapsed)
            outcome = _describe(out)
            floor_ms.append(_time(floor_argv, b"", env)[0])
        median = statistics.median(hook_ms)
        p99 = _p99(hook_ms)
        floor = statistics.median(floor_ms)
        ratio = median / floor
        p99_target = TARGET_P99_LARGE_MS if large else TARGET_P99_MS
        verdict = median <= TARGET_MEDIAN_MS and p99 <= p99_target and ratio <= TARGET_RATIO
        ok = ok and verdict
        print(
            f"{kind:<10} {outcome:<8} {median:8.2f} {p99:8.2f} {floor:8.2f} "
            f"{_p99(floor_ms):8.2f} {ratio:6.2f}"
            f"{'' if verdict else '  (over target)'}"
        )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40, help="runs per payload kind")
    parser.add_argument(
        "--agent", choices=[*AGENTS, "all"], default="all", help="whose hook and payloads"
    )
    parser.add_argument(
        "--command",
        help="hook command line (default: the one `lessons install` registers); one agent only",
    )
    parser.add_argument("--catalogue", choices=["seed", "generated", "both"], default="both")
    parser.add_argument("--lessons", type=int, default=2000, help="size of the generated one")
    parser.add_argument(
        "--transcript",
        type=int,
        default=0,
        metavar="KIB",
        help="a real transcript of this size, growing by a call per run (default: none)",
    )
    args = parser.parse_args()
    agents = AGENTS if args.agent == "all" else (args.agent,)
    if args.command and len(agents) > 1:
        parser.error("--command needs --agent")
    hooks = {
        agent: shlex.split(args.command) if args.command else _installed_command(agent)
        for agent in agents
    }
    print(f"python {sys.version.split()[0]}, {args.runs} runs per payload, agents: {agents}")
    print(
        f"targets: median <= {TARGET_MEDIAN_MS} ms, p99 <= {TARGET_P99_MS} ms "
        f"(<= {TARGET_P99_LARGE_MS} ms with {args.lessons} lessons), "
        f"median <= {TARGET_RATIO}x the floor (python -I -c pass)"
    )
    ok = True
    with tempfile.TemporaryDirectory(prefix="lessons-bench-") as tmp:
        if args.catalogue in ("seed", "both"):
            home = Path(tmp) / "seed"
            home.mkdir()
            if _seed_catalogue(home):
                for agent, hook in hooks.items():
                    ok &= measure(
                        "seed-143",
                        home,
                        SEED_CALLS,
                        hook,
                        args.runs,
                        large=False,
                        agent=agent,
                        transcript_kib=args.transcript,
                    )
        if args.catalogue in ("generated", "both"):
            home = Path(tmp) / "generated"
            home.mkdir()
            started = time.perf_counter()
            _generated_catalogue(home, args.lessons)
            size = (home / "lesson-manifest.json").stat().st_size
            print(
                f"\n(built {args.lessons} lessons in {time.perf_counter() - started:.1f} s; "
                f"manifest {size / 1024:.0f} KiB)"
            )
            for agent, hook in hooks.items():
                ok &= measure(
                    f"generated-{args.lessons}",
                    home,
                    GENERATED_CALLS,
                    hook,
                    args.runs,
                    large=True,
                    agent=agent,
                    transcript_kib=args.transcript,
                )
    print("\nall within targets" if ok else "\nsome figures are over target")
    return 0


if __name__ == "__main__":
    sys.exit(main())
