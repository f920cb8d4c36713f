"""Claude Code payloads → core events, core decisions → Claude Code answers.

Payload shapes follow what Claude Code 2.1.197 sends (docs/agents/claude.md); answers must be
exactly what it honours, since a malformed answer is silently ignored by the agent.
"""

from __future__ import annotations

import json

import pytest

from lessons_claude import hot_claude


def pre_tool(tool_name: str, tool_input: dict, cwd: str = "/repo") -> dict:
    return {
        "session_id": "8f1c",
        "transcript_path": "/home/u/.claude/projects/-repo/8f1c.jsonl",
        "cwd": cwd,
        "prompt_id": "p1",
        "permission_mode": "default",
        "effort": {"level": "high"},
        "hook_event_name": "PreToolUse",
        "tool_name": tool_name,
        "tool_input": tool_input,
        "tool_use_id": "toolu_01",
    }


def test_bash_call_gives_command_and_ids():
    """A Bash call carries its command, the session, cwd and the tool_use id."""
    event = hot_claude.normalize(
        pre_tool("Bash", {"command": "pytest -v tests/", "description": "x"})
    )
    assert event is not None
    assert event["agent"] == "claude"
    assert event["event"] == "pre_tool"
    assert event["tool"] == "Bash"
    assert event["command"] == "pytest -v tests/"
    assert event["paths"] == []
    assert event["content"] is None
    assert event["session_id"] == "8f1c"
    assert event["cwd"] == "/repo"
    assert event["call_id"] == "toolu_01"
    assert event["model"] is None


@pytest.mark.parametrize(
    ("tool", "tool_input", "paths", "content"),
    [
        ("Read", {"file_path": "/repo/a.py"}, ["/repo/a.py"], None),
        ("Read", {"file_path": "src/a.py"}, ["/repo/src/a.py"], None),
        ("Write", {"file_path": "/repo/b.py", "content": "x = 1\n"}, ["/repo/b.py"], "x = 1\n"),
        (
            "Edit",
            {"file_path": "/repo/c.py", "old_string": "a", "new_string": "b"},
            ["/repo/c.py"],
            "b",
        ),
        (
            "MultiEdit",
            {
                "file_path": "/repo/d.py",
                "edits": [
                    {"old_string": "a", "new_string": "one"},
                    {"old_string": "b", "new_string": "two"},
                ],
            },
            ["/repo/d.py"],
            "one\ntwo",
        ),
        (
            "NotebookEdit",
            {"notebook_path": "nb/e.ipynb", "cell_id": "c1", "new_source": "import os"},
            ["/repo/nb/e.ipynb"],
            "import os",
        ),
        ("Glob", {"pattern": "**/*.py"}, ["/repo", "/repo/**/*.py"], None),
        ("Glob", {"pattern": "*.md", "path": "docs"}, ["/repo/docs", "/repo/docs/*.md"], None),
        ("Grep", {"pattern": "TODO", "path": "/repo/src"}, ["/repo/src"], None),
        ("Grep", {"pattern": "TODO", "glob": "*.py"}, ["/repo", "/repo/*.py"], None),
    ],
)
def test_file_tools_give_absolute_paths_and_new_text(tool, tool_input, paths, content):
    """File tools: paths resolved against cwd, the text an edit introduces as content."""
    event = hot_claude.normalize(pre_tool(tool, tool_input))
    assert event is not None
    assert event["tool"] == tool
    assert event["paths"] == paths
    assert event["content"] == content
    assert event["command"] is None


def test_renamed_and_platform_tools_map_to_canonical_names():
    """Task is the old name of Agent; PowerShell takes Bash's input."""
    agent = hot_claude.normalize(
        pre_tool("Task", {"prompt": "look around", "subagent_type": "Explore"})
    )
    assert agent is not None
    assert agent["tool"] == "Agent"
    assert agent["content"] == "look around"
    shell = hot_claude.normalize(pre_tool("PowerShell", {"command": "Get-ChildItem"}))
    assert shell is not None
    assert (shell["tool"], shell["command"]) == ("Bash", "Get-ChildItem")


def test_mcp_tool_keeps_its_name_and_path_argument():
    """MCP tools keep mcp__server__tool; a path-like argument still counts as a path."""
    event = hot_claude.normalize(pre_tool("mcp__fs__read_file", {"path": "notes.txt"}))
    assert event is not None
    assert event["tool"] == "mcp__fs__read_file"
    assert event["paths"] == ["/repo/notes.txt"]


def test_webfetch_url_is_kept():
    """WebFetch has no path; its URL is passed along for matchers that want it."""
    event = hot_claude.normalize(
        pre_tool("WebFetch", {"url": "https://example.org", "prompt": "p"})
    )
    assert event is not None
    assert event["url"] == "https://example.org"
    assert event["paths"] == []


def test_home_relative_path_is_expanded(monkeypatch):
    """A ``~/`` path is expanded with HOME, not joined to cwd."""
    monkeypatch.setenv("HOME", "/home/someone")
    event = hot_claude.normalize(pre_tool("Read", {"file_path": "~/.bashrc"}))
    assert event is not None
    assert event["paths"] == ["/home/someone/.bashrc"]


@pytest.mark.parametrize("source", ["startup", "resume", "clear", "compact"])
def test_session_start_source(source):
    """SessionStart carries its source (the field the Node original misread)."""
    event = hot_claude.normalize(
        {"session_id": "s", "cwd": "/repo", "hook_event_name": "SessionStart", "source": source}
    )
    assert event is not None
    assert (event["event"], event["source"]) == ("session_start", source)


def test_other_events():
    """Failure, prompt, subagent and pre-compaction events map onto the core's names."""
    failure = hot_claude.normalize(
        {
            "session_id": "s",
            "cwd": "/repo",
            "hook_event_name": "PostToolUseFailure",
            "tool_name": "Bash",
            "tool_input": {"command": "make"},
            "tool_use_id": "toolu_9",
            "error": "Exit code 2\nmake: *** No rule to make target",
            "is_interrupt": False,
        }
    )
    assert failure is not None
    assert failure["event"] == "post_failure"
    assert failure["error"].startswith("Exit code 2")
    assert failure["command"] == "make"
    prompt = hot_claude.normalize(
        {"session_id": "s", "cwd": "/r", "hook_event_name": "UserPromptSubmit", "prompt": "fix it"}
    )
    assert prompt is not None
    assert (prompt["event"], prompt["prompt"]) == ("prompt", "fix it")
    sub = hot_claude.normalize(
        {
            "session_id": "s",
            "cwd": "/r",
            "hook_event_name": "SubagentStart",
            "agent_id": "a1",
            "agent_type": "Explore",
        }
    )
    assert sub is not None
    assert (sub["event"], sub["agent_type"]) == ("subagent_start", "Explore")
    compact = hot_claude.normalize(
        {"session_id": "s", "cwd": "/r", "hook_event_name": "PreCompact", "trigger": "auto"}
    )
    assert compact is not None
    assert compact["event"] == "pre_compact"


@pytest.mark.parametrize(
    "payload",
    [
        None,
        [],
        "text",
        {},
        {"hook_event_name": "Notification"},
        {"hook_event_name": "PreToolUse"},
        {"hook_event_name": "PreToolUse", "tool_name": 3},
    ],
)
def test_unusable_payloads_give_none(payload):
    """Anything unexpected means "nothing to say", never an exception."""
    assert hot_claude.normalize(payload) is None


def test_odd_tool_input_is_tolerated():
    """A tool_input that is not an object still gives an event, with nothing extracted."""
    event = hot_claude.normalize(pre_tool("Bash", "ls"))  # type: ignore[arg-type]
    assert event is not None
    assert (event["command"], event["paths"]) == (None, [])


DECISION = {"deny": None, "context": None, "delivered": [], "dropped": [], "trailer": ""}


def _event(name: str) -> dict:
    return {"event": name, "agent": "claude"}


def test_render_deny():
    """A deny is permissionDecision deny with the reason the model will read."""
    out = hot_claude.render(
        _event("pre_tool"), {**DECISION, "deny": "Use make lint.", "trailer": "<!-- t -->"}
    )
    assert out == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "Use make lint.",
        }
    }


def test_render_blank_deny_still_denies():
    """A deny the core gives without words still stops the call, with the default reason."""
    out = hot_claude.render(_event("pre_tool"), {**DECISION, "deny": " "})
    assert out is not None
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert out["hookSpecificOutput"]["permissionDecisionReason"] == "Blocked by a lesson."


def test_render_context_carries_trailer():
    """Context goes to additionalContext with the HTML-comment trailer after it."""
    trailer = "<!-- lessons: delivered=L1 -->"
    out = hot_claude.render(
        _event("pre_tool"), {**DECISION, "context": "Lesson text", "trailer": trailer}
    )
    assert out == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "additionalContext": "Lesson text\n" + trailer,
        }
    }


@pytest.mark.parametrize(
    ("core", "native"),
    [
        ("session_start", "SessionStart"),
        ("subagent_start", "SubagentStart"),
        ("prompt", "UserPromptSubmit"),
        ("post_failure", "PostToolUseFailure"),
    ],
)
def test_render_context_events(core, native):
    """Start, prompt and failure events take additionalContext under their own event name."""
    out = hot_claude.render(_event(core), {**DECISION, "context": "X"})
    assert out == {"hookSpecificOutput": {"hookEventName": native, "additionalContext": "X"}}


def test_render_nothing():
    """No deny and no context, or a deny outside PreToolUse, prints nothing."""
    assert hot_claude.render(_event("pre_tool"), DECISION) is None
    assert hot_claude.render(_event("session_start"), {**DECISION, "deny": "no"}) is None
    assert hot_claude.render(_event("pre_compact"), {**DECISION, "context": "X"}) is None
    assert hot_claude.render(None, DECISION) is None
    assert hot_claude.render(_event("pre_tool"), None) is None


def test_render_never_uses_env_key():
    """No Claude Code answer has an env key (it does not exist in the contract)."""
    for name in ("pre_tool", "session_start", "prompt", "post_failure", "subagent_start"):
        out = hot_claude.render(
            _event(name), {**DECISION, "deny": "d", "context": "c", "trailer": "t"}
        )
        assert out is not None
        assert "env" not in out
        assert "env" not in out["hookSpecificOutput"]
        json.dumps(out)  # plain JSON, nothing else


# -- refusals read back from the transcript (the catch-up seam) ---------------------------------

REFUSED = "<tool_use_error>String to replace not found in file.\nString: x = 1</tool_use_error>"


def _results(*blocks: dict) -> dict:
    return {"type": "user", "message": {"role": "user", "content": list(blocks)}}


def _result(call_id: str, content: object, is_error: object = True) -> dict:
    return {"type": "tool_result", "tool_use_id": call_id, "content": content, "is_error": is_error}


def test_a_refusal_is_an_error_result_opening_with_the_refusal_tag():
    """Only the calls Claude Code refused unrun: its other failures reach PostToolUseFailure."""
    line = _results(
        _result("toolu_1", REFUSED),
        _result("toolu_2", "Exit code 1\nno such file"),
        _result("toolu_3", REFUSED, is_error=False),
        _result("toolu_5", "<tool_use_error>Sibling tool call errored</tool_use_error>"),
        _result("toolu_4", [{"type": "text", "text": REFUSED}]),
        _result("toolu_6", "see <tool_use_error>quoted</tool_use_error>"),
        _result("", REFUSED),
        {"type": "text", "text": REFUSED},
    )
    assert hot_claude.refusals(line) == [("toolu_1", REFUSED), ("toolu_4", REFUSED)]
    assert hot_claude.refusals({**line, "type": "assistant"}) == []
    assert hot_claude.refusals({"type": "user", "message": {"content": REFUSED}}) == []
    assert hot_claude.refusals(None) == []
    assert hot_claude.REFUSAL_MARK in json.dumps(line, separators=(",", ":")).encode()


def test_the_refused_call_is_read_from_the_message_that_made_it():
    line = {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "editing"},
                {"type": "tool_use", "id": "toolu_0", "name": "Bash", "input": {"command": "ls"}},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "Edit",
                    "input": {"file_path": "src/a.py", "old_string": "x = 1", "new_string": "y"},
                },
                {"type": "tool_use", "id": "toolu_2", "name": "Task", "input": {"prompt": "go"}},
            ],
        },
    }
    assert hot_claude.refused_call(line, "toolu_1", "/repo") == {
        "tool": "Edit",
        "command": None,
        "paths": ["/repo/src/a.py"],
        "content": "y",
    }
    assert hot_claude.refused_call(line, "toolu_2", "/repo")["tool"] == "Agent"
    assert hot_claude.refused_call(line, "toolu_9", "/repo") is None
    assert hot_claude.refused_call({**line, "type": "user"}, "toolu_1", "/repo") is None
    odd = {"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "toolu_1"}]}}
    assert hot_claude.refused_call(odd, "toolu_1", "/repo") is None
