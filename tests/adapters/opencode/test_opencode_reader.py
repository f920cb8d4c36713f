"""Reading OpenCode's session database: events, resuming, unfinished parts, other files.

The tables are those OpenCode 1.18 creates (only the columns the reader looks at are filled in
with care); rows are inserted as OpenCode writes them, one part per row, in order.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from lessons_core.scan import events as ev
from lessons_opencode import reader, roots
from transcript_support import OPENCODE_SCHEMA

OLD = 1_700_000_000_000  # long ago: nothing is "still being written"


#: Every database a test opened, closed after it (an unclosed connection warns on 3.13).
_OPEN: list[sqlite3.Connection] = []


@pytest.fixture(autouse=True)
def _close_databases() -> Iterator[None]:
    yield
    while _OPEN:
        _OPEN.pop().close()


class Db:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn = sqlite3.connect(path)
        _OPEN.append(self.conn)
        self.conn.executescript(OPENCODE_SCHEMA)
        self.n = 0

    def session(self, sid: str, directory: str = "/home/dev/shop", parent: str | None = None):
        self.conn.execute(
            "INSERT INTO session VALUES (?, 'global', NULL, ?, 'slug', ?, NULL, 't', '1.18', ?, ?)",
            (sid, parent, directory, OLD, OLD),
        )

    def message(self, mid: str, sid: str, data: dict[str, Any], created: int = OLD) -> None:
        self.conn.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            (mid, sid, created, created, json.dumps(data)),
        )

    def part(self, mid: str, sid: str, data: dict[str, Any], created: int = OLD) -> str:
        self.n += 1
        pid = f"prt_{self.n:04d}"
        self.conn.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
            (pid, mid, sid, created, created, json.dumps(data)),
        )
        self.conn.commit()
        return pid

    def update(self, pid: str, data: dict[str, Any]) -> None:
        self.conn.execute("UPDATE part SET data = ? WHERE id = ?", (json.dumps(data), pid))
        self.conn.commit()


DONE = {"role": "assistant", "time": {"created": OLD, "completed": OLD + 5}}


def _session(db: Db) -> None:
    db.session("ses_a")
    db.message("msg_1", "ses_a", {"role": "user", "time": {"created": OLD}})
    db.part("msg_1", "ses_a", {"type": "text", "text": "run the tests"})
    db.part("msg_1", "ses_a", {"type": "text", "text": "added by a plugin", "synthetic": True})
    db.message("msg_2", "ses_a", DONE)
    db.part("msg_2", "ses_a", {"type": "step-start"})
    state = {
        "status": "completed",
        "input": {"command": "pytest -q", "description": "tests"},
        "output": "E   ModuleNotFoundError: No module named 'x'\n",
        "metadata": {"exit": 2},
    }
    db.part("msg_2", "ses_a", {"type": "tool", "tool": "bash", "callID": "c1", "state": state})
    err = {
        "status": "error",
        "input": {"filePath": "/home/dev/shop/a.txt"},
        "error": "File not found",
    }
    db.part("msg_2", "ses_a", {"type": "tool", "tool": "read", "callID": "c2", "state": err})
    db.part("msg_2", "ses_a", {"type": "text", "text": "#lesson\nmistake: m\nfix: f\n#/lesson"})
    db.part("msg_2", "ses_a", {"type": "compaction", "auto": True})


def _read(path: Path, prog: ev.Progress | None = None) -> tuple[list[ev.Event], ev.Progress]:
    prog = prog or ev.Progress(0, 0)
    return list(reader.read(path, 0, progress=prog)), prog


def test_parts_become_events(tmp_path):
    db = Db(tmp_path / "opencode.db")
    _session(db)
    events, prog = _read(db.path)
    kinds = [(e.kind, e.tool) for e in events]
    assert kinds == [
        (ev.USER_TEXT, None),
        (ev.TOOL_CALL, "Bash"),
        (ev.TOOL_RESULT, "Bash"),
        (ev.TOOL_CALL, "Read"),
        (ev.TOOL_RESULT, "Read"),
        (ev.ASSISTANT_TEXT, None),
        (ev.COMPACTION, None),
    ]
    call, result = events[1], events[2]
    assert call.command == "pytest -q" and call.call_id == "c1" and call.native_tool == "bash"
    assert result.failure == ev.ERROR and result.exit_code == 2
    assert "ModuleNotFoundError" in result.text
    assert events[3].paths == ("/home/dev/shop/a.txt",)
    assert events[4].failure == ev.ERROR and events[4].text == "File not found"
    assert {e.session_id for e in events} == {"ses_a"}
    assert {e.project for e in events} == {"/home/dev/shop"}
    assert all(e.file == str(db.path) and e.agent == "opencode" for e in events)
    assert events[0].time == "2023-11-14T22:13:20.000Z"
    assert prog.line == db.n  # every part consumed, the bookkeeping ones too


def test_a_second_read_starts_after_the_last_part(tmp_path):
    db = Db(tmp_path / "opencode.db")
    _session(db)
    _, prog = _read(db.path)
    db.message("msg_3", "ses_a", DONE)
    db.part("msg_3", "ses_a", {"type": "text", "text": "later"})
    events, prog = _read(db.path, ev.Progress(0, prog.line))
    assert [e.text for e in events] == ["later"]
    assert events[0].line == db.n


def test_reading_stops_before_a_part_still_being_written(tmp_path):
    db = Db(tmp_path / "opencode.db")
    now = int(time.time() * 1000)
    db.session("ses_b")
    db.message("msg_1", "ses_b", {"role": "assistant", "time": {"created": now}}, created=now)
    running = {"status": "running", "input": {"command": "sleep 9"}}
    pid = db.part(
        "msg_1", "ses_b", {"type": "tool", "tool": "bash", "callID": "c", "state": running}, now
    )
    events, prog = _read(db.path)
    assert events == [] and prog.line == 0
    done = {**running, "status": "completed", "output": "", "metadata": {"exit": 0}}
    db.update(pid, {"type": "tool", "tool": "bash", "callID": "c", "state": done})
    db.conn.execute(
        "UPDATE message SET data = ?", (json.dumps({**DONE, "time": {"completed": now}}),)
    )
    db.conn.commit()
    events, prog = _read(db.path)
    assert [e.kind for e in events] == [ev.TOOL_CALL, ev.TOOL_RESULT]
    assert events[1].failure is None and events[1].exit_code == 0


def test_an_abandoned_call_is_read_as_interrupted(tmp_path):
    db = Db(tmp_path / "opencode.db")
    db.session("ses_c")
    db.message("msg_1", "ses_c", {"role": "assistant", "time": {"created": OLD}})
    running = {"status": "running", "input": {"command": "sleep 9"}}
    db.part("msg_1", "ses_c", {"type": "tool", "tool": "bash", "callID": "c", "state": running})
    events, _ = _read(db.path)
    assert events[-1].failure == ev.INTERRUPTED


def test_a_call_opencode_could_not_parse_is_refused_as_malformed(tmp_path):
    """OpenCode records a call it could not parse as a ``completed`` part of its ``invalid``
    tool: it is the meant tool's call, failed as malformed (not a success)."""
    db = Db(tmp_path / "opencode.db")
    db.session("ses_i")
    db.message("msg_1", "ses_i", DONE)
    state = {
        "status": "completed",
        "input": {"tool": "bash", "error": "Invalid input for tool bash: JSON parsing failed"},
        "output": "The arguments provided to the tool are invalid: JSON parsing failed",
    }
    db.part("msg_1", "ses_i", {"type": "tool", "tool": "invalid", "callID": "c9", "state": state})
    call, result = _read(db.path)[0]
    assert (call.tool, call.native_tool, call.command, call.call_id) == ("Bash", "bash", None, "c9")
    assert (result.failure, result.tool) == (ev.VALIDATION, "Bash")
    assert result.text.startswith("The arguments provided to the tool are invalid")


def test_a_call_its_tool_schema_refused_is_malformed(tmp_path):
    """A bash call without an argument the tool's schema requires ends in an ``error`` part
    whose text says so: refused as malformed before it ran, not a failed command."""
    db = Db(tmp_path / "opencode.db")
    db.session("ses_s")
    db.message("msg_1", "ses_s", DONE)
    state = {
        "status": "error",
        "input": {"command": "ls -la src"},
        "error": "The bash tool was called with invalid arguments: SchemaError(Missing key\n"
        '  at ["description"]).\nPlease rewrite the input so it satisfies the expected schema.',
    }
    db.part("msg_1", "ses_s", {"type": "tool", "tool": "bash", "callID": "c3", "state": state})
    call, result = _read(db.path)[0]
    assert call.command == "ls -la src"
    assert result.failure == ev.VALIDATION and result.exit_code is None
    assert '["description"]' in result.text


def test_a_child_session_is_a_sidechain(tmp_path):
    db = Db(tmp_path / "opencode.db")
    db.session("ses_p")
    db.session("ses_k", parent="ses_p")
    db.message("msg_1", "ses_k", DONE)
    db.part("msg_1", "ses_k", {"type": "text", "text": "from the sub-agent"})
    (event,) = _read(db.path)[0]
    assert event.sidechain and event.session_id == "ses_k"


def test_other_files_yield_nothing(tmp_path):
    other = tmp_path / "other.db"
    with closing(sqlite3.connect(other)) as conn, conn:
        conn.execute("CREATE TABLE t (x)")
    assert _read(other)[0] == []
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    assert _read(junk)[0] == []
    assert _read(tmp_path / "missing.db")[0] == []


def test_roots_follow_xdg_and_opencode_db():
    env = {"HOME": "/home/dev"}
    assert roots.transcript_roots(env) == [Path("/home/dev/.local/share/opencode")]
    env = {"HOME": "/home/dev", "XDG_DATA_HOME": "/data", "OPENCODE_DB": "/srv/oc/my.db"}
    assert roots.transcript_roots(env) == [Path("/data/opencode"), Path("/srv/oc")]
    env = {"HOME": "/home/dev", "OPENCODE_DB": "beta.db"}
    assert roots.transcript_roots(env) == [Path("/home/dev/.local/share/opencode")]


def test_a_part_nested_deeper_than_the_parser_goes_costs_only_itself(tmp_path):
    """A part whose JSON nests thousands deep makes the parser raise RecursionError: it is
    counted as bad, and the parts after it are still read."""
    db = Db(tmp_path / "opencode.db")
    _session(db)
    deep = "[" * 100_000 + "]" * 100_000
    db.conn.execute(
        "INSERT INTO part VALUES ('prt_deep', 'msg_2', 'ses_a', ?, ?, ?)", (OLD, OLD, deep)
    )
    db.part("msg_2", "ses_a", {"type": "text", "text": "after the deep part"})
    events, prog = _read(db.path)
    assert events[-1].text == "after the deep part"
    assert prog.bad_lines == 1


def _one_call(tmp_path: Path, tool: str, state: dict[str, Any]) -> tuple[ev.Event, ev.Event]:
    """The call and result events of a session holding one finished ``tool`` part."""
    db = Db(tmp_path / "opencode.db")
    db.session("ses_f")
    db.message("msg_1", "ses_f", DONE)
    db.part("msg_1", "ses_f", {"type": "tool", "tool": tool, "callID": "c1", "state": state})
    call, result = _read(db.path)[0]
    return call, result


def _shell(output: str, exit_code: int | None, **args: Any) -> dict[str, Any]:
    return {
        "status": "completed",
        "input": {"command": "npm run dev", "description": "d", **args},
        "output": output,
        "metadata": {"output": output, "exit": exit_code, "description": "d"},
    }


def _errored(tool_input: dict[str, Any], error: str, **metadata: Any) -> dict[str, Any]:
    """A tool part's state when the call threw: its input, the error, and any metadata."""
    state = {"status": "error", "input": tool_input, "error": error}
    return {**state, "metadata": metadata} if metadata else state


@pytest.mark.parametrize("block", ["bash_metadata", "shell_metadata"])
def test_a_command_the_shell_tool_killed_for_its_timeout_timed_out(tmp_path, block):
    """The shell tool kills a command that outlives its timeout and says so in a note at the
    end of the output; the killed command has no exit code, so the note alone tells a hang
    from a success."""
    out = (
        "ready on :3000\n"
        * 200
        + f"\n\n<{block}>\nbash tool terminated command after exceeding timeout 120000 ms."
        f" If this command is expected to take longer, retry with a larger timeout.\n</{block}>"
    )
    _, result = _one_call(tmp_path, "bash", _shell(out, None))
    assert result.failure == ev.TIMEOUT and result.exit_code is None


def test_a_command_the_user_aborted_is_interrupted(tmp_path):
    out = "watching…\n\n<bash_metadata>\nUser aborted the command\n</bash_metadata>"
    _, result = _one_call(tmp_path, "bash", _shell(out, None))
    assert result.failure == ev.INTERRUPTED


def test_a_command_without_an_exit_code_or_a_note_worked(tmp_path):
    _, result = _one_call(tmp_path, "bash", _shell("done\n", None))
    assert result.failure is None and result.exit_code is None


def test_a_note_quoted_in_the_middle_of_an_output_is_the_command_s_own(tmp_path):
    """Only the block that closes the output is the tool's note: a log the command printed
    that quotes one is its output, judged by its exit code."""
    quoted = "<bash_metadata>\nUser aborted the command\n</bash_metadata>\nall good\n"
    _, result = _one_call(tmp_path, "bash", _shell(quoted, 0))
    assert result.failure is None and result.exit_code == 0


def test_a_call_cut_short_by_the_user_is_interrupted_not_an_error(tmp_path):
    command = {"command": "sleep 100", "description": "wait"}
    state = _errored(command, "Tool execution aborted", interrupted=True)
    _, result = _one_call(tmp_path, "bash", state)
    assert result.failure == ev.INTERRUPTED and not result.is_mistake


def test_a_call_a_permission_rule_blocked_is_denied(tmp_path):
    state = _errored(
        {"command": "git push origin main", "description": "push"},
        "Error: The user has specified a rule which prevents you from using this "
        'specific tool call. Here are some of the relevant rules [{"permission":"bash",'
        '"pattern":"git push *","action":"deny"}]',
    )
    _, result = _one_call(tmp_path, "bash", state)
    assert result.failure == ev.DENIED


@pytest.mark.parametrize(
    "text",
    [
        "Error: Could not find oldString in the file. It must match exactly, including"
        " whitespace, indentation, and line endings.",
        "Error: oldString not found in content",
        "Error: Found multiple matches for oldString. Provide more surrounding context to make"
        " the match unique.",
        "Error: You must read file /home/dev/shop/a.py before overwriting it. Use the Read tool"
        " first",
        "Error: File /home/dev/shop/a.py has been modified since it was last read.\n"
        "Last modification: 2026-01-01T10:00:00.000Z",
    ],
)
def test_an_edit_the_tool_refused_is_malformed_like_claude_s(tmp_path, text):
    """OpenCode's edit and write tools refuse a call in their own words: read as the same
    refusals Claude Code's tools make (stale or ambiguous text, a file not read)."""
    edit = {"filePath": "/home/dev/shop/a.py", "oldString": "x = 1", "newString": "x = 2"}
    state = _errored(edit, text)
    call, result = _one_call(tmp_path, "edit", state)
    assert call.tool == "Edit" and call.edit == ("x = 1", "x = 2")
    assert result.failure == ev.VALIDATION


def test_a_shell_call_s_workdir_is_its_cwd(tmp_path):
    """The directory a shell call asked to run in is its own, as Codex's ``workdir`` is: the
    same command in another directory is another call."""
    call, _ = _one_call(tmp_path, "bash", _shell("ok\n", 0, workdir="/home/dev/shop/web"))
    assert call.cwd == "/home/dev/shop/web"


def test_a_shell_call_without_a_workdir_has_no_cwd_of_its_own(tmp_path):
    call, _ = _one_call(tmp_path, "bash", _shell("ok\n", 0))
    assert call.cwd is None


def test_a_call_the_metadata_says_was_interrupted_is_interrupted_whatever_its_text(tmp_path):
    """``metadata.interrupted`` is OpenCode's own mark of a call cut short: it decides even
    when the text is not the usual one."""
    command = {"command": "npm test", "description": "tests"}
    state = _errored(command, "Error: The operation was aborted.", interrupted=True)
    _, result = _one_call(tmp_path, "bash", state)
    assert result.failure == ev.INTERRUPTED


@pytest.mark.parametrize("metadata", [{}, {"interrupted": False}, {"output": "partial"}])
def test_an_error_part_not_marked_interrupted_is_read_by_its_text(tmp_path, metadata):
    state = _errored(
        {"filePath": "/home/dev/shop/a.py"}, "Error: File /home/dev/shop/a.py not found"
    )
    state["metadata"] = metadata
    _, result = _one_call(tmp_path, "read", state)
    assert result.failure == ev.ERROR


def test_a_note_written_on_one_line_is_read_alike(tmp_path):
    out = "watching…\n\n<shell_metadata>User aborted the command</shell_metadata>\n"
    _, result = _one_call(tmp_path, "bash", _shell(out, None))
    assert result.failure == ev.INTERRUPTED


def _note_of(size: int) -> str:
    """A timeout note of exactly ``size`` characters, from its opening tag to the end."""
    head = "<bash_metadata>\nbash tool terminated command after exceeding timeout 120000 ms."
    tail = "\n</bash_metadata>"
    return head + " " * (size - len(head) - len(tail)) + tail


def test_the_note_is_looked_for_in_the_last_2000_characters(tmp_path):
    """The note is short and closes the output: only the output's last 2,000 characters are
    searched for it, so a long output costs no more than a short one."""
    _, result = _one_call(tmp_path, "bash", _shell("x\n" * 50 + _note_of(2000), None))
    assert result.failure == ev.TIMEOUT
    (tmp_path / "b").mkdir()
    _, result = _one_call(tmp_path / "b", "bash", _shell("x\n" * 50 + _note_of(2001), None))
    assert result.failure is None


def test_a_tool_that_records_an_exit_code_fails_by_it(tmp_path):
    """Not only the shell tool records ``metadata.exit`` (a plugin's tool running a command
    does): a non-zero code is a failed command whatever the tool."""
    state = {
        "status": "completed",
        "input": {"script": "lint"},
        "output": "3 problems\n",
        "metadata": {"exit": 1},
    }
    _, result = _one_call(tmp_path, "run_script", state)
    assert result.failure == ev.ERROR and result.exit_code == 1
    (tmp_path / "b").mkdir()
    _, result = _one_call(tmp_path / "b", "webfetch", {**state, "metadata": {}})
    assert result.failure is None and result.exit_code is None


def test_an_empty_text_part_is_no_event(tmp_path):
    db = Db(tmp_path / "opencode.db")
    db.session("ses_e")
    db.message("msg_1", "ses_e", DONE)
    db.part("msg_1", "ses_e", {"type": "text", "text": ""})
    db.part("msg_1", "ses_e", {"type": "text", "text": "then words"})
    assert [e.text for e in _read(db.path)[0]] == ["then words"]


def test_a_read_without_progress_starts_at_the_first_part(tmp_path):
    db = Db(tmp_path / "opencode.db")
    _session(db)
    events = list(reader.read(db.path))
    assert events[0].kind == ev.USER_TEXT and events[0].text == "run the tests"


def test_a_finished_call_of_an_answer_still_being_written_is_read_at_once(tmp_path):
    """A call that finished will not change, though the answer around it goes on."""
    db = Db(tmp_path / "opencode.db")
    now = int(time.time() * 1000)
    db.session("ses_g")
    db.message("msg_1", "ses_g", {"role": "assistant", "time": {"created": now}}, created=now)
    done = {"status": "completed", "input": {"command": "ls"}, "metadata": {"exit": 0}}
    db.part("msg_1", "ses_g", {"type": "tool", "tool": "bash", "callID": "c", "state": done}, now)
    events, prog = _read(db.path)
    assert [e.kind for e in events] == [ev.TOOL_CALL, ev.TOOL_RESULT] and prog.line == db.n


def _running_for(tmp_path: Path, ms: int) -> tuple[list[ev.Event], ev.Progress]:
    """A read of a session whose one call has been running for ``ms`` milliseconds."""
    db = Db(tmp_path / "opencode.db")
    started = int(time.time() * 1000) - ms
    db.session("ses_r")
    db.message("msg_1", "ses_r", {"role": "assistant", "time": {"created": started}}, started)
    running = {"status": "running", "input": {"command": "sleep 9999"}}
    call = {"type": "tool", "tool": "bash", "callID": "c", "state": running}
    db.part("msg_1", "ses_r", call, started)
    return _read(db.path)


def test_a_call_running_for_half_an_hour_is_abandoned(tmp_path):
    """Thirty minutes (``STALE_MS``) without a change: the agent is gone, the call is read as
    interrupted; a call running a second and a half less is still waited for."""
    events, _ = _running_for(tmp_path, 31 * 60 * 1000)
    assert events[-1].failure == ev.INTERRUPTED
    (tmp_path / "b").mkdir()
    events, prog = _running_for(tmp_path / "b", 30 * 60 * 1000 - 1500)
    assert events == [] and prog.line == 0


def test_a_file_that_starts_as_a_database_but_is_none_yields_nothing(tmp_path):
    """Not OpenCode's: nothing read and nothing counted unreadable (it is no session's)."""
    broken = tmp_path / "broken.db"
    broken.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    events, prog = _read(broken)
    assert events == [] and prog.bad_lines == 0


def test_a_database_the_query_fails_on_counts_one_unreadable_line(tmp_path):
    """A database that fails while it is read (rewritten meanwhile, another version's columns)
    is one unreadable line, and the next scan reads it from where this one started."""
    path = tmp_path / "opencode.db"
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.executescript("CREATE TABLE session (id); CREATE TABLE message (id);")
        conn.execute("CREATE TABLE part (id)")
    events, prog = _read(path)
    assert events == [] and prog.bad_lines == 1 and prog.line == 0
