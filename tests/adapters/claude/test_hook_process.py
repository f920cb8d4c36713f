"""Captured Claude Code payloads through the real hook process, answers checked for shape.

``captured_payloads.jsonl`` holds what Claude Code 2.1.197 actually wrote to a hook's stdin in
one headless session (SessionStart, UserPromptSubmit, PreToolUse for Bash/Read/Write/Edit/Glob/
Grep/Agent, PostToolUseFailure, SubagentStart and a subagent's PreToolUse); only the scratch
paths were rewritten to ``/home/dev``. Each payload is piped into the command ``lessons install
claude`` registers, with lessons stored by the real ``lessons add``, and the answer must be
exactly what Claude Code accepts for that event, or nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lessons_claude.plugin import agent_spec
from lessons_core import installing

HERE = Path(__file__).resolve().parent
PAYLOADS = [
    json.loads(line) for line in (HERE / "captured_payloads.jsonl").read_text().splitlines()
]
LESSONS = str(Path(sys.executable).parent / "lessons")

#: hookSpecificOutput keys Claude Code accepts from us, per event (hook-contracts §2.4).
ALLOWED = {
    "PreToolUse": {
        "hookEventName",
        "permissionDecision",
        "permissionDecisionReason",
        "additionalContext",
    },
    "SessionStart": {"hookEventName", "additionalContext"},
    "SubagentStart": {"hookEventName", "additionalContext"},
    "UserPromptSubmit": {"hookEventName", "additionalContext"},
    "PostToolUseFailure": {"hookEventName", "additionalContext"},
}

LESSONS_TO_ADD = [
    {
        "summary": "listing a missing directory",
        "mistake": "ls on a directory that does not exist yet",
        "remediation": "Check with test -d first (HINT-LS).",
        "type": "hint",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"^ls\b"]},
    },
    {
        "summary": "generated files are not edited by hand",
        "mistake": "wrote into out/, which the build regenerates",
        "remediation": "Change the generator instead (GUARD-OUT).",
        "type": "guard",
        "triggers": {"toolNames": ["Write", "Edit"], "pathPatterns": ["**/out/*.py"]},
    },
    {
        "summary": "notes.txt is shared",
        "mistake": "edited the shared notes without asking",
        "remediation": "Ask before editing notes.txt (NUDGE-NOTES).",
        "type": "nudge",
        "triggers": {"toolNames": ["Edit"], "pathPatterns": ["**/notes.txt"]},
    },
]


@pytest.fixture(scope="module")
def hook_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An environment with the three lessons stored and compiled (module-wide: adds are slow)."""
    base = tmp_path_factory.mktemp("hook-process")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(base / "home"),
        "LESSONS_HOME": str(base / "lessons-home"),
        "LESSONS_STATE_DIR": str(base / "state"),
    }
    proc = subprocess.run(
        [LESSONS, "add", "-"],
        input="\n".join(json.dumps(lesson) for lesson in LESSONS_TO_ADD),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return env


def run_hook(payload: dict[str, Any], env: dict[str, str], state: Path) -> dict[str, Any] | None:
    """Pipe ``payload`` into the registered command; returns its parsed answer or None."""
    command = installing.hook_command(agent_spec(), installing.DEFAULT_STYLE)
    proc = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env={**env, "LESSONS_STATE_DIR": str(state)},
        timeout=20,
        check=False,
    )
    assert proc.returncode == 0
    assert proc.stderr == ""
    if not proc.stdout.strip():
        return None
    answer = json.loads(proc.stdout)
    assert isinstance(answer, dict)
    return answer


def check_shape(event: str, answer: dict[str, Any]) -> dict[str, Any]:
    """The answer has exactly one key, hookSpecificOutput, naming the event, allowed keys only."""
    assert set(answer) == {"hookSpecificOutput"}
    specific = answer["hookSpecificOutput"]
    assert specific["hookEventName"] == event
    assert set(specific) <= ALLOWED[event], set(specific) - ALLOWED[event]
    assert len(specific) > 1
    if "permissionDecision" in specific:
        assert specific["permissionDecision"] == "deny"
        assert specific["permissionDecisionReason"].strip()
    for value in specific.values():
        assert isinstance(value, str) and len(value) <= 10_000
    return specific


def _payload(event: str, tool: str | None = None, sub: bool = False) -> dict[str, Any]:
    for p in PAYLOADS:
        if (
            p["hook_event_name"] == event
            and p.get("tool_name") == tool
            and ("agent_id" in p) == sub
        ):
            return p
    raise LookupError((event, tool, sub))


def test_every_captured_payload_gets_a_valid_answer_or_none(hook_env, tmp_path):
    """Whatever Claude Code sends, the hook exits 0, writes no stderr, and answers validly."""
    for i, payload in enumerate(PAYLOADS):
        answer = run_hook(payload, hook_env, tmp_path / f"state-{i}")
        event = payload["hook_event_name"]
        if answer is not None:
            check_shape(event, answer)
        if event in ("PreToolUse",) and payload["tool_name"] in ("Read", "Glob", "Grep", "Agent"):
            assert answer is None, (payload["tool_name"], answer)


def test_session_and_subagent_start_carry_the_protocol(hook_env, tmp_path):
    """SessionStart and SubagentStart answer with the #lesson protocol as additionalContext."""
    for i, payload in enumerate((_payload("SessionStart"), _payload("SubagentStart", sub=True))):
        answer = run_hook(payload, hook_env, tmp_path / f"s{i}")
        assert answer is not None
        context = check_shape(payload["hook_event_name"], answer)["additionalContext"]
        assert "#lesson" in context and "#/lesson" in context


def test_hint_guard_nudge_on_captured_tool_calls(hook_env, tmp_path):
    """The captured Bash, Write and Edit calls get context, a deny, and a one-time deny."""
    state = tmp_path / "state"
    hint = run_hook(_payload("PreToolUse", "Bash"), hook_env, state)
    assert hint is not None
    context = check_shape("PreToolUse", hint)
    assert "HINT-LS" in context["additionalContext"]
    assert "permissionDecision" not in context
    assert "<!--" in context["additionalContext"]  # the trailer that records what was injected

    guard = run_hook(_payload("PreToolUse", "Write"), hook_env, state)
    assert guard is not None
    assert "GUARD-OUT" in check_shape("PreToolUse", guard)["permissionDecisionReason"]
    again = run_hook(_payload("PreToolUse", "Write"), hook_env, state)
    assert (
        again is not None and "GUARD-OUT" in again["hookSpecificOutput"]["permissionDecisionReason"]
    )

    nudge = run_hook(_payload("PreToolUse", "Edit"), hook_env, state)
    assert nudge is not None
    assert "NUDGE-NOTES" in check_shape("PreToolUse", nudge)["permissionDecisionReason"]
    retry = run_hook(_payload("PreToolUse", "Edit"), hook_env, state)
    assert retry is None or "permissionDecision" not in retry["hookSpecificOutput"]


def test_same_hint_is_not_repeated_in_a_session(hook_env, tmp_path):
    """A hint delivered once in a session stays quiet on the next matching call."""
    state = tmp_path / "state"
    assert run_hook(_payload("PreToolUse", "Bash"), hook_env, state) is not None
    assert run_hook(_payload("PreToolUse", "Bash"), hook_env, state) is None


#: GitHub Copilot CLI's Claude-style payloads, as it sends them to a repository's
#: ``.claude/settings.json`` hooks (captured from Copilot CLI 1.0.102).
COPILOT_PAYLOADS = sorted(
    (Path(__file__).resolve().parents[1] / "copilot" / "payloads" / "pascal").glob("*.json")
)


@pytest.mark.parametrize("path", COPILOT_PAYLOADS, ids=lambda p: p.stem)
def test_copilots_calls_get_no_claude_answer(path, hook_env, tmp_path):
    """Copilot drops the context of an answer in Claude's shape: the hook stays silent on a
    Copilot payload, even one the same lessons would answer (a hint, a guard, the protocol),
    and claims nothing for it; the same call from Claude Code is answered."""
    copilot = json.loads(path.read_text())
    if copilot.get("tool_name") == "Bash":
        copilot["tool_input"] = dict(_payload("PreToolUse", "Bash")["tool_input"])
    state = tmp_path / "state"
    assert run_hook(copilot, hook_env, state) is None
    if copilot["hook_event_name"] in ("PreToolUse", "SessionStart"):
        claude = {k: v for k, v in copilot.items() if k != "timestamp"}
        claude["transcript_path"] = str(tmp_path / "t.jsonl")
        assert run_hook(claude, hook_env, state) is not None


@pytest.mark.parametrize(
    "junk", ["", "not json", "[]", '{"hook_event_name": "PreToolUse"}', "{" * 5000]
)
def test_junk_on_stdin_fails_open(hook_env, tmp_path, junk):
    """Garbage in: exit 0, nothing out."""
    command = installing.hook_command(agent_spec(), installing.DEFAULT_STYLE)
    proc = subprocess.run(
        ["/bin/sh", "-c", command],
        input=junk,
        capture_output=True,
        text=True,
        env=hook_env,
        timeout=20,
    )
    assert (proc.returncode, proc.stdout) == (0, "")


def test_broken_install_fails_open(tmp_path):
    """A hook command whose package directories are gone still exits 0 with no output."""
    hook_file = Path(installing.hook_command(agent_spec(), installing.STYLE_FILE).split()[3])
    proc = subprocess.run(
        [sys.executable, "-I", "-S", str(hook_file), str(tmp_path / "nowhere")],
        input=json.dumps(_payload("PreToolUse", "Bash")),
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert (proc.returncode, proc.stdout) == (0, "")


PROBE = """
import io, json, sys
dirs, payload = json.loads(sys.argv[1]), sys.argv[2]
sys.path[:0] = dirs
before = set(sys.modules)
sys.stdin = io.TextIOWrapper(io.BytesIO(payload.encode()))
out = io.StringIO()
real_stdout, sys.stdout = sys.stdout, out
from lessons_claude import hook
hook.main()
sys.stdout = real_stdout
print(json.dumps({"new": sorted(set(sys.modules) - before), "out": out.getvalue()}))
"""


def test_hook_process_imports_only_the_standard_library(hook_env, tmp_path):
    """After a real hook run that matches lessons, every loaded module is stdlib or ours."""
    command = installing.hook_command(agent_spec(), installing.STYLE_FILE)
    dirs = command.split()[4:]
    payload = json.dumps(_payload("PreToolUse", "Bash"))
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", PROBE, json.dumps(dirs), payload],
        capture_output=True,
        text=True,
        env={**hook_env, "LESSONS_STATE_DIR": str(tmp_path / "state")},
        timeout=20,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert "HINT-LS" in report["out"], "the probe should have exercised matching"
    foreign = []
    for name in report["new"]:
        top = name.split(".")[0]
        if top in ("lessons_core", "lessons_claude"):
            continue
        if top not in sys.stdlib_module_names:
            foreign.append(name)
    assert not foreign, foreign
    heavy = {"typing", "dataclasses", "logging", "enum", "importlib.metadata", "asyncio"} & set(
        report["new"]
    )
    # enum arrives with re (stdlib) on 3.11; the hook itself must not pull the others.
    assert heavy <= {"enum"}, heavy
    assert not any(
        n.startswith(("lessons_core.models", "lessons_core.cli", "lessons_core.store"))
        for n in report["new"]
    )
