"""The Node original's 143-lesson catalogue, imported, compiled and run through the hook."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lessons_core.cli.main import cli
from lessons_core.hot import manifest as manifest_mod
from lessons_core.hot import runner

#: Seed lessons whose patterns backtrack polynomially even after the linear rewrite (see
#: docs/patterns.md, rule 6). They used to be refused; the hook now matches those patterns
#: against the first few kilobytes of a subject only.
SEED_LIMITED = (
    "never-let-code-inherit-the-interactive-m-5630",  # execFile\w*\(  (\w* after word chars)
    "set-e-kills-bash-scripts-silently-on-any-bf06",  # -[a-zA-Z]*e[a-zA-Z]*
    "git-stderr-redirected-to-devnull-silentl-1ec9",  # \$\(\s*git\b[^)]*2>
    "cache-keys-must-include-enough-context-t-8430",  # /[^/]*cache[^/]*$
    "persist-db-inserts-before-side-effects-r-a82f",  # /[^/]*repo[^/]*$
    "block-bare-pytest-calls-always-require-t-a31f",  # python[0-9]*\s+...(?!.*--timeout)
)


@pytest.fixture(name="seeded")
def fixture_seeded(shared_dir: Path, home: Path) -> dict:
    seed = shared_dir / "corpus" / "seed-lessons" / "lesson-manifest.json"
    if not seed.is_file():
        pytest.skip("the seed catalogue is not in the shared folder")
    result = CliRunner().invoke(cli, ["import", str(seed)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "rejected 0" in result.output
    result = CliRunner().invoke(cli, ["build", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    manifest_mod.clear_cache()
    return json.loads(result.output)


def _event(command: str) -> dict:
    return {
        "event": "pre_tool",
        "agent": "claude",
        "tool": "Bash",
        "command": command,
        "session_id": "seed",
        "cwd": "/tmp",
    }


def test_every_seed_lesson_compiles(seeded, home):
    """Every lesson of the catalogue compiles; every one above the floors is indexed; the
    polynomial ones carry the shorter subject limit."""
    assert seeded["refused"] == []
    assert seeded["lessons"] + seeded["belowFloors"] == 143
    manifest = json.loads((home / "lesson-manifest.json").read_text("utf-8"))
    limited = {
        entry["slug"]
        for entry in manifest["lessons"].values()
        for key in ("commands", "paths")
        for pattern in entry.get(key, ())
        if pattern.get("limit")
    }
    assert limited == set(SEED_LIMITED)
    assert seeded["byTool"]["Bash"] > 50
    assert seeded["session"] > 20


def test_seed_decisions(seeded, home):
    """Real commands get the catalogue's guards and hints; ordinary ones get nothing."""
    manifest = manifest_mod.load(str(home / "lesson-manifest.json"))
    vitest = runner.evaluate(_event("npx vitest run"), manifest)
    assert vitest["deny"]
    commit = runner.evaluate(_event('git commit -m "wip"'), manifest)
    assert commit["context"] and not commit["deny"]
    assert len(commit["delivered"]) <= 3
    plain = runner.evaluate(_event("ls -la"), manifest)
    assert plain["delivered"] == []


def _call(tool: str, command: str | None = None, path: str | None = None) -> dict:
    event = _event(command or "") if command is not None else {**_event(""), "command": None}
    event["tool"] = tool
    if path is not None:
        event["paths"] = [path]
        event["content"] = "x = 1\n"
    return event


#: Real calls to the lessons that used to be refused: (tool, command, path, slug, fires).
SEED_LIMITED_CALLS = [
    (
        "Bash",
        "python -m pytest tests/ -q",
        None,
        "block-bare-pytest-calls-always-require-t-a31f",
        True,
    ),
    (
        "Bash",
        "python3 -m pytest tests/ -q --timeout 60",
        None,
        "block-bare-pytest-calls-always-require-t-a31f",
        False,
    ),
    (
        "Bash",
        "set -euo pipefail; ./deploy.sh",
        None,
        "set-e-kills-bash-scripts-silently-on-any-bf06",
        True,
    ),
    ("Bash", "set -x; ./deploy.sh", None, "set-e-kills-bash-scripts-silently-on-any-bf06", False),
    (
        "Bash",
        "branch=$(git rev-parse --abbrev-ref HEAD 2>/dev/null)",
        None,
        "git-stderr-redirected-to-devnull-silentl-1ec9",
        True,
    ),
    (
        "Bash",
        "git rev-parse HEAD 2>/dev/null",
        None,
        "git-stderr-redirected-to-devnull-silentl-1ec9",
        False,
    ),
    ("Edit", None, "/repo/src/run.ts", "never-let-code-inherit-the-interactive-m-5630", False),
    (
        "Edit",
        None,
        "/repo/src/answerCache.ts",
        "cache-keys-must-include-enough-context-t-8430",
        True,
    ),
    (
        "Edit",
        None,
        "/repo/src/caches/plain.ts",
        "cache-keys-must-include-enough-context-t-8430",
        False,
    ),
    (
        "Write",
        None,
        "/repo/src/userRepository.py",
        "persist-db-inserts-before-side-effects-r-a82f",
        True,
    ),
    ("Write", None, "/repo/src/user.py", "persist-db-inserts-before-side-effects-r-a82f", False),
]


@pytest.mark.parametrize(("tool", "command", "path", "slug", "fires"), SEED_LIMITED_CALLS)
def test_the_once_refused_seed_lessons_fire_on_real_calls(
    seeded, home, tool, command, path, slug, fires
):
    """The lessons the import used to refuse now fire on the calls they are about, and only
    those: matching on the limited subject is what the pattern as written gives."""
    from lessons_core.hot import match

    manifest = manifest_mod.load(str(home / "lesson-manifest.json"))
    by_slug = {entry["slug"]: lesson_id for lesson_id, entry in manifest["lessons"].items()}
    fired = match.matching(manifest, _call(tool, command, path))
    assert (by_slug[slug] in fired) is fires


def test_seed_through_the_claude_hook_process(seeded, home):
    """The installed Claude Code hook command denies a guarded call with the agent's JSON."""
    hook = Path(sys.executable).parent / "lessons-claude-hook"
    if not hook.exists():
        pytest.skip("lessons-claude-hook is not installed next to this interpreter")
    payload = {
        "session_id": "seed-process",
        "cwd": str(home),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "npx vitest run"},
        "tool_use_id": "toolu_1",
    }
    proc = subprocess.run(
        [str(hook)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0
    answer = json.loads(proc.stdout)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert answer["hookSpecificOutput"]["permissionDecisionReason"]
