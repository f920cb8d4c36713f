"""How long ``lessons repo add`` takes on a repository's ``.lessons`` folder, by its size.

A repository is anybody's: a clone may hold any number of lesson files. Each run makes a git
repository with N lesson files (one distinct command pattern each) and a fresh LESSONS_HOME,
then times the real ``lessons repo add`` process from spawn to exit, and ``lessons repo check``
after it (wall time, and the CPU time of the process, which a busy machine does not stretch):

* N over ``repoMaxFiles`` (default 20,000, the folder that once took 396 s): refused before a
  file is read, so the time is the listing's;
* N at the limit (default 500, the default ``repoMaxFiles``): every file read, checked and
  compiled into the manifest. ``repo add`` includes a manifest build, whose share is the
  compiler's (each new pattern is timed once by the probe, then remembered); ``repo check``
  is the reading alone.

    python benchmarks/repo_bounds.py [--over 20000] [--within 1000] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LESSONS = str(Path(sys.executable).parent / "lessons")

TEMPLATE = """---
summary: tool{n} needs its flag
triggers:
  toolNames: [Bash]
  commandPatterns: ["\\\\btool{n}\\\\s+--dry-run\\\\b"]
---

## Mistake

Running tool{n} with --dry-run still writes the output file.

## Remediation

Pass --no-write to tool{n} instead.
"""


def make_repository(base: Path, count: int) -> Path:
    root = base / f"repo-{count}"
    folder = root / ".lessons"
    folder.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for n in range(count):
        (folder / f"tool-{n:05d}.md").write_text(TEMPLATE.format(n=n), encoding="utf-8")
    return root


def timed(
    args: list[str], root: Path, home: Path
) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Wall seconds and CPU seconds (user + system) of one ``lessons`` process, and its result."""
    env = {**os.environ, "LESSONS_HOME": str(home), "HOME": str(home.parent)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(
        [LESSONS, *args], cwd=root, env=env, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc


def measure(base: Path, count: int, runs: int) -> None:
    root = make_repository(base, count)
    size = sum(p.stat().st_size for p in (root / ".lessons").iterdir())
    figures: dict[str, list[tuple[float, float]]] = {"add": [], "check": []}
    outcome = ""
    message: list[str] = []
    for run in range(runs):
        home = base / f"home-{count}-{run}"
        wall, cpu, proc = timed(["repo", "add", "."], root, home)
        figures["add"].append((wall, cpu))
        outcome = "included" if proc.returncode == 0 else "refused"
        message = (proc.stdout if proc.returncode == 0 else proc.stderr).strip().splitlines()
        wall, cpu, _ = timed(["repo", "check"], root, home)
        figures["check"].append((wall, cpu))
    shown = ", ".join(
        f"repo {name} {statistics.median(w for w, _ in pairs):6.2f} s "
        f"({statistics.median(c for _, c in pairs):6.2f} s CPU)"
        for name, pairs in figures.items()
    )
    print(f"{count:>6} files ({size / 1e6:.1f} MB): {shown}; median of {runs}; {outcome}")
    print(f"       {message[0][:160] if message else ''}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--over", type=int, default=20_000)
    parser.add_argument("--within", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="repo-bounds-") as tmp:
        base = Path(tmp)
        base.chmod(0o700)
        measure(base, args.over, args.runs)
        measure(base, args.within, args.runs)


if __name__ == "__main__":
    main()
