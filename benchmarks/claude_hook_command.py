"""How fast does each way of registering the Claude Code hook answer, as a whole process?

Claude Code runs the registered command through ``sh -c`` for every matching event and waits
for it, so the figure that matters is fork + interpreter start + imports + work, measured from
outside. Three command styles are compared (see ``lessons_core.installing``):

* ``script``  — the console script ``…/bin/lessons-claude-hook`` (pip's wrapper, full ``site``);
* ``module``  — ``<python> -I -m lessons_claude.hook``;
* ``file``    — ``<python> -I -S …/lessons_claude/hook.py <dirs>`` (no site-packages scan).

Baselines measured in the same run: a bare ``python -I -S -c pass`` (the floor for any Python
hook), ``python -I -c pass``, and ``node -e 0`` when Node is installed (the floor of the Node
hooks this project replaces). Ratios are against the bare ``-I -S`` interpreter.

The lessons come from the shared seed catalogue when it sits beside the checkout (143 lessons),
else from the built-in starter lessons. Usage: ``python benchmarks/claude_hook_command.py [N]``.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lessons_claude.plugin import agent_spec
from lessons_core import installing

REPO = Path(__file__).resolve().parents[1]
SEED = REPO.parent / "shared" / "corpus" / "seed-lessons" / "lesson-manifest.json"
LESSONS = str(Path(sys.executable).parent / "lessons")

PAYLOADS = {
    "PreToolUse Bash, no match": {
        "session_id": "bench",
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls -la", "description": "list"},
        "tool_use_id": "toolu_bench",
    },
    "PreToolUse Edit .sh file": {
        "session_id": "bench",
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": "/tmp/run.sh", "old_string": "a", "new_string": 'eval "$1"'},
        "tool_use_id": "toolu_bench",
    },
    "SessionStart startup": {
        "session_id": "bench",
        "cwd": "/tmp",
        "hook_event_name": "SessionStart",
        "source": "startup",
    },
}


def time_runs(argv: list[str], stdin: bytes, env: dict[str, str], n: int) -> list[float]:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        subprocess.run(argv, input=stdin, capture_output=True, env=env, check=True)
        times.append((time.perf_counter() - t0) * 1000)
    return times


def describe(times: list[float]) -> str:
    p90 = statistics.quantiles(times, n=10)[-1]
    return f"median {statistics.median(times):6.1f} ms   p90 {p90:6.1f} ms"


def prepare(env: dict[str, str]) -> str:
    if SEED.exists():
        subprocess.run([LESSONS, "import", str(SEED)], env=env, check=True, capture_output=True)
        return f"seed catalogue ({SEED.name})"
    subprocess.run([LESSONS, "build"], env=env, check=True, capture_output=True)
    return "built-in starter lessons"


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": tmp,
            "LESSONS_HOME": str(Path(tmp) / "home"),
            "LESSONS_STATE_DIR": str(Path(tmp) / "state"),
        }
        source = prepare(env)
        manifest = json.loads((Path(tmp) / "home" / "lesson-manifest.json").read_text())
        print(f"{len(manifest['lessons'])} lessons compiled from the {source}; {n} runs each\n")

        spec = agent_spec()
        python = sys.executable
        baselines = {
            "python -I -S -c pass": [python, "-I", "-S", "-c", "pass"],
            "python -I -c pass": [python, "-I", "-c", "pass"],
        }
        if shutil.which("node"):
            baselines["node -e 0"] = ["node", "-e", "0"]
        floor = statistics.median(time_runs(baselines["python -I -S -c pass"], b"", env, n))
        for label, argv in baselines.items():
            times = time_runs(argv, b"", env, n)
            ratio = statistics.median(times) / floor
            print(f"{'baseline ' + label:<44} {describe(times)}   x{ratio:4.2f}")
        print()
        for payload_label, payload in PAYLOADS.items():
            data = json.dumps(payload).encode()
            print(payload_label)
            for style in installing.STYLES:
                command = installing.hook_command(spec, style)
                # Claude Code runs hook commands through sh -c; so do we.
                times = time_runs(["/bin/sh", "-c", command], data, env, n)
                ratio = statistics.median(times) / floor
                print(f"  {style:<42} {describe(times)}   x{ratio:4.2f}")
            print()


if __name__ == "__main__":
    main()
