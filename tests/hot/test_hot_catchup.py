"""Catch-up: a call refused before it ran brings its lesson with the session's next event.

Small transcripts written here in Claude Code's shape, the real Claude hot adapter, the real
runner in-process, and a store whose recall index holds one lesson about the refusal.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import echo_adapter
import pytest
from hot_support import make_lesson

from lessons_claude import hot_claude
from lessons_core import services
from lessons_core.hot import catchup, deliveries, runner, safefile
from lessons_core.hot import manifest as manifest_mod

REFUSAL = "<tool_use_error>String to replace not found in file.\nString: gamma = 3</tool_use_error>"
NOT_READ = (
    "<tool_use_error>File has not been read yet. Read it first before writing to it."
    "</tool_use_error>"
)
FIX = "FIX-C7"
OTHER_FIX = "FIX-R2"
EDIT_ID = "toolu_edit_1"
#: The bounds the docs give (written out: a test that read them from the module would follow
#: any change of them).
MAX_TAIL = 256 * 1024
SAVE_SPAN = 32 * 1024


@pytest.fixture(name="lesson_id")
def fixture_lesson_id(home: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A store with a lesson about each refusal; returns the first one's id."""
    monkeypatch.setenv("LESSONS_HOOK_LOG", str(home / "hook.log"))
    replaced = make_lesson(
        summary="an Edit's text to replace was typed from memory, not copied",
        remediation=f"Copy the text to replace from the file as it is now ({FIX}).",
        error_lines=["String to replace not found in file."],
    )
    unread = make_lesson(
        summary="a file was written before it was read in this session",
        remediation=f"Read the file first, then write it ({OTHER_FIX}).",
        error_lines=["File has not been read yet. Read it first before writing to it."],
        triggers={"tool_names": ["Grep"], "path_patterns": ["**/hinted.py"]},
    )
    with services.open_store() as store:
        store.add_lessons([replaced, unread])
        services.rebuild_manifest(store)
    manifest_mod.clear_cache()
    return replaced.id


class Transcript:
    """A session transcript in Claude Code's shape (one compact JSON object per line)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.write_bytes(b"")

    def write(self, *records: dict[str, Any], end: str = "\n") -> None:
        with self.path.open("a", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record, separators=(",", ":")) + end)

    def call(self, call_id: str, name: str, **tool_input: Any) -> dict[str, Any]:
        block = {"type": "tool_use", "id": call_id, "name": name, "input": tool_input}
        return {"type": "assistant", "message": {"role": "assistant", "content": [block]}}

    def result(self, call_id: str, text: str, is_error: bool = False) -> dict[str, Any]:
        block: dict[str, Any] = {"tool_use_id": call_id, "type": "tool_result", "content": text}
        if is_error:
            block["is_error"] = True
        return {"type": "user", "message": {"role": "user", "content": [block]}}

    def refused_edit(self, call_id: str = EDIT_ID, error: str = REFUSAL, path: str = "/p/a.py"):
        self.write(
            self.call(call_id, "Edit", file_path=path, old_string="gamma = 3", new_string="g"),
            self.result(call_id, error, is_error=True),
        )

    def pad(self, size: int) -> None:
        """One ordinary line of exactly ``size`` bytes, its line feed included."""
        frame = json.dumps({"type": "progress", "pad": ""}, separators=(",", ":"))
        if size <= len(frame):  # too short for a record: a blank line
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(" " * (size - 1) + "\n")
            return
        self.write({"type": "progress", "pad": "x" * (size - len(frame) - 1)})

    def filler(self, size: int) -> None:
        """Ordinary calls and results, about ``size`` bytes of them."""
        n = 0
        while self.path.stat().st_size < size:
            n += 1
            self.write(
                self.call(f"toolu_fill_{n}", "Bash", command="ls"),
                self.result(f"toolu_fill_{n}", "file\n" * 400),
            )


@pytest.fixture(name="transcript")
def fixture_transcript(tmp_path: Path) -> Transcript:
    return Transcript(tmp_path / "session.jsonl")


def _payload(transcript: Transcript, event: str = "PreToolUse", **extra: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "session_id": "s-catchup",
        "transcript_path": str(transcript.path),
        "cwd": "/p",
        "hook_event_name": event,
        "tool_name": "Read",
        "tool_input": {"file_path": "/p/a.py"},
        "tool_use_id": "toolu_read_9",
    }
    payload.update(extra)
    return payload


def _hook(payload: dict[str, Any], adapter: Any = hot_claude) -> str:
    """The context the hook answers with (``""`` for none)."""
    out = io.StringIO()
    stdin = io.BytesIO(json.dumps(payload).encode())
    assert runner.run(adapter, stdin=stdin, stdout=out) == 0
    if not out.getvalue():
        return ""
    specific = json.loads(out.getvalue()).get("hookSpecificOutput") or {}
    return str(specific.get("additionalContext") or specific.get("permissionDecisionReason"))


def _log(home: Path) -> list[dict[str, Any]]:
    path = home / "hook.log"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def _deliveries(home: Path) -> list[dict[str, Any]]:
    path = home / "deliveries.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def test_refusal_rides_with_the_next_call_and_is_logged_under_the_refused_call(
    home, lesson_id, transcript
):
    transcript.write(transcript.call("toolu_read_1", "Read", file_path="/p/a.py"))
    transcript.write(transcript.result("toolu_read_1", "1\talpha = 1"))
    transcript.refused_edit()
    context = _hook(_payload(transcript))
    assert FIX in context and f"injected={lesson_id}" in context
    (line,) = _deliveries(home)
    assert (line["id"], line["kind"], line["event"]) == (lesson_id, "recall", "post_failure")
    assert line["callId"] == EDIT_ID
    edit = {"tool": "Edit", "command": None, "paths": ["/p/a.py"]}
    assert line["call"] == deliveries.call_fingerprint(edit)
    assert line["transcript"] == str(transcript.path)
    assert _log(home)[-1]["caught"] == [EDIT_ID]


def test_each_refusal_is_handled_once(home, lesson_id, transcript):
    transcript.refused_edit()
    assert FIX in _hook(_payload(transcript))
    transcript.write(transcript.result("toolu_read_9", "1\talpha = 1"))
    assert _hook(_payload(transcript, tool_use_id="toolu_read_10")) == ""
    assert len(_deliveries(home)) == 1


def test_a_second_refusal_brings_the_lesson_back_once(home, lesson_id, transcript):
    """As at a failure's own hook: the same mistake again gets the lesson once more."""
    transcript.refused_edit()
    assert FIX in _hook(_payload(transcript))
    transcript.refused_edit("toolu_edit_2")
    again = _hook(_payload(transcript, tool_use_id="toolu_read_10"))
    assert FIX in again and "given earlier in this session" in again
    assert [d["callId"] for d in _deliveries(home)] == [EDIT_ID, "toolu_edit_2"]


def test_refusals_of_one_tail_each_bring_their_own_lesson(home, lesson_id, transcript):
    transcript.refused_edit()
    transcript.refused_edit("toolu_write_1", NOT_READ, "/p/b.py")
    context = _hook(_payload(transcript))
    assert FIX in context and OTHER_FIX in context
    assert context.count("match this error") == 1  # one answer, one header
    logged = {d["callId"]: d["id"] for d in _deliveries(home)}
    assert logged[EDIT_ID] == lesson_id and logged["toolu_write_1"] != lesson_id


def test_one_lesson_for_two_refusals_is_given_once_under_the_first(home, lesson_id, transcript):
    transcript.refused_edit()
    transcript.refused_edit("toolu_edit_2")
    context = _hook(_payload(transcript))
    assert context.count(FIX) == 1
    assert [(d["id"], d["callId"]) for d in _deliveries(home)] == [(lesson_id, EDIT_ID)]


def test_a_failure_its_hook_reported_is_not_caught_up(home, lesson_id, transcript):
    failure = _payload(transcript, "PostToolUseFailure", tool_use_id=EDIT_ID, error=REFUSAL)
    failure.update(tool_name="Edit", tool_input={"file_path": "/p/a.py", "old_string": "x"})
    assert FIX in _hook(failure)
    transcript.refused_edit()  # the same call's result, written after its hook ran
    assert _hook(_payload(transcript)) == ""
    assert [d["event"] for d in _deliveries(home)] == ["post_failure"]


def test_lines_before_the_saved_offset_are_not_read_again(home, lesson_id, transcript):
    transcript.refused_edit()
    note = runner.LazyState({"session_id": "s-catchup"}, os.environ, {}).note_file(catchup.NOTE)
    Path(note).parent.mkdir(mode=0o700, exist_ok=True)
    size = transcript.path.stat().st_size
    record = {"path": str(transcript.path), "offset": size}
    safefile.overwrite(note, json.dumps(record).encode())
    transcript.write(transcript.result("toolu_read_8", "1\talpha = 1"))
    assert _hook(_payload(transcript)) == ""


@pytest.mark.parametrize(("behind", "read"), [(0, True), (1, False)])
def test_only_the_newest_bytes_are_read(home, lesson_id, transcript, behind, read):
    """The refusal's line is read when it starts within the last 256 KiB, not when cut."""
    transcript.write(transcript.call(EDIT_ID, "Edit", file_path="/p/a.py", old_string="x"))
    starts = transcript.path.stat().st_size
    transcript.write(transcript.result(EDIT_ID, REFUSAL, is_error=True))
    transcript.pad(MAX_TAIL + behind - (transcript.path.stat().st_size - starts))
    assert transcript.path.stat().st_size - starts == MAX_TAIL + behind
    assert (FIX in _hook(_payload(transcript))) is read


def test_a_refusal_further_back_than_that_waits_for_none(home, lesson_id, transcript):
    transcript.refused_edit()
    transcript.filler(MAX_TAIL + 4096)
    assert _hook(_payload(transcript)) == ""
    transcript.refused_edit("toolu_edit_2")
    assert FIX in _hook(_payload(transcript, tool_use_id="toolu_read_10"))


def test_a_damaged_note_counts_as_none(home, lesson_id, transcript):
    transcript.refused_edit()
    note = runner.LazyState({"session_id": "s-catchup"}, os.environ, {}).note_file(catchup.NOTE)
    Path(note).parent.mkdir(mode=0o700, exist_ok=True)
    for offset in (-1, True, "9999999", None):
        record = {"path": str(transcript.path), "offset": offset}
        safefile.overwrite(note, json.dumps(record).encode())
        assert catchup.saved_offset(note, str(transcript.path)) is None
    safefile.overwrite(note, json.dumps({"path": "/other.jsonl", "offset": 10**9}).encode())
    assert catchup.saved_offset(note, str(transcript.path)) is None
    safefile.overwrite(note, b"{not json")
    assert catchup.saved_offset(note, str(transcript.path)) is None
    safefile.overwrite(note, json.dumps({"path": str(transcript.path), "offset": 0}).encode())
    assert catchup.saved_offset(note, str(transcript.path)) == 0
    assert FIX in _hook(_payload(transcript))


def test_an_event_without_a_transcript_is_left_alone(home, lesson_id, transcript):
    for path in (None, ""):
        assert _hook(_payload(transcript, transcript_path=path)) == ""
        assert "catchup_error" not in _log(home)[-1]


def test_a_line_still_being_written_waits_for_the_next_event(home, lesson_id, transcript):
    transcript.write(transcript.call(EDIT_ID, "Edit", file_path="/p/a.py", old_string="x"))
    transcript.write(transcript.result(EDIT_ID, REFUSAL, is_error=True), end="")
    assert _hook(_payload(transcript)) == ""
    with transcript.path.open("a", encoding="utf-8") as handle:
        handle.write("\n")  # the agent finishes the line
    assert FIX in _hook(_payload(transcript, tool_use_id="toolu_read_10"))


def test_an_event_that_denies_its_call_leaves_the_refusal_to_the_next(home, transcript):
    guard = make_lesson(
        type="guard",
        remediation="Never remove the data folder (GUARD-C1).",
        triggers={"tool_names": ["Bash"], "command_patterns": [r"rm -rf data"]},
        error_lines=["String to replace not found in file."],
    )
    with services.open_store() as store:
        store.add_lessons([guard])
        services.rebuild_manifest(store)
    manifest_mod.clear_cache()
    transcript.refused_edit()
    denied = _payload(transcript, tool_name="Bash", tool_input={"command": "rm -rf data"})
    reason = _hook(denied)
    assert "GUARD-C1" in reason and "match this error" not in reason
    assert "match this error" in _hook(_payload(transcript, tool_use_id="toolu_read_10"))


def test_a_sub_agent_event_leaves_the_refusal_to_the_session(home, lesson_id, transcript):
    transcript.refused_edit()
    assert _hook(_payload(transcript, agent_id="agent-1", agent_type="Explore")) == ""
    assert FIX in _hook(_payload(transcript, tool_use_id="toolu_read_10"))


def test_a_prompt_carries_it(home, lesson_id, transcript):
    transcript.refused_edit()
    prompt = _payload(transcript, "UserPromptSubmit", prompt="ok, go on")
    assert FIX in _hook(prompt)


def test_a_resumed_session_passes_over_the_refusals_of_its_earlier_life(
    home, lesson_id, transcript
):
    """A refusal before the resume was the earlier life's; one after it is caught up."""
    transcript.refused_edit()
    resumed = _payload(transcript, "SessionStart", source="resume")
    del resumed["tool_name"], resumed["tool_input"], resumed["tool_use_id"]
    _hook(resumed)
    assert FIX not in _hook(_payload(transcript))
    transcript.refused_edit("toolu_edit_2")
    assert FIX in _hook(_payload(transcript, tool_use_id="toolu_read_10"))


def test_a_new_session_reads_what_its_transcript_holds(home, lesson_id, transcript):
    """Started, not resumed: the refusal is the session's own, and is caught up."""
    transcript.refused_edit()
    started = _payload(transcript, "SessionStart", source="startup")
    del started["tool_name"], started["tool_input"], started["tool_use_id"]
    _hook(started)
    assert FIX in _hook(_payload(transcript))


def test_a_stop_does_not(home, lesson_id, transcript):
    transcript.refused_edit()
    assert _hook(_payload(transcript, "Stop", stop_hook_active=False)) == ""
    assert FIX in _hook(_payload(transcript))


def test_a_lesson_the_event_gives_itself_is_not_given_twice(home, lesson_id, transcript):
    """The Grep's own hint is the refusal's lesson too: it is said once, as the hint."""
    transcript.refused_edit("toolu_write_1", NOT_READ, "/p/b.py")
    grep = _payload(
        transcript, tool_name="Grep", tool_input={"pattern": "x", "path": "/p/hinted.py"}
    )
    context = _hook(grep)
    assert context.count(OTHER_FIX) == 1
    assert "match this error" not in context


def test_the_offset_is_written_when_it_moved_far_or_found_a_refusal(home, lesson_id, transcript):
    note = Path(
        runner.LazyState({"session_id": "s-catchup"}, os.environ, {}).note_file(catchup.NOTE)
    )
    transcript.pad(SAVE_SPAN - 1)
    _hook(_payload(transcript))
    assert not note.exists()  # read again next time, rather than written now
    transcript.write({"type": "progress"})
    _hook(_payload(transcript))
    assert json.loads(note.read_text())["offset"] == transcript.path.stat().st_size
    transcript.pad(SAVE_SPAN - 1)
    _hook(_payload(transcript))
    assert json.loads(note.read_text())["offset"] < transcript.path.stat().st_size
    transcript.pad(1)
    _hook(_payload(transcript))
    assert json.loads(note.read_text())["offset"] == transcript.path.stat().st_size
    transcript.refused_edit()
    assert FIX in _hook(_payload(transcript))
    assert json.loads(note.read_text())["offset"] == transcript.path.stat().st_size


def test_a_transcript_that_did_not_grow_is_not_read(home, lesson_id, transcript, monkeypatch):
    transcript.refused_edit()
    assert FIX in _hook(_payload(transcript))
    reads: list[int] = []
    real = catchup.read_from
    monkeypatch.setattr(catchup, "read_from", lambda *a: reads.append(a[1]) or real(*a))
    assert _hook(_payload(transcript, tool_use_id="toolu_read_10")) == ""
    assert reads == []
    transcript.write(transcript.result("toolu_read_10", "1\talpha = 1"))
    _hook(_payload(transcript, tool_use_id="toolu_read_11"))
    assert len(reads) == 1


def test_catch_up_fails_open(home, lesson_id, transcript, monkeypatch):
    """A broken seam costs the event nothing but the refusal's lesson, and says why in the log."""
    transcript.refused_edit("toolu_write_1", NOT_READ, "/p/b.py")

    def broken(record: object) -> list[tuple[str, str]]:
        raise RuntimeError("unreadable")

    monkeypatch.setattr(hot_claude, "refusals", broken)
    grep = _payload(
        transcript, tool_name="Grep", tool_input={"pattern": "x", "path": "/p/hinted.py"}
    )
    assert OTHER_FIX in _hook(grep)  # the Grep's own hint
    assert "RuntimeError: unreadable" in _log(home)[-1]["catchup_error"]


def test_an_adapter_without_the_seam_is_left_alone(home, lesson_id, transcript):
    transcript.refused_edit()
    event = {
        "agent": "test",
        "event": "pre_tool",
        "session_id": "s-catchup",
        "cwd": "/p",
        "tool": "Read",
        "paths": ["/p/a.py"],
        "transcript_path": str(transcript.path),
    }
    assert _hook(event, echo_adapter) == ""
    assert "catchup_error" not in _log(home)[-1]
