"""How long ``lessons sync`` takes for a large team catalogue, and what it costs the hook.

A throwaway PostgreSQL server (Debian's binaries, see ``lessons_postgres.testing``) and two
machines, each its own LESSONS_HOME:

1. **push** — machine A holds N lessons (default 10,000) the team has never seen; one sync
   sends them all;
2. **pull** — machine B, empty, syncs: N lessons into its local store, and its manifest rebuilt
   (both times are printed: the exchange alone, and with the manifest build, which is the
   compiler's cost for N lessons, the same as after ``lessons import``);
3. **idle** — B syncs again with nothing new (the cost of the hourly background sync);
4. **edit** — A changes 100 lessons and syncs; B syncs and receives exactly those.

Then the hook: the Claude Code hook process, timed from spawn to exit on a Bash call no lesson
is about and on one a lesson matches, against B's home (lessons pulled from the team, team
configured) and against a home holding the same lessons added locally with no team at all,
interleaved run by run; and once more against B with the server stopped. The hook reads the
local manifest only, so the three should agree within noise.

    python benchmarks/team_sync.py [--lessons 10000] [--runs 30] [--patterns tools|seed]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attrs

from lessons_core import services, team
from lessons_core.models import Triggers
from lessons_core.patterns import regex_safety
from lessons_core.testing import contract_lesson
from lessons_postgres.testing import TempServer, find_bindir


def _bin(name: str) -> str:
    candidate = Path(sys.executable).parent / name
    return str(candidate) if candidate.exists() else name


def _lessons(n: int, patterns: str = "tools") -> list:
    """``n`` lessons, each with one command pattern: ``\\btool{i}\\s+run\\b`` (``tools``, one
    shape in other words), or the seed catalogue's accepted command patterns in turn
    (``seed``, a realistic mix of shapes, each pattern repeated)."""
    sources = _seed_sources() if patterns == "seed" else []
    return [
        contract_lesson(
            i,
            summary=f"tool{i} needs its config flag before the subcommand ({i})",
            triggers=Triggers(
                tool_names=["Bash"],
                command_patterns=[sources[i % len(sources)] if sources else rf"\btool{i}\s+run\b"],
            ),
        )
        for i in range(n)
    ]


def _seed_sources() -> list[str]:
    """The seed catalogue's command patterns a build accepts, which a team could hold; judged
    here, then forgotten, so the machines still start with nothing remembered."""
    from pattern_safety import seed_kinds

    found = [source for source, kind, _uncut in seed_kinds() if kind == "command"]
    if not found:
        raise SystemExit("no seed catalogue (see benchmarks/pattern_safety.py)")
    accepted = [source for source in found if regex_safety.judge(source).reason is None]
    regex_safety.forget()
    return accepted


def _home(root: Path, name: str, url: str | None) -> dict[str, str]:
    home = root / name
    home.mkdir()
    if url:
        (home / "config.json").write_text(
            json.dumps({"team": {"store": "postgres", "url": url, "machine": name}})
        )
    return {
        **os.environ,
        "LESSONS_HOME": str(home),
        "LESSONS_STATE_DIR": str(root / f"{name}-state"),
        "LESSONS_AUTO_SCAN": "0",
    }


def _sync(environ: dict[str, str]) -> team.SyncReport:
    with services.session(environ) as sess:
        report = team.run_sync(sess)
    assert report is not None and not report.offline, report
    return report


def _timed_sync(environ: dict[str, str]) -> tuple[team.SyncReport, float]:
    """The report (its ``seconds``: the exchange with the server) and the whole command's
    time, which adds opening the local store and rebuilding the manifest."""
    regex_safety.forget()  # each machine is a process of its own: only its own home remembers
    started = time.perf_counter()
    report = _sync(environ)
    return report, time.perf_counter() - started


def _hook(environ: dict[str, str], command: str) -> float:
    payload = {
        "session_id": f"bench-{time.monotonic_ns()}",
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_bench",
    }
    started = time.perf_counter()
    subprocess.run(
        [_bin("lessons-claude-hook")],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=environ,
        check=True,
    )
    return (time.perf_counter() - started) * 1000


def _figures(samples: list[float]) -> str:
    ordered = sorted(samples)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    return f"median {statistics.median(ordered):6.1f} ms  p90 {p90:6.1f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lessons", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument(
        "--patterns",
        choices=("tools", "seed"),
        default="tools",
        help="each lesson's command pattern: \\btool<i>\\s+run\\b, or the seed catalogue's in turn",
    )
    args = parser.parse_args()
    bindir = find_bindir()
    if bindir is None:
        print("no PostgreSQL server binaries (install Debian's postgresql)", file=sys.stderr)
        return 1
    lessons = _lessons(args.lessons, args.patterns)
    with TempServer(bindir) as server, tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        url = server.create_database("bench")
        a, b = _home(root, "a", url), _home(root, "b", url)
        solo = _home(root, "solo", None)
        for environ in (a, solo):
            with services.session(environ) as sess:
                sess.store.add_lessons(lessons)
                sess.rebuild_manifest()

        rows = []
        push, push_total = _timed_sync(a)
        rows.append(("push", push.seconds, push_total, f"{push.pushed_lessons} lessons sent"))
        pull, pull_total = _timed_sync(b)
        rows.append(("pull", pull.seconds, pull_total, f"{pull.pulled} lessons in"))
        idle, idle_total = _timed_sync(b)
        rows.append(("idle", idle.seconds, idle_total, "nothing new"))
        with services.session(a) as sess:
            for lesson in sess.store.list_lessons()[:100]:
                sess.store.update_lesson(attrs.evolve(lesson, priority=9))
        sent, sent_total = _timed_sync(a)
        got, got_total = _timed_sync(b)
        rows.append(
            (
                "edit",
                sent.seconds + got.seconds,
                sent_total + got_total,
                f"{sent.pushed_lessons} sent, {got.updated} received",
            )
        )
        print(
            f"lessons sync, {args.lessons} lessons ({args.patterns} patterns), "
            f"PostgreSQL {bindir.parent.name}:"
        )
        print("  step   exchange   with the manifest rebuild (when lessons changed here)")
        for name, exchange, total, what in rows:
            print(f"  {name:<5} {exchange:7.2f} s  {total:7.2f} s  {what}")

        calls = {"no match": "ls -la", "match": "tool42 run --fast"}
        print(f"hook process (lessons-claude-hook), {args.runs} runs each, interleaved:")
        for kind, command in calls.items():
            for environ in (a, b, solo):  # warm the page cache and the hook's caches
                _hook(environ, command)
            pulled, local = [], []
            for _ in range(args.runs):
                pulled.append(_hook(b, command))
                local.append(_hook(solo, command))
            print(f"  {kind:<8} team-pulled home: {_figures(pulled)}")
            print(f"  {kind:<8} local-only home:  {_figures(local)}")
        server.stop()
        offline = [_hook(b, calls["match"]) for _ in range(args.runs)]
        print(f"  match    server stopped:   {_figures(offline)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
