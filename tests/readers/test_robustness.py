"""Whatever a transcript holds, the readers yield events or nothing, never an exception."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lessons_claude import reader as claude
from lessons_codex import reader as codex
from lessons_core.scan import events as ev
from lessons_core.scan.detectors import tier1, tier2
from lessons_gemini import reader as gemini

# JSON values shaped loosely like transcript records: the keys the readers look at, with
# values of any type.
KEYS = st.sampled_from(
    [
        "type",
        "payload",
        "message",
        "content",
        "role",
        "sessionId",
        "cwd",
        "timestamp",
        "tool_use_id",
        "is_error",
        "id",
        "name",
        "input",
        "call_id",
        "output",
        "arguments",
        "toolCalls",
        "status",
        "args",
        "result",
        "messages",
        "$set",
        "subtype",
        "text",
    ]
)
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.text(max_size=20),
    st.sampled_from(
        [
            "user",
            "assistant",
            "tool_result",
            "tool_use",
            "function_call",
            "response_item",
            "event_msg",
            "gemini",
            "error",
            "success",
            "exec_command_end",
            "compact_boundary",
            "Exit code 1",
            "message",
        ]
    ),
)
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=12,
)
RECORDS = st.dictionaries(KEYS, VALUES, max_size=6)
LINES = st.lists(st.one_of(RECORDS.map(lambda r: json.dumps(r)), st.text(max_size=30)), max_size=12)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines=LINES)
def test_readers_survive_arbitrary_lines(tmp_path, lines):
    """Random records and junk lines: every reader finishes, every event is well formed."""
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for module in (claude, codex, gemini):
        prog = ev.Progress()
        events = list(module.read(path, progress=prog))
        assert all(event.kind in ev.KINDS for event in events)
        assert prog.offset == path.stat().st_size
        list(tier1.detect(events))
        list(tier2.detect(events))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(doc=st.dictionaries(KEYS, VALUES, max_size=6), messages=st.lists(VALUES, max_size=6))
def test_gemini_documents_survive_arbitrary_messages(tmp_path, doc, messages):
    """A legacy Gemini document with odd messages is read without an exception."""
    doc["messages"] = messages
    path = tmp_path / "session-x.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    prog = ev.Progress()
    for event in gemini.read(path, progress=prog):
        assert event.kind in ev.KINDS


def _deep(depth: int = 100_000) -> str:
    return "[" * depth + "]" * depth


def test_a_line_nested_deeper_than_any_parser_costs_only_itself(tmp_path):
    """JSON nested thousands deep makes every parser raise RecursionError rather than a
    decoding error: each reader counts such a line as bad (or keeps a model-written argument
    or a command's output as text) and reads on, where it used to stop the file's reading."""
    deep = _deep()
    claude_file = tmp_path / "claude.jsonl"
    claude_file.write_text(
        '{"type":"user","sessionId":"s","message":{"content":"before"}}\n'
        + '{"type":"assistant","sessionId":"s","message":{"content":[{"type":"tool_use",'
        + f'"id":"t","name":"Bash","input":{{"edits":{deep}}}}}]}}}}\n'
        + f'{{"type":"user","sessionId":"s","message":{{"content":{deep}}}}}\n'
        + '{"type":"user","sessionId":"s","message":{"content":"after"}}\n'
    )
    prog = ev.Progress()
    texts = [e.text for e in claude.read(claude_file, progress=prog) if e.kind == ev.USER_TEXT]
    assert texts == ["before", "after"]
    assert prog.bad_lines == 2 and prog.line == 4

    codex_file = tmp_path / "rollout-2026-01-01T00-00-00-0196a000-0000-7000-8000-000000000001.jsonl"
    call = {"type": "function_call", "name": "shell", "call_id": "c1", "arguments": deep}
    output = {"type": "function_call_output", "call_id": "c1", "output": '{"metadata":' + deep}
    codex_file.write_text(
        "".join(
            json.dumps({"timestamp": "t", "type": "response_item", "payload": p}) + "\n"
            for p in (call, output)
        )
        + '{"timestamp":"t","type":"event_msg","payload":{"type":"exec_command_end",'
        + f'"call_id":"c2","stdout":{deep}}}}}\n'
    )
    prog = ev.Progress()
    kinds = [e.kind for e in codex.read(codex_file, progress=prog)]
    assert kinds == [ev.TOOL_CALL, ev.TOOL_RESULT]
    assert prog.bad_lines == 1 and prog.line == 3

    gemini_file = tmp_path / "session.json"
    gemini_file.write_text(
        '{"sessionId":"g","messages":[{"type":"user","content":"before"},' + deep + "]}"
    )
    prog = ev.Progress()
    texts = [e.text for e in gemini.read(gemini_file, progress=prog) if e.kind == ev.USER_TEXT]
    assert texts == ["before"]
    assert prog.bad_lines == 1
