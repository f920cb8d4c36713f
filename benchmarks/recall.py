"""Whole-process latency of failure-time and prompt-time recall at 10,000 and 100,000 lessons.

Recall reads the recall index the store published at the last build (``recall-index.bin``): an
exact fingerprint look-up, then BM25 over the postings of the query's rarest words. This script
measures it the way an agent pays for it — one Claude hook process per call (the command
``lessons install`` registers), PostToolUseFailure or UserPromptSubmit payload on stdin, timed
from spawn to exit — against ``python -I -c pass``, the floor, run interleaved under the same
load: every round runs each kind once and the floor once per kind, so load spikes hit all alike.

The catalogue: synthetic lessons built from a vocabulary of tools, error classes and subjects,
each with error lines, so the index has realistic size and word overlap. Payload kinds:

* ``exact`` — an error line of a stored lesson, with other paths and numbers (fingerprint hit);
* ``fts`` — an error in other words that only full-text search finds;
* ``miss`` — an error no lesson is about (the whole search runs and finds nothing);
* ``prompt`` — a user prompt about one lesson's subject.

Every call uses a fresh session id, so dedup never turns a measured call into "already seen".

Next to wall time each line shows the median CPU time (user + system) of the process: on a
busy machine it moves far less than wall time, and says what the hook itself costs.

Targets (ratios to the floor in the same run): exact and prompt median <= 1.6x, fts <= 1.8x,
miss <= 1.3x, every p99 <= 1.5x the floor's p99; at 100,000 lessons each median no more than
1.2x its figure at 10,000.

    python benchmarks/recall.py [--runs 40] [--sizes 10000,100000] [--homes DIR]

``--homes DIR`` keeps the built catalogues (``DIR/<size>``) for the next run: building 100,000
lessons takes minutes. A kept home is rebuilt when its size or catalogue changed, and its build
(manifest, recall index) published again when the code that writes the build changed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = {"exact": 1.6, "fts": 1.8, "miss": 1.3, "prompt": 1.6}
TARGET_P99 = 1.5
TARGET_GROWTH = 1.2
KINDS = ("exact", "fts", "miss", "prompt")

TOOLS = [
    "pytest", "npm", "cargo", "docker", "alembic", "terraform", "kubectl", "gradle", "poetry",
    "webpack", "eslint", "mypy", "go", "rustc", "psql", "redis", "celery", "uvicorn", "vite",
    "jest",
]  # fmt: skip
ERRORS = [
    "ModuleNotFoundError", "ConnectionRefusedError", "PermissionError", "TimeoutError",
    "KeyError", "ImportError", "SyntaxError", "ValueError", "AssertionError", "OSError",
    "ENOENT", "EACCES", "ERESOLVE", "E0502", "SIGSEGV", "OOMKilled", "CrashLoopBackOff",
]  # fmt: skip
SUBJECTS = [
    "migration", "fixture", "schema", "cache", "lockfile", "socket", "certificate", "token",
    "config", "bundle", "worker", "queue", "index", "snapshot", "plugin", "template", "session",
    "cluster", "volume", "secret", "manifest", "registry", "proxy", "daemon", "profile",
]  # fmt: skip


def make_lessons(count: int, seed: int = 7) -> list[object]:
    from lessons_core.models import Lesson, Provenance

    rng = random.Random(seed)
    out = []
    for n in range(count):
        tool = rng.choice(TOOLS)
        error = rng.choice(ERRORS)
        subject = rng.choice(SUBJECTS)
        other = rng.choice(SUBJECTS)
        # Letters only: the normalizer turns digits into placeholders, and the word must stay
        # this lesson's own for the full-text and prompt payloads to be about one lesson.
        word = "widget" + "".join("abcdefghij"[int(d)] for d in str(n))
        out.append(
            Lesson(
                id=f"bench-{n:05d}",
                slug=f"bench-{n:05d}",
                summary=f"{tool} fails with {error} when the {subject} {word} is stale",
                mistake=f"Ran {tool} before refreshing the {subject} of {word}; the {other} "
                f"still pointed at the old one, and {tool} raised {error}.",
                remediation=f"Refresh the {subject} ({tool} {subject} refresh {word}) and rerun; "
                f"check the {other} afterwards.",
                error_lines=(
                    f"{error}: {subject} {word} is out of date (expected revision 41, got 40)",
                    f"{tool}: error: cannot load {other} for {word} at /srv/app/{word}/{other}.cfg",
                ),
                confidence=0.8,
                priority=rng.randint(3, 8),
                provenance=Provenance(source="bench"),
            )
        )
    return out


def build_home(home: Path, count: int) -> None:
    from lessons_core import services

    env = {**os.environ, "LESSONS_HOME": str(home)}
    os.environ["LESSONS_HOME"] = str(home)
    with services.open_store(env) as store:
        store.add_lessons(make_lessons(count))
        services.rebuild_manifest(store, env)


def payloads(cwd: str, count: int) -> dict[str, dict[str, object]]:
    """One payload per kind, written from stored lessons (same generator, same seed)."""
    lessons = make_lessons(count)
    exact_src = lessons[count // 3]
    fts_src = lessons[count // 2]
    prompt_src = lessons[(2 * count) // 3]
    first_line = exact_src.error_lines[0]  # type: ignore[attr-defined]
    # The same error line with other numbers: normalization makes it an exact hit.
    exact_error = first_line.replace("41", "97").replace("40", "96")
    fts_summary = fts_src.summary.split()  # type: ignore[attr-defined]
    tool, error, subject, word = fts_summary[0], fts_summary[3], fts_summary[6], fts_summary[7]
    base = {"cwd": cwd, "transcript_path": None, "permission_mode": "default"}
    failure = {
        **base,
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": "pytest -q"},
        "tool_use_id": "toolu_bench",
        "is_interrupt": False,
    }
    return {
        "exact": {**failure, "error": f"Exit code 1\n{exact_error}\n"},
        "fts": {
            **failure,
            "error": f"Exit code 1\n{tool} aborted: {error} raised while loading the "
            f"{subject} of {word}\n",
        },
        "miss": {
            **failure,
            "error": "Exit code 1\nzzfrob: quantum flux capacitor misaligned near gizmo\n",
        },
        "prompt": {
            **base,
            "hook_event_name": "UserPromptSubmit",
            "prompt": "why does " + prompt_src.summary.lower() + "? please fix that",  # type: ignore[attr-defined]
        },
    }


def time_process(argv: list[str], data: bytes, env: dict[str, str]) -> tuple[float, bytes, float]:
    """Wall milliseconds, stdout, and the CPU milliseconds (user + system) the process used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, input=data, capture_output=True, env=env, check=False)
    elapsed = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    if done.returncode != 0:
        raise SystemExit(f"{argv[0]} exited {done.returncode}: {done.stderr.decode()[:400]}")
    return elapsed, done.stdout, cpu


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def build_code_key() -> str:
    """A digest of the code that writes the build (manifest and recall index) of a home."""
    from lessons_core import __file__ as core_file

    core = Path(core_file).resolve().parent
    digest = hashlib.sha256()
    for part in ("compiler", "store", "hot"):
        for path in sorted((core / part).rglob("*.py")):
            digest.update(path.relative_to(core).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def rebuild_home(home: Path) -> None:
    """Publish the manifest and recall index of a kept store again."""
    from lessons_core import services

    env = {**os.environ, "LESSONS_HOME": str(home)}
    os.environ["LESSONS_HOME"] = str(home)
    with services.open_store(env) as store:
        services.rebuild_manifest(store, env)


def prepared_home(root: Path, count: int) -> Path:
    """A home holding ``count`` lessons and their build, reused when already there.

    The store is kept while the catalogue is the same; the build (manifest, recall index) is
    published again when the code that writes it changed.
    """
    home = root / str(count)
    marker = home / "bench-catalogue.json"
    from lessons_core import __file__ as core_file

    key = {"count": count, "core": str(Path(core_file).resolve().parent), "catalogue": 2}
    build = build_code_key()
    kept = json.loads(marker.read_text()) if marker.exists() else {}
    if {k: kept.get(k) for k in key} == key and (home / "lessons.db").exists():
        if kept.get("build") != build:
            started = time.perf_counter()
            rebuild_home(home)
            marker.write_text(json.dumps({**key, "build": build}))
            print(
                f"catalogue: {count} lessons, build published again in "
                f"{time.perf_counter() - started:.1f} s",
                flush=True,
            )
        return home
    home.mkdir(parents=True, exist_ok=True)
    for old in home.iterdir():
        if old.is_file():
            old.unlink()
    started = time.perf_counter()
    build_home(home, count)
    marker.write_text(json.dumps({**key, "build": build}))
    db = home / "lessons.db"
    print(
        f"catalogue: {count} lessons, store {db.stat().st_size / 1e6:.1f} MB, "
        f"built in {time.perf_counter() - started:.1f} s",
        flush=True,
    )
    return home


def measure(
    hook: list[str], home: Path, root: Path, count: int, runs: int
) -> dict[str, dict[str, float]]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(root),
        "LESSONS_HOME": str(home),
        "LESSONS_STATE_DIR": str(root / f"state-{count}"),
    }
    kinds = payloads(str(root), count)
    times: dict[str, list[float]] = {kind: [] for kind in (*KINDS, "floor")}
    cpu: dict[str, list[float]] = {kind: [] for kind in (*KINDS, "floor")}
    answered = dict.fromkeys(KINDS, 0)
    for n in range(runs):
        for kind in KINDS:
            payload = kinds[kind]
            payload["session_id"] = f"bench-{kind}-{n}-{time.time_ns()}"
            elapsed, out, used = time_process(hook, json.dumps(payload).encode(), env)
            times[kind].append(elapsed)
            cpu[kind].append(used)
            answered[kind] += bool(out.strip())
            base, _, used = time_process([sys.executable, "-I", "-c", "pass"], b"", env)
            times["floor"].append(base)
            cpu["floor"].append(used)
    figures = {}
    for kind, values in times.items():
        figures[kind] = {
            "median": statistics.median(values),
            "p99": p99(values),
            "answered": answered.get(kind, 0),
            "cpu": statistics.median(cpu[kind]),
        }
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--sizes", default="10000,100000", help="catalogue sizes, comma-separated")
    parser.add_argument("--homes", help="keep the built catalogues here for the next run")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    from lessons_core import installing

    # The command ``lessons install claude`` registers (``python -I -S …/hook.py DIRS``).
    hook = shlex.split(installing.hook_command(installing.agents()["claude"]))
    with tempfile.TemporaryDirectory(prefix="lessons-recall-bench-") as tmp:
        root = Path(tmp)
        homes = Path(args.homes) if args.homes else root / "homes"
        results = {}
        for count in sizes:
            home = prepared_home(homes, count)
            print(f"measuring {count} lessons, {args.runs} rounds, load {load()}", flush=True)
            results[count] = measure(hook, home, root, count, args.runs)
        print(f"load average after: {load()}")
        ok = True
        first = sizes[0]
        for count in sizes:
            figures = results[count]
            floor = figures["floor"]
            print(
                f"-- {count} lessons: floor median {floor['median']:6.2f} ms  "
                f"p99 {floor['p99']:6.2f} ms  cpu {floor['cpu']:5.2f} ms "
                "(python -I -c pass, interleaved)"
            )
            for kind in KINDS:
                f = figures[kind]
                ratio = f["median"] / floor["median"]
                p99_ratio = f["p99"] / floor["p99"]
                verdicts = []
                if ratio > TARGETS[kind]:
                    verdicts.append(f"median over {TARGETS[kind]}x")
                if p99_ratio > TARGET_P99:
                    verdicts.append(f"p99 over {TARGET_P99}x")
                growth = ""
                if count != first:
                    grown = ratio / (
                        results[first][kind]["median"] / results[first]["floor"]["median"]
                    )
                    growth = f"  x{grown:4.2f} of {first}"
                    if grown > TARGET_GROWTH:
                        verdicts.append(f"growth over {TARGET_GROWTH}x")
                ok = ok and not verdicts
                print(
                    f"   {kind:7s} median {f['median']:6.2f} ms (x{ratio:4.2f})  "
                    f"p99 {f['p99']:6.2f} ms (x{p99_ratio:4.2f})  "
                    f"cpu {f['cpu']:5.2f} ms (x{f['cpu'] / floor['cpu']:4.2f})  "
                    f"answered {f['answered']}/{args.runs}{growth}  "
                    f"[{'; '.join(verdicts) or 'ok'}]"
                )
        print("all targets met" if ok else "some targets missed")


if __name__ == "__main__":
    main()
