"""The OpenCode hot adapter in-process: payload → event, decision → the plugin's answer."""

from __future__ import annotations

from lessons_opencode import hot_opencode as hot


def _payload(name: str, **extra: object) -> dict[str, object]:
    return {"hook_event_name": name, "session_id": "ses_1", "cwd": "/home/dev/shop", **extra}


def test_tool_names_are_canonical_and_shell_commands_read():
    event = hot.normalize(
        _payload("tool.execute.before", tool="bash", call_id="c1", args={"command": "ls"})
    )
    assert event is not None
    assert (event["event"], event["tool"], event["command"]) == ("pre_tool", "Bash", "ls")
    assert event["call_id"] == "c1" and event["agent"] == "opencode"


def test_a_shell_workdir_becomes_the_calls_directory():
    args = {"command": "make", "workdir": "sub"}
    event = hot.normalize(_payload("tool.execute.before", tool="bash", args=args))
    assert event is not None and event["cwd"] == "/home/dev/shop/sub"


def test_file_tools_give_absolute_paths_and_content():
    args = {"filePath": "src/app.py", "oldString": "a", "newString": "b"}
    event = hot.normalize(_payload("tool.execute.before", tool="edit", args=args))
    assert event is not None
    assert event["tool"] == "Edit"
    assert event["paths"] == ["/home/dev/shop/src/app.py"]
    assert event["content"] == "b"


def test_unknown_tools_keep_their_names():
    event = hot.normalize(_payload("tool.execute.before", tool="github_create_issue", args={}))
    assert event is not None and event["tool"] == "github_create_issue"


def test_exit_status_decides_a_failure():
    ok = hot.normalize(_payload("tool.execute.after", tool="bash", args={}, output="x", exit=0))
    assert ok is not None and ok["event"] == "post_tool" and ok["error"] is None
    bad = hot.normalize(
        _payload("tool.execute.after", tool="bash", args={}, output="boom\n", exit=2)
    )
    assert bad is not None and bad["event"] == "post_failure"
    assert bad["error"] == "boom\nExit code: 2"
    odd = hot.normalize(_payload("tool.execute.after", tool="bash", args={}, exit=True))
    assert odd is not None and odd["event"] == "post_tool"


def test_a_thrown_error_is_a_failure_with_its_text():
    event = hot.normalize(
        _payload("tool.error", tool="read", args={"filePath": "a.txt"}, error="File not found")
    )
    assert event is not None
    assert (event["event"], event["error"], event["paths"]) == (
        "post_failure",
        "File not found",
        ["/home/dev/shop/a.txt"],
    )


def test_sessions_start_afresh_and_children_as_subagents():
    started = hot.normalize(_payload("session.start", source="resume", parent_id=""))
    assert started is not None and (started["event"], started["source"]) == (
        "session_start",
        "startup",
    )
    child = hot.normalize(_payload("session.start", source="startup", parent_id="ses_0"))
    assert child is not None and child["event"] == "subagent_start"


def test_other_payloads_are_ignored():
    assert hot.normalize({"hook_event_name": "PreToolUse"}) is None
    assert hot.normalize([1]) is None
    assert hot.normalize(_payload("event")) is None


def test_render_denies_only_before_the_call():
    before = hot.normalize(_payload("tool.execute.before", tool="bash", args={}))
    after = hot.normalize(_payload("tool.execute.after", tool="bash", args={}))
    decision = {"deny": "  ", "context": None, "trailer": None}
    assert hot.render(before, decision) == {"deny": hot.DEFAULT_DENY}
    assert hot.render(after, decision) is None


def test_render_context_with_its_trailer():
    event = hot.normalize(_payload("chat.message", prompt="hi"))
    decision = {"deny": None, "context": "remember", "trailer": "<!-- t -->"}
    assert hot.render(event, decision) == {"context": "remember\n<!-- t -->"}
    idle = hot.normalize(_payload("session.idle"))
    assert hot.render(idle, decision) is None
    assert hot.render(None, decision) is None
