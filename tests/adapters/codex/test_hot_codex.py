"""In-process tests of the Codex payload normalizer and answer renderer."""

from __future__ import annotations

import json

import pytest

from lessons_codex import hot_codex

PATCH = """*** Begin Patch
*** Add File: src/new_module.py
+import os
+value = eval(os.environ["X"])
*** Update File: app/main.py
*** Move to: app/entry.py
@@ def main():
-    run()
+    run(debug=True)
*** Delete File: docs/old.md
*** End Patch
"""


def pre_tool(tool_name: str, tool_input: dict, **extra: object) -> dict:
    payload = {
        "session_id": "019a-sess",
        "turn_id": "turn-1",
        "transcript_path": "/home/u/.codex/sessions/2026/11/29/rollout-x.jsonl",
        "cwd": "/repo",
        "hook_event_name": "PreToolUse",
        "model": "gpt-5.5",
        "permission_mode": "bypassPermissions",
        "tool_name": tool_name,
        "tool_input": tool_input,
        "tool_use_id": "call_abc",
    }
    payload.update(extra)
    return payload


def test_bash_call_keeps_the_command():
    """A shell call arrives as Bash with {command}; the event carries it unchanged."""
    event = hot_codex.normalize(pre_tool("Bash", {"command": "pytest -v tests/"}))
    assert event["event"] == "pre_tool"
    assert event["tool"] == "Bash"
    assert event["command"] == "pytest -v tests/"
    assert event["call_id"] == "call_abc"
    assert event["model"] == "gpt-5.5"
    assert event["session_id"] == "019a-sess"


def test_apply_patch_lists_every_touched_path_and_the_added_lines():
    """Add/Update/Move/Delete headers all yield absolute paths; + lines become the content."""
    event = hot_codex.normalize(pre_tool("apply_patch", {"command": PATCH}))
    assert event["tool"] == "Edit"
    assert event["command"] is None
    assert event["paths"] == [
        "/repo/src/new_module.py",
        "/repo/app/main.py",
        "/repo/app/entry.py",
        "/repo/docs/old.md",
    ]
    assert event["content"] == 'import os\nvalue = eval(os.environ["X"])\n    run(debug=True)'


def test_patch_that_only_adds_files_is_a_write():
    """A patch made only of Add File hunks is canonical Write, like Claude's Write tool."""
    patch = "*** Begin Patch\n*** Add File: /abs/notes.txt\n+hello\n*** End Patch\n"
    event = hot_codex.normalize(pre_tool("apply_patch", {"command": patch}))
    assert event["tool"] == "Write"
    assert event["paths"] == ["/abs/notes.txt"]
    assert event["content"] == "hello"


def test_patch_through_the_shell_is_an_edit():
    """`apply_patch <<'EOF'` run as a shell command is still recognised as an edit."""
    command = "apply_patch <<'EOF'\n" + PATCH + "EOF\n"
    event = hot_codex.normalize(pre_tool("Bash", {"command": command}))
    assert event["tool"] == "Edit"
    assert "/repo/app/main.py" in event["paths"]


def test_spawn_agent_and_mcp_tools():
    """spawn_agent is canonical Agent; MCP tools keep their (already canonical) names."""
    agent = hot_codex.normalize(pre_tool("spawn_agent", {"message": "look around"}))
    assert agent["tool"] == "Agent"
    mcp = hot_codex.normalize(
        pre_tool("mcp__serena__replace_content", {"relative_path": "a.py", "body": "x = 1"})
    )
    assert mcp["tool"] == "mcp__serena__replace_content"
    assert mcp["paths"] == ["/repo/a.py"]
    assert mcp["content"] == "x = 1"


@pytest.mark.parametrize(
    ("response", "failed"),
    [
        (
            "Chunk ID: de4b53\nWall time: 4.1 seconds\nProcess exited with code 2\nOutput:\nboom",
            True,
        ),
        (
            "Chunk ID: de4b53\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nok",
            False,
        ),
        ("Exit code: 1\nWall time: 0.3 seconds\nOutput:\nE   AssertionError", True),
        ("Exit code: 0\nWall time: 0.3 seconds\nOutput:\n3 passed", False),
        (json.dumps({"output": "syntax error\n", "metadata": {"exit_code": 2}}), True),
        (json.dumps({"output": "fine\n", "metadata": {"exit_code": 0}}), False),
        ("failed in sandbox MacosSeatbelt with execution error: denied, exit code: 1", True),
        ("Process running with session ID 48230", False),
        ("plain output without any marker", False),
        ({"content": [{"type": "text", "text": "no such table"}], "isError": True}, True),
        ({"content": [{"type": "text", "text": "rows: 3"}], "isError": False}, False),
    ],
)
def test_post_tool_failures_are_recognised_from_the_text(response, failed):
    """PostToolUse has no exit code field: the three known output shapes are parsed."""
    payload = pre_tool("Bash", {"command": "pytest"}, hook_event_name="PostToolUse")
    payload["tool_response"] = response
    event = hot_codex.normalize(payload)
    assert event["event"] == ("post_failure" if failed else "post_tool")
    if failed:
        assert event["error"]
        assert event["command"] == "pytest"
    else:
        assert event["error"] is None


def test_lifecycle_events():
    """SessionStart keeps its source; SubagentStart and UserPromptSubmit map to their kinds."""
    base = {"session_id": "s", "cwd": "/repo", "model": "gpt-5.5", "transcript_path": None}
    start = hot_codex.normalize({**base, "hook_event_name": "SessionStart", "source": "compact"})
    assert (start["event"], start["source"]) == ("session_start", "compact")
    odd = hot_codex.normalize({**base, "hook_event_name": "SessionStart", "source": "weird"})
    assert odd["source"] == "startup"
    sub = hot_codex.normalize(
        {**base, "hook_event_name": "SubagentStart", "agent_id": "a1", "agent_type": "default"}
    )
    assert sub["event"] == "subagent_start"
    prompt = hot_codex.normalize(
        {**base, "hook_event_name": "UserPromptSubmit", "turn_id": "t", "prompt": "fix it"}
    )
    assert (prompt["event"], prompt["prompt"]) == ("prompt", "fix it")
    assert hot_codex.normalize({**base, "hook_event_name": "Interrupt"}) is None
    assert hot_codex.normalize(["not", "a", "dict"]) is None


def decision(**values: object) -> dict:
    base = {"deny": None, "context": None, "delivered": [], "dropped": [], "trailer": None}
    base.update(values)
    return base


def test_render_uses_only_documented_keys():
    """Deny and context land under hookSpecificOutput with exactly Codex's field names."""
    event = {"native_event": "PreToolUse"}
    deny = hot_codex.render(event, decision(deny="Use make test."))
    assert deny == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "Use make test.",
        }
    }
    hint = hot_codex.render(event, decision(context="Hint.", trailer="<!-- lessons: x -->"))
    assert hint == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "additionalContext": "Hint.\n<!-- lessons: x -->",
        }
    }
    assert hot_codex.render(event, decision()) is None


def test_render_never_sends_a_blank_deny_reason():
    """Codex refuses a deny with an empty reason, so a default one stands in."""
    out = hot_codex.render({"native_event": "PreToolUse"}, decision(deny="  "))
    assert out["hookSpecificOutput"]["permissionDecisionReason"] == hot_codex.DEFAULT_DENY


@pytest.mark.parametrize(
    "native", ["SessionStart", "SubagentStart", "UserPromptSubmit", "PostToolUse"]
)
def test_render_context_events(native):
    """Context-carrying events answer with their own hookEventName; denial is never sent there."""
    out = hot_codex.render({"native_event": native}, decision(context="Text", deny="ignored"))
    assert out == {"hookSpecificOutput": {"hookEventName": native, "additionalContext": "Text"}}


def test_render_is_silent_where_codex_takes_no_context():
    """Stop and PreCompact would reject additionalContext: nothing is printed."""
    for native in ("Stop", "PreCompact"):
        assert hot_codex.render({"native_event": native}, decision(context="Text")) is None


def test_failure_read_from_the_transcript_when_the_output_has_no_exit_code(tmp_path):
    """Unified exec gives PostToolUse only the output; the transcript's completion has the code."""
    transcript = tmp_path / "rollout.jsonl"
    completed = {
        "timestamp": "2026-11-29T19:26:28.047Z",
        "type": "event_msg",
        "payload": {
            "type": "item_completed",
            "item": {
                "type": "CommandExecution",
                "id": "call_7",
                "status": "failed",
                "aggregated_output": "broken\n",
                "exit_code": 3,
            },
        },
    }
    other = {
        "type": "event_msg",
        "payload": {
            "type": "item_completed",
            "item": {"id": "call_6", "exit_code": 0, "aggregated_output": ""},
        },
    }
    transcript.write_text(json.dumps(other) + "\n" + json.dumps(completed) + "\n")
    payload = pre_tool(
        "Bash",
        {"command": "sh -c 'echo broken >&2; exit 3'"},
        hook_event_name="PostToolUse",
        tool_response="broken\n",
        tool_use_id="call_7",
        transcript_path=str(transcript),
    )
    event = hot_codex.normalize(payload)
    assert event["event"] == "post_failure"
    assert event["error"] == "Exit code: 3\nbroken"
    payload["tool_use_id"] = "call_6"
    assert hot_codex.normalize(payload)["event"] == "post_tool"
    payload["transcript_path"] = str(tmp_path / "missing.jsonl")
    assert hot_codex.normalize(payload)["event"] == "post_tool"
