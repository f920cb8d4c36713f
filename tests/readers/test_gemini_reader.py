"""The Gemini reader: legacy documents streamed by message, the JSONL log, failure signals."""

from __future__ import annotations

import json

import pytest

from lessons_core.scan import events as ev
from lessons_gemini import reader


def _chats(fixtures):
    return next((fixtures / "gemini" / "tmp").iterdir()) / "chats"


def _read(path, **kwargs):
    prog = ev.Progress(messages=kwargs.pop("start_message", 0))
    return list(reader.read(path, progress=prog, **kwargs)), prog


def test_legacy_document_failures(fixtures):
    """``Exit Code: N`` under status success is an error; error/cancelled statuses classify."""
    path = _chats(fixtures) / "session-2025-10-27T19-55-9a8b7c6d.json"
    events, prog = _read(path)
    results = {e.call_id: e for e in events if e.kind == ev.TOOL_RESULT}
    assert (results["run_shell_command-1"].failure, results["run_shell_command-1"].exit_code) == (
        ev.ERROR,
        127,
    )
    assert results["run_shell_command-2"].failure is None
    assert results["list_directory-3"].failure == ev.VALIDATION
    assert results["run_shell_command-5"].failure == ev.REJECTED
    assert prog.session_id == "9a8b7c6d-0000-4000-8000-000000000003"
    assert prog.messages == 9


def test_legacy_lines_are_message_numbers_and_call_ids_set(fixtures):
    """For a whole-document session ``line`` is the message's number; call ids are kept."""
    path = _chats(fixtures) / "session-2025-10-27T19-55-9a8b7c6d.json"
    events, _ = _read(path)
    first_call = next(e for e in events if e.kind == ev.TOOL_CALL)
    assert first_call.line == 2
    assert first_call.call_id == "run_shell_command-1"
    assert first_call.tool == "Bash"


def test_legacy_resume_by_message_count(fixtures):
    """Starting at message N yields only the messages after it."""
    path = _chats(fixtures) / "session-2025-10-27T19-55-9a8b7c6d.json"
    events, prog = _read(path, start_message=7)
    assert {e.line for e in events} == {8, 9}
    assert prog.messages == 9


def test_legacy_stops_before_a_running_call(tmp_path):
    """A message whose tool call is still executing is left for the next scan."""
    doc = {
        "sessionId": "s1",
        "projectHash": "ab" * 32,
        "messages": [
            {"id": "a", "type": "user", "content": "go"},
            {
                "id": "b",
                "type": "gemini",
                "content": "",
                "toolCalls": [
                    {
                        "id": "c",
                        "name": "run_shell_command",
                        "args": {"command": "make"},
                        "status": "executing",
                    }
                ],
            },
        ],
    }
    path = tmp_path / "session-x.json"
    path.write_text(json.dumps(doc))
    events, prog = _read(path)
    assert [e.kind for e in events] == [ev.USER_TEXT]
    assert prog.messages == 1


def test_legacy_document_streams_in_small_chunks(tmp_path, monkeypatch):
    """Decoding works when every message straddles chunk boundaries."""
    monkeypatch.setattr(reader, "_CHUNK", 7)
    messages = [
        {"id": str(i), "type": "user", "content": f"message number {i} " * 5} for i in range(30)
    ]
    path = tmp_path / "session-y.json"
    path.write_text(json.dumps({"sessionId": "s", "messages": messages}, indent=1))
    events, prog = _read(path)
    assert [e.line for e in events] == list(range(1, 31))
    assert prog.messages == 30


def test_jsonl_repeated_ids_rewrites_and_set(fixtures):
    """The JSONL log: a re-appended message counts once, pending calls wait, ``$set`` with
    messages is a compaction, directories give the project."""
    path = _chats(fixtures) / "session-2026-04-29T21-39-11112222.jsonl"
    events, prog = _read(path)
    results = [e for e in events if e.kind == ev.TOOL_RESULT]
    assert [(r.call_id, r.failure) for r in results] == [
        ("replace-1", ev.VALIDATION),
        ("read_file-2", None),
        ("replace-3", None),
    ]
    assert results[0].tool == "Edit"
    assert sum(e.kind == ev.COMPACTION for e in events) == 1
    assert prog.session_id == "11112222-3333-4444-5555-666677778888"
    assert {e.project for e in events} == {"/home/dev/proj"}


def test_unknown_documents_yield_nothing(fixtures):
    """``logs.json`` (prompts only) is not a session and yields no events."""
    events, _ = _read(_chats(fixtures).parent / "logs.json")
    assert events == []


def test_transcript_roots_honour_gemini_cli_home(tmp_path):
    """``GEMINI_CLI_HOME`` replaces the home directory."""
    roots = reader.transcript_roots({"GEMINI_CLI_HOME": str(tmp_path), "HOME": "/nowhere"})
    assert roots == [tmp_path / ".gemini" / "tmp"]


def _facts(events):
    return [(e.kind, e.line, e.call_id, e.failure, e.exit_code, e.text) for e in events]


def test_a_legacy_document_under_a_jsonl_name_is_read_as_the_document(fixtures, tmp_path):
    """Tools that keep copies of sessions name them all ``.jsonl``: a legacy document, pretty
    or on one line, is told by its content and read whole, not refused line by line."""
    source = _chats(fixtures) / "session-2025-10-27T19-55-9a8b7c6d.json"
    want, _ = _read(source)
    doc = json.loads(source.read_text())
    pretty = tmp_path / "pretty" / "full.jsonl"
    pretty.parent.mkdir()
    pretty.write_text(json.dumps(doc, indent=2) + "\n")
    compact = tmp_path / "compact" / "full.jsonl"
    compact.parent.mkdir()
    compact.write_text(json.dumps(doc) + "\n")
    for path in (pretty, compact):
        events, prog = _read(path)
        assert _facts(events) == _facts(want), path
        assert (prog.bad_lines, prog.messages, prog.document) == (0, 9, True)
        assert prog.session_id == "9a8b7c6d-0000-4000-8000-000000000003"


def test_a_jsonl_log_is_still_read_line_by_line(fixtures):
    """The v0.39 log's first line is its metadata, without messages: JSON Lines it stays."""
    path = _chats(fixtures) / "session-2026-04-29T21-39-11112222.jsonl"
    assert not reader.is_document(str(path))
    _, prog = _read(path)
    assert not prog.document


def test_a_replace_call_keeps_its_texts(tmp_path):
    """A ``replace`` call carries the text it expected and the text it wrote: a refused one's
    cause is read from them beside the one that then worked."""
    args = {"file_path": "/w/app.py", "old_string": "  x = 1", "new_string": "  x = 2"}
    doc = {
        "sessionId": "s1",
        "projectHash": "ab" * 32,
        "messages": [
            {
                "id": "b",
                "type": "gemini",
                "content": "",
                "toolCalls": [{"id": "c", "name": "replace", "args": args, "status": "success"}],
            },
        ],
    }
    path = tmp_path / "session-r.json"
    path.write_text(json.dumps(doc))
    (call,) = [e for e in _read(path)[0] if e.kind == ev.TOOL_CALL]
    assert call.paths == ("/w/app.py",)
    assert call.edit == ("  x = 1", "  x = 2")


def test_a_command_the_shell_refused_is_a_failure_though_logged_as_a_success(tmp_path):
    """Gemini CLI's shell refuses a command holding ``$(…)`` before running it and logs the
    call with ``status: success``: its result is a validation failure, as a refused call's."""
    refusal = (
        "Command injection detected: command substitution syntax ($(), backticks, <() or >()) "
        "found in command arguments. This is a security risk and the command was blocked."
    )
    call = {
        "id": "c",
        "name": "run_shell_command",
        "args": {"command": 'echo "v$(cat VERSION)"'},
        "status": "success",
        "result": [{"functionResponse": {"id": "c", "name": "run_shell_command",
                                         "response": {"output": refusal}}}],
    }  # fmt: skip
    ran = {**call, "id": "d", "args": {"command": "cat VERSION"}, "result": [
        {"functionResponse": {"id": "d", "name": "run_shell_command",
                              "response": {"output": "Output: 1.2.3\nExit Code: 0"}}}]}  # fmt: skip
    doc = {
        "sessionId": "s1",
        "projectHash": "ab" * 32,
        "messages": [{"id": "b", "type": "gemini", "content": "", "toolCalls": [call, ran]}],
    }
    path = tmp_path / "session-s.json"
    path.write_text(json.dumps(doc))
    results = [e for e in _read(path)[0] if e.kind == ev.TOOL_RESULT]
    assert [r.failure for r in results] == [ev.VALIDATION, None]
    assert results[0].text.startswith("Command injection detected")


def _jsonl_session(chats, name="session-1.jsonl"):
    chats.mkdir(parents=True, exist_ok=True)
    meta = {"sessionId": "s9", "projectHash": "cd" * 32, "kind": "main"}
    message = {"id": "m1", "type": "user", "content": [{"text": "go"}]}
    path = chats / name
    path.write_text(json.dumps(meta) + "\n" + json.dumps(message) + "\n")
    return path


def test_the_project_is_the_folder_the_cli_names_beside_its_chats(tmp_path):
    """Releases that name ``tmp/<project>/`` after the project keep its folder in
    ``.project_root``; the session itself holds only a hash no hook could match."""
    folder = tmp_path / "tmp" / "shop"
    (folder / "chats").mkdir(parents=True)
    (folder / ".project_root").write_text("/home/dev/shop")
    main = _jsonl_session(folder / "chats")
    sub = _jsonl_session(folder / "chats" / "s9", "agent-1.jsonl")
    assert {e.project for e in _read(main)[0]} == {"/home/dev/shop"}
    assert {e.project for e in _read(sub)[0]} == {"/home/dev/shop"}


@pytest.mark.parametrize(
    "content", ["/home/dev/" + "x" * 5000, "/home/dev/shop\n/home/dev/other", "\xff\xfe"]
)
def test_a_project_root_that_holds_no_path_is_passed_over(tmp_path, content):
    """A ``.project_root`` longer than any path, of two lines, or not text names no folder:
    the session's hash does, and no more than a path's length of the file is read."""
    folder = tmp_path / "tmp" / ("cd" * 32)
    (folder / "chats").mkdir(parents=True)
    (folder / ".project_root").write_bytes(content.encode("latin-1"))
    path = _jsonl_session(folder / "chats")
    assert {e.project for e in _read(path)[0]} == {"gemini:" + "cd" * 8}


def test_without_a_project_root_the_hash_names_the_project(tmp_path):
    path = _jsonl_session(tmp_path / "tmp" / ("cd" * 32) / "chats")
    assert {e.project for e in _read(path)[0]} == {"gemini:" + "cd" * 8}
