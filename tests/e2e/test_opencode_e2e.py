"""The real OpenCode, our plugin written by ``lessons install opencode``, a fake model server.

Each test writes the scratch ``~/.config/opencode/opencode.json`` a user of a self-hosted,
OpenAI-compatible model would have (a custom provider on 127.0.0.1, no sharing, no
auto-update), adds lessons with ``lessons add``, writes our plugin with
``lessons install opencode``, runs ``opencode run`` once against :class:`FakeChatCompletions`,
and checks what reached the model and what ran.

Offline, two things need settling first (docs/agents/opencode.md has the details):
``OPENCODE_DISABLE_MODELS_FETCH`` keeps OpenCode from fetching the models.dev catalogue, and
the configuration folder gets a ``package.json``/lock naming ``@opencode-ai/plugin``: OpenCode
otherwise installs that package from npm into the folder before loading any plugin, and waits
for it.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from contextlib import closing
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
    hint="HINT-MARKER-6141",
    guard="GUARD-MARKER-6252",
    nudge="NUDGE-MARKER-6363",
    protocol="PROTOCOL-MARKER-6474",
)
MODEL = "fake/fake-model"


def user_config(server: FakeChatCompletions) -> dict[str, Any]:
    return {
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": False,
        "share": "disabled",
        "model": MODEL,
        "small_model": MODEL,
        "provider": {
            "fake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Fake",
                "options": {"baseURL": server.base_url + "/v1", "apiKey": "sk-fake"},
                "models": {"fake-model": {"name": "Fake model", "tool_call": True}},
            }
        },
        "permission": {"bash": "allow", "edit": "allow"},
    }


def prepare_config(scratch: Scratch, server: FakeChatCompletions) -> None:
    """The user's OpenCode configuration, with its plugin dependency already in place."""
    config = scratch.home / ".config" / "opencode"
    (config / "node_modules").mkdir(parents=True, exist_ok=True)
    (config / "opencode.json").write_text(json.dumps(user_config(server), indent=2))
    deps = {"@opencode-ai/plugin": opencode_version()}
    (config / "package.json").write_text(json.dumps({"dependencies": deps}))
    lock = {"lockfileVersion": 3, "packages": {"": {"dependencies": deps}}}
    (config / "package-lock.json").write_text(json.dumps(lock))


def opencode_version() -> str:
    proc = subprocess.run(
        [str(agent_binary("opencode")), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return proc.stdout.strip()


def opencode_env(scratch: Scratch) -> dict[str, str]:
    """The scratch environment, offline; ``PWD`` too, which OpenCode takes as its directory."""
    return scratch.env(
        {
            "PWD": str(scratch.project),
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        }
    )


def run_opencode(
    scratch: Scratch, server: FakeChatCompletions, prompt: str, *, install: bool = True
) -> subprocess.CompletedProcess[str]:
    """Write the config, install our plugin with the real CLI, then one ``opencode run``."""
    opencode = agent_binary("opencode")
    prepare_config(scratch, server)
    if install:
        run_lessons(scratch, "install", "opencode")
        plugin = scratch.home / ".config" / "opencode" / "plugin" / "lessons.js"
        assert plugin.is_file()
    proc = run_agent(
        [str(opencode), "run", "--format", "json", "-m", MODEL, prompt],
        scratch,
        opencode_env(scratch),
        timeout=180,
    )
    server.dump(scratch.root / "requests.jsonl")
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    return proc


def bash(command: str) -> tuple[str, dict[str, Any]]:
    return "bash", {"command": command, "description": "run it"}


def test_hint_arrives_with_the_tool_result(scratch):
    """The hint found before the call is appended to that call's result, the model's next read."""
    marker = write_marker_test(scratch.project)
    add_lessons(scratch, HINT)
    with FakeChatCompletions(*bash("pytest -q tests/")) as server:
        run_opencode(scratch, server, "run the tests")
    results = FakeChatCompletions.contents(server.turns()[-1], "tool")
    assert "HINT-MARKER-6141" in results[-1]
    assert "passed" in results[-1]  # the command's own output is still there, first
    assert marker.exists()


def test_guard_blocks_the_command(scratch):
    """A guard throws in tool.execute.before: the model reads the lesson, nothing is deleted."""
    (scratch.project / "data").mkdir()
    (scratch.project / "data" / "keep.txt").write_text("fixtures")
    add_lessons(scratch, GUARD)
    with FakeChatCompletions(*bash("rm -rf data")) as server:
        run_opencode(scratch, server, "clean up the data directory")
    results = FakeChatCompletions.contents(server.turns()[-1], "tool")
    assert "GUARD-MARKER-6252" in results[-1]
    assert (scratch.project / "data" / "keep.txt").exists()


def test_nudge_blocks_once_and_the_retry_runs(scratch):
    """A nudge denies the first matching call only; the same call again goes through."""
    marker = write_marker_test(scratch.project)
    add_lessons(scratch, NUDGE)
    with FakeChatCompletions(*bash("pytest -q tests/"), retry_marker=RETRY_NOTE) as server:
        run_opencode(scratch, server, "run the tests")
    results = FakeChatCompletions.contents(server.turns()[-1], "tool")
    assert len(results) == 2
    assert "NUDGE-MARKER-6363" in results[0] and RETRY_NOTE in results[0]
    assert "NUDGE-MARKER-6363" not in results[1]
    assert marker.exists()


def test_protocol_is_in_the_system_prompt_of_every_request(scratch):
    """The session block joins the system prompt from the first request on."""
    add_lessons(scratch, PROTOCOL)
    with FakeChatCompletions(*bash("echo hello")) as server:
        run_opencode(scratch, server, "say hello")
    turns = server.turns()
    assert len(turns) >= 2
    for body in turns:
        system = "\n".join(FakeChatCompletions.contents(body, "system"))
        assert "PROTOCOL-MARKER-6474" in system
        assert "#lesson" in system and "#/lesson" in system


def test_failed_command_is_a_failure_event(scratch):
    """A shell command that exits non-zero reaches the hook as a failure (for recall)."""
    add_lessons(scratch, HINT)
    with FakeChatCompletions(*bash("sh -c 'echo broken >&2; exit 3'")) as server:
        run_opencode(scratch, server, "run the broken script")
    events = [entry.get("event") for entry in hook_log(scratch)]
    assert "post_failure" in events
    assert {"pre_tool", "session_start", "prompt"} <= set(events)
    assert {entry.get("agent") for entry in hook_log(scratch)} == {"opencode"}


def test_lesson_block_in_a_session_is_captured_by_scan(scratch):
    """A #lesson block the model wrote is read from OpenCode's database by ``lessons scan``."""
    block = (
        "Fixed it.\n\n#lesson\ntool: Bash\ntrigger: \\bnpm\\s+run\\s+lint\\b\n"
        "mistake: npm run lint in this repo fixes nothing, it only reports (OPENCODE-SCAN-7585)\n"
        "fix: run npm run lint -- --fix to apply the fixes\n#/lesson"
    )
    with FakeChatCompletions(*bash("echo linted"), final=block) as server:
        run_opencode(scratch, server, "lint the project", install=False)
    database = scratch.home / ".local" / "share" / "opencode" / "opencode.db"
    assert database.is_file()
    with closing(sqlite3.connect(database)) as db, db:
        texts = [row[0] for row in db.execute("SELECT data FROM part")]
    assert any("OPENCODE-SCAN-7585" in text for text in texts)
    found = run_lessons(scratch, "scan", "--json", "--agent", "opencode")
    items = [json.loads(line) for line in found.stdout.splitlines() if line.strip()]
    captured = [i for i in items if "OPENCODE-SCAN-7585" in i.get("mistake", "")]
    assert len(captured) == 1, found.stdout
    assert captured[0]["agent"] == "opencode" and captured[0]["tier"] == 1
    again = run_lessons(scratch, "scan", "--json", "--agent", "opencode")
    assert "OPENCODE-SCAN-7585" not in again.stdout  # read once


def test_uninstall_removes_the_plugin_and_its_deliveries(scratch):
    """After ``lessons uninstall opencode`` the same run carries no lesson at all."""
    add_lessons(scratch, PROTOCOL, GUARD)
    (scratch.project / "data").mkdir()
    with FakeChatCompletions(*bash("rm -rf data")) as server:
        prepare_config(scratch, server)
        run_lessons(scratch, "install", "opencode")
        run_lessons(scratch, "uninstall", "opencode")
        assert not (scratch.home / ".config" / "opencode" / "plugin").exists()
        proc = run_agent(
            [str(agent_binary("opencode")), "run", "--format", "json", "-m", MODEL, "go"],
            scratch,
            opencode_env(scratch),
            timeout=180,
        )
    assert proc.returncode == 0, proc.stderr[-2000:]
    sent = json.dumps([r.body for r in server.requests])
    assert "PROTOCOL-MARKER-6474" not in sent and "GUARD-MARKER-6252" not in sent
    assert not (scratch.project / "data").exists()
    assert hook_log(scratch) == []
