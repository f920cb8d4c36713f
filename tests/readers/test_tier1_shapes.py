"""What the readers hand the Tier 1 detector from the shapes ``#lesson`` blocks arrive in.

The transcripts are the authored Tier 1 fixtures (``tests/fixtures/transcripts/tier1``).
"""

from __future__ import annotations

import json
from pathlib import Path

from lessons_claude import reader as claude
from lessons_codex import reader as codex
from lessons_core.scan import events as ev
from lessons_gemini import reader as gemini

TIER1 = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "tier1"
CLAUDE = TIER1 / "claude" / "projects" / "-home-dev-shop"
CODEX = TIER1 / "codex" / "sessions" / "2026" / "03" / "14"
GEMINI = TIER1 / "gemini" / "tmp"


def _events(read, path):
    return list(read(path, progress=ev.Progress()))


def test_claude_a_line_holding_thinking_text_and_a_tool_call_yields_text_and_call(tmp_path):
    """Newer Claude Code writes a whole response on one line; its text and its call both count,
    its reasoning never does. A reasoning block alone is still skipped unparsed."""
    main = CLAUDE / "7c2f9a10-3b4d-4e5f-8a6b-0c1d2e3f4a01.jsonl"
    events = [e for e in _events(claude.read, main) if e.line == 5]
    assert [e.kind for e in events] == [ev.ASSISTANT_TEXT, ev.TOOL_CALL]
    assert "#lesson" in events[0].text
    assert "managed by the OS" not in events[0].text
    assert events[1].command == "uv pip install -r requirements.txt"
    lines = main.read_text(encoding="utf-8").splitlines()
    alone = [line for line in lines if '"thinking"' in line and '"type":"text"' not in line]
    assert alone  # the fixture has reasoning-only lines, holding a quoted block
    path = tmp_path / "think.jsonl"
    path.write_text("\n".join(alone) + "\n", encoding="utf-8")
    assert _events(claude.read, path) == []


def test_claude_sub_agents_in_both_layouts_are_sidechains():
    """``<session>/subagents/agent-*.jsonl`` (2.1.2+) and flat ``agent-*.jsonl`` (up to 2.1.1)."""
    nested = CLAUDE / "7c2f9a10-3b4d-4e5f-8a6b-0c1d2e3f4a01" / "subagents"
    for path in (next(nested.glob("agent-*.jsonl")), CLAUDE / "agent-3f9e2d1c.jsonl"):
        texts = [e for e in _events(claude.read, path) if e.kind == ev.ASSISTANT_TEXT]
        assert texts and all(e.sidechain for e in texts)
        assert any("#lesson" in e.text for e in texts)


def test_codex_commentary_then_call_and_no_copy_from_the_ui_event():
    """A commentary message with a block, then its function call; the ``agent_message`` copy
    of every message is not read a second time."""
    path = next(CODEX.glob("rollout-*a5b6.jsonl"))
    events = _events(codex.read, path)
    texts = [e for e in events if e.kind == ev.ASSISTANT_TEXT]
    lines = path.read_text(encoding="utf-8").splitlines()
    copies = [n for n, line in enumerate(lines, 1) if '"agent_message"' in line]
    assert len(copies) == len(texts)
    assert not {e.line for e in events} & set(copies)
    first = texts[0]
    after = next(e for e in events if e.line > first.line)
    assert "terraform" in first.text and "#lesson" in first.text
    assert after.kind == ev.TOOL_CALL and after.command.startswith("terraform plan -input=false")
    assert json.loads(lines[first.line - 1])["payload"]["phase"] == "commentary"


def test_codex_sub_agent_rollout_is_a_sidechain():
    path = next(CODEX.glob("rollout-*a5b7.jsonl"))
    texts = [e for e in _events(codex.read, path) if e.kind == ev.ASSISTANT_TEXT]
    assert texts and all(e.sidechain for e in texts)


def test_gemini_legacy_message_with_two_blocks_is_one_text_event():
    """One ``gemini`` message, two blocks: one event at the message's index; thoughts and tool
    results holding blocks are not assistant text."""
    (path,) = (p for p in GEMINI.glob("*/chats/session-*.json") if "expected" not in p.name)
    texts = [e for e in _events(gemini.read, path) if e.kind == ev.ASSISTANT_TEXT]
    assert [e.line for e in texts] == [4, 7]
    assert texts[0].text.count("#lesson\n") == 2
    assert "#lesson" in texts[1].text  # content as a list of parts


def test_gemini_jsonl_message_appended_twice_is_read_once():
    """A message re-appended with the same id (tokens arrived) and repeated in a ``$set``
    history checkpoint is one text event, at its first line."""
    path = GEMINI / "mobile-app" / "chats" / "session-2026-04-30T08-00-8e7d6c5b.jsonl"
    texts = [e for e in _events(gemini.read, path) if e.kind == ev.ASSISTANT_TEXT]
    assert [e.line for e in texts] == [6]
