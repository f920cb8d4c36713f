"""The real Gemini CLI, our hooks installed by ``lessons install gemini``, a fake model server.

Each test writes the scratch ``~/.gemini/settings.json`` a user would have (API-key auth, no
telemetry), adds lessons with ``lessons add``, merges our hooks into that file with
``lessons install gemini``, runs ``gemini -p`` once against :class:`FakeGemini`, and checks what
reached the model and what ran. Gemini needs no trust step for user-level hooks;
``GEMINI_CLI_TRUST_WORKSPACE`` only stops the folder-trust prompt for the scratch project.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from agent_harness import (
    Scratch,
    add_lessons,
    agent_binary,
    delivery_lessons,
    hook_log,
    run_agent,
    run_lessons,
    write_marker_test,
)
from fake_gemini import BLOCKED, FakeGemini

pytestmark = pytest.mark.e2e

MODEL = "gemini-2.5-pro"

HINT, GUARD, NUDGE, PROTOCOL = delivery_lessons(
    hint="HINT-MARKER-4417",
    guard="GUARD-MARKER-3302",
    nudge="NUDGE-MARKER-8821",
    protocol="PROTOCOL-MARKER-1290",
)
USER_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
}


def gemini_env(scratch: Scratch, server: FakeGemini) -> dict[str, str]:
    """The scratch environment with Gemini talking to ``server`` and the project trusted."""
    return scratch.env(
        {
            "GEMINI_API_KEY": "fake-gemini-key",
            "GOOGLE_GEMINI_BASE_URL": server.base_url,
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
        }
    )


def run_gemini(
    scratch: Scratch, server: FakeGemini, prompt: str
) -> subprocess.CompletedProcess[str]:
    """Install our hooks with the real CLI into the user's settings, then one ``gemini -p`` turn."""
    gemini = agent_binary("gemini")
    settings = scratch.home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps(USER_SETTINGS, indent=2))
    run_lessons(scratch, "install", "gemini")
    merged = json.loads(settings.read_text())
    assert {k: merged[k] for k in USER_SETTINGS} == USER_SETTINGS
    env = gemini_env(scratch, server)
    proc = run_agent(
        [
            str(gemini),
            "-p",
            prompt,
            "-m",
            MODEL,
            "--output-format",
            "stream-json",
            "--approval-mode",
            "yolo",
        ],
        scratch,
        env,
    )
    server.dump(scratch.root / "requests.jsonl")
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    return proc


def shell(command: str) -> tuple[str, dict[str, Any]]:
    return "run_shell_command", {"command": command, "description": "run it"}


def test_hint_arrives_with_the_tool_result(scratch):
    """BeforeTool stays silent; AfterTool appends the hint to the same call's result."""
    marker = write_marker_test(scratch.project)
    add_lessons(scratch, HINT)
    with FakeGemini(*shell("pytest -q tests/")) as server:
        run_gemini(scratch, server, "run the tests")
    responses = FakeGemini.responses(server.turns()[-1])
    assert "HINT-MARKER-4417" in json.dumps(responses[0])
    assert "hook_context" in json.dumps(responses[0])
    assert marker.exists()


def test_guard_blocks_the_command(scratch):
    """A guard denies the call at BeforeTool: the model reads the lesson, nothing is deleted."""
    (scratch.project / "data").mkdir()
    (scratch.project / "data" / "keep.txt").write_text("fixtures")
    add_lessons(scratch, GUARD)
    with FakeGemini(*shell("rm -rf data")) as server:
        run_gemini(scratch, server, "clean up the data directory")
    error = FakeGemini.responses(server.turns()[-1])[0].get("error", "")
    assert BLOCKED in error and "GUARD-MARKER-3302" in error
    assert (scratch.project / "data" / "keep.txt").exists()


def test_nudge_blocks_once_and_the_retry_runs(scratch):
    """A nudge denies the first matching call only; the same call again goes through."""
    marker = write_marker_test(scratch.project)
    add_lessons(scratch, NUDGE)
    with FakeGemini(*shell("pytest -q tests/"), retry_blocked=True) as server:
        run_gemini(scratch, server, "run the tests")
    responses = FakeGemini.responses(server.turns()[-1])
    assert len(responses) == 2
    assert BLOCKED in responses[0].get("error", "") and "NUDGE-MARKER-8821" in responses[0]["error"]
    assert "error" not in responses[1]
    assert marker.exists()


def test_protocol_is_in_the_first_request(scratch):
    """SessionStart's context is part of the first request's user content."""
    add_lessons(scratch, PROTOCOL)
    with FakeGemini(*shell("echo hello")) as server:
        run_gemini(scratch, server, "say hello")
    first = server.turns()[0]["contents"][0]
    assert "PROTOCOL-MARKER-1290" in FakeGemini.texts(first)


def test_failed_command_is_reported_as_a_failure_event(scratch):
    """AfterTool with Exit Code: N in llmContent is normalised to post_failure."""
    add_lessons(scratch, HINT)
    with FakeGemini(*shell("sh -c 'echo broken >&2; exit 3'")) as server:
        run_gemini(scratch, server, "run the broken script")
    events = [entry.get("event") for entry in hook_log(scratch)]
    assert "post_failure" in events
    assert {"pre_tool", "session_start", "prompt"} <= set(events)


def test_extension_route_from_the_repository(scratch):
    """integrations/gemini/lessons linked as an extension gives the same hooks."""
    extension = Path(__file__).resolve().parents[2] / "integrations" / "gemini" / "lessons"
    add_lessons(scratch, PROTOCOL, GUARD)
    gemini = agent_binary("gemini")
    settings = scratch.home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps(USER_SETTINGS))
    with FakeGemini(*shell("rm -rf data")) as server:
        env = gemini_env(scratch, server)
        for args in (
            ["extensions", "link", str(extension), "--consent"],
            ["-p", "go", "-m", MODEL, "--output-format", "stream-json", "--approval-mode", "yolo"],
        ):
            proc = run_agent([str(gemini), *args], scratch, env)
            assert proc.returncode == 0, proc.stderr[-2000:]
    turns = server.turns()
    assert "PROTOCOL-MARKER-1290" in FakeGemini.texts(turns[0]["contents"][0])
    error = FakeGemini.responses(turns[-1])[0].get("error", "")
    assert BLOCKED in error and "GUARD-MARKER-3302" in error
