"""The real Qwen Code, our hooks written by ``lessons install qwen``, a fake model server.

Each test adds lessons with ``lessons add``, registers the hooks in the scratch
``~/.qwen/settings.json`` with ``lessons install qwen``, runs ``qwen -p … --yolo`` once against
:class:`FakeChatCompletions` (Qwen Code speaks OpenAI Chat Completions, pointed at 127.0.0.1 by
``OPENAI_BASE_URL``), and checks what reached the model and what ran.

Offline, nothing else is needed: telemetry and usage statistics are switched off, and
``QWEN_DISABLE_AUTO_TITLE`` spares the run a title request (docs/agents/qwen.md).
"""

from __future__ import annotations

import json
import subprocess
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
from fake_openai_chat import RETRY_NOTE, FakeChatCompletions

pytestmark = pytest.mark.e2e

HINT, GUARD, NUDGE, PROTOCOL = delivery_lessons(
    hint="HINT-MARKER-7141",
    guard="GUARD-MARKER-7252",
    nudge="NUDGE-MARKER-7363",
    protocol="PROTOCOL-MARKER-7474",
)


def qwen_env(scratch: Scratch, server: FakeChatCompletions) -> dict[str, str]:
    """The scratch environment, offline, with the fake server as the OpenAI endpoint."""
    return scratch.env(
        {
            "OPENAI_BASE_URL": server.base_url + "/v1",
            "OPENAI_API_KEY": "sk-fake",
            "OPENAI_MODEL": "fake-model",
            "QWEN_TELEMETRY_ENABLED": "false",
            "QWEN_USAGE_STATISTICS_ENABLED": "false",
            "QWEN_DISABLE_AUTO_TITLE": "1",
            "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
        }
    )


def qwen(
    scratch: Scratch, server: FakeChatCompletions, prompt: str
) -> subprocess.CompletedProcess[str]:
    argv = [str(agent_binary("qwen")), "-p", prompt, "--yolo", "--auth-type", "openai"]
    proc = run_agent(argv, scratch, qwen_env(scratch, server), timeout=180)
    server.dump(scratch.root / "requests.jsonl")
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    return proc


def run_qwen(
    scratch: Scratch, server: FakeChatCompletions, prompt: str, *, install: bool = True
) -> subprocess.CompletedProcess[str]:
    """Install our hooks with the real CLI (unless told not to), then one ``qwen -p``."""
    if install:
        run_lessons(scratch, "install", "qwen")
        assert (scratch.home / ".qwen" / "settings.json").is_file()
    return qwen(scratch, server, prompt)


def shell(command: str) -> tuple[str, dict[str, Any]]:
    return "run_shell_command", {"command": command}


def test_hint_arrives_with_the_tool_result(scratch):
    """The hint is appended to the call's result (PostToolUse), the model's next read."""
    marker = write_marker_test(scratch.project)
    add_lessons(scratch, HINT)
    with FakeChatCompletions(*shell("python -m pytest -q tests/")) as server:
        run_qwen(scratch, server, "run the tests")
    results = FakeChatCompletions.contents(server.turns()[-1], "tool")
    assert "HINT-MARKER-7141" in results[-1]
    assert "passed" in results[-1]  # the command's own output is still there, first
    assert marker.exists()
    events = [(e.get("hook_event"), e.get("injected")) for e in hook_log(scratch)]
    assert any(name == "PostToolUse" and injected for name, injected in events), events


def test_guard_blocks_the_command(scratch):
    """A guard denies at PreToolUse: the model reads the lesson, nothing is deleted."""
    (scratch.project / "data").mkdir()
    (scratch.project / "data" / "keep.txt").write_text("fixtures")
    add_lessons(scratch, GUARD)
    with FakeChatCompletions(*shell("rm -rf data")) as server:
        run_qwen(scratch, server, "clean up the data directory")
    results = FakeChatCompletions.contents(server.turns()[-1], "tool")
    assert "GUARD-MARKER-7252" in results[-1]
    assert (scratch.project / "data" / "keep.txt").exists()


def test_nudge_blocks_once_and_the_retry_runs(scratch):
    """A nudge denies the first matching call only; the same call again goes through."""
    marker = write_marker_test(scratch.project)
    add_lessons(scratch, NUDGE)
    call = shell("python -m pytest -q tests/")
    with FakeChatCompletions(*call, retry_marker=RETRY_NOTE) as server:
        run_qwen(scratch, server, "run the tests")
    results = FakeChatCompletions.contents(server.turns()[-1], "tool")
    assert len(results) == 2
    assert "NUDGE-MARKER-7363" in results[0] and RETRY_NOTE in results[0]
    assert "NUDGE-MARKER-7363" not in results[1]
    assert marker.exists()


def test_protocol_reaches_the_model_from_the_first_request(scratch):
    """The session block (SessionStart context) is in every request of the session."""
    add_lessons(scratch, PROTOCOL)
    with FakeChatCompletions(*shell("echo hello")) as server:
        run_qwen(scratch, server, "say hello")
    turns = server.turns()
    assert len(turns) >= 2
    for body in turns:
        sent = json.dumps(body["messages"])
        assert "PROTOCOL-MARKER-7474" in sent
        assert "#lesson" in sent and "#/lesson" in sent


def test_failure_recalls_a_lesson_with_the_failed_result(scratch):
    """A command that exits non-zero fires PostToolUseFailure: a lesson whose error line the
    output carries is recalled from the store and appended to the failed result."""
    recalled = {
        "summary": "The fixtures are generated by make",
        "mistake": "RECALL-MARKER-7585: reading fixtures.txt before make had written it",
        "remediation": "Run make first; it writes fixtures.txt.",
        "errorLines": ["cat: fixtures.txt: No such file or directory"],
        "type": "hint",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": ["^never-matches-this\\b"]},
    }
    add_lessons(scratch, recalled)
    with FakeChatCompletions(*shell("cat fixtures.txt")) as server:
        run_qwen(scratch, server, "show the fixtures")
    results = FakeChatCompletions.contents(server.turns()[-1], "tool")
    assert "No such file or directory" in results[-1]
    assert "The fixtures are generated by make" in results[-1]
    events = [e.get("event") for e in hook_log(scratch)]
    assert "post_failure" in events
    assert {"pre_tool", "session_start", "prompt", "stop"} <= set(events)
    assert {e.get("agent") for e in hook_log(scratch)} == {"qwen"}


def test_lesson_block_in_a_session_is_captured_by_scan(scratch):
    """A #lesson block the model wrote is read from Qwen's chat file by ``lessons scan``."""
    block = (
        "Fixed it.\n\n#lesson\ntool: Bash\ntrigger: \\bnpm\\s+run\\s+lint\\b\n"
        "mistake: npm run lint in this repo fixes nothing, it only reports (QWEN-SCAN-7696)\n"
        "fix: run npm run lint -- --fix to apply the fixes\n#/lesson"
    )
    with FakeChatCompletions(*shell("echo linted"), final=block) as server:
        run_qwen(scratch, server, "lint the project", install=False)
    chats = sorted((scratch.home / ".qwen" / "projects").glob("*/chats/*.jsonl"))
    assert len(chats) == 1
    assert "QWEN-SCAN-7696" in chats[0].read_text()
    found = run_lessons(scratch, "scan", "--json", "--agent", "qwen")
    items = [json.loads(line) for line in found.stdout.splitlines() if line.strip()]
    captured = [i for i in items if "QWEN-SCAN-7696" in i.get("mistake", "")]
    assert len(captured) == 1, found.stdout
    assert captured[0]["agent"] == "qwen" and captured[0]["tier"] == 1
    assert captured[0]["evidence"][0]["file"].endswith(chats[0].name)
    again = run_lessons(scratch, "scan", "--json", "--agent", "qwen")
    assert "QWEN-SCAN-7696" not in again.stdout  # read once


def test_uninstall_restores_the_settings_and_stops_the_deliveries(scratch):
    """After ``lessons uninstall qwen`` the settings file is as it was and the same run carries
    no lesson at all."""
    add_lessons(scratch, PROTOCOL, GUARD)
    (scratch.project / "data").mkdir()
    settings = scratch.home / ".qwen" / "settings.json"
    settings.parent.mkdir()
    before = b'{\n  "general": {"vimMode": false}\n}\n'
    settings.write_bytes(before)
    run_lessons(scratch, "install", "qwen")
    assert b"lessons_qwen" in settings.read_bytes() or b"lessons-qwen" in settings.read_bytes()
    run_lessons(scratch, "uninstall", "qwen")
    assert settings.read_bytes() == before
    with FakeChatCompletions(*shell("rm -rf data")) as server:
        qwen(scratch, server, "go")
    sent = json.dumps([r.body for r in server.requests])
    assert "PROTOCOL-MARKER-7474" not in sent and "GUARD-MARKER-7252" not in sent
    assert not (scratch.project / "data").exists()
    assert hook_log(scratch) == []
