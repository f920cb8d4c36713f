"""The MCP server as a host sees it: the real ``lessons mcp`` process, the SDK's stdio client.

Each test starts the server with the console script in a scratch ``LESSONS_HOME``, stores
lessons through the real CLI (which rebuilds the manifest and the recall index), and calls the
tools over the protocol.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("lessons_mcp")
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

BIN = Path(sys.executable).parent

STASH = {
    "summary": "git stash leaves untracked files behind",
    "mistake": "Ran git stash before switching branches; the untracked files stayed and broke "
    "the checkout",
    "remediation": "Use git stash -u (or --include-untracked) so untracked files go too.",
    "type": "hint",
    "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"\bgit\s+stash\b"]},
    "errorLines": [
        "error: The following untracked working tree files would be overwritten by "
        "checkout: src/app.py"
    ],
}
PYTEST = {
    "summary": "pytest hangs waiting for a terminal in the sandbox",
    "mistake": "Ran the pytest suite with the interactive debugger flag; it hung on stdin",
    "remediation": "Drop --pdb, and pass -p no:cacheprovider in a read-only checkout.",
    "type": "hint",
    "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"\bpytest\b"]},
}
SCOPED = {
    "summary": "deploy script of another project needs the vpn",
    "mistake": "Ran make deploy without the company vpn and the upload timed out",
    "remediation": "Connect the vpn first; make deploy checks nothing.",
    "type": "hint",
    "scope": "example.com/other/project",
    "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"\bmake\s+deploy\b"]},
}


def lessons(*args: str, input: str | None = None) -> str:
    proc = subprocess.run(
        [str(BIN / "lessons"), *args], input=input, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def add(*items: dict[str, Any]) -> list[str]:
    out = lessons("add", "-", "--json", input=json.dumps(list(items)))
    return [json.loads(line)["id"] for line in out.splitlines()]


def run_client(body: Callable[[ClientSession], Awaitable[Any]], cwd: Path | None = None) -> Any:
    """Start ``lessons mcp`` and run ``body`` with an initialized session."""
    env = {
        k: os.environ[k] for k in ("LESSONS_HOME", "LESSONS_STATE_DIR", "HOME") if k in os.environ
    }
    params = StdioServerParameters(
        command=str(BIN / "lessons"), args=["mcp"], env=env, cwd=str(cwd) if cwd else None
    )
    result: list[Any] = []

    async def main() -> None:
        with anyio.fail_after(60):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                result.append(await body(s))

    anyio.run(main)
    return result[0]


def call(name: str, args: dict[str, Any], cwd: Path | None = None) -> Any:
    async def body(session: ClientSession) -> Any:
        return await session.call_tool(name, args)

    return run_client(body, cwd)


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content)


def deliver(session: str, command: str = "git stash") -> None:
    """Run the real Claude Code hook on a Bash call in ``session``: it delivers the lessons that
    match and writes the delivery log ``feedback`` checks."""
    payload = {
        "session_id": session,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "cwd": os.environ["HOME"],
    }
    proc = subprocess.run(
        [str(BIN / "lessons-claude-hook")],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0 and "additionalContext" in proc.stdout, proc.stderr


def test_initialize_lists_every_tool_with_a_schema_and_instructions(home: Path) -> None:
    async def body(session: ClientSession) -> Any:
        return await session.list_tools()

    env = {k: os.environ[k] for k in ("LESSONS_HOME", "LESSONS_STATE_DIR", "HOME")}
    params = StdioServerParameters(command=str(BIN / "lessons"), args=["mcp"], env=env)
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            seen["init"] = await session.initialize()
            seen["tools"] = await session.list_tools()

    anyio.run(main)
    names = {t.name: t for t in seen["tools"].tools}
    assert set(names) == {"search", "record", "feedback", "show", "list"}
    for tool in names.values():
        assert tool.input_schema["type"] == "object" and tool.description
        # Claude Code drops a tool whose schema has a combinator at the top level.
        assert not {"anyOf", "oneOf", "allOf"} & set(tool.input_schema), tool.name
    assert names["record"].input_schema["required"] == ["mistake", "fix"]
    instructions = seen["init"].instructions
    assert "search" in instructions and "record" in instructions and "fails" in instructions


def test_search_by_error_finds_the_lesson_by_fingerprint(home: Path) -> None:
    stash, _ = add(STASH, PYTEST)
    output = (
        "$ git checkout main\n"
        "error: The following untracked working tree files would be overwritten by checkout:\n"
        "\tsrc/app.py\nPlease move or remove them before you switch branches.\nAborting\n"
    )
    result = call("search", {"error": output})
    assert not result.is_error, text_of(result)
    hits = result.structured_content["results"]
    assert hits and hits[0]["id"] == stash
    assert "git stash -u" in text_of(result)


def test_search_by_text_ranks_like_recall_and_keeps_to_the_project(home: Path) -> None:
    stash, pytest_id, scoped = add(STASH, PYTEST, SCOPED)
    result = call("search", {"text": "pytest hangs on a terminal"})
    assert [h["id"] for h in result.structured_content["results"]][:1] == [pytest_id]
    # A lesson scoped to another project is left out unless every scope is asked for.
    here = call("search", {"text": "make deploy vpn upload"})
    assert scoped not in [h["id"] for h in here.structured_content["results"]]
    everywhere = call("search", {"text": "make deploy vpn upload", "scope": "all"})
    assert [h["id"] for h in everywhere.structured_content["results"]] == [scoped]
    # A single word still searches (the store's own full-text search).
    one = call("search", {"text": "stash"})
    assert [h["id"] for h in one.structured_content["results"]] == [stash]
    none = call("search", {"text": "kubernetes helm chart values"})
    assert none.structured_content["results"] == [] and "No lesson" in text_of(none)


def _candidates(home: Path) -> list[dict[str, Any]]:
    conn = sqlite3.connect(home / "lessons.db")
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute("SELECT * FROM candidates")]
    finally:
        conn.close()


def test_record_lands_as_a_redacted_pending_candidate(home: Path) -> None:
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    result = call(
        "record",
        {
            "mistake": f"Ran the deploy with GITHUB_TOKEN={secret} inline and it leaked to the log",
            "fix": "Export the token from the keychain in the shell, never on the command line.",
            "tool": "bash",
            "trigger": "make deploy",
            "error": "fatal: Authentication failed for 'https://github.com/acme/app.git/'",
        },
    )
    assert not result.is_error, text_of(result)
    assert result.structured_content["status"] == "new"
    (row,) = _candidates(home)
    assert row["status"] == "pending" and row["tool"] == "Bash"
    assert secret not in json.dumps(row)
    assert "make" in row["trigger"] and "deploy" in row["trigger"]
    assert "Authentication failed" in row["error_lines"]
    assert "0 active" in text_of(call("list", {}))  # nothing became active
    listed = call("list", {"kind": "candidates"})
    assert listed.structured_content["total"] == 1


def test_record_becomes_active_when_the_config_says_so(home: Path) -> None:
    (home / "config.json").write_text(json.dumps({"mcp": {"recordActive": True}}))
    result = call(
        "record",
        {
            "mistake": "npm test ran the whole watch mode and never returned to the prompt",
            "fix": "Run CI=1 npm test so jest runs once and exits.",
            "tool": "Bash",
            "trigger": "npm test",
        },
    )
    assert result.structured_content["status"] == "active", text_of(result)
    lesson_id = result.structured_content["lesson"]["id"]
    manifest = json.loads((home / "lesson-manifest.json").read_text())
    assert lesson_id in manifest["lessons"]  # the hooks deliver it from the next call
    # The same lesson again is recognised, not stored twice.
    again = call(
        "record",
        {
            "mistake": "npm test ran the whole watch mode and never returned to the prompt",
            "fix": "Run CI=1 npm test so jest runs once and exits.",
            "tool": "Bash",
            "trigger": "npm test",
        },
    )
    assert again.structured_content["status"] == "duplicate"


def test_record_refuses_what_the_compiler_would_refuse(home: Path) -> None:
    unsafe = call(
        "record",
        {
            "mistake": "A regex trigger that backtracks forever on long commands",
            "fix": "Write triggers without nested repeats, they hang the hook",
            "trigger": "(a+)+$",
        },
    )
    assert unsafe.is_error and "refused by the manifest compiler" in text_of(unsafe)
    placeholder = call(
        "record",
        {"mistake": "<what went wrong> in the build step", "fix": "TODO: fill in the fix later on"},
    )
    assert placeholder.is_error and "placeholder" in text_of(placeholder)
    assert not (home / "lessons.db").exists() or _candidates(home) == []


def test_feedback_records_outcomes_and_wrong_costs_confidence(home: Path) -> None:
    (stash,) = add(STASH)
    before = json.loads((home / "lesson-manifest.json").read_text())["lessons"][stash]
    for session in ("s-0", "s-1", "s-2", "s-3"):
        deliver(session)
    helped = call("feedback", {"lesson": stash, "verdict": "helped", "session_id": "s-0"})
    assert not helped.is_error, text_of(helped)
    for session in ("s-1", "s-2", "s-3"):
        call("feedback", {"lesson": stash, "verdict": "wrong", "session_id": session})
    conn = sqlite3.connect(home / "lessons.db")
    rows = conn.execute("SELECT outcome, event, agent FROM deliveries").fetchall()
    conn.close()
    assert sorted(r[0] for r in rows) == ["prevented", "wrong", "wrong", "wrong"]
    assert {(r[1], r[2]) for r in rows} == {("mcp:feedback", "mcp")}
    after = json.loads((home / "lesson-manifest.json").read_text())["lessons"][stash]
    assert after["confidence"] < before["confidence"]
    assert "wrong" in lessons("stats")


def test_show_and_list(home: Path) -> None:
    stash, _ = add(STASH, PYTEST)
    shown = call("show", {"lesson": stash})
    assert shown.structured_content["lesson"]["id"] == stash
    assert "git stash -u" in text_of(shown)
    listed = call("list", {"limit": 1})
    assert (
        listed.structured_content["total"] == 2 and len(listed.structured_content["lessons"]) == 1
    )


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("search", {}, "give 'text' or 'error'"),
        ("search", {"text": 5}, "text: 5 is not of type 'string'"),
        ("search", {"text": "x", "limit": 99}, "limit"),
        ("search", {"text": "x", "colour": "red"}, "the arguments are"),
        ("record", {"mistake": "too short", "fix": "also short"}, "is too short"),
        ("record", {"fix": "a fix that is long enough to pass"}, "'mistake' is required"),
        ("feedback", {"lesson": "x", "verdict": "meh"}, "is not one of"),
        ("feedback", {"lesson": "no-such-lesson", "verdict": "helped"}, "no lesson with id"),
        ("show", {"lesson": "no-such-lesson"}, "no lesson with id"),
        ("list", {"kind": "everything"}, "is not one of"),
        ("frobnicate", {}, "unknown tool"),
    ],
)
def test_bad_input_gets_a_clear_error(
    home: Path, name: str, args: dict[str, Any], message: str
) -> None:
    result = call(name, args)
    assert result.is_error
    text = text_of(result)
    assert text.startswith("Error: ") and message in text, text
    assert "Traceback" not in text


def test_concurrent_calls_all_answer(home: Path) -> None:
    (stash,) = add(STASH)
    for i in range(2, 12, 3):
        deliver(f"s-{i}")

    async def body(session: ClientSession) -> list[Any]:
        results: list[Any] = [None] * 12

        async def one(i: int) -> None:
            if i % 3 == 0:
                # Four records of one lesson at once: intake must see each other's candidate.
                results[i] = await session.call_tool(
                    "record",
                    {
                        "mistake": "cargo build ran out of disk space in the target directory",
                        "fix": "Run cargo clean before building again, then retry the build",
                        "tool": "Bash",
                        "trigger": "cargo build",
                    },
                )
            elif i % 3 == 1:
                results[i] = await session.call_tool("search", {"text": "git stash untracked"})
            else:
                results[i] = await session.call_tool(
                    "feedback", {"lesson": stash, "verdict": "helped", "session_id": f"s-{i}"}
                )

        async with anyio.create_task_group() as group:
            for i in range(12):
                group.start_soon(one, i)
        return results

    results = run_client(body)
    assert all(r is not None and not r.is_error for r in results), [text_of(r) for r in results]
    (candidate,) = _candidates(home)
    assert candidate["status"] == "pending"
    assert [r.structured_content["status"] for r in results[::3]].count("new") == 1
    conn = sqlite3.connect(home / "lessons.db")
    (count,) = conn.execute("SELECT count(*) FROM deliveries").fetchone()
    conn.close()
    assert count == 4
