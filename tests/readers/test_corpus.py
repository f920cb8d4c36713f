"""The readers against the shared corpus of real transcripts (skipped when it is absent)."""

from __future__ import annotations

import json

import pytest

from lessons_claude import reader as claude
from lessons_codex import reader as codex
from lessons_core.scan import events as ev
from lessons_core.scan import tier2
from lessons_gemini import reader as gemini

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
