"""The hook payloads ``benchmarks/noise.py`` builds for OpenCode and Copilot CLI sessions.

The value benchmark replays these agents' sessions through their hooks, so what it sends must be
what the agent sends: the payloads captured from the real plugin and the real Copilot CLI
(``tests/adapters/<agent>/payloads/``) are the reference here, key for key, and each built
payload must read as the same core event through the agent's hot adapter. A session is written
here as the agent records it: an OpenCode export, a Copilot CLI session log.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmark_scripts import load

REPO = Path(__file__).resolve().parents[2]
CAPTURED = REPO / "tests" / "adapters"


noise = load("noise_benchmark", REPO / "benchmarks" / "noise.py")


def _captured(agent: str, name: str) -> dict[str, Any]:
    data = json.loads((CAPTURED / agent / "payloads" / f"{name}.json").read_text())
    assert isinstance(data, dict)
    return data


# -- OpenCode -----------------------------------------------------------------------------------


def _part(kind: str, **fields: Any) -> dict[str, Any]:
    return {"id": f"prt_{kind}_{len(fields)}", "type": kind, **fields}


def _tool(call_id: str, tool: str, args: dict[str, Any], **state: Any) -> dict[str, Any]:
    return _part("tool", tool=tool, callID=call_id, state={"input": args, **state})


def _export(path: Path, messages: list[tuple[str, list[dict[str, Any]]]], parent: str = "") -> Path:
    """An ``opencode export`` document: the session's info, then each message with its parts."""
    info: dict[str, Any] = {
        "id": "ses_test0001",
        "projectID": "prj_test",
        "directory": "/home/dev/shop",
        "version": "1.14.30",
    }
    if parent:
        info["parentID"] = parent
    doc = {
        "info": info,
        "messages": [
            {"info": {"id": f"msg_{n}", "role": role, "time": {"created": n}}, "parts": parts}
            for n, (role, parts) in enumerate(messages)
        ],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2))
    return path


BASH = {"command": "sh -c 'echo broken >&2; exit 3'", "description": "Run tests"}
READ = {"filePath": "/home/dev/shop/missing.txt"}


def _session(tmp_path: Path, parent: str = "") -> list[tuple[str, Any]]:
    messages = [
        (
            "user",
            [
                _part("text", text="run the tests"),
                _part("text", text="Called the Read tool", synthetic=True),
                _part("text", text="then read the notes"),
            ],
        ),
        (
            "assistant",
            [
                _part("step-start"),
                _tool(
                    "call_1",
                    "bash",
                    BASH,
                    status="completed",
                    output="broken\n",
                    metadata={"exit": 3},
                ),
                _tool(
                    "call_2",
                    "read",
                    READ,
                    status="error",
                    error="File not found: /home/dev/shop/missing.txt",
                ),
                _tool("call_3", "bash", {"command": "sleep 99"}, status="running"),
            ],
        ),
        ("user", [_part("compaction", auto=True)]),
        ("user", [_part("text", text="and now?")]),
    ]
    return noise.opencode_steps(_export(tmp_path / "full.jsonl", messages, parent))


def test_an_opencode_session_is_prompt_start_then_calls_as_the_plugin_asks(
    tmp_path: Path,
) -> None:
    """``chat.message`` comes as the user's message is made, with its typed parts only; the
    session block is asked for at the first model request, after it; a compaction's message
    asks nothing."""
    steps = _session(tmp_path)

    assert [kind for kind, _ in steps] == ["prompt", "start", "call", "call", "call", "prompt"]
    assert steps[0][1] == "run the tests\nthen read the notes"
    assert steps[1][1] == ""  # no parent: a session of its own
    assert [value.call_id for kind, value in steps if kind == "call"] == [
        "call_1",
        "call_2",
        "call_3",
    ]
    assert steps[-1][1] == "and now?"


def test_opencode_payloads_have_the_plugins_keys_and_read_as_its_events(tmp_path: Path) -> None:
    from lessons_opencode import hot_opencode

    steps = _session(tmp_path)
    shell, read, running = (value for kind, value in steps if kind == "call")
    built = {
        "before_bash": noise.payloads(shell, tmp_path)[0],
        "after_bash_failed": noise.payloads(shell, tmp_path)[1],
        "before_read": noise.payloads(read, tmp_path)[0],
        "tool_error_read": noise.payloads(read, tmp_path)[1],
    }
    for name, (_phase, event, payload) in built.items():
        captured = _captured("opencode", name)
        assert set(payload) == set(captured), name
        assert event == payload["hook_event_name"] == captured["hook_event_name"]
        assert hot_opencode.normalize(payload)["event"] == hot_opencode.normalize(captured)["event"]
    assert built["after_bash_failed"][2] == _captured("opencode", "after_bash_failed") | {
        "session_id": "ses_test0001"
    }
    assert built["tool_error_read"][2]["error"] == "File not found: /home/dev/shop/missing.txt"
    assert [phase for phase, _, _ in noise.payloads(running, tmp_path)] == ["before"]
    for name, (kind, value) in (("chat_message", steps[0]), ("session_start", steps[1])):
        event, payload = noise.session_payload(
            "opencode", kind, value, "s1", "/home/dev/shop", tmp_path
        )
        assert set(payload) == set(_captured("opencode", name)), name
        assert event == payload["hook_event_name"] == _captured("opencode", name)["hook_event_name"]


def test_a_child_sessions_start_names_its_parent(tmp_path: Path) -> None:
    from lessons_opencode import hot_opencode

    steps = _session(tmp_path, parent="ses_parent")
    start = next(value for kind, value in steps if kind == "start")
    _event, payload = noise.session_payload("opencode", "start", start, "s", "/", tmp_path)
    assert payload["parent_id"] == "ses_parent"
    assert hot_opencode.normalize(payload)["event"] == "subagent_start"


def test_a_long_result_is_cut_where_the_plugin_cuts_it() -> None:
    """32 000 JavaScript characters (UTF-16 units), the first and last 16 000 kept; a character
    outside the BMP counts two."""
    limit = 32000
    assert noise.plugin_shorten("x" * limit) == "x" * limit
    text = "a" * 20000 + "b" * 20000
    cut = noise.plugin_shorten(text)
    assert cut == "a" * 16000 + "\n…\n" + "b" * 16000
    wide = "\U0001f600" * 16001  # 32 002 units
    cut = noise.plugin_shorten(wide)
    assert cut == "\U0001f600" * 8000 + "\n…\n" + "\U0001f600" * 8000
    assert noise.plugin_shorten(None) == ""


# -- Copilot CLI --------------------------------------------------------------------------------


def _log(path: Path, records: list[tuple[str, dict[str, Any]]]) -> Path:
    """A Copilot CLI session log: one ``{type, data, id, timestamp, parentId}`` per line."""
    lines = [
        json.dumps(
            {
                "type": kind,
                "data": data,
                "id": f"ev-{n}",
                "timestamp": f"2026-06-23T23:33:{n:02d}.000Z",
                "parentId": None,
            }
        )
        for n, (kind, data) in enumerate(records)
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return path


LS = {"command": "ls /nonexistent-dir-xyz", "description": "List the folder"}


def _copilot_session(tmp_path: Path) -> list[tuple[str, Any]]:
    session = "f2c68739-be9d-4aa4-8a3f-2a9505d1a5c0"
    ls = LS
    records = [
        ("session.start", {"sessionId": session, "context": {"cwd": "/home/dev/shop"}}),
        ("user.message", {"content": "run the tests", "transformedContent": "run the tests!"}),
        ("hook.start", {"hookType": "preToolUse", "input": {}}),
        ("tool.execution_start", {"toolCallId": "t1", "toolName": "bash", "arguments": ls}),
        (
            "tool.execution_complete",
            {
                "toolCallId": "t1",
                "success": True,
                "result": {
                    "content": "ls: cannot access '/nonexistent-dir-xyz': No such file or"
                    " directory\n<shellId: 0 completed with exit code 2>"
                },
            },
        ),
        (
            "tool.execution_start",
            {
                "toolCallId": "t2",
                "toolName": "view",
                "arguments": json.dumps({"path": "/home/dev/shop/missing.txt"}),
            },
        ),
        (
            "tool.execution_complete",
            {
                "toolCallId": "t2",
                "success": False,
                "error": {"message": "Path does not exist", "code": "failure"},
            },
        ),
        ("tool.execution_start", {"toolCallId": "t3", "toolName": "bash", "arguments": ls}),
    ]
    return noise.copilot_steps(_log(tmp_path / "full.jsonl", records))


def test_copilot_payloads_have_the_camel_case_keys_and_name_no_event(tmp_path: Path) -> None:
    """The installer's hooks get Copilot's camelCase payloads, which do not name their event:
    the hook command's argument does, so the adapter is bound to it."""
    steps = _copilot_session(tmp_path)
    assert [kind for kind, _ in steps] == ["start", "prompt", "call", "call", "call"]
    shell, view, unfinished = (value for kind, value in steps if kind == "call")
    assert view.tool_input == {"path": "/home/dev/shop/missing.txt"}  # the string, parsed
    built = {
        "preToolUse-bash": noise.payloads(shell, tmp_path)[0],
        "postToolUse-bash-exit2": noise.payloads(shell, tmp_path)[1],
        "postToolUseFailure-view": noise.payloads(view, tmp_path)[1],
    }
    for name, (_phase, event, payload) in built.items():
        captured = _captured("copilot", name)
        assert set(payload) == set(captured), name
        assert event == name.split("-", 1)[0]
        core = noise.adapter("copilot", event).normalize(payload)
        assert core["event"] == noise.adapter("copilot", event).normalize(captured)["event"]
    assert (
        built["postToolUse-bash-exit2"][2]["toolResult"]
        == _captured("copilot", "postToolUse-bash-exit2")["toolResult"]
    )
    assert built["postToolUseFailure-view"][2]["error"] == "Path does not exist"
    assert isinstance(built["preToolUse-bash"][2]["timestamp"], int)
    assert built["preToolUse-bash"][2]["toolArgs"] == shell.tool_input == LS
    assert [phase for phase, _, _ in noise.payloads(unfinished, tmp_path)] == ["before"]
    for name, (kind, value) in (("sessionStart", steps[0]), ("userPromptSubmitted", steps[1])):
        event, payload = noise.session_payload("copilot", kind, value, "s1", "/", tmp_path)
        assert event == name
        assert set(payload) == set(_captured("copilot", name)), name
        assert payload.get("prompt", payload.get("initialPrompt")) == "run the tests"
