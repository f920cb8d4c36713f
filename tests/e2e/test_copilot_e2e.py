"""The real GitHub Copilot CLI, our hooks written by ``lessons install copilot``, a fake model.

Each test adds lessons with ``lessons add``, writes our hooks file into the scratch
``~/.copilot/hooks/`` with ``lessons install copilot``, runs ``copilot -p … --allow-all`` once
against :class:`FakeCopilotModel` (Copilot's bring-your-own-model mode on the Anthropic
Messages wire, pointed at 127.0.0.1 by ``COPILOT_PROVIDER_BASE_URL``), and checks what reached
the model and what ran.

Offline, nothing else is needed: ``COPILOT_OFFLINE=true`` keeps it from GitHub's servers, no
GitHub token is passed, and ``--no-auto-update`` skips the update check (docs/agents/copilot.md).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from typing import Any

import pytest
from agent_harness import (
    Recorded,
    Reply,
    Scratch,
    add_lessons,
    agent_binary,
    delivery_lessons,
    hook_log,
    run_agent,
    run_lessons,
    write_marker_test,
)
from fake_anthropic import FakeAnthropic, result_text

pytestmark = pytest.mark.e2e

RETRY_NOTE = "run the same call again"

HINT, GUARD, NUDGE, PROTOCOL = delivery_lessons(
    hint="HINT-MARKER-8141",
    guard="GUARD-MARKER-8252",
    nudge="NUDGE-MARKER-8363",
    protocol="PROTOCOL-MARKER-8474",
)


class FakeCopilotModel(FakeAnthropic):
    """:class:`FakeAnthropic` for Copilot: its shell tool is ``bash``, a denied call comes back
    as a plain result ("Denied by preToolUse hook: …"), and the last answer may be any text.

    By content, never by count: a request that offers no ``bash`` tool gets "ok"; one with no
    tool result yet gets the call; after a result that asks for a retry (a nudge's deny) and
    while ``retries`` last, the same call again; after the n-th result, the n-th call of
    ``then`` while there are any; otherwise ``final``.
    """

    def __init__(
        self,
        tool: str,
        tool_input: dict[str, Any],
        *,
        final: str = "done",
        retries: int = 0,
        then: Sequence[tuple[str, dict[str, Any]]] = (),
    ) -> None:
        super().__init__(str(tool_input.get("command", "")))
        self.tool = tool
        self.tool_input = tool_input
        self.final = final
        self.retries = retries
        self.then = list(then)

    @staticmethod
    def _is_main(body: Any) -> bool:
        if not isinstance(body, dict):
            return False
        return any(t.get("name") == "bash" for t in body.get("tools") or [] if isinstance(t, dict))

    def answer(self, request: Recorded) -> Reply:
        if request.method != "POST" or not request.path.startswith("/v1/messages"):
            return Reply.json({"type": "error", "error": {"type": "not_found_error"}}, 404)
        body = request.body if isinstance(request.body, dict) else {}
        model = str(body.get("model") or "claude-fake")
        if not self._is_main(body):
            return self._text(model, "ok")
        results = self.results(body)
        if not results:
            return self._tool(model, "toolu_fake_01", self.tool, self.tool_input)
        if RETRY_NOTE in results[-1] and len(results) <= self.retries:
            call_id = f"toolu_fake_{len(results) + 1:02d}"
            return self._tool(model, call_id, self.tool, self.tool_input)
        if len(results) <= len(self.then):
            call_id = f"toolu_fake_{len(results) + 1:02d}"
            return self._tool(model, call_id, *self.then[len(results) - 1])
        return self._text(model, self.final)

    @staticmethod
    def results(body: dict[str, Any]) -> list[str]:
        """The text of every tool result of a request, in order."""
        return [
            result_text(block)
            for message in body.get("messages", [])
            if message.get("role") == "user" and isinstance(message.get("content"), list)
            for block in message["content"]
            if isinstance(block, dict) and block.get("type") == "tool_result"
        ]

    def last(self) -> dict[str, Any]:
        return self.main_requests()[-1]


def copilot_env(scratch: Scratch, server: FakeCopilotModel) -> dict[str, str]:
    """The scratch environment, offline, with the fake server as the Anthropic endpoint."""
    env = scratch.env(
        {
            "COPILOT_HOME": str(scratch.home / ".copilot"),
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_TYPE": "anthropic",
            "COPILOT_PROVIDER_BASE_URL": server.base_url,
            "COPILOT_PROVIDER_API_KEY": "sk-fake",
            "COPILOT_MODEL": "claude-sonnet-4-5",
        }
    )
    for name in ("GH_TOKEN", "GITHUB_TOKEN", "COPILOT_GITHUB_TOKEN"):
        env.pop(name, None)
    return env


def copilot(
    scratch: Scratch, server: FakeCopilotModel, prompt: str
) -> subprocess.CompletedProcess[str]:
    argv = [
        str(agent_binary("copilot")),
        "-p",
        prompt,
        "--allow-all",
        "--no-auto-update",
        "--no-ask-user",
        "-s",
        "--stream",
        "off",
    ]
    proc = run_agent(argv, scratch, copilot_env(scratch, server), timeout=180)
    server.dump(scratch.root / "requests.jsonl")
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    return proc


def run_copilot(
    scratch: Scratch, server: FakeCopilotModel, prompt: str, *, install: bool = True
) -> subprocess.CompletedProcess[str]:
    """Install our hooks with the real CLI (unless told not to), then one ``copilot -p``."""
    if install:
        run_lessons(scratch, "install", "copilot")
        assert (scratch.home / ".copilot" / "hooks" / "lessons.json").is_file()
    return copilot(scratch, server, prompt)


def bash(command: str) -> tuple[str, dict[str, Any]]:
    return "bash", {"command": command, "description": "Run it"}


def test_hint_arrives_with_the_tool_result(scratch):
    """Copilot reads no context before a call: the hint is appended to the call's result
    (postToolUse), the model's next read."""
    marker = write_marker_test(scratch.project)
    add_lessons(scratch, HINT)
    with FakeCopilotModel(*bash("python -m pytest -q tests/")) as server:
        run_copilot(scratch, server, "run the tests")
    results = FakeCopilotModel.results(server.last())
    assert "HINT-MARKER-8141" in results[-1]
    assert "passed" in results[-1].split("HINT-MARKER-8141")[0]  # the output first
    assert marker.exists()
    events = [(e.get("event"), e.get("injected")) for e in hook_log(scratch)]
    assert any(name == "post_tool" and injected for name, injected in events), events
    assert not any(name == "pre_tool" and injected for name, injected in events), events


def test_guard_blocks_the_command(scratch):
    """A guard denies at preToolUse: the model reads the lesson, nothing is deleted."""
    (scratch.project / "data").mkdir()
    (scratch.project / "data" / "keep.txt").write_text("fixtures")
    add_lessons(scratch, GUARD)
    with FakeCopilotModel(*bash("rm -rf data")) as server:
        run_copilot(scratch, server, "clean up the data directory")
    results = FakeCopilotModel.results(server.last())
    assert results[-1].startswith("Denied by preToolUse hook")
    assert "GUARD-MARKER-8252" in results[-1]
    assert (scratch.project / "data" / "keep.txt").exists()


def test_nudge_blocks_once_and_the_retry_runs(scratch):
    """A nudge denies the first matching call only; the same call again goes through."""
    marker = write_marker_test(scratch.project)
    add_lessons(scratch, NUDGE)
    with FakeCopilotModel(*bash("python -m pytest -q tests/"), retries=1) as server:
        run_copilot(scratch, server, "run the tests")
    results = FakeCopilotModel.results(server.last())
    assert len(results) == 2
    assert "NUDGE-MARKER-8363" in results[0] and RETRY_NOTE in results[0]
    assert "NUDGE-MARKER-8363" not in results[1] and "passed" in results[1]
    assert marker.exists()


def test_protocol_reaches_the_model_from_the_first_request(scratch):
    """The session block (sessionStart context) is in every request of the session."""
    add_lessons(scratch, PROTOCOL)
    with FakeCopilotModel(*bash("echo hello")) as server:
        run_copilot(scratch, server, "say hello")
    turns = server.main_requests()
    assert len(turns) >= 2
    for body in turns:
        sent = json.dumps(body["messages"])
        assert "PROTOCOL-MARKER-8474" in sent
        assert "#lesson" in sent and "#/lesson" in sent


RECALLED = {
    "summary": "The fixtures are generated by make",
    "mistake": "RECALL-MARKER-8585: reading fixtures.txt before make had written it",
    "remediation": "Run make first; it writes fixtures.txt.",
    "errorLines": ["cat: fixtures.txt: No such file or directory"],
    "type": "hint",
    "triggers": {"toolNames": ["Bash"], "commandPatterns": ["^never-matches-this\\b"]},
}


def test_a_command_that_fails_recalls_a_lesson_with_its_result(scratch):
    """Copilot reports a command that exits non-zero as a success ending in "exit code 1":
    the hook reads it as a failure, and the lesson whose error line the output carries is
    recalled from the store and appended to the result."""
    add_lessons(scratch, RECALLED)
    with FakeCopilotModel(*bash("cat fixtures.txt")) as server:
        run_copilot(scratch, server, "show the fixtures")
    results = FakeCopilotModel.results(server.last())
    assert "No such file or directory" in results[-1]
    assert "The fixtures are generated by make" in results[-1]
    events = [e.get("event") for e in hook_log(scratch)]
    assert "post_failure" in events
    assert {"pre_tool", "session_start", "prompt", "stop"} <= set(events)
    assert {e.get("agent") for e in hook_log(scratch)} == {"copilot"}


def test_a_failed_tool_recalls_a_lesson_after_its_result(scratch):
    """A tool that fails (``view`` of a missing file) fires postToolUseFailure: the recalled
    lesson reaches the model in the message Copilot adds after the failed result."""
    lesson = {
        "summary": "The notes are written by the build",
        "mistake": "RECALL-MARKER-8686: read notes.txt before the build had written it",
        "remediation": "Run the build first; it writes notes.txt.",
        "errorLines": ["Path does not exist"],
        "type": "hint",
        "triggers": {"toolNames": ["Read"], "pathPatterns": ["**/never-this-file"]},
    }
    add_lessons(scratch, lesson)
    path = str(scratch.project / "notes.txt")
    with FakeCopilotModel("view", {"path": path}) as server:
        run_copilot(scratch, server, "read the notes")
    messages = server.last()["messages"]
    after = json.dumps(messages[-1])
    assert "postToolUseFailure" in after and "The notes are written by the build" in after


def test_lesson_block_in_a_session_is_captured_by_scan(scratch):
    """A #lesson block the model wrote is read from Copilot's session log by ``lessons scan``."""
    block = (
        "Fixed it.\n\n#lesson\ntool: Bash\ntrigger: \\bnpm\\s+run\\s+lint\\b\n"
        "mistake: npm run lint in this repo fixes nothing, it only reports (COPILOT-SCAN-8797)\n"
        "fix: run npm run lint -- --fix to apply the fixes\n#/lesson"
    )
    with FakeCopilotModel(*bash("echo linted"), final=block) as server:
        run_copilot(scratch, server, "lint the project", install=False)
    logs = sorted((scratch.home / ".copilot" / "session-state").glob("*/events.jsonl"))
    assert len(logs) == 1
    assert "COPILOT-SCAN-8797" in logs[0].read_text()
    found = run_lessons(scratch, "scan", "--json", "--agent", "copilot")
    items = [json.loads(line) for line in found.stdout.splitlines() if line.strip()]
    captured = [i for i in items if "COPILOT-SCAN-8797" in i.get("mistake", "")]
    assert len(captured) == 1, found.stdout
    assert captured[0]["agent"] == "copilot" and captured[0]["tier"] == 1
    assert captured[0]["evidence"][0]["file"].endswith("events.jsonl")
    assert captured[0]["evidence"][0]["session_id"] == logs[0].parent.name
    again = run_lessons(scratch, "scan", "--json", "--agent", "copilot")
    assert "COPILOT-SCAN-8797" not in again.stdout  # read once


def test_uninstall_restores_the_home_and_stops_the_deliveries(scratch):
    """After ``lessons uninstall copilot`` the hooks folder is as it was and the same run
    carries no lesson at all."""
    add_lessons(scratch, PROTOCOL, GUARD)
    (scratch.project / "data").mkdir()
    hooks = scratch.home / ".copilot" / "hooks"
    hooks.mkdir(parents=True)
    other = b'{"version": 1, "hooks": {}}\n'
    (hooks / "team.json").write_bytes(other)
    run_lessons(scratch, "install", "copilot")
    assert sorted(p.name for p in hooks.iterdir()) == ["lessons.json", "team.json"]
    run_lessons(scratch, "uninstall", "copilot")
    assert [p.name for p in hooks.iterdir()] == ["team.json"]
    assert (hooks / "team.json").read_bytes() == other
    with FakeCopilotModel(*bash("rm -rf data")) as server:
        copilot(scratch, server, "go")
    sent = json.dumps([r.body for r in server.requests])
    assert "PROTOCOL-MARKER-8474" not in sent and "GUARD-MARKER-8252" not in sent
    assert not (scratch.project / "data").exists()
    assert hook_log(scratch) == []


def test_a_projects_claude_code_hooks_leave_copilot_to_its_own(scratch):
    """Copilot also runs a trusted repository's ``.claude/settings.json`` hooks, with its
    Claude-style payload. With lessons installed for Claude Code in the project and for Copilot
    in the user's home, the Claude Code hook stays silent on Copilot's calls (an answer in
    Claude's shape would lose its context in Copilot, and claim the lesson for nothing) and
    Copilot's own hook delivers: the hint reaches the model with the result, once."""
    marker = write_marker_test(scratch.project)
    add_lessons(scratch, HINT)
    run_lessons(scratch, "install", "claude", "--project", str(scratch.project), "--no-scan")
    assert (scratch.project / ".claude" / "settings.json").is_file()
    server = FakeCopilotModel(*bash("python -m pytest -q tests/"))
    with server:
        run_lessons(scratch, "install", "copilot", "--no-scan")
        env = copilot_env(scratch, server)
        env["COPILOT_ALLOW_ALL"] = "true"  # the folder is trusted: its repository hooks run
        argv = [str(agent_binary("copilot")), "-p", "run the tests", "--allow-all"]
        proc = run_agent([*argv, "--no-auto-update", "-s"], scratch, env, timeout=180)
        server.dump(scratch.root / "requests.jsonl")
    assert proc.returncode == 0, proc.stderr[-2000:]
    results = FakeCopilotModel.results(server.last())
    assert results[-1].count("HINT-MARKER-8141") == 1
    assert marker.exists()
    calls = hook_log(scratch)
    assert {e.get("agent") for e in calls if e.get("injected")} == {"copilot"}
    assert "PreToolUse" in {e.get("hook_event") for e in calls}  # the Claude Code hook ran
