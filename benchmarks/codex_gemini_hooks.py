"""How fast do the Codex and Gemini hook commands answer, as whole processes?

Both agents run the registered command for every matching event and wait for it (Codex through
``$SHELL -lc``, Gemini through ``bash -c``), so what matters is fork + interpreter start +
imports + work, measured from outside. The command measured is the one ``lessons install``
registers (``file`` style, see ``lessons_core.installing``), run through ``sh -c``.

Cases that cost the adapters something of their own:

* a Codex ``apply_patch`` call: the patch is parsed for paths and added lines;
* a Codex ``PostToolUse`` whose output has no exit code: the hook reads the tail of the session
  transcript (here a 20 MB file) for the call's completion record;
* Gemini ``BeforeTool`` then ``AfterTool`` of one call (guards first, hints after).

Baseline measured in the same run: a bare ``python -I -S -c pass`` (the floor of any Python
hook); ratios are against it. The lessons come from the shared seed catalogue when it sits
beside the checkout (143 lessons), else from the built-in starter lessons.
Usage: ``python benchmarks/codex_gemini_hooks.py [N]``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lessons_codex.plugin import agent_spec as codex_spec
from lessons_core import installing
from lessons_gemini.plugin import agent_spec as gemini_spec

REPO = Path(__file__).resolve().parents[1]
SEED = REPO.parent / "shared" / "corpus" / "seed-lessons" / "lesson-manifest.json"
LESSONS = str(Path(sys.executable).parent / "lessons")

PATCH = (
    '*** Begin Patch\n*** Update File: scripts/run.sh\n@@\n-echo hi\n+eval "$1"\n'
    "*** Add File: src/app/new_module.py\n"
    + "".join(f"+line {i}\n" for i in range(200))
    + "*** End Patch\n"
)


def codex_payloads(tmp: Path) -> dict[str, dict[str, object]]:
    transcript = tmp / "rollout.jsonl"
    filler = json.dumps({"type": "response_item", "payload": {"type": "message", "x": "y" * 400}})
    with transcript.open("w") as handle:
        for _ in range(20 * 1024 * 1024 // (len(filler) + 1)):
            handle.write(filler + "\n")
        done = {"id": "call_bench", "exit_code": 2, "aggregated_output": "boom\n"}
        handle.write(json.dumps({"type": "event_msg", "payload": {"item": done}}) + "\n")
    base = {"session_id": "bench", "cwd": str(tmp), "model": "gpt-5.5", "turn_id": "t"}
    return {
        "Codex PreToolUse Bash, no match": {
            **base,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls -la"},
            "tool_use_id": "call_bench",
        },
        "Codex PreToolUse apply_patch (201 lines)": {
            **base,
            "hook_event_name": "PreToolUse",
            "tool_name": "apply_patch",
            "tool_input": {"command": PATCH},
            "tool_use_id": "call_bench",
        },
        "Codex PostToolUse, exit code in the output text": {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "make"},
            "tool_response": "Exit code: 2\nWall time: 0.1 seconds\nOutput:\nboom\n",
            "tool_use_id": "call_bench",
        },
        "Codex PostToolUse, exit code from a 20 MB transcript": {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "make"},
            "tool_response": "boom\n",
            "tool_use_id": "call_bench",
            "transcript_path": str(transcript),
        },
        "Codex SessionStart": {**base, "hook_event_name": "SessionStart", "source": "startup"},
    }


def gemini_payloads(tmp: Path) -> dict[str, dict[str, object]]:
    base = {"session_id": "bench", "cwd": str(tmp), "timestamp": "2026-11-29T10:00:00Z"}
    call = {
        "tool_name": "write_file",
        "tool_input": {"file_path": "scripts/run.sh", "content": 'eval "$1"\n'},
    }
    return {
        "Gemini BeforeTool write_file": {**base, "hook_event_name": "BeforeTool", **call},
        "Gemini AfterTool write_file": {
            **base,
            "hook_event_name": "AfterTool",
            **call,
            "tool_response": {"llmContent": "Successfully wrote", "returnDisplay": "ok"},
        },
        "Gemini SessionStart": {**base, "hook_event_name": "SessionStart", "source": "startup"},
    }


def time_runs(argv: list[str], stdin: bytes, env: dict[str, str], n: int) -> list[float]:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        subprocess.run(argv, input=stdin, capture_output=True, env=env, check=True)
        times.append((time.perf_counter() - t0) * 1000)
    return times


def describe(times: list[float], floor: float) -> str:
    p90 = statistics.quantiles(times, n=10)[-1]
    median = statistics.median(times)
    return f"median {median:6.1f} ms   p90 {p90:6.1f} ms   x{median / floor:4.2f}"


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": tmp_name,
            "LESSONS_HOME": str(tmp / "home"),
            "LESSONS_STATE_DIR": str(tmp / "state"),
        }
        if SEED.exists():
            subprocess.run([LESSONS, "import", str(SEED)], env=env, check=True, capture_output=True)
            source = "the seed catalogue"
        else:
            subprocess.run([LESSONS, "build"], env=env, check=True, capture_output=True)
            source = "the built-in starter lessons"
        manifest = json.loads((tmp / "home" / "lesson-manifest.json").read_text())
        print(f"{len(manifest['lessons'])} lessons compiled from {source}; {n} runs each\n")

        floor_times = time_runs([sys.executable, "-I", "-S", "-c", "pass"], b"", env, n)
        floor = statistics.median(floor_times)
        print(f"{'baseline python -I -S -c pass':<56} {describe(floor_times, floor)}\n")
        for spec, payloads in (
            (codex_spec(), codex_payloads(tmp)),
            (gemini_spec(), gemini_payloads(tmp)),
        ):
            command = installing.hook_command(spec, installing.STYLE_FILE)
            for label, payload in payloads.items():
                # A fresh session each run, so dedup never silences the answer being timed.
                times = []
                for i in range(n):
                    payload["session_id"] = f"bench-{i}"
                    data = json.dumps(payload).encode()
                    times.extend(time_runs(["/bin/sh", "-c", command], data, env, 1))
                print(f"{label:<56} {describe(times, floor)}")
            print()


if __name__ == "__main__":
    main()
