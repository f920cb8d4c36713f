"""The Copilot CLI reader on our hand-made session (shaped as Copilot CLI 1.0 writes its
``events.jsonl``), and on the two real sessions of the shared corpus when it is there."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lessons_copilot import plugin, reader, roots
from lessons_core import services
from lessons_core.scan import discovery
from lessons_core.scan import events as ev
from lessons_core.scan.detectors import tier1, tier2

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"
SESSION = next((FIXTURES / "copilot").glob("session-state/*/events.jsonl"))
SESSION_ID = SESSION.parent.name
#: The real sessions (``shared/corpus`` beside the checkout), when present.
CORPUS = Path(__file__).resolve().parents[4] / "shared" / "corpus" / "real2" / "copilot"


def events(path: Path = SESSION, offset: int = 0) -> list[ev.Event]:
    return list(reader.read(path, offset, progress=ev.Progress(offset)))


def test_the_session_reads_as_its_calls_results_and_words():
    found = events()
    assert [(e.kind, e.line) for e in found] == [
        (ev.USER_TEXT, 3),
        (ev.ASSISTANT_TEXT, 5),
        (ev.TOOL_CALL, 6),
        (ev.TOOL_RESULT, 7),
        (ev.TOOL_CALL, 9),
        (ev.TOOL_RESULT, 10),
        (ev.TOOL_CALL, 11),
        (ev.TOOL_RESULT, 12),
        (ev.TOOL_CALL, 13),
        (ev.TOOL_RESULT, 14),
        (ev.TOOL_CALL, 15),
        (ev.TOOL_RESULT, 16),
        (ev.COMPACTION, 17),
        (ev.ASSISTANT_TEXT, 18),
    ]
    assert {e.session_id for e in found} == {SESSION_ID}
    assert {e.project for e in found} == {"/home/dev/shop"}
    assert {e.agent for e in found} == {"copilot"}
    # What the user typed, without Copilot's additions around it.
    assert found[0].text == "Run the cart tests and fix what fails."


def test_calls_carry_canonical_tools_commands_and_paths():
    calls = [e for e in events() if e.kind == ev.TOOL_CALL]
    assert [(c.tool, c.native_tool, c.call_id) for c in calls] == [
        ("Bash", "bash", "call_b1"),
        ("Bash", "bash", "call_b2"),
        ("Read", "view", "call_b3"),
        ("Edit", "edit", "call_b4"),  # its arguments logged as a JSON string
        ("Bash", "bash", "call_b5"),
    ]
    assert calls[0].command == "pytest -q tests/test_cart.py"
    assert calls[2].paths == ("/home/dev/shop/shop/carts.py",)
    assert calls[3].paths == ("/home/dev/shop/shop/cart.py",)


def test_results_carry_their_failure_class_and_exit_code():
    results = [e for e in events() if e.kind == ev.TOOL_RESULT]
    assert [(r.call_id, r.tool, r.failure, r.exit_code) for r in results] == [
        ("call_b1", "Bash", ev.ERROR, 127),  # a "success" that exited non-zero
        ("call_b2", "Bash", None, None),
        ("call_b3", "Read", ev.VALIDATION, None),  # "Path does not exist": a bad argument
        ("call_b4", "Edit", None, None),
        ("call_b5", "Bash", ev.DENIED, None),  # a hook's deny
    ]
    # A failed command's text is what it printed, without Copilot's exit line.
    assert results[0].text == "bash: pytest: command not found"


def test_an_edit_copilot_could_not_match_is_the_tool_refusing_it(tmp_path):
    """Copilot's edit tool answers "No match found" or "Multiple matches found" with a plain
    failure code: the call's input was refused (validation), as another agent's edit would be,
    while the same words from another tool stay a plain error."""
    lines = []
    for n, (tool, message) in enumerate(
        [("edit", "No match found"), ("edit", "Multiple matches found"), ("bash", "No match found")]
    ):
        call = {"toolCallId": f"c{n}", "toolName": tool, "arguments": {"path": "/w/a.py"}}
        done = {
            "toolCallId": f"c{n}",
            "success": False,
            "error": {"message": message, "code": "failure"},
        }
        lines.append({"type": "tool.execution_start", "data": call})
        lines.append({"type": "tool.execution_complete", "data": done})
    path = tmp_path / "session-state" / "s1" / "events.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))
    results = [e for e in events(path) if e.kind == ev.TOOL_RESULT]
    assert [r.failure for r in results] == [ev.VALIDATION, ev.VALIDATION, ev.ERROR]


def test_a_resumed_read_keeps_the_session_it_was_given():
    """The session and folder are stated once, at the top: an incremental read carries them
    in its progress, as the scan stores it."""
    whole = events()
    offset = len(b"".join(SESSION.read_bytes().splitlines(keepends=True)[:8]))
    prog = ev.Progress(offset)
    prog.session_id, prog.project = SESSION_ID, "/home/dev/shop"
    rest = list(reader.read(SESSION, offset, progress=prog))
    assert [(e.kind, e.call_id, e.session_id) for e in rest] == [
        (e.kind, e.call_id, e.session_id) for e in whole if e.offset >= offset
    ]
    assert not plugin.agent_spec().ranges


def test_a_partial_last_line_waits_for_the_next_scan(tmp_path):
    lines = SESSION.read_bytes().splitlines(keepends=True)
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"".join(lines[:6]) + lines[6][:40])
    prog = ev.Progress()
    assert [e.kind for e in reader.read(path, progress=prog)][-1] == ev.TOOL_CALL
    assert prog.offset == len(b"".join(lines[:6]))


def test_the_detectors_find_the_lesson_block_and_the_failure_fixed():
    found = events()
    blocks = list(tier1.detect(found))
    assert [b.trigger for b in blocks] == ["^pytest\\b"]
    assert "not on PATH" in blocks[0].mistake
    assert list(tier2.detect(found)) is not None


def test_the_file_is_recognised_as_copilots_and_others_stay_theirs():
    with services.session() as sess:
        agents = sess.plugins.agents()
    assert discovery.sniff(SESSION, agents) == "copilot"
    for other in ("claude", "codex", "qwen", "gemini"):
        for path in sorted((FIXTURES / other).rglob("*.jsonl"))[:5]:
            assert discovery.sniff(path, agents) != "copilot", path


def test_roots_follow_copilot_home(tmp_path):
    home = {"HOME": str(tmp_path)}
    assert roots.transcript_roots(home) == [tmp_path / ".copilot" / "session-state"]
    moved = {**home, "COPILOT_HOME": str(tmp_path / "ch")}
    assert roots.transcript_roots(moved) == [tmp_path / "ch" / "session-state"]
    assert roots.is_transcript(str(SESSION))
    assert not roots.is_transcript(str(SESSION.parent / "workspace.yaml"))


def test_scan_finds_the_block_under_the_copilot_home(tmp_path):
    """``lessons scan`` with no path reads ``~/.copilot/session-state`` and makes the block a
    candidate, with its line and session."""
    state = tmp_path / "home" / ".copilot" / "session-state" / SESSION_ID
    state.mkdir(parents=True)
    shutil.copy(SESSION, state / SESSION.name)
    (state / "workspace.yaml").write_text("id: x\n", encoding="utf-8")
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "LESSONS_HOME": str(tmp_path / "lessons-home"),
    }
    lessons = str(Path(sys.executable).parent / "lessons")
    done = subprocess.run(
        [lessons, "scan", "--json", "--agent", "copilot"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    found = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    tier_one = [c for c in found if c["tier"] == 1]
    assert len(tier_one) == 1 and tier_one[0]["agent"] == "copilot"
    assert tier_one[0]["evidence"][0]["line"] == 18
    assert tier_one[0]["evidence"][0]["session_id"] == SESSION_ID


REAL = sorted(CORPUS.rglob("*.jsonl")) if CORPUS.is_dir() else []


@pytest.mark.skipif(not REAL, reason="the shared corpus of real Copilot sessions is not here")
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.parent.parent.name)
def test_real_sessions_read_whole(path):
    """Every call of a real session has its result, with the call's tool, and failures are
    found; no line is left unparsed."""
    prog = ev.Progress()
    found = list(reader.read(path, progress=prog))
    assert prog.bad_lines == 0 and prog.offset == path.stat().st_size
    calls = {e.call_id: e for e in found if e.kind == ev.TOOL_CALL}
    results = [e for e in found if e.kind == ev.TOOL_RESULT]
    assert calls and results
    assert all(r.tool == calls[r.call_id].tool for r in results if r.call_id in calls)
    assert any(r.failure for r in results)
    assert {e.session_id for e in found} == {found[0].session_id} and found[0].session_id


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
_KEYS = st.sampled_from(
    [
        "sessionId",
        "context",
        "cwd",
        "content",
        "toolCallId",
        "toolName",
        "arguments",
        "command",
        "path",
        "success",
        "result",
        "error",
        "message",
        "code",
        "parentToolCallId",
    ]
)
_TYPES = st.sampled_from(
    [
        "session.start",
        "user.message",
        "assistant.message",
        "tool.execution_start",
        "tool.execution_complete",
        "session.compaction_complete",
    ]
)
_DATA = st.recursive(
    st.dictionaries(_KEYS, _VALUES, max_size=5),
    lambda inner: st.dictionaries(_KEYS, inner | _VALUES | st.lists(inner, max_size=3), max_size=4),
    max_leaves=10,
)
_RECORDS = st.builds(
    lambda t, d, stamp: {"type": t, "data": d, "id": "x", "timestamp": stamp},
    _TYPES,
    _DATA | _VALUES,
    _VALUES,
)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(records=st.lists(_RECORDS | st.text(max_size=20), max_size=10))
def test_any_record_reads_to_events_or_nothing(tmp_path, records):
    """Records of Copilot's keys with values of any type, and junk lines: no exception."""
    path = tmp_path / "events.jsonl"
    lines = [r if isinstance(r, str) else json.dumps(r, separators=(",", ":")) for r in records]
    path.write_text("".join(line.replace("\n", " ") + "\n" for line in lines), encoding="utf-8")
    prog = ev.Progress()
    found = list(reader.read(path, progress=prog))
    assert all(e.kind in ev.KINDS and e.agent == "copilot" for e in found)
    assert prog.offset == path.stat().st_size
    list(tier1.detect(found))
    list(tier2.detect(found))
