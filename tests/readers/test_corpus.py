"""The readers against the shared corpus of real transcripts (skipped when it is absent)."""

from __future__ import annotations

import json

import pytest

from lessons_claude import reader as claude
from lessons_codex import reader as codex
from lessons_core.scan import events as ev
from lessons_core.scan.detectors import tier2
from lessons_gemini import reader as gemini
from lessons_opencode import reader as opencode

pytestmark = pytest.mark.corpus

READERS = {"claude": claude, "codex": codex, "gemini": gemini}


def _files(corpus, agent):
    return sorted(p for p in (corpus / agent).rglob("*") if p.suffix in (".jsonl", ".json"))


def _read(agent, path):
    prog = ev.Progress()
    return list(READERS[agent].read(path, progress=prog)), prog


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_every_corpus_file_reads_without_an_exception(corpus, agent):
    """Each real transcript reads to its end; every consumed byte is accounted for."""
    files = _files(corpus, agent)
    assert files
    for path in files:
        events, prog = _read(agent, path)
        size = path.stat().st_size
        assert prog.offset <= size
        for event in events:
            assert event.kind in ev.KINDS
            assert event.agent == agent


def _flagged_blocks(path):
    count = 0
    for line in path.read_bytes().splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        message = record.get("message") if isinstance(record, dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            count += sum(1 for b in content if isinstance(b, dict) and b.get("is_error") is True)
    return count


def test_claude_failures_match_the_is_error_flags(corpus):
    """Every ``is_error`` result in the real Claude sessions becomes a failed result."""
    flagged = found = 0
    for path in _files(corpus, "claude"):
        flagged += _flagged_blocks(path)
        events, _ = _read("claude", path)
        found += sum(1 for e in events if e.kind == ev.TOOL_RESULT and e.failure)
    assert flagged > 50
    assert found == flagged


def test_known_real_failures_are_found(corpus):
    """Specific failures named in the corpus notes: exit codes and classes."""
    checkpoints = corpus / "claude" / "entireio__cli" / "entire-checkpoints-v1"
    events, _ = _read("claude", checkpoints / "a0" / "cbfff1a3b7" / "0" / "full.jsonl")
    assert any(e.failure == ev.ERROR and "undefined: regexp" in e.text for e in events)
    rollout = next((corpus / "codex" / "jnarowski__agentcmd").glob("rollout-2025-09-24T19-22*"))
    events, _ = _read("codex", rollout)
    codes = [e.exit_code for e in events if e.kind == ev.TOOL_RESULT and e.failure == ev.ERROR]
    assert len(codes) >= 6
    assert any(e.failure == ev.REJECTED for e in events)
    session = corpus / "gemini" / "jnarowski__agentcmd" / "session-2025-10-27T19-55-981c87cb.json"
    events, _ = _read("gemini", session)
    failures = [e for e in events if e.kind == ev.TOOL_RESULT and e.failure]
    assert len(failures) == 4
    assert any(e.exit_code == 127 for e in failures)


def test_schema_drift_files_degrade_gracefully(corpus):
    """Drifted shapes yield few or no events, and never an exception."""
    for agent, name in (
        ("claude", "schema_drift.jsonl"),
        ("codex", "schema_drift.jsonl"),
        ("gemini", "schema_drift.json"),
    ):
        path = corpus / agent / "jazzyalex__agent-sessions" / name
        events, _ = _read(agent, path)
        assert not any(e.kind == ev.TOOL_CALL for e in events)


def test_heuristics_find_corrections_in_real_sessions(corpus):
    """Tier 2 finds mistake → correction pairs in the real sessions of every agent."""
    per_agent = {}
    for agent in READERS:
        count = 0
        for path in _files(corpus, agent):
            events, _ = _read(agent, path)
            count += len(list(tier2.detect(events)))
        per_agent[agent] = count
    assert per_agent["claude"] >= 10
    assert per_agent["codex"] >= 5
    assert per_agent["gemini"] >= 1


def _tool_parts(path):
    doc = json.loads(path.read_bytes())
    parts = [p for m in doc["messages"] for p in m["parts"] if p.get("type") == "tool"]
    failed = [
        p
        for p in parts
        if p["state"].get("status") == "error"
        or p["tool"] == "invalid"
        or (p["tool"] == "bash" and (p["state"].get("metadata") or {}).get("exit") not in (None, 0))
        or (p["tool"] == "bash" and _killed(p["state"].get("output") or ""))
    ]
    return len(parts), len(failed)


def _killed(output: str) -> bool:
    """Whether the shell tool's closing note says it stopped the command (its timeout, the
    user's abort): such a command failed, with or without an exit code."""
    tail = output.rstrip()[-600:]
    closed = tail.endswith(("</bash_metadata>", "</shell_metadata>"))
    return closed and ("exceeding timeout" in tail or "User aborted the command" in tail)


def test_opencode_exports_are_read_whole(corpus2):
    """Every exported OpenCode session (saved as ``full.jsonl``) reads without a bad line: one
    result per tool part, a failure for each failed part, every line within the file."""
    files = sorted((corpus2 / "opencode").rglob("full.jsonl"))
    assert len(files) >= 10
    for path in files:
        prog = ev.Progress()
        events = list(opencode.read(path, progress=prog))
        parts, failed = _tool_parts(path)
        results = [e for e in events if e.kind == ev.TOOL_RESULT]
        assert (prog.bad_lines, prog.document) == (0, True), path
        assert len(results) == parts, path
        assert sum(1 for e in results if e.failure) == failed, path
        last = len(path.read_bytes().splitlines())
        assert all(0 < e.line <= last and e.session_id for e in events), path
        assert any(e.kind == ev.USER_TEXT for e in events), path


def test_gemini_documents_under_jsonl_names_are_read_whole(corpus2):
    """The Gemini sessions stored as ``full.jsonl`` are legacy documents: read whole, with the
    cancelled shell commands one of them holds."""
    files = sorted((corpus2 / "gemini").rglob("*.jsonl"))
    assert files
    cancelled = 0
    for path in files:
        prog = ev.Progress()
        events = list(gemini.read(path, progress=prog))
        messages = json.loads(path.read_bytes())["messages"]
        assert (prog.bad_lines, prog.document, prog.messages) == (0, True, len(messages)), path
        cancelled += sum(1 for e in events if e.kind == ev.TOOL_RESULT and e.failure)
    assert cancelled == 2


def test_no_file_of_an_agent_is_taken_for_another(corpus2):
    """Copilot CLI's event logs name a session too: no other agent's reader claims them, and
    since lessons-copilot, Copilot's own does (before it, none did)."""
    from lessons_core import services
    from lessons_core.scan import discovery

    with services.session() as sess:
        agents = sess.plugins.agents()
    for path in sorted((corpus2 / "copilot").rglob("*.jsonl")):
        assert discovery.sniff(path, agents) == ("copilot" if "copilot" in agents else None), path
    for agent in ("opencode", "gemini"):
        for path in sorted((corpus2 / agent).rglob("*.jsonl")):
            assert discovery.sniff(path, agents) == agent, path
