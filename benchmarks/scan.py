"""Scanner benchmark: full-scan throughput against a floor, incremental latency, peak memory.

Builds a corpus of at least ``--mb`` megabytes (default 200) in a temporary directory by
replicating real sessions (the shared corpus beside the checkout when present, else the
project's own fixtures) under fresh session ids: Claude Code sessions only by default (about
150 files), all three agents with ``--mix``. Then, each as a whole ``lessons`` process, as a
user or the auto-scan hook would run it:

1. ``lessons --version`` (the CLI's start-up) and an empty ``lessons scan``;
2. full scans in interleaved rounds with the *floor* -- a Python loop that ``json.loads`` every
   line of the same files -- by default, in one process (``LESSONS_SCAN_WORKERS=1``) and in two;
   each round's scan time is divided into that round's floor time, so a machine whose speed
   drifts moves both alike (targets: one process >= 1.5x the floor, two >= 2.5x, the default
   never below one process). The rounds are repeated beside a CPU-bound neighbour process, and
   on one CPU (the scan pinned with ``sched_setaffinity``);
3. peak RSS summed over the scanning process and every helper it forks (target <= 64 MB);
4. ``lessons scan`` again with nothing changed, paired with ``--version`` (target <= 1.5x);
5. ``lessons scan`` after appending 5 MB of new lines (target: <= 35 ms beyond a re-scan with
   nothing new), once spread over several sessions, once all to one long session. The store as
   it was before is restored for each of ``--rounds`` runs, and each run is paired with a
   ``lessons --version`` and an empty ``lessons scan`` taken just before it and a re-scan with
   nothing new taken just after it, so the figures are medians of paired differences. Beside
   it, the least any scan of those lines could add: a process that imports the CLI, msgspec
   and sqlite3, opens the store and decodes the new lines with the Claude Code reader's record
   decoder, less the same process that only imports the CLI.

The last lines list every target as met or missed, with the load average of the machine.

Run: ``python benchmarks/scan.py [--mb 200] [--rounds 9] [--full-rounds 3] [--mix] [--keep]``.
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


def build_corpus(
    home: Path, target_mb: float, share: dict[str, float] | None = None
) -> tuple[int, list[Path]]:
    """Write ``target_mb`` of transcripts; returns (bytes, files).

    Claude and Codex files are built like long-lived real ones: several real sessions appended
    one after the other (each with fresh ids, as a resumed session continues a file), to a size
    drawn between 0.2 and 4 MB (about 150 files for 200 MB). Gemini sessions are whole
    documents, copied with fresh ids. ``share`` splits the size between agents (default: Claude
    Code only, the corpus the targets are set on).
    """
    sources = _sources()
    blobs = {
        agent: [p.read_bytes().rstrip(b"\n") + b"\n" for p in files]
        for agent, files in sources.items()
    }
    share = share or {"claude": 1.0}
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
                want = int(math.exp(rnd.uniform(math.log(2e5), math.log(4e6))))
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


def measure(
    args: list[str], env: dict[str, str], *, cpus: set[int] | None = None
) -> tuple[float, int]:
    """(seconds, peak RSS in MB of the process itself) of one whole process; ``cpus`` pins it
    (and whatever it forks) to those CPUs."""
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, *args],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None,
    )
    seconds, rss_kib, code = out.stdout.split()
    if code != "0":
        raise SystemExit(f"{' '.join(args)} failed:\n{out.stderr}")
    return float(seconds), int(rss_kib) // 1024


def _children() -> dict[int, int]:
    """pid -> parent pid of every process on the machine (from ``/proc/*/stat``)."""
    out: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        out[int(entry.name)] = int(stat[stat.rindex(b")") + 2 :].split()[1])
    return out


def _peak_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss(args: list[str], env: dict[str, str]) -> tuple[int, int]:
    """(peak RSS in MB summed over the process and every process it forked, processes seen).

    Each process's own peak (``VmHWM``) is read every few milliseconds until it is gone, and
    the peaks are added: an upper bound of the peak of the sum (the helpers' peaks need not
    coincide, and pages they share with their parent are counted in each). Run apart from the
    timed runs, since the polling costs CPU.
    """
    child = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peaks: dict[int, int] = {}
    while child.poll() is None:
        parents = _children()
        tree = {child.pid}
        grew = True
        while grew:
            more = {pid for pid, parent in parents.items() if parent in tree} - tree
            grew = bool(more)
            tree |= more
        for pid in tree:
            peak = _peak_kib(pid)
            if peak:
                peaks[pid] = max(peaks.get(pid, 0), peak)
        time.sleep(0.002)
    if child.returncode:
        raise SystemExit(f"{' '.join(args)} failed with exit code {child.returncode}")
    return sum(peaks.values()) // 1024, len(peaks)


# The floor every scan figure is compared with: a Python loop that ``json.loads`` every line of
# the same files (and prints the bytes it read, so nothing is optimised away).
_FLOOR = (
    "import json, os, sys\n"
    "n = 0\n"
    "for root, _, names in os.walk(sys.argv[1]):\n"
    "    for name in names:\n"
    "        if name.endswith(('.jsonl', '.json')):\n"
    "            with open(os.path.join(root, name), 'rb') as fh:\n"
    "                for line in fh:\n"
    "                    if line.strip():\n"
    "                        json.loads(line)\n"
    "                    n += len(line)\n"
    "print(n)\n"
)

#: The least an incremental scan can add to the CLI's start-up: the JSON library and SQLite
#: imported, the store opened, and the new lines (the files and offsets in argv[1], a JSON
#: list) decoded with the Claude Code reader's own record decoder -- nothing detected, nothing
#: written. Run beside ``_CLI_ONLY`` (the same process without that work).
_INCREMENTAL_FLOOR = (
    "import json, os, sqlite3, sys\n"
    "import lessons_core.cli.main\n"
    "import msgspec\n"
    "from lessons_claude.records import _DECODER\n"
    "db = sqlite3.connect(os.path.join(os.environ['LESSONS_HOME'], 'lessons.db'))\n"
    "db.execute('select count(*) from scan_state').fetchone()\n"
    "for path, offset in json.loads(sys.argv[1]):\n"
    "    with open(path, 'rb') as fh:\n"
    "        fh.seek(offset)\n"
    "        data = fh.read()\n"
    "    try:\n"
    "        _DECODER.decode_lines(data)\n"
    "    except msgspec.DecodeError:\n"
    "        for line in data.splitlines():\n"
    "            try:\n"
    "                _DECODER.decode(line)\n"
    "            except msgspec.DecodeError:\n"
    "                pass\n"
)
_CLI_ONLY = "import lessons_core.cli.main\n"

#: A CPU-bound neighbour: what a build, a test run or another agent does to the machine.
_BUSY = "while True:\n    pass\n"


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


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (5 min {five:.1f}) on {os.cpu_count()} CPU(s)"


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


class FullScans:
    """Interleaved rounds of the floor and of full scans with several worker settings."""

    def __init__(self, tmp: Path, env: dict[str, str], size: int) -> None:
        self.tmp, self.env, self.size = tmp, env, size
        self.root = env["HOME"]

    def floor(self, cpus: set[int] | None) -> float:
        return measure([sys.executable, "-c", _FLOOR, self.root], self.env, cpus=cpus)[0]

    def scan(self, workers: str | None, cpus: set[int] | None, home: str | None = None) -> float:
        where = home or str(self.tmp / f"full-{workers or 'default'}")
        shutil.rmtree(where, ignore_errors=True)
        env = {**self.env, "LESSONS_HOME": where}
        env.pop("LESSONS_SCAN_WORKERS", None)
        if workers is not None:
            env["LESSONS_SCAN_WORKERS"] = workers
        return measure([LESSONS, "scan"], env, cpus=cpus)[0]

    def rounds(
        self, label: str, rounds: int, settings: list[str | None], cpus: set[int] | None
    ) -> tuple[dict[str | None, float], dict[str | None, float]]:
        """Per setting: the median rate (MB/s) and the median of each round's ratio to the
        floor measured in the same round."""
        times: dict[str | None, list[float]] = {w: [] for w in settings}
        floors: list[float] = []
        ratios: dict[str | None, list[float]] = {w: [] for w in settings}
        for r in range(rounds):
            floor = self.floor(cpus)
            floors.append(floor)
            for w in settings[r % len(settings) :] + settings[: r % len(settings)]:
                # (the order turns from round to round: the first after the floor is favoured)
                t = self.scan(w, cpus)
                times[w].append(t)
                ratios[w].append(floor / t)
        mb = self.size / 1e6
        print(f"{label} ({rounds} interleaved rounds; {_load()}):")
        print(f"  floor, json.loads every line: {mb / _median(floors):.0f} MB/s")
        for w in settings:
            name = "default" if w is None else f"LESSONS_SCAN_WORKERS={w}"
            print(
                f"  full scan, {name}: {mb / _median(times[w]):.0f} MB/s, "
                f"{_median(ratios[w]):.2f}x the floor (rounds {min(ratios[w]):.2f}-"
                f"{max(ratios[w]):.2f})"
            )
        return {w: _median(ratios[w]) for w in settings}, {w: _median(times[w]) for w in settings}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=200.0, help="corpus size in MB")
    parser.add_argument("--append-mb", type=float, default=5.0, help="incremental size in MB")
    parser.add_argument("--rounds", type=int, default=9, help="incremental runs (median)")
    parser.add_argument("--full-rounds", type=int, default=3, help="full-scan rounds per phase")
    parser.add_argument(
        "--mix", action="store_true", help="Claude, Codex and Gemini sessions (60/30/10)"
    )
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
    for var in (
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "GEMINI_CLI_HOME",
        "XDG_CONFIG_HOME",
        "LESSONS_SCAN_WORKERS",
    ):
        env.pop(var, None)
    # An installed package has its bytecode compiled; without it every run would compile the
    # scanner's modules from source and measure that instead of the scan.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    verdicts: list[str] = []

    def verdict(name: str, ok: bool, figure: str) -> None:
        verdicts.append(f"  [{'met' if ok else 'MISSED'}] {name}: {figure}")

    neighbour: subprocess.Popen[bytes] | None = None
    try:
        t0 = time.perf_counter()
        share = {"claude": 0.6, "codex": 0.3, "gemini": 0.1} if opts.mix else None
        size, files = build_corpus(home, opts.mb, share)
        print(
            f"corpus: {size / 1e6:.1f} MB in {len(files)} files "
            f"(from {'shared corpus' if SHARED.is_dir() else 'fixtures'}), "
            f"built in {time.perf_counter() - t0:.1f} s; {_load()}"
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

        full = FullScans(tmp, env, size)
        cpus = os.sched_getaffinity(0)
        ratios, _ = full.rounds("full scans", opts.full_rounds, [None, "1", "2"], None)
        verdict(
            "full scan, one process >= 1.5x the floor", ratios["1"] >= 1.5, f"{ratios['1']:.2f}x"
        )
        verdict("full scan, two processes >= 2.5x", ratios["2"] >= 2.5, f"{ratios['2']:.2f}x")
        verdict(
            "default >= one process",
            ratios[None] >= ratios["1"] * 0.97,
            f"{ratios[None]:.2f}x against {ratios['1']:.2f}x",
        )
        neighbour = subprocess.Popen([sys.executable, "-c", _BUSY])
        loaded, _ = full.rounds(
            "full scans beside one CPU-bound neighbour", opts.full_rounds, [None, "1", "2"], None
        )
        neighbour.kill()
        neighbour.wait()
        neighbour = None
        verdict(
            "under load, default >= one process",
            loaded[None] >= loaded["1"] * 0.97,
            f"{loaded[None]:.2f}x against {loaded['1']:.2f}x",
        )
        if len(cpus) > 1:
            one = {min(cpus)}
            single, _ = full.rounds("full scans on one CPU", opts.full_rounds, [None, "1"], one)
            verdict(
                "on one CPU, default >= one process",
                single[None] >= single["1"] * 0.97,
                f"{single[None]:.2f}x against {single['1']:.2f}x",
            )

        for workers in (None, "1"):
            where = str(tmp / "rss")
            shutil.rmtree(where, ignore_errors=True)
            rss_env = {**env, "LESSONS_HOME": where}
            if workers:
                rss_env["LESSONS_SCAN_WORKERS"] = workers
            rss, procs = tree_rss([LESSONS, "scan"], rss_env)
            name = "default" if workers is None else f"LESSONS_SCAN_WORKERS={workers}"
            print(f"full scan, {name}: peak RSS {rss} MB summed over {procs} process(es)")
            if workers is None:
                verdict("peak RSS <= 64 MB summed (full scan)", rss <= 64, f"{rss} MB")

        # The store every later figure starts from: a default full scan of the corpus.
        full.scan(None, None, home=env["LESSONS_HOME"])
        pairs = []
        index = Path(env["LESSONS_HOME"]) / "scan-index.json"
        for _ in range(max(3, opts.rounds)):
            version_s = measure([LESSONS, "--version"], env)[0]
            idle_s = measure([LESSONS, "scan"], env)[0]
            index.unlink(missing_ok=True)
            full_s = measure([LESSONS, "scan"], env)[0]
            pairs.append((version_s, idle_s, full_s))
        idle = _median([p[1] for p in pairs])
        idle_ratio = _median([p[1] / p[0] for p in pairs])
        full_ratio = _median([p[2] / p[0] for p in pairs])
        print(
            f"re-scan, nothing changed ({len(files)} files): {idle * 1000:.0f} ms, "
            f"{idle_ratio:.2f}x `lessons --version` (paired, median of {len(pairs)}); "
            f"answered by the scanner (no index): {_median([p[2] for p in pairs]) * 1000:.0f} ms, "
            f"{full_ratio:.2f}x"
        )
        verdict(
            "re-scan with nothing new <= 1.5x --version", idle_ratio <= 1.5, f"{idle_ratio:.2f}x"
        )

        for label, one_file in (("in several sessions", False), ("in one session", True)):
            before = tmp / "store-before"
            shutil.rmtree(before, ignore_errors=True)
            shutil.copytree(env["LESSONS_HOME"], before)
            sizes = {p: p.stat().st_size for p in files}
            added = append_new_lines(files, opts.append_mb, one_file=one_file)
            grown = json.dumps(
                [[str(p), size] for p, size in sizes.items() if p.stat().st_size > size]
            )
            floors: list[float] = []
            rounds: list[tuple[float, float, float, float, float]] = []
            index = Path(env["LESSONS_HOME"]) / "scan-index.json"
            for _ in range(max(1, opts.rounds)):
                shutil.rmtree(env["LESSONS_HOME"])
                shutil.copytree(before, env["LESSONS_HOME"])
                version_s = measure([LESSONS, "--version"], env)[0]
                empty_s = measure([LESSONS, "scan"], empty_env)[0]
                inc_s = measure([LESSONS, "scan"], env)[0]
                again_s = measure([LESSONS, "scan"], env)[0]  # the same corpus, nothing new
                index.unlink(missing_ok=True)  # the same, as the scanner itself answers it
                full_s = measure([LESSONS, "scan"], env)[0]
                rounds.append((version_s, empty_s, again_s, inc_s, full_s))
                cli_s = measure([sys.executable, "-c", _CLI_ONLY], env)[0]
                least_s = measure([sys.executable, "-c", _INCREMENTAL_FLOOR, grown], env)[0]
                floors.append(least_s - cli_s)
            shutil.rmtree(env["LESSONS_HOME"])
            shutil.copytree(before, env["LESSONS_HOME"])
            inc_rss, procs = tree_rss([LESSONS, "scan"], env)

            def beyond(
                i: int, rounds: list[tuple[float, float, float, float, float]] = rounds
            ) -> float:
                return statistics.median(r[3] - r[i] for r in rounds) * 1000

            inc = statistics.median(r[3] for r in rounds)
            print(
                f"incremental scan of {added / 1e6:.1f} MB new lines {label} "
                f"(median of {len(rounds)}): {inc * 1000:.0f} ms, {inc / startup:.2f}x start-up; "
                f"peak RSS {inc_rss} MB summed over {procs} process(es)\n"
                f"  beyond an unchanged re-scan of the same corpus {beyond(2):.0f} ms (beyond one "
                f"the scanner answers, without the index of unchanged files, {beyond(4):.0f} ms), "
                f"beyond an empty scan {beyond(1):.0f} ms, beyond `lessons --version` "
                f"{beyond(0):.0f} ms\n"
                f"  the least any scan of these lines adds to the CLI's start-up (msgspec and "
                f"sqlite3 imported, the store opened, the new lines decoded into the reader's "
                f"records; nothing detected or written): {_median(floors) * 1000:.0f} ms"
            )
            verdict(
                f"incremental 5 MB {label} <= 35 ms beyond a re-scan",
                beyond(2) <= 35,
                f"{beyond(2):.0f} ms; beyond --version {beyond(0):.0f} ms, where the least "
                f"possible is {_median(floors) * 1000:.0f} ms",
            )
            verdict(
                f"peak RSS <= 64 MB summed (incremental {label})", inc_rss <= 64, f"{inc_rss} MB"
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
        print(f"targets ({_load()}):")
        print("\n".join(verdicts))
    finally:
        if neighbour is not None:
            neighbour.kill()
            neighbour.wait()
        if opts.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
