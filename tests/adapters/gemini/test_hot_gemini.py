"""In-process tests of the Gemini payload normalizer and answer renderer."""

from __future__ import annotations

import pytest

from lessons_gemini import hot_gemini


def tool_payload(event: str, tool_name: str, tool_input: dict, **extra: object) -> dict:
    payload = {
        "session_id": "5b1c-sess",
        "transcript_path": "/home/u/.gemini/tmp/repo/chats/session-2026-11-29T10-02-5b1c.jsonl",
        "cwd": "/repo",
        "hook_event_name": event,
        "timestamp": "2026-11-29T10:03:11.000Z",
        "tool_name": tool_name,
        "tool_input": tool_input,
    }
    payload.update(extra)
    return payload


@pytest.mark.parametrize(
    ("native", "canonical"),
    [
        ("run_shell_command", "Bash"),
        ("read_file", "Read"),
        ("read_many_files", "Read"),
        ("write_file", "Write"),
        ("replace", "Edit"),
        ("glob", "Glob"),
        ("grep_search", "Grep"),
        ("search_file_content", "Grep"),
        ("list_directory", "Glob"),
        ("web_fetch", "WebFetch"),
        ("google_web_search", "WebSearch"),
        ("mcp_github_create_issue", "mcp__github__create_issue"),
        ("write_todos", "write_todos"),
    ],
)
def test_tool_names_map_to_canonical(native, canonical):
    """Every native tool maps onto the name lessons are written against."""
    event = hot_gemini.normalize(tool_payload("BeforeTool", native, {}))
    assert event["tool"] == canonical


def test_mcp_context_settles_underscored_server_names():
    """mcp_context names the server, so servers with underscores map correctly."""
    payload = tool_payload(
        "BeforeTool",
        "mcp_my_db_run_query",
        {"sql": "select 1"},
        mcp_context={"server_name": "my_db", "tool_name": "run_query"},
    )
    assert hot_gemini.normalize(payload)["tool"] == "mcp__my_db__run_query"


@pytest.mark.parametrize("key", ["file_path", "absolute_path", "path"])
def test_old_and_new_path_keys_resolve_against_cwd(key):
    """Pre-0.14 names (absolute_path, path) work as well as file_path; relative → absolute."""
    event = hot_gemini.normalize(tool_payload("BeforeTool", "read_file", {key: "src/app.py"}))
    assert event["paths"] == ["/repo/src/app.py"]


def test_directory_keys_and_read_many_files():
    """dir_path / directory and read_many_files' include list all become paths."""
    listing = hot_gemini.normalize(
        tool_payload("BeforeTool", "list_directory", {"directory": "lib"})
    )
    assert listing["paths"] == ["/repo/lib"]
    many = hot_gemini.normalize(
        tool_payload("BeforeTool", "read_many_files", {"include": ["a.py", "/abs/b.py"]})
    )
    assert many["paths"] == ["/repo/a.py", "/abs/b.py"]


def test_edit_content_is_the_new_text():
    """write_file's content and replace's new_string are the content lessons match."""
    write = hot_gemini.normalize(
        tool_payload("BeforeTool", "write_file", {"file_path": "/repo/x.sh", "content": "eval $1"})
    )
    assert (write["tool"], write["content"]) == ("Write", "eval $1")
    edit = hot_gemini.normalize(
        tool_payload(
            "BeforeTool",
            "replace",
            {"file_path": "x.py", "old_string": "a", "new_string": "b", "instruction": "i"},
        )
    )
    assert (edit["tool"], edit["paths"], edit["content"]) == ("Edit", ["/repo/x.py"], "b")


def test_before_tool_asks_for_no_hints_and_after_tool_asks_for_them():
    """BeforeTool cannot carry context: hints are requested at AfterTool of the same call."""
    before = hot_gemini.normalize(
        tool_payload("BeforeTool", "run_shell_command", {"command": "ls"})
    )
    assert (before["event"], before["deliver_hints"], before["command"]) == (
        "pre_tool",
        False,
        "ls",
    )
    after = hot_gemini.normalize(
        tool_payload(
            "AfterTool",
            "run_shell_command",
            {"command": "ls"},
            tool_response={"llmContent": "Output: a b", "returnDisplay": "a b"},
        )
    )
    assert (after["event"], after["deliver_hints"], after["command"]) == ("post_tool", True, "ls")


@pytest.mark.parametrize(
    ("response", "failed"),
    [
        ({"llmContent": "Output: bash: pip: command not found\nExit Code: 127"}, True),
        ({"llmContent": "Output: ok\nExit Code: 0"}, False),
        (
            {
                "llmContent": "Command: ls\nDirectory: (root)\nOutput: x\nError: (none)\n"
                "Exit Code: 0\nSignal: (none)"
            },
            False,
        ),
        ({"llmContent": "Output: killed\nSignal: 9"}, True),
        ({"llmContent": [{"text": "Output: no\nExit Code: 2"}]}, True),
        (
            {
                "llmContent": "",
                "error": {"type": "invalid_tool_params", "message": "Path must be absolute"},
            },
            True,
        ),
        ({"llmContent": "fine", "returnDisplay": "fine"}, False),
        # the shell's refusal of a command holding ``$(…)``, reported as a success
        (
            {
                "llmContent": "Command injection detected: command substitution syntax ($(), "
                "backticks, <() or >()) found in command arguments.",
                "returnDisplay": "Blocked: command substitution detected in shell command.",
            },
            True,
        ),
        ({"llmContent": "Output: Command injection detected: a test name\nExit Code: 0"}, False),
    ],
)
def test_after_tool_failures(response, failed):
    """A tool error, Exit Code: N ≠ 0 in llmContent, or the shell's refusal of a command
    substitution makes a post_failure with the text."""
    payload = tool_payload(
        "AfterTool", "run_shell_command", {"command": "pip x"}, tool_response=response
    )
    event = hot_gemini.normalize(payload)
    assert event["event"] == ("post_failure" if failed else "post_tool")
    assert bool(event["error"]) is failed
    assert event["deliver_hints"] is True


def test_session_start_source_and_trigger():
    """source is the field; trigger is accepted too; anything unknown counts as startup."""
    base = {"session_id": "s", "cwd": "/repo", "hook_event_name": "SessionStart"}
    assert hot_gemini.normalize({**base, "source": "clear"})["source"] == "clear"
    assert hot_gemini.normalize({**base, "trigger": "resume"})["source"] == "resume"
    assert hot_gemini.normalize({**base})["source"] == "startup"
    prompt = hot_gemini.normalize({**base, "hook_event_name": "BeforeAgent", "prompt": "go"})
    assert (prompt["event"], prompt["prompt"]) == ("prompt", "go")
    compress = hot_gemini.normalize({**base, "hook_event_name": "PreCompress", "trigger": "auto"})
    assert compress["event"] == "pre_compact"
    assert hot_gemini.normalize({**base, "hook_event_name": "BeforeModel"}) is None


def decision(**values: object) -> dict:
    base = {"deny": None, "context": None, "delivered": [], "dropped": [], "trailer": None}
    base.update(values)
    return base


def test_render_before_tool_only_denies():
    """BeforeTool: a deny becomes {decision, reason}; context alone prints nothing."""
    event = {"native_event": "BeforeTool"}
    assert hot_gemini.render(event, decision(deny="Use uv.")) == {
        "decision": "deny",
        "reason": "Use uv.",
    }
    assert hot_gemini.render(event, decision(context="dropped by Gemini")) is None


@pytest.mark.parametrize("native", ["AfterTool", "SessionStart", "BeforeAgent"])
def test_render_context_events(native):
    """Context goes to hookSpecificOutput.additionalContext, trailer appended."""
    out = hot_gemini.render(
        {"native_event": native}, decision(context="Hint", trailer="<!-- t -->")
    )
    assert out == {
        "hookSpecificOutput": {"hookEventName": native, "additionalContext": "Hint\n<!-- t -->"}
    }


def test_render_silent_for_advisory_events():
    """PreCompress and AfterAgent take no context: nothing is printed."""
    for native in ("PreCompress", "AfterAgent"):
        assert hot_gemini.render({"native_event": native}, decision(context="x")) is None


def test_a_failed_commands_error_is_what_it_printed():
    """Failure-time recall matches a lesson's error lines line for line: ``Output: `` stuck to
    the first one would hide it (as it did before the report was cut)."""
    report = "Output: bash: pip: command not found\nExit Code: 127\nProcess Group PGID: 4"
    payload = tool_payload(
        "AfterTool", "run_shell_command", {"command": "pip x"}, tool_response={"llmContent": report}
    )
    assert hot_gemini.normalize(payload)["error"] == "bash: pip: command not found"
