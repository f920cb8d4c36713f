"""The Qwen Code reader on our hand-made session (shaped as Qwen Code 0.24 writes its chats)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lessons_core import services
from lessons_core.scan import discovery
from lessons_core.scan import events as ev
from lessons_core.scan.detectors import tier1, tier2
from lessons_qwen import plugin, reader, roots

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "transcripts"
SESSION = next((FIXTURES / "qwen").glob("projects/*/chats/*.jsonl"))
SESSION_ID = SESSION.stem


def events(path: Path = SESSION, offset: int = 0) -> list[ev.Event]:
    return list(reader.read(path, offset, progress=ev.Progress(offset)))


def test_the_session_reads_as_its_calls_results_and_words():
    found = events()
    assert [(e.kind, e.line) for e in found] == [
        (ev.USER_TEXT, 1),
        (ev.ASSISTANT_TEXT, 3),
        (ev.TOOL_CALL, 3),
        (ev.TOOL_RESULT, 4),
        (ev.TOOL_CALL, 5),
        (ev.TOOL_RESULT, 6),
        (ev.TOOL_CALL, 7),
        (ev.TOOL_RESULT, 8),
        (ev.TOOL_CALL, 9),
        (ev.TOOL_RESULT, 10),
        (ev.TOOL_CALL, 11),
        (ev.TOOL_RESULT, 12),
        (ev.COMPACTION, 13),
        (ev.ASSISTANT_TEXT, 14),
    ]
    assert {e.session_id for e in found} == {SESSION_ID}
    assert {e.project for e in found} == {"/home/dev/shop"}
    assert {e.agent for e in found} == {"qwen"}
    # The reasoning part is left out; what the model said comes before its call.
    assert found[1].text == "I'll run the tests."


def test_calls_carry_canonical_tools_commands_and_paths():
    calls = [e for e in events() if e.kind == ev.TOOL_CALL]
    assert [(c.tool, c.native_tool, c.call_id) for c in calls] == [
        ("Bash", "run_shell_command", "call_a1"),
        ("Bash", "run_shell_command", "call_a2"),
        ("Read", "read_file", "call_a3"),
        ("Edit", "edit", "call_a4"),
        ("Bash", "run_shell_command", "call_a5"),
    ]
    assert calls[0].command == "pytest -q tests/test_cart.py"
    assert calls[2].paths == ("shop/cart.py",)
    assert calls[3].paths == ("/home/dev/shop/shop/cart.py",)


def test_results_carry_their_failure_class_and_exit_code():
    results = [e for e in events() if e.kind == ev.TOOL_RESULT]
    assert [(r.call_id, r.failure, r.exit_code) for r in results] == [
        ("call_a1", ev.ERROR, 127),  # a shell command that exited non-zero
        ("call_a2", None, 0),
        ("call_a3", ev.VALIDATION, None),  # invalid_tool_params: refused as malformed
        ("call_a4", None, None),
        ("call_a5", ev.DENIED, None),  # execution_denied: a hook or rule stopped it
    ]
    # A failed command's text is what it printed, not Qwen's report around it.
    assert results[0].text == "bash: line 1: pytest: command not found"


def test_a_resumed_read_starts_at_any_line():
    """Every record names its session and project, so a read from a line's offset needs
    nothing else (the spec's ``ranges``)."""
    whole = events()
    offset = len(b"".join(SESSION.read_bytes().splitlines(keepends=True)[:6]))
    rest = events(offset=offset)
    assert [(e.kind, e.call_id, e.session_id, e.project) for e in rest] == [
        (e.kind, e.call_id, e.session_id, e.project) for e in whole if e.offset >= offset
    ]
    assert plugin.agent_spec().ranges


def test_a_partial_last_line_waits_for_the_next_scan(tmp_path):
    lines = SESSION.read_bytes().splitlines(keepends=True)
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(lines[:3]) + lines[3][:40])
    prog = ev.Progress()
    assert [e.kind for e in reader.read(path, progress=prog)][-1] == ev.TOOL_CALL
    assert prog.offset == len(b"".join(lines[:3]))


def test_the_detectors_find_the_lesson_block_and_the_failure_fixed():
    found = events()
    blocks = list(tier1.detect(found))
    assert [b.trigger for b in blocks] == ["^pytest\\b"]
    assert "not on PATH" in blocks[0].mistake
    assert list(tier2.detect(found)) is not None


def test_the_file_is_recognised_as_qwens_and_claudes_stay_claudes():
    with services.session() as sess:
        agents = sess.plugins.agents()
    assert discovery.sniff(SESSION, agents) == "qwen"
    for claude_file in sorted((FIXTURES / "claude").rglob("*.jsonl"))[:5]:
        assert discovery.sniff(claude_file, agents) != "qwen", claude_file
    for gemini_file in sorted((FIXTURES / "gemini").rglob("*.jsonl"))[:5]:
        assert discovery.sniff(gemini_file, agents) != "qwen", gemini_file


def test_roots_follow_qwen_home_and_the_runtime_dir(tmp_path):
    assert roots.transcript_roots({"HOME": str(tmp_path)}) == [tmp_path / ".qwen" / "projects"]
    home = {"HOME": str(tmp_path), "QWEN_HOME": str(tmp_path / "qh")}
    assert roots.transcript_roots(home) == [tmp_path / "qh" / "projects"]
    runtime = {**home, "QWEN_RUNTIME_DIR": str(tmp_path / "rt")}
    assert roots.transcript_roots(runtime) == [tmp_path / "rt" / "projects"]


def test_scan_finds_the_block_under_the_qwen_home(tmp_path):
    """``lessons scan`` with no path reads ``~/.qwen/projects`` and makes the block a candidate."""
    chats = tmp_path / "home" / ".qwen" / "projects" / "-home-dev-shop" / "chats"
    chats.mkdir(parents=True)
    shutil.copy(SESSION, chats / SESSION.name)
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "LESSONS_HOME": str(tmp_path / "lessons-home"),
    }
    lessons = str(Path(sys.executable).parent / "lessons")
    done = subprocess.run(
        [lessons, "scan", "--json", "--agent", "qwen"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    found = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    tier_one = [c for c in found if c["tier"] == 1]
    assert len(tier_one) == 1 and tier_one[0]["agent"] == "qwen"
    assert tier_one[0]["evidence"][0]["line"] == 14
    assert tier_one[0]["evidence"][0]["session_id"] == SESSION_ID


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
_KEYS = st.sampled_from(
    [
        "type",
        "sessionId",
        "cwd",
        "timestamp",
        "message",
        "parts",
        "role",
        "text",
        "thought",
        "functionCall",
        "functionResponse",
        "id",
        "name",
        "args",
        "response",
        "output",
        "error",
        "toolCallResult",
        "status",
        "errorType",
        "resultDisplay",
        "exitCode",
        "subtype",
    ]
)
_TYPES = st.sampled_from(["user", "assistant", "tool_result", "system"])
_RECORDS = st.recursive(
    st.dictionaries(_KEYS, _VALUES, max_size=5),
    lambda inner: st.dictionaries(_KEYS, inner | _VALUES | st.lists(inner, max_size=3), max_size=4),
    max_leaves=10,
).flatmap(lambda r: _TYPES.map(lambda t: {**r, "type": t}))


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(records=st.lists(_RECORDS | st.text(max_size=20), max_size=10))
def test_any_record_reads_to_events_or_nothing(tmp_path, records):
    """Records of Qwen's keys with values of any type, and junk lines: no exception."""
    path = tmp_path / "s.jsonl"
    lines = [r if isinstance(r, str) else json.dumps(r, separators=(",", ":")) for r in records]
    path.write_text("".join(line.replace("\n", " ") + "\n" for line in lines), encoding="utf-8")
    prog = ev.Progress()
    found = list(reader.read(path, progress=prog))
    assert all(e.kind in ev.KINDS and e.agent == "qwen" for e in found)
    assert prog.offset == path.stat().st_size
    list(tier1.detect(found))
    list(tier2.detect(found))
