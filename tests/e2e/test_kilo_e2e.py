"""The real Kilo CLI, our plugin written by ``lessons install kilo``, a fake model server.

Each test writes the scratch ``~/.config/kilo/kilo.json`` a user of a self-hosted,
OpenAI-compatible model would have (a custom provider on 127.0.0.1, no sharing, no
auto-update), adds lessons with ``lessons add``, writes our plugin with ``lessons install kilo``,
runs ``kilo run`` once against :class:`FakeChatCompletions`, and checks what reached the model
and what ran.

Offline, as for OpenCode (docs/agents/kilo.md has the details): ``KILO_DISABLE_MODELS_FETCH``
keeps Kilo from fetching the models catalogue, telemetry is off, and the configuration folder
gets a ``package.json``/lock naming ``@kilocode/plugin``: Kilo otherwise installs that package
from npm into the folder before loading any plugin.
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
    hint="HINT-MARKER-7141",
    guard="GUARD-MARKER-7252",
    nudge="NUDGE-MARKER-7363",
    protocol="PROTOCOL-MARKER-7474",
)
MODEL = "fake/fake-model"
#: What the failed command prints, and a lesson whose error line it matches (for recall).
BROKEN = "python3 -c 'import kiloseed7696'"
RECALL = {
    "summary": "RECALL-MARKER-7696: the seed module is made by the build",
    "mistake": "kiloseed7696 exists only after make seed",
    "remediation": "Run make seed first.",
    "errorLines": ["ModuleNotFoundError: No module named 'kiloseed7696'"],
    "type": "hint",
    "triggers": {"toolNames": ["Bash"], "commandPatterns": ["^never-matches-this\\b"]},
}


def user_config(server: FakeChatCompletions) -> dict[str, Any]:
    return {
        "$schema": "https://app.kilo.ai/config.json",
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
    """The user's Kilo CLI configuration, with its plugin dependency already in place."""
    config = scratch.home / ".config" / "kilo"
    (config / "node_modules").mkdir(parents=True, exist_ok=True)
    (config / "kilo.json").write_text(json.dumps(user_config(server), indent=2))
    deps = {"@kilocode/plugin": kilo_version()}
    (config / "package.json").write_text(json.dumps({"dependencies": deps}))
    lock = {"lockfileVersion": 3, "packages": {"": {"dependencies": deps}}}
    (config / "package-lock.json").write_text(json.dumps(lock))


def kilo_version() -> str:
    proc = subprocess.run(
        [str(agent_binary("kilo")), "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return proc.stdout.strip()


def kilo_env(scratch: Scratch) -> dict[str, str]:
    """The scratch environment, offline; ``PWD`` too, which Kilo takes as its directory."""
    return scratch.env(
        {
            "PWD": str(scratch.project),
            "KILO_DISABLE_MODELS_FETCH": "1",
            "KILO_DISABLE_AUTOUPDATE": "1",
            "KILO_DISABLE_LSP_DOWNLOAD": "1",
            "KILO_TELEMETRY_LEVEL": "off",
        }
    )


def run_kilo(
    scratch: Scratch, server: FakeChatCompletions, prompt: str, *, install: bool = True
) -> subprocess.CompletedProcess[str]:
    """Write the config, install our plugin with the real CLI, then one ``kilo run``."""
    prepare_config(scratch, server)
    if install:
        run_lessons(scratch, "install", "kilo")
        assert (scratch.home / ".config" / "kilo" / "plugin" / "lessons.js").is_file()
    proc = run_agent(
        [str(agent_binary("kilo")), "run", "--format", "json", "-m", MODEL, prompt],
        scratch,
        kilo_env(scratch),
        timeout=240,
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
        run_kilo(scratch, server, "run the tests")
    results = FakeChatCompletions.contents(server.turns()[-1], "tool")
    assert "HINT-MARKER-7141" in results[-1]
    assert "passed" in results[-1]  # the command's own output is still there, first
    assert marker.exists()


def test_guard_blocks_the_command(scratch):
    """A guard throws in tool.execute.before: the model reads the lesson, nothing is deleted."""
    (scratch.project / "data").mkdir()
    (scratch.project / "data" / "keep.txt").write_text("fixtures")
    add_lessons(scratch, GUARD)
    with FakeChatCompletions(*bash("rm -rf data")) as server:
        run_kilo(scratch, server, "clean up the data directory")
    results = FakeChatCompletions.contents(server.turns()[-1], "tool")
    assert "GUARD-MARKER-7252" in results[-1]
    assert (scratch.project / "data" / "keep.txt").exists()


def test_nudge_blocks_once_and_the_retry_runs(scratch):
    """A nudge denies the first matching call only; the same call again goes through."""
    marker = write_marker_test(scratch.project)
    add_lessons(scratch, NUDGE)
    with FakeChatCompletions(*bash("pytest -q tests/"), retry_marker=RETRY_NOTE) as server:
        run_kilo(scratch, server, "run the tests")
    results = FakeChatCompletions.contents(server.turns()[-1], "tool")
    assert len(results) == 2
    assert "NUDGE-MARKER-7363" in results[0] and RETRY_NOTE in results[0]
    assert "NUDGE-MARKER-7363" not in results[1]
    assert marker.exists()


def test_protocol_is_in_the_system_prompt_of_every_request(scratch):
    """The session block joins the system prompt from the first request on."""
    add_lessons(scratch, PROTOCOL)
    with FakeChatCompletions(*bash("echo hello")) as server:
        run_kilo(scratch, server, "say hello")
    turns = server.turns()
    assert len(turns) >= 2
    for body in turns:
        system = "\n".join(FakeChatCompletions.contents(body, "system"))
        assert "PROTOCOL-MARKER-7474" in system
        assert "#lesson" in system and "#/lesson" in system


def test_a_failed_command_recalls_the_lesson_about_its_error(scratch):
    """A shell command that exits non-zero is a failure: the lesson whose error line it printed
    is added to its result, which the model reads next."""
    add_lessons(scratch, RECALL)
    with FakeChatCompletions(*bash(BROKEN)) as server:
        run_kilo(scratch, server, "load the seed data")
    results = FakeChatCompletions.contents(server.turns()[-1], "tool")
    assert "No module named 'kiloseed7696'" in results[-1]
    assert "RECALL-MARKER-7696" in results[-1]
    events = [entry.get("event") for entry in hook_log(scratch)]
    assert {"pre_tool", "post_failure", "session_start", "prompt"} <= set(events)
    assert {entry.get("agent") for entry in hook_log(scratch)} == {"kilo"}


def test_lesson_block_in_a_session_is_captured_by_scan(scratch):
    """A #lesson block the model wrote is read from Kilo's database by ``lessons scan``."""
    block = (
        "Fixed it.\n\n#lesson\ntool: Bash\ntrigger: \\bnpm\\s+run\\s+lint\\b\n"
        "mistake: npm run lint in this repo fixes nothing, it only reports (KILO-SCAN-7585)\n"
        "fix: run npm run lint -- --fix to apply the fixes\n#/lesson"
    )
    with FakeChatCompletions(*bash("echo linted"), final=block) as server:
        run_kilo(scratch, server, "lint the project", install=False)
    database = scratch.home / ".local" / "share" / "kilo" / "kilo.db"
    assert database.is_file()
    with closing(sqlite3.connect(database)) as db, db:
        texts = [row[0] for row in db.execute("SELECT data FROM part")]
    assert any("KILO-SCAN-7585" in text for text in texts)
    found = run_lessons(scratch, "scan", "--json", "--agent", "kilo")
    items = [json.loads(line) for line in found.stdout.splitlines() if line.strip()]
    captured = [i for i in items if "KILO-SCAN-7585" in i.get("mistake", "")]
    assert len(captured) == 1, found.stdout
    assert captured[0]["agent"] == "kilo" and captured[0]["tier"] == 1
    again = run_lessons(scratch, "scan", "--json", "--agent", "kilo")
    assert "KILO-SCAN-7585" not in again.stdout  # read once


def test_uninstall_removes_the_plugin_and_its_deliveries(scratch):
    """After ``lessons uninstall kilo`` the folder is as it was and the run carries no lesson."""
    add_lessons(scratch, PROTOCOL, GUARD)
    (scratch.project / "data").mkdir()
    with FakeChatCompletions(*bash("rm -rf data")) as server:
        prepare_config(scratch, server)
        config = scratch.home / ".config" / "kilo"
        before = {p: p.read_bytes() for p in config.rglob("*") if p.is_file()}
        run_lessons(scratch, "install", "kilo")
        run_lessons(scratch, "uninstall", "kilo")
        assert {p: p.read_bytes() for p in config.rglob("*") if p.is_file()} == before
        assert not (config / "plugin").exists()
        proc = run_agent(
            [str(agent_binary("kilo")), "run", "--format", "json", "-m", MODEL, "go"],
            scratch,
            kilo_env(scratch),
            timeout=240,
        )
    assert proc.returncode == 0, proc.stderr[-2000:]
    sent = json.dumps([r.body for r in server.requests])
    assert "PROTOCOL-MARKER-7474" not in sent and "GUARD-MARKER-7252" not in sent
    assert not (scratch.project / "data").exists()
    assert hook_log(scratch) == []
