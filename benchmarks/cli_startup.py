"""Start-up of the ``lessons`` command line: a core command, ``--help`` and a plugin's command.

The core's own commands are named in ``cli/main.py`` and never load the plugins; every other
command comes from a plugin (``lessons_register_commands``), so a plugin command and
``lessons --help`` (which lists them) load the plugins first. This script shows what each pays:
the wall time of the whole process, and how many modules it imported (``-X importtime``),
against ``python -c pass``, the floor, run interleaved so load spikes hit all alike.

    python benchmarks/cli_startup.py [--runs 21]

Every process runs in a scratch ``LESSONS_HOME``, warmed once (the plugin entry-point cache
written, bytecode compiled), so the figures are those of the second and later commands.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

CASES: dict[str, list[str]] = {
    "floor (python -c pass)": ["-c", "pass"],
    "lessons --version": ["-m", "lessons_core", "--version"],
    "lessons list (core)": ["-m", "lessons_core", "list"],
    "lessons --help": ["-m", "lessons_core", "--help"],
    "lessons repo --help (plugin)": ["-m", "lessons_core", "repo", "--help"],
    "lessons mcp --help (plugin)": ["-m", "lessons_core", "mcp", "--help"],
}

_IMPORT = re.compile(r"import time:\s+\d+ \|\s+\d+ \| ")


def _wall(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], env=env, capture_output=True, check=False)
    return (time.perf_counter() - start) * 1000


def _modules(args: list[str], env: dict[str, str]) -> int:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return sum(1 for line in proc.stderr.splitlines() if _IMPORT.match(line))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    options = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="lessons-startup-")
    env = {
        **os.environ,
        "LESSONS_HOME": os.path.join(scratch, "home"),
        "LESSONS_STATE_DIR": os.path.join(scratch, "state"),
        "HOME": scratch,
    }
    for args in CASES.values():
        _wall(args, env)
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(options.runs):
        for name, args in CASES.items():
            times[name].append(_wall(args, env))
    floor = statistics.median(times["floor (python -c pass)"])
    print(f"{'command':32} {'median ms':>10} {'x floor':>8} {'modules':>8}")
    for name, args in CASES.items():
        median = statistics.median(times[name])
        print(f"{name:32} {median:10.1f} {median / floor:8.2f} {_modules(args, env):8d}")


if __name__ == "__main__":
    main()
