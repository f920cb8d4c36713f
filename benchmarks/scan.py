"""Scanner benchmark: full-scan throughput, incremental latency and peak memory.

Builds a corpus of at least ``--mb`` megabytes (default 200) in a temporary directory by
replicating real sessions (the shared corpus beside the checkout when present, else the
project's own fixtures) under fresh session ids, laid out as the three agents keep them. Then,
each as a whole ``lessons`` process, as a user or the auto-scan hook would run it:

1. ``lessons --version`` (the CLI's start-up: the baseline every figure is compared with);
2. ``lessons scan`` over everything (throughput in MB/s, target >= 150);
3. ``lessons scan`` again with nothing changed (the no-work path);
4. ``lessons scan`` after appending 5 MB of new lines (target: <= 50 ms beyond start-up), once
   spread over several sessions, once all to one long session. The store as it was before is
   restored for each of ``--rounds`` runs, and each run is paired with a ``lessons --version``
   and an empty ``lessons scan`` taken just before it and a re-scan with nothing new taken just
   after it, so the figures are medians of paired differences, robust to a machine whose speed
   drifts. Which baseline is "the start-up" is a matter of reading: the re-scan isolates the
   cost of the new lines, the empty scan adds the corpus's bookkeeping (every unchanged file is
   still checked), ``--version`` adds the imports and store opening every store command pays;

and the peak RSS of each scan process (``resource.getrusage`` of the child, target <= 80 MB).

Run: ``python benchmarks/scan.py [--mb 200] [--rounds 9] [--keep]``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "corpus" / "real"
FIXTURES = REPO / "tests" / "fixtures" / "transcripts"
LESSONS = str(Path(sys.executable).parent / "lessons")

_UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

# Runs the command given as arguments and prints the child's wall time and peak RSS (KiB).
_MEASURE = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
    "dt = time.perf_counter() - t\n"
    "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "sys.stderr.write(r.stderr.decode()[-2000:] if r.returncode else '')\n"
    "print(dt, rss, r.returncode)\n"
)


def _sources() -> dict[str, list[Path]]:
    base = SHARED if SHARED.is_dir() else FIXTURES
    out: dict[str, list[Path]] = {}
    for agent in ("claude", "codex", "gemini"):
        suffixes = (".jsonl", ".json") if agent == "gemini" else (".jsonl",)
        out[agent] = [
            p
            for p in sorted((base / agent).rglob("*"))
            if p.suffix in suffixes and "schema_drift" not in p.name and p.name != "logs.json"
        ]
    return out


def _fresh_ids(data: bytes) -> bytes:
    mapping: dict[bytes, bytes] = {}

    def swap(m: re.Match[bytes]) -> bytes:
        key = m.group(0)
        if key not in mapping:
            mapping[key] = str(uuid.uuid4()).encode()
        return mapping[key]

    return _UUID.sub(swap, data)


def build_corpus(home: Path, target_mb: float) -> tuple[int, list[Path]]:
    """Write ``target_mb`` of transcripts; returns (bytes, files).

    Claude and Codex files are built like long-lived real ones: several real sessions appended
    one after the other (each with fresh ids, as a resumed session continues a file), to a size
    drawn between 0.1 and 4 MB. Gemini sessions are whole documents, copied with fresh ids.
    """
    sources = _sources()
    blobs = {
        agent: [p.read_bytes().rstrip(b"\n") + b"\n" for p in files]
        for agent, files in sources.items()
    }
    share = {"claude": 0.6, "codex": 0.3, "gemini": 0.1}
    target = int(target_mb * 1e6)
    rnd = random.Random(7)
    written: list[Path] = []
    total = 0
    for agent, fraction in share.items():
        if not blobs[agent]:
            continue
        budget = int(target * fraction)
        done = 0
        n = 0
        while done < budget:
            n += 1
            sid = str(uuid.uuid4())
            if agent == "gemini":
                src = rnd.randrange(len(blobs[agent]))
                data = _fresh_ids(blobs[agent][src])
                ext = sources[agent][src].suffix
                path = home / ".gemini" / "tmp" / f"p{n % 5}" / "chats" / f"session-{sid[:8]}{ext}"
            else:
                want = int(math.exp(rnd.uniform(math.log(1e5), math.log(4e6))))
                parts: list[bytes] = []
                size = 0
                while size < want:
                    part = _fresh_ids(rnd.choice(blobs[agent]))
                    parts.append(part)
                    size += len(part)
                data = b"".join(parts)
                if agent == "claude":
                    path = home / ".claude" / "projects" / f"-home-dev-p{n % 7}" / f"{sid}.jsonl"
                else:
                    day = f"2026/01/{1 + n % 28:02d}"
                    name = f"rollout-2026-01-01T00-00-00-{sid}.jsonl"
                    path = home / ".codex" / "sessions" / day / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            written.append(path)
            done += len(data)
        total += done
    return total, written


def measure(args: list[str], env: dict[str, str]) -> tuple[float, int]:
    """(seconds, peak RSS in MB) of one whole process."""
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, *args],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    seconds, rss_kib, code = out.stdout.split()
    if code != "0":
        raise SystemExit(f"{' '.join(args)} failed:\n{out.stderr}")
    return float(seconds), int(rss_kib) // 1024


def append_new_lines(files: list[Path], megabytes: float, *, one_file: bool = False) -> int:
    """Append complete lines taken from other sessions to some files (as agents do), or all of
    them to the largest one (one long session that grew)."""
    rnd = random.Random(11)
    target = int(megabytes * 1e6)
    added = 0
    claude = [p for p in files if ".claude" in p.parts]
    donors = claude[:50]
    if one_file:
        claude = [max(claude, key=lambda p: p.stat().st_size)]
    while added < target:
        donor = rnd.choice(donors).read_bytes().splitlines(keepends=True)
        lines = donor[: max(1, len(donor) // 3)]
        while len(lines) > 1 and added + sum(map(len, lines)) > target:
            lines.pop()  # stop at about the size asked for, at a line boundary
        chunk = b"".join(lines)
        victim = rnd.choice(claude)
        with open(victim, "ab") as fh:
            fh.write(chunk)
        added += len(chunk)
    return added


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=200.0, help="corpus size in MB")
    parser.add_argument("--append-mb", type=float, default=5.0, help="incremental size in MB")
    parser.add_argument("--rounds", type=int, default=9, help="incremental runs (median)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    opts = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="lessons-scan-bench-"))
    home = tmp / "home"
    env = {
        **os.environ,
        "HOME": str(home),
        "LESSONS_HOME": str(tmp / "lessons-home"),
        "LESSONS_STATE_DIR": str(tmp / "state"),
    }
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_CONFIG_HOME"):
        env.pop(var, None)
    # An installed package has its bytecode compiled; without it every run would compile the
    # scanner's modules from source and measure that instead of the scan.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    try:
        t0 = time.perf_counter()
        size, files = build_corpus(home, opts.mb)
        print(
            f"corpus: {size / 1e6:.1f} MB in {len(files)} files "
            f"(from {'shared corpus' if SHARED.is_dir() else 'fixtures'}), "
            f"built in {time.perf_counter() - t0:.1f} s"
        )
        startup = statistics.median(measure([LESSONS, "--version"], env)[0] for _ in range(7))
        print(f"baseline `lessons --version`: {startup * 1000:.1f} ms")
        empty_env = {**env, "HOME": str(tmp / "empty-home"), "LESSONS_HOME": str(tmp / "empty")}
        (tmp / "empty-home").mkdir()
        empty = statistics.median(measure([LESSONS, "scan"], empty_env)[0] for _ in range(5))
        print(
            f"`lessons scan` with no transcripts at all: {empty * 1000:.1f} ms "
            "(the fixed cost of any store command: imports, plugins, store)"
        )

        full, full_rss = measure([LESSONS, "scan"], env)
        rate = size / 1e6 / full
        cpus = os.cpu_count() or 1
        print(
            f"full scan: {full:.2f} s -> {rate:.0f} MB/s (target >= 150), "
            f"{full / startup:.1f}x start-up; peak RSS {full_rss} MB per process (target <= 80); "
            f"{cpus} CPU(s)"
        )
        serial_env = {**env, "LESSONS_HOME": str(tmp / "serial"), "LESSONS_SCAN_WORKERS": "1"}
        serial, serial_rss = measure([LESSONS, "scan"], serial_env)
        print(
            f"full scan in one process (LESSONS_SCAN_WORKERS=1): {serial:.2f} s -> "
            f"{size / 1e6 / serial:.0f} MB/s; peak RSS {serial_rss} MB"
        )

        idle = statistics.median(measure([LESSONS, "scan"], env)[0] for _ in range(5))
        print(
            f"re-scan, nothing changed: {idle * 1000:.0f} ms "
            f"({(idle - startup) * 1000:+.0f} ms beyond start-up, {idle / startup:.2f}x)"
        )

        for label, one_file in (("in several sessions", False), ("in one session", True)):
            before = tmp / "store-before"
            shutil.rmtree(before, ignore_errors=True)
            shutil.copytree(env["LESSONS_HOME"], before)
            added = append_new_lines(files, opts.append_mb, one_file=one_file)
            rounds: list[tuple[float, float, float, float]] = []
            inc_rss = 0
            for _ in range(max(1, opts.rounds)):
                shutil.rmtree(env["LESSONS_HOME"])
                shutil.copytree(before, env["LESSONS_HOME"])
                version_s = measure([LESSONS, "--version"], env)[0]
                empty_s = measure([LESSONS, "scan"], empty_env)[0]
                inc_s, rss = measure([LESSONS, "scan"], env)
                again_s = measure([LESSONS, "scan"], env)[0]  # the same corpus, nothing new
                inc_rss = max(inc_rss, rss)
                rounds.append((version_s, empty_s, again_s, inc_s))

            def beyond(i: int, rounds: list[tuple[float, float, float, float]] = rounds) -> str:
                return f"{statistics.median(r[3] - r[i] for r in rounds) * 1000:.0f} ms"

            inc = statistics.median(r[3] for r in rounds)
            print(
                f"incremental scan of {added / 1e6:.1f} MB new lines {label} "
                f"(median of {len(rounds)}): {inc * 1000:.0f} ms, {inc / startup:.2f}x start-up; "
                f"peak RSS {inc_rss} MB\n"
                f"  beyond an unchanged re-scan of the same corpus {beyond(2)}, beyond an empty "
                f"scan {beyond(1)}, beyond `lessons --version` {beyond(0)} (target <= 50)"
            )
        stats = subprocess.run(
            [LESSONS, "stats", "--json"], env=env, capture_output=True, text=True, check=True
        )
        figures = json.loads(stats.stdout)
        for agent, row in sorted(figures["agents"].items()):
            print(
                f"  {agent}: tier1 {row['tier1']}, tier2 {row['tier2']}, "
                f"candidates {sum(row['candidates'].values())}"
            )
    finally:
        if opts.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
