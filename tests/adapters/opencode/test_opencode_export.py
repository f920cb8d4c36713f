"""Reading exported OpenCode sessions: events, the lines they cite, resuming, other files.

The documents are written as ``opencode export`` writes them (``JSON.stringify`` with two-space
indents, ``{info, messages: [{info, parts}]}``), under the ``full.jsonl`` name checkpoint tools
give them; the parts have the shapes OpenCode 1.14 records.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from lessons_core import services
from lessons_core.scan import discovery, engine
from lessons_core.scan import events as ev
from lessons_opencode import reader, roots

OLD = 1_700_000_000_000  # long ago: nothing is "still being written"
SESSION = "ses_2b7f0c1d9ffeA1b2C3d4E5f6G7"
LESSON = """Done.

#lesson
mistake: ran `pip install` outside the project's virtualenv and got "externally managed"
fix: install with `uv pip install` inside the project's `.venv`
trigger: \\bpip install\\b
#/lesson
"""


def _tool(call_id: str, tool: str, state: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool", "tool": tool, "callID": call_id, "state": state}


def _done(input_: dict[str, Any], output: str, **metadata: Any) -> dict[str, Any]:
    state: dict[str, Any] = {"status": "completed", "input": input_, "output": output}
    if metadata:
        state["metadata"] = metadata
    state["title"] = ""
    state["time"] = {"start": OLD, "end": OLD + 1}
    return state


def _messages() -> list[dict[str, Any]]:
    """A user prompt, then the agent: a failing install, a refused edit, a call OpenCode could
    not parse, the fix, and an answer with a ``#lesson`` block."""
    assistant = {"role": "assistant", "time": {"created": OLD, "completed": OLD + 9}}
    return [
        {
            "info": {"role": "user", "time": {"created": OLD}},
            "parts": [
                {"type": "text", "text": "install requests and fix the import"},
                {"type": "text", "text": "(a file the editor attached)", "synthetic": True},
            ],
        },
        {
            "info": assistant,
            "parts": [
                {"type": "step-start", "snapshot": "fe46"},
                {"type": "reasoning", "text": "installing first"},
                _tool(
                    "call_1",
                    "bash",
                    _done(
                        {"command": "pip install requests", "description": "install"},
                        "error: externally-managed-environment\n",
                        exit=1,
                    ),
                ),
                {"type": "step-finish", "reason": "tool-calls"},
            ],
        },
        {
            "info": assistant,
            "parts": [
                _tool(
                    "call_2",
                    "edit",
                    {
                        "status": "error",
                        "input": {"filePath": "/home/dev/shop/app.py", "oldString": "import x"},
                        "error": "Could not find oldString in the file. It must match exactly.",
                        "time": {"start": OLD, "end": OLD + 1},
                    },
                ),
                _tool(
                    "call_3",
                    "invalid",
                    _done(
                        {"tool": "bash", "error": "Invalid input for tool bash: JSON parsing"},
                        "The arguments provided to the tool are invalid: JSON parsing failed",
                    ),
                ),
            ],
        },
        {
            "info": assistant,
            "parts": [
                _tool(
                    "call_4",
                    "bash",
                    _done(
                        {"command": "uv pip install requests", "description": "install"},
                        "Installed 1 package\n",
                        exit=0,
                    ),
                ),
                {"type": "text", "text": LESSON},
            ],
        },
    ]


def _ids(doc: dict[str, Any]) -> dict[str, Any]:
    """Give every message and part the ids OpenCode gives them (in order, as it does)."""
    n = 0
    for m, message in enumerate(doc["messages"]):
        message["info"] = {"id": f"msg_{m:04d}", "sessionID": doc["info"]["id"], **message["info"]}
        for part in message["parts"]:
            n += 1
            part.update(id=f"prt_{n:04d}", sessionID=doc["info"]["id"], messageID=f"msg_{m:04d}")
    return doc


def _export(messages: list[dict[str, Any]], **info: Any) -> dict[str, Any]:
    session = {
        "id": SESSION,
        "slug": "brave-garden",
        "projectID": "bf59adfa4bf2212a51ffe1c8174a93decd0fcfae",
        "directory": "/home/dev/shop",
        "title": "Fix the import",
        "version": "1.14.30",
        "summary": {"additions": 1, "deletions": 0, "files": 1},
        "time": {"created": OLD, "updated": OLD + 9},
        **info,
    }
    return _ids({"info": session, "messages": messages})


def _write(path: Path, doc: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _line_of(path: Path, needle: str) -> int:
    """The 1-based line of ``path`` holding ``needle`` (the labels' rule, by hand)."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(needle)


def _read(path: Path, prog: ev.Progress | None = None) -> tuple[list[ev.Event], ev.Progress]:
    prog = prog if prog is not None else ev.Progress()
    return list(reader.read(path, progress=prog)), prog


def test_parts_become_the_databases_events(tmp_path):
    """A user prompt, each call and its result, the answer's text: what the database gives."""
    path = _write(tmp_path / "full.jsonl", _export(_messages()))
    events, prog = _read(path)
    kinds = [(e.kind, e.call_id) for e in events]
    assert kinds == [
        (ev.USER_TEXT, None),
        (ev.TOOL_CALL, "call_1"),
        (ev.TOOL_RESULT, "call_1"),
        (ev.TOOL_CALL, "call_2"),
        (ev.TOOL_RESULT, "call_2"),
        (ev.TOOL_CALL, "call_3"),
        (ev.TOOL_RESULT, "call_3"),
        (ev.TOOL_CALL, "call_4"),
        (ev.TOOL_RESULT, "call_4"),
        (ev.ASSISTANT_TEXT, None),
    ]
    results = {e.call_id: e for e in events if e.kind == ev.TOOL_RESULT}
    assert (results["call_1"].failure, results["call_1"].exit_code) == (ev.ERROR, 1)
    assert "externally-managed" in results["call_1"].text
    assert results["call_2"].failure is not None
    assert results["call_4"].failure is None
    calls = {e.call_id: e for e in events if e.kind == ev.TOOL_CALL}
    assert (calls["call_1"].tool, calls["call_1"].command) == ("Bash", "pip install requests")
    assert calls["call_2"].paths == ("/home/dev/shop/app.py",)
    assert events[0].text == "install requests and fix the import"
    assert "#lesson" in events[-1].text
    assert {(e.session_id, e.project, e.sidechain) for e in events} == {
        (SESSION, "/home/dev/shop", False)
    }
    assert events[0].time == "2023-11-14T22:13:20.000Z"
    assert (prog.messages, prog.document, prog.bad_lines) == (4, True, 0)


def test_a_call_opencode_could_not_parse_is_the_meant_tool_refused(tmp_path):
    """A part of the ``invalid`` tool is the call the model meant, refused as malformed."""
    path = _write(tmp_path / "full.jsonl", _export(_messages()))
    events, _ = _read(path)
    call, result = (e for e in events if e.call_id == "call_3")
    assert (call.tool, call.native_tool, call.command) == ("Bash", "bash", None)
    assert result.failure == ev.VALIDATION
    assert "invalid" in result.text


def test_lines_are_those_holding_the_call_id_or_the_part_id(tmp_path):
    """A call's events cite the line with its ``"callID"``, a text the line with its part's
    ``"id"``: the lines the capture evaluation's labels name."""
    path = _write(tmp_path / "full.jsonl", _export(_messages()))
    events, _ = _read(path)
    for event in events:
        if event.call_id:
            assert event.line == _line_of(path, f'"callID": "{event.call_id}"'), event
    texts = [e for e in events if e.kind in (ev.USER_TEXT, ev.ASSISTANT_TEXT)]
    assert [e.line for e in texts] == [
        _line_of(path, '"id": "prt_0001"'),
        _line_of(path, '"id": "prt_0010"'),
    ]


def test_a_call_id_used_again_gets_the_line_of_its_own_part(tmp_path):
    """Some providers number calls afresh in every step: each part still cites its own line."""
    messages = _messages()
    for message in messages:
        for part in message["parts"]:
            if part.get("type") == "tool":
                part["callID"] = "functions.bash:0"
    path = _write(tmp_path / "full.jsonl", _export(messages))
    events, _ = _read(path)
    lines = [e.line for e in events if e.kind == ev.TOOL_CALL]
    text = path.read_text().splitlines()
    assert lines == [n for n, line in enumerate(text, 1) if '"callID": "functions.bash:0"' in line]


def test_a_compact_export_and_a_large_one_read_alike(tmp_path, monkeypatch):
    """The same session on one line, or read through a buffer smaller than a message."""
    doc = _export(_messages())
    pretty = _write(tmp_path / "a" / "full.jsonl", doc)
    compact = tmp_path / "b" / "session.json"
    compact.parent.mkdir()
    compact.write_text(json.dumps(doc, separators=(",", ":")))
    want = [(e.kind, e.call_id, e.failure, e.text) for e in _read(pretty)[0]]
    got, _ = _read(compact)
    assert [(e.kind, e.call_id, e.failure, e.text) for e in got] == want
    assert {e.line for e in got} == {1}
    from lessons_opencode import export

    lines = [e.line for e in _read(pretty)[0]]
    monkeypatch.setattr(export, "_CHUNK", 64)
    small, _ = _read(pretty)
    assert [(e.kind, e.call_id, e.failure, e.text) for e in small] == want
    assert [e.line for e in small] == lines


def test_a_second_read_starts_after_the_messages_read(tmp_path):
    """The resume point is a message count: the messages after it, with their own lines."""
    path = _write(tmp_path / "full.jsonl", _export(_messages()))
    whole, _ = _read(path)
    rest, prog = _read(path, ev.Progress(messages=2))
    assert rest == [e for e in whole if e.line > _line_of(path, '"id": "msg_0002"')]
    assert prog.messages == 4


def test_a_message_still_being_answered_stops_the_read(tmp_path):
    """An export taken while the agent worked: the unfinished message waits for the next scan,
    unless it is old enough that the session is not coming back."""
    now = int(time.time() * 1000)
    messages = _messages()
    running = messages[2]
    running["info"] = {"role": "assistant", "time": {"created": now}}
    running["parts"][0]["state"] = {"status": "running", "input": {"filePath": "/x"}}
    path = _write(tmp_path / "full.jsonl", _export(messages))
    events, prog = _read(path)
    assert {e.call_id for e in events if e.call_id} == {"call_1"}
    assert prog.messages == 2
    running["info"]["time"] = {"created": OLD}
    path = _write(tmp_path / "full.jsonl", _export(messages))
    events, prog = _read(path)
    assert [e.failure for e in events if e.call_id == "call_2"] == [None, ev.INTERRUPTED]
    assert prog.messages == 4


def test_a_sub_agents_session_is_a_sidechain(tmp_path):
    """A session started by the ``task`` tool names its parent: its events are a sidechain."""
    path = _write(tmp_path / "full.jsonl", _export(_messages(), parentID="ses_2b7f0c1d0000"))
    events, _ = _read(path)
    assert events
    assert all(e.sidechain for e in events)


def test_other_json_yields_nothing(tmp_path):
    """A JSON file that is no export, and a broken one, yield nothing and raise nothing."""
    other = tmp_path / "data.json"
    other.write_text(json.dumps({"name": "x", "items": [1, 2]}, indent=2))
    assert _read(other)[0] == []
    broken = _write(tmp_path / "full.jsonl", _export(_messages()))
    broken.write_text(broken.read_text()[:-400])
    events, prog = _read(broken)
    assert prog.bad_lines == 1
    assert [e.call_id for e in events if e.kind == ev.TOOL_RESULT] == ["call_1", "call_2", "call_3"]


def test_an_export_is_told_from_a_gemini_document_and_a_database(tmp_path):
    """``lessons scan FILE`` gives an export to OpenCode whatever its name, and a Gemini CLI
    session (a JSON document with ``messages`` too) to Gemini."""
    export = _write(tmp_path / "full.jsonl", _export(_messages()))
    named = _write(tmp_path / "session.json", _export(_messages()))
    gemini = tmp_path / "session-2026-01-02T10-00-1a2b3c4d.json"
    gemini.write_text(
        json.dumps({"sessionId": "1a2b3c4d", "projectHash": "ab" * 32, "messages": []}, indent=2)
    )
    assert roots.recognize(export, export.read_bytes()[:8192]) == 3
    assert roots.recognize(gemini, gemini.read_bytes()) == 0
    with services.session() as sess:
        agents = sess.plugins.agents()
    assert discovery.sniff(export, agents) == "opencode"
    assert discovery.sniff(named, agents) == "opencode"
    assert discovery.sniff(gemini, agents) == "gemini"


@pytest.fixture(name="lesson_export")
def fixture_lesson_export(tmp_path) -> tuple[Path, dict[str, Any]]:
    doc = _export(_messages())
    return _write(tmp_path / "checkpoints" / "0" / "full.jsonl", doc), doc


def test_a_scan_cites_the_lines_of_the_export_and_resumes_by_messages(lesson_export):
    """``lessons scan`` of an export: the ``#lesson`` block's candidate cites its part's line;
    the export taken again with a message more is read from the messages read before."""
    path, doc = lesson_export
    with services.session() as sess:
        report = engine.run_scan(sess, paths=[path])
        state = sess.store.get_scan_state(str(path.resolve()))
    lessons = [c for c in report.new if c.tier == 1]
    assert [c.agent for c in lessons] == ["opencode"]
    assert [(e.line, e.session_id) for e in lessons[0].evidence] == [
        (_line_of(path, '"id": "prt_0010"'), SESSION)
    ]
    assert state is not None
    assert (state["document"], state["messages"]) == (True, 4)
    doc["messages"].append(
        {
            "info": {"role": "user", "time": {"created": OLD + 20}},
            "parts": [{"type": "text", "text": "thanks"}],
        }
    )
    _write(path, _ids(doc))
    with services.session() as sess:
        again = engine.run_scan(sess, paths=[path])
        state = sess.store.get_scan_state(str(path.resolve()))
    assert again.new == []
    assert state is not None
    assert state["messages"] == 5
