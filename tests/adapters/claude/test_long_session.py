"""A long session through the real Claude Code hook process, with captured payload shapes.

The payloads are the shapes Claude Code sends (``PreCompact``, then ``SessionStart`` with
``source: compact``; the real compaction is in tests/e2e/test_compaction_e2e.py), covering the
handoff together with directive re-injection as the transcript grows, the memory reminders (a
failure nothing recalled, then fixed; the end of a turn after substantial work) and the
sub-agent's own dedup record.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_hook_process import _payload, check_shape, run_hook

LESSONS = str(Path(sys.executable).parent / "lessons")

LESSONS_TO_ADD = [
    {
        "summary": "listing a missing directory",
        "mistake": "ls on a directory that does not exist yet",
        "remediation": "Check with test -d first (HINT-LS).",
        "type": "hint",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"^ls\b"]},
    },
    {
        "summary": "keep answers short in this repository",
        "mistake": "long answers buried the result",
        "remediation": "Lead with the result in one line (DIRECTIVE-SHORT).",
        "type": "directive",
        "priority": 8,
    },
]

CONFIG = {
    "directiveReinjectThresholds": [1000, 5000],
    "stopReminderBytes": 2000,
}


def make_env(base: Path, config: dict[str, Any]) -> dict[str, str]:
    home = base / "lessons-home"
    home.mkdir(parents=True)
    (home / "config.json").write_text(json.dumps(config))
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(base / "home"),
        "LESSONS_HOME": str(home),
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


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return make_env(tmp_path_factory.mktemp("long-session"), CONFIG)


class Session:
    """One session's payloads: the captured shapes with our session id and transcript."""

    def __init__(self, env: dict[str, str], root: Path, name: str = "s1") -> None:
        self.env = env
        self.state = root / "state"
        self.transcript = root / f"{name}.jsonl"
        self.transcript.write_bytes(b"")
        self.session_id = f"long-{name}-{root.name}"

    def grow_to(self, size: int) -> None:
        data = self.transcript.read_bytes()
        self.transcript.write_bytes(data + b"x" * (size - len(data)))

    def payload(self, event: str, **fields: Any) -> dict[str, Any]:
        shapes = {
            "PreToolUse": lambda: _payload("PreToolUse", "Bash"),
            "PostToolUseFailure": lambda: _payload("PostToolUseFailure", "Bash"),
            "SessionStart": lambda: _payload("SessionStart"),
            "UserPromptSubmit": lambda: _payload("UserPromptSubmit"),
        }
        if event in shapes:
            payload = copy.deepcopy(shapes[event]())
        else:  # PreCompact, Stop: the documented fields (hook-contracts §2.3)
            payload = {"cwd": "/home/dev/project", "hook_event_name": event}
            if event == "PreCompact":
                payload.update(trigger="auto", custom_instructions="")
            if event == "Stop":
                payload.update(stop_hook_active=False, last_assistant_message="done")
        payload["session_id"] = self.session_id
        payload["transcript_path"] = str(self.transcript)
        payload.update(fields)
        return payload

    def bash(self, command: str, **fields: Any) -> dict[str, Any]:
        return self.payload("PreToolUse", tool_input={"command": command}, **fields)

    def run(self, payload: dict[str, Any]) -> str | None:
        answer = run_hook(payload, self.env, self.state)
        if answer is None:
            return None
        return str(check_shape(payload["hook_event_name"], answer)["additionalContext"])


def test_handoff_survives_compaction(env, tmp_path):
    """What was given and what still fails comes back once after compaction, within budget."""
    s = Session(env, tmp_path)
    s.run(s.payload("SessionStart", source="startup"))
    assert "HINT-LS" in (s.run(s.bash("ls no-such-dir-xyz")) or "")
    failed = s.payload(
        "PostToolUseFailure",
        tool_input={"command": "pnpm build --filter web"},
        error="Exit code 1\nERR_PNPM_NO_SCRIPT Missing script: build",
    )
    assert s.run(failed) is None  # nothing recalled it
    assert s.run(s.payload("PreCompact")) is None

    after = s.run(s.payload("SessionStart", source="compact"))
    assert after is not None
    assert "Carried over from before" in after
    assert "still failing: `pnpm build --filter web`: ERR_PNPM_NO_SCRIPT" in after
    assert "lesson given" in after and "listing a missing directory" in after
    assert "#lesson" in after  # the protocol block is still there
    assert len(after.encode()) <= 4096 + 200  # the session-start budget, plus the trailer

    again = s.run(s.payload("SessionStart", source="compact"))
    assert again is None or "Carried over" not in again


def test_directives_come_back_once_per_threshold(env, tmp_path):
    """Past each threshold of transcript growth the directive rides with one call's result."""
    s = Session(env, tmp_path)
    s.grow_to(500)
    assert s.run(s.bash("echo a")) is None
    s.grow_to(1500)
    first = s.run(s.bash("echo b"))
    assert first is not None and "DIRECTIVE-SHORT" in first
    assert "Standing directives" in first
    s.grow_to(1600)
    assert s.run(s.bash("echo c")) is None
    s.grow_to(6000)
    assert "DIRECTIVE-SHORT" in (s.run(s.bash("echo d")) or "")
    s.grow_to(7000)
    assert s.run(s.bash("echo e")) is None

    # After compaction growth is counted again from the transcript's size then.
    s.run(s.payload("PreCompact"))
    s.grow_to(7500)
    assert s.run(s.bash("echo f")) is None
    s.grow_to(8100)
    assert "DIRECTIVE-SHORT" in (s.run(s.bash("echo g")) or "")


def test_directives_stay_quiet_in_a_subagent(env, tmp_path):
    """A sub-agent got its directives at its own start: its calls do not repeat them."""
    s = Session(env, tmp_path)
    s.grow_to(6000)
    assert s.run(s.bash("echo a", agent_id="agent-1", agent_type="Explore")) is None


def test_fixed_failure_reminds_once(env, tmp_path):
    """A failure nothing recalled, its retry, then the next call: one reminder, once."""
    s = Session(env, tmp_path)
    failed = s.payload(
        "PostToolUseFailure",
        tool_input={"command": "alembic upgrade head"},
        error="Exit code 1\nFAILED: Multiple head revisions are present",
    )
    assert s.run(failed) is None
    assert s.run(s.bash("alembic upgrade heads")) is None  # the retry: not known to work yet
    reminder = s.run(s.bash("git status"))
    assert reminder is not None
    assert "`alembic upgrade head` failed (FAILED: Multiple head revisions" in reminder
    assert "#lesson block" in reminder

    # A second failure and fix in the same session: no second reminder.
    s.run(s.payload("PostToolUseFailure", tool_input={"command": "make x"}, error="boom"))
    s.run(s.bash("make x"))
    assert s.run(s.bash("git status")) is None


def test_a_failure_that_fails_again_is_not_fixed(env, tmp_path):
    """The retry failed too: no reminder until a retry goes through."""
    s = Session(env, tmp_path)
    fail = s.payload("PostToolUseFailure", tool_input={"command": "pnpm i"}, error="ERR x")
    s.run(fail)
    s.run(s.bash("pnpm i --frozen-lockfile"))
    s.run(fail)  # the retry failed
    assert s.run(s.bash("git status")) is None
    s.run(s.bash("pnpm i --no-frozen-lockfile"))
    assert "`pnpm i` failed" in (s.run(s.bash("git status")) or "")


def test_stop_arms_the_reminder_for_the_next_prompt(env, tmp_path):
    """Stop answers nothing (it must not keep Claude going); the next prompt carries it."""
    s = Session(env, tmp_path)
    s.grow_to(1000)
    stop = s.payload("Stop")
    assert run_hook(stop, s.env, s.state) is None  # too little work
    assert s.run(s.payload("UserPromptSubmit")) is None
    s.grow_to(2500)
    assert run_hook(stop, s.env, s.state) is None  # armed, silently
    reminder = s.run(s.payload("UserPromptSubmit"))
    assert reminder is not None and "substantial work" in reminder
    assert run_hook(stop, s.env, s.state) is None
    assert s.run(s.payload("UserPromptSubmit")) is None


def test_stop_while_continuing_arms_nothing(env, tmp_path):
    s = Session(env, tmp_path)
    s.grow_to(3000)
    assert run_hook(s.payload("Stop", stop_hook_active=True), s.env, s.state) is None
    assert s.run(s.payload("UserPromptSubmit")) is None


def test_reminder_names_the_mcp_tool_when_installed(tmp_path):
    env = make_env(tmp_path / "mcp", {**CONFIG, "mcpInstalled": True})
    s = Session(env, tmp_path)
    s.run(s.payload("PostToolUseFailure", tool_input={"command": "docker up"}, error="no such"))
    s.run(s.bash("docker compose up"))
    reminder = s.run(s.bash("ls"))
    assert reminder is not None and "`record` tool" in reminder


def test_subagent_gets_hints_its_parent_already_had(env, tmp_path):
    """A sub-agent's context is empty: the parent's hint reaches it once more, then not again."""
    s = Session(env, tmp_path)
    assert "HINT-LS" in (s.run(s.bash("ls a")) or "")
    assert s.run(s.bash("ls b")) is None
    sub = {"agent_id": "agent-7", "agent_type": "general-purpose"}
    assert "HINT-LS" in (s.run(s.bash("ls c", **sub)) or "")
    assert s.run(s.bash("ls d", **sub)) is None
    assert s.run(s.bash("ls e")) is None  # the parent's record is untouched
