"""The Claude Code reader: events, failure classes, positions, layouts and bad lines."""

from __future__ import annotations

import json

from lessons_claude import reader
from lessons_core.scan import events as ev

SESSION = "5f0c2a8e-1111-4c3b-9d7e-000000000001"


def _main(fixtures):
    return fixtures / "claude" / "projects" / "-home-dev-app" / f"{SESSION}.jsonl"


def _read(path, **kwargs):
    prog = ev.Progress()
    return list(reader.read(path, progress=prog, **kwargs)), prog


def test_tool_calls_and_results_are_linked_and_classified(fixtures):
    """Calls carry canonical tool, command and paths; results say why they failed."""
    events, _ = _read(_main(fixtures))
    calls = {e.call_id: e for e in events if e.kind == ev.TOOL_CALL}
    results = {e.call_id: e for e in events if e.kind == ev.TOOL_RESULT}
    assert calls["toolu_01"].tool == "Bash"
    assert calls["toolu_01"].command == "pytest tests/"
    assert calls["toolu_04"].paths == ("/home/dev/app/src/main.py",)
    assert results["toolu_01"].failure == ev.ERROR
    assert results["toolu_01"].exit_code == 127
    assert "command not found" in results["toolu_01"].text
    assert results["toolu_02"].failure is None
    assert results["toolu_04"].failure == ev.VALIDATION
    assert results["toolu_07"].failure == ev.REJECTED
    assert results["toolu_08"].failure == ev.DENIED
    assert results["toolu_16"].failure == ev.TIMEOUT
    assert results["toolu_02"].tool == "Bash"


def test_events_carry_session_project_and_source_position(fixtures):
    """Every event knows its session, project, file, 1-based line and byte offset."""
    path = _main(fixtures)
    events, prog = _read(path)
    raw = path.read_bytes()
    for event in events:
        assert event.session_id == SESSION
        assert event.project == "/home/dev/app"
        assert event.file == str(path)
        line_start = raw[event.offset :].split(b"\n", 1)[0]
        assert raw.count(b"\n", 0, event.offset) == event.line - 1
        assert line_start.startswith(b"{")
    assert prog.offset == len(raw)


def test_bad_and_unknown_lines_cost_only_themselves(fixtures):
    """A truncated JSON line is counted; an unknown record type is skipped silently."""
    events, prog = _read(_main(fixtures))
    assert prog.bad_lines == 1
    assert sum(1 for e in events if e.kind == ev.TOOL_CALL) >= 15


def test_compaction_and_summary_are_compaction_events(fixtures):
    """The boundary and the summary become compaction events, never user text."""
    events, _ = _read(_main(fixtures))
    compactions = [e for e in events if e.kind == ev.COMPACTION]
    assert len(compactions) == 2
    assert not any("continued from a previous" in e.text for e in events if e.kind == ev.USER_TEXT)


def test_rejection_feedback_and_typed_prompts_are_user_text(fixtures):
    """Typed prompts are user text; tool results are not."""
    events, _ = _read(_main(fixtures))
    user = [e.text for e in events if e.kind == ev.USER_TEXT]
    assert "please run the test suite" in user
    assert not any("Our docs show" in t for t in user)


def test_both_subagent_layouts_are_sidechains(fixtures):
    """``<session>/subagents/agent-*.jsonl`` and the older flat ``agent-*.jsonl`` both read."""
    base = fixtures / "claude" / "projects" / "-home-dev-app"
    nested, _ = _read(base / SESSION / "subagents" / "agent-a1b2c3d4e5f6a7b8c.jsonl")
    flat, _ = _read(base / "agent-0a1b2c3d.jsonl")
    for events in (nested, flat):
        assert events and all(e.sidechain for e in events)
        assert any(e.kind == ev.TOOL_RESULT and e.failure == ev.ERROR for e in events)


def test_resume_from_offset_reads_only_the_rest(fixtures):
    """Reading from a saved offset yields exactly the events after it, same line numbers."""
    path = _main(fixtures)
    full, _ = _read(path)
    middle = full[len(full) // 2]
    prog = ev.Progress(middle.offset, middle.line - 1, session_id=SESSION, project="/home/dev/app")
    rest = list(reader.read(path, middle.offset, progress=prog))
    assert [(e.line, e.kind, e.call_id) for e in rest] == [
        (e.line, e.kind, e.call_id) for e in full if e.offset >= middle.offset
    ]


def test_partial_last_line_is_not_consumed(tmp_path):
    """A line still being written stays unread, and the offset stops before it."""
    path = tmp_path / "s.jsonl"
    done = {
        "type": "user",
        "sessionId": "s",
        "cwd": "/p",
        "message": {"role": "user", "content": "hi"},
    }
    path.write_text(json.dumps(done) + "\n" + '{"type":"assistant","sessionId":"s"')
    events, prog = _read(path)
    assert [e.kind for e in events] == [ev.USER_TEXT]
    assert prog.offset == len(json.dumps(done)) + 1
    assert prog.bad_lines == 0


def test_transcript_roots_honour_claude_config_dir(tmp_path):
    """``CLAUDE_CONFIG_DIR`` (comma-separated) replaces the default ``~/.claude``."""
    env = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": f"{tmp_path}/a,{tmp_path}/b"}
    assert reader.transcript_roots(env) == [
        tmp_path / "a" / "projects",
        tmp_path / "b" / "projects",
    ]
    default = reader.transcript_roots({"HOME": str(tmp_path)})
    assert default[0] == tmp_path / ".claude" / "projects"


def test_exit_code_line_is_kept_apart_from_the_output(tmp_path):
    """``Exit code N`` becomes ``exit_code``; the text is what the command printed."""
    lines = [
        {
            "type": "assistant",
            "sessionId": "s",
            "cwd": "/p",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "rg x"}}
                ],
            },
        },
        {
            "type": "user",
            "sessionId": "s",
            "cwd": "/p",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": "Exit code 1\n",
                        "is_error": True,
                    }
                ],
            },
        },
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    events, _ = _read(path)
    result = next(e for e in events if e.kind == ev.TOOL_RESULT)
    assert (result.failure, result.exit_code, result.text) == (ev.ERROR, 1, "")


def test_a_result_read_without_its_predecessors_names_its_own_session_and_directory(tmp_path):
    """A later scan or a piece of a file may start at a result line: the session and directory
    come from the line itself, not from what was read before it."""

    def line(kind: str, session: str, cwd: str, content) -> str:
        record = {
            "parentUuid": None,
            "isSidechain": False,
            "userType": "external",
            "cwd": cwd,
            "sessionId": session,
            "type": kind,
            "message": {"role": kind, "content": content},
        }
        return json.dumps(record, separators=(",", ":")) + "\n"

    call = [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]
    ok = [{"type": "tool_result", "tool_use_id": "t1", "content": "a b"}]
    first = line("assistant", "s-one", "/home/dev/one", call)
    path = tmp_path / "t.jsonl"
    path.write_text(first + line("user", "s-two", "C:\\work\\two", ok))
    prog = ev.Progress(len(first.encode()), 1)
    (result,) = list(reader.read(path, prog.offset, progress=prog))
    assert (result.kind, result.session_id, result.project) == (
        ev.TOOL_RESULT,
        "s-two",
        "C:\\work\\two",
    )
    assert (prog.session_id, prog.project) == ("s-two", "C:\\work\\two")


def _compact(record: dict) -> str:
    return json.dumps(record, separators=(",", ":"))


def test_records_are_told_apart_by_their_first_type(tmp_path):
    """A sub-agent's progress record carries the sub-agent's own messages (a user line with a
    tool result inside): it is bookkeeping of the parent session, not its events. A record the
    head does not name is still searched whole, and a compaction marker is read."""
    envelope = {"parentUuid": None, "isSidechain": False, "cwd": "/p", "sessionId": "s"}
    nested_result = {
        "type": "user",
        "message": {
            "role": "user",
            "content": [{"tool_use_id": "toolu_sub", "type": "tool_result", "content": "ok"}],
        },
    }
    lines = [
        {**envelope, "type": "progress", "data": {"message": nested_result}},
        {**envelope, "attachment": {"type": "hook_success"}, "type": "attachment"},
        {**envelope, "type": "system", "subtype": "compact_boundary", "content": "Compacted"},
        {**envelope, "type": "user", "message": {"role": "user", "content": "run the tests"}},
        {
            **envelope,
            "message": {
                "model": "m",
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": "Running them."}],
            },
            "type": "assistant",
        },
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(_compact(line) + "\n" for line in lines))
    events, prog = _read(path)
    assert [(e.kind, e.line) for e in events] == [
        (ev.COMPACTION, 3),
        (ev.USER_TEXT, 4),
        (ev.ASSISTANT_TEXT, 5),
    ]
    assert prog.bad_lines == 0
