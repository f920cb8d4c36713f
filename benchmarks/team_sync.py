"""How long ``lessons sync`` takes for a large team catalogue, and what it costs the hook.

A throwaway PostgreSQL server (Debian's binaries, see ``lessons_postgres.testing``) and two
machines, each its own LESSONS_HOME:

1. **push** — machine A holds N lessons (default 10,000) the team has never seen; one sync
   sends them all;
2. **pull** — machine B, empty, syncs: N lessons into its local store, and its manifest rebuilt;
3. **idle** — B syncs again with nothing new (the cost of the hourly background sync);
4. **edit** — A changes 100 lessons and syncs; B syncs and receives exactly those.

Then the hook: the Claude Code hook process, timed from spawn to exit on a Bash call no lesson
is about and on one a lesson matches, against B's home (lessons pulled from the team, team
configured) and against a home holding the same lessons added locally with no team at all,
interleaved run by run; and once more against B with the server stopped. The hook reads the
local manifest only, so the three should agree within noise.

    python benchmarks/team_sync.py [--lessons 10000] [--runs 30]
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
from lessons_core.testing import contract_lesson
from lessons_postgres.testing import TempServer, find_bindir


def _bin(name: str) -> str:
    candidate = Path(sys.executable).parent / name
    return str(candidate) if candidate.exists() else name


def _lessons(n: int) -> list:
    return [
        contract_lesson(
            i,
            summary=f"tool{i} needs its config flag before the subcommand ({i})",
            triggers=Triggers(tool_names=["Bash"], command_patterns=[rf"\btool{i}\s+run\b"]),
        )
        for i in range(n)
    ]


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
    args = parser.parse_args()
    bindir = find_bindir()
    if bindir is None:
        print("no PostgreSQL server binaries (install Debian's postgresql)", file=sys.stderr)
        return 1
    lessons = _lessons(args.lessons)
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
        push = _sync(a)
        rows.append(("push", push.seconds, f"{push.pushed_lessons} lessons sent"))
        started = time.perf_counter()
        pull = _sync(b)
        rows.append(
            ("pull", time.perf_counter() - started, f"{pull.pulled} lessons in, manifest rebuilt")
        )
        idle = _sync(b)
        rows.append(("idle", idle.seconds, "nothing new"))
        with services.session(a) as sess:
            for lesson in sess.store.list_lessons()[:100]:
                sess.store.update_lesson(attrs.evolve(lesson, priority=9))
        edit_push = _sync(a)
        started = time.perf_counter()
        edit_pull = _sync(b)
        rows.append(
            (
                "edit",
                edit_push.seconds + (time.perf_counter() - started),
                f"{edit_push.pushed_lessons} sent, {edit_pull.updated} received",
            )
        )
        print(f"lessons sync, {args.lessons} lessons, PostgreSQL {bindir.parent.name}:")
        for name, seconds, what in rows:
            print(f"  {name:<5} {seconds:7.2f} s  {what}")

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
