"""The Claude Code reader: events, failure classes, positions, layouts and bad lines."""

from __future__ import annotations

import functools
import json

import pytest

from lessons_claude import reader
from lessons_claude.failures import classify_claude
from lessons_core.scan import events as ev
from lessons_core.scan import lines as scan_lines

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


@pytest.mark.parametrize(
    ("text", "failure"),
    [
        # Claude Code 2.0's typed feedback, stored as the whole result of a declined call
        ("use pnpm here, not npm", ev.REJECTED),
        # the Read of a file over the size limit, as current releases word it: it ran and
        # failed, and its calm words are the tool's, not the user's
        (
            "File content (3.3MB) exceeds maximum allowed size (256KB). Use offset and limit "
            "parameters to read specific portions of the file, or search for specific content "
            "instead of reading the whole file.",
            ev.ERROR,
        ),
        ("File has been unexpectedly modified. Read it again before attempting to write it.",
         ev.VALIDATION),
        ("Refusing to write through symlink: /p/notes.txt. Resolve the symlink and pass the "
         "real target path explicitly.", ev.ERROR),
        # feedback is short: 299 characters may be the user's, 300 are not
        ("w" * 299, ev.REJECTED),
        ("w" * 300, ev.ERROR),
        ("use pnpm\nhere", ev.ERROR),  # nor on two lines
    ],
)  # fmt: skip
def test_a_short_line_is_the_users_only_when_no_tool_says_it(text, failure):
    """The fallback that takes a short, calm line for the user's feedback yields to every line
    a failure class or a mistake class knows."""
    assert classify_claude(text) == (failure, None)


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


def _assistant_call(call_id: str, command: str) -> dict:
    return {
        "type": "assistant",
        "sessionId": "s",
        "cwd": "/p",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command}}
            ],
        },
    }


def test_exit_code_line_is_kept_apart_from_the_output(tmp_path):
    """``Exit code N`` becomes ``exit_code``; the text is what the command printed."""
    lines = [
        _assistant_call("t1", "rg x"),
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


def test_records_are_told_apart_by_their_type(tmp_path):
    """A sub-agent's progress record carries the sub-agent's own messages (a user line with a
    tool result inside): it is bookkeeping of the parent session, not its events. Other
    bookkeeping is passed over, and a compaction marker is read."""
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


def _result_line(call_id: str, *, failed: bool = False, **extra: object) -> dict:
    block = {"tool_use_id": call_id, "type": "tool_result", "content": "Exit code 1\nboom"}
    if failed:
        block["is_error"] = True
    return {
        "type": "user",
        "sessionId": "s",
        "cwd": "/p",
        "message": {"role": "user", "content": [block]},
        **extra,
    }


_GOOD = [
    _compact(_assistant_call("t1", "make")),
    _compact(_result_line("t1", failed=True)),
    _compact(_assistant_call("t2", "make -j1")),
    _compact(_result_line("t2", toolUseResult=[{"type": "text", "text": "done"}])),
]


@pytest.mark.parametrize(
    "odd",
    [
        pytest.param([""], id="blank line"),
        pytest.param(["   "], id="spaces only"),
        pytest.param(['{"type":"summary"} {"type":"user","message":{"content":"hi"}}', ""],
                     id="two objects on a line, and a blank line"),
        pytest.param(['{"type":"user","message":{"content":"hi"}}  '], id="trailing spaces"),
        pytest.param(['{"type":"user","message":{"content":"typed"}}\r'], id="CRLF"),
        pytest.param(['{"type":"user","message":'], id="truncated"),
        pytest.param(["[1, 2]"], id="not an object"),
        pytest.param(['{"type":"user","message":{"content":["a string block"]}}'], id="odd shape"),
        pytest.param(['{"type":"user","toolUseResult":7,"message":{"content":"seven"}}'],
                     id="odd field type"),
    ],
)  # fmt: skip
def test_a_run_gives_the_events_its_lines_give_one_at_a_time(tmp_path, monkeypatch, odd):
    """Lines are decoded a run at a time, and the records must line up with the lines. A run
    holding a line that is not exactly one object (or not of the expected shape) gives the
    same events, positions and bad-line count as reading every line as a run of its own."""
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(_GOOD[:2] + odd + _GOOD[2:]) + "\n")
    together, prog = _read(path)
    monkeypatch.setattr(reader, "iter_runs", functools.partial(scan_lines.iter_runs, chunk_size=1))
    alone, prog_alone = _read(path)
    assert [e.as_dict() for e in together] == [e.as_dict() for e in alone]
    assert (prog.line, prog.offset, prog.bad_lines) == (
        prog_alone.line,
        prog_alone.offset,
        prog_alone.bad_lines,
    )
    assert [(e.kind, e.call_id, e.failure) for e in together if e.kind != ev.USER_TEXT] == [
        (ev.TOOL_CALL, "t1", None),
        (ev.TOOL_RESULT, "t1", ev.ERROR),
        (ev.TOOL_CALL, "t2", None),
        (ev.TOOL_RESULT, "t2", None),
    ]
    assert together[-1].line == len(_GOOD) + len(odd)


def test_text_typed_beside_a_result_is_the_users(tmp_path):
    """A user line can hold a result and, after it, what the user typed while the call ran;
    the envelope after a long result still names the line's directory."""
    line = _result_line("t1")
    line["message"]["content"][0]["content"] = "x" * 5000
    line["message"]["content"].append({"type": "text", "text": "no, use the staging database"})
    line["cwd"] = "/elsewhere"
    path = tmp_path / "s.jsonl"
    path.write_text(_compact(_assistant_call("t1", "psql prod")) + "\n" + _compact(line) + "\n")
    events, _ = _read(path)
    assert [(e.kind, e.line) for e in events] == [
        (ev.TOOL_CALL, 1),
        (ev.TOOL_RESULT, 2),
        (ev.USER_TEXT, 2),
    ]
    assert events[-1].text == "no, use the staging database"
    assert events[-1].project == "/elsewhere"


def test_a_chunk_is_decoded_in_runs_of_bounded_size(tmp_path, monkeypatch):
    """A chunk's lines are decoded at most ``RUN_BYTES`` (or one line) at a time, so a chunk of
    tiny lines cannot make a record for each of them at once; the events are the same."""
    path = tmp_path / "s.jsonl"
    lines = [_compact(_assistant_call(f"t{i}", f"make step{i}")) for i in range(40)]
    path.write_text("\n".join(lines[:20] + ["{}"] * 50 + lines[20:]) + "\n")
    whole, prog = _read(path)
    sizes: list[int] = []
    decode_lines = reader.records.decode_lines

    def spy(view):
        sizes.append(len(view))
        return decode_lines(view)

    monkeypatch.setattr(reader.records, "decode_lines", spy)
    monkeypatch.setattr(reader, "RUN_BYTES", 300)
    runs, prog_runs = _read(path)
    assert [e.as_dict() for e in runs] == [e.as_dict() for e in whole]
    assert (
        (prog_runs.line, prog_runs.offset)
        == (prog.line, prog.offset)
        == (90, len(path.read_bytes()))
    )
    assert len(sizes) > 10 and max(sizes) < 300 + max(map(len, lines)) + 1


def test_only_claude_records_are_recognised_as_claude(tmp_path):
    """Another agent's event log names a session inside its records, and a JSON document
    saved as ``.jsonl`` opens with a lone brace: neither is taken for a Claude transcript,
    while any record Claude Code writes first is (a summary names no session)."""
    from lessons_claude import roots

    def judge(name: str, text: str) -> int:
        path = tmp_path / name
        path.write_text(text)
        return roots.recognize(path, path.read_bytes()[:8192])

    events_log = json.dumps(
        {"type": "session.start", "data": {"sessionId": "c3f0", "version": 1}, "id": "e1"}
    )
    assert judge("events.jsonl", events_log + "\n" + events_log + "\n") == 0
    document = {"sessionId": "s1", "projectHash": "ab" * 32, "messages": []}
    assert judge("full.jsonl", json.dumps(document, indent=2) + "\n") == 0
    summary = {"type": "summary", "summary": "Cache fix", "leafUuid": "2369a617"}
    assert judge("a.jsonl", json.dumps(summary) + "\n") == 1
    snapshot = {"type": "file-history-snapshot", "messageId": "m1", "snapshot": {}}
    assert judge("b.jsonl", json.dumps(snapshot) + "\n") == 1
    user = {"type": "user", "sessionId": "s1", "parentUuid": None, "message": {}}
    assert judge("c.jsonl", json.dumps(user) + "\n") == 1
    assert judge("d.jsonl", json.dumps({**user, "message": {"content": "x" * 9000}})) == 1


def test_an_edit_call_keeps_its_texts(tmp_path):
    """The text an Edit expected and the text it wrote: a refused edit's cause is read from
    them beside the edit that then worked."""
    call = {
        "type": "tool_use",
        "id": "toolu_e1",
        "name": "Edit",
        "input": {"file_path": "/p/a.py", "old_string": "\tx = 1", "new_string": "\tx = 2"},
    }
    line = {
        "type": "assistant",
        "sessionId": "s1",
        "cwd": "/p",
        "message": {"role": "assistant", "content": [call]},
    }
    path = tmp_path / "s1.jsonl"
    path.write_text(json.dumps(line) + "\n")
    (event,) = [e for e in _read(path)[0] if e.kind == ev.TOOL_CALL]
    assert event.edit == ("\tx = 1", "\tx = 2")
