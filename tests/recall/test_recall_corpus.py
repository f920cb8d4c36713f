"""Recall against real data: the Node catalogue and the failures and prompts of real sessions."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from lessons_core import services
from lessons_core.cli.main import cli
from lessons_core.hot import recall
from lessons_core.scan import discovery

pytestmark = pytest.mark.corpus


@pytest.fixture(name="seeded")
def fixture_seeded(home: Path, shared_dir: Path) -> Path:
    """The Node original's 143 lessons imported into ``home`` (manifest and recall index)."""
    seed = shared_dir / "corpus" / "seed-lessons" / "lesson-manifest.json"
    result = CliRunner().invoke(cli, ["import", str(seed), "--partial"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return home


def corpus_texts(shared_dir: Path, kind: str) -> list[tuple[str, str]]:
    """(agent, text) of every failing tool result (or user prompt) in the real transcripts."""
    found = []
    with services.session() as sess:
        agents = sess.plugins.agents()
        for path in sorted((shared_dir / "corpus" / "real").rglob("*.json*")):
            agent = discovery.sniff(path, agents)
            if agent not in agents or agents[agent].reader is None:
                continue
            for event in agents[agent].reader(path, 0):
                if (kind == "failure" and event.kind == "tool_result" and event.is_mistake) or (
                    kind == "prompt" and event.kind == "user_text" and event.text
                ):
                    found.append((agent, event.text))
    return found


def test_real_failures_and_prompts_recall_no_noise(seeded: Path, shared_dir: Path) -> None:
    """None of the Node lessons is about these sessions' failures or prompts: recall stays silent.

    The catalogue holds no error lines, so only the full-text path runs; BM25 always ranks some
    lesson first, and the coverage rule is what keeps those near misses out.
    """
    index = recall.load_index(os.environ)
    failures = corpus_texts(shared_dir, "failure")
    prompts = corpus_texts(shared_dir, "prompt")
    assert len(failures) > 50 and len(prompts) > 100
    noisy = []
    for agent, text in failures:
        event = {"event": "post_failure", "agent": agent, "error": text, "command": "x"}
        if recall.handle(event, index, None, os.environ, {})["delivered"]:
            noisy.append(text[:120])
    for agent, text in prompts:
        event = {"event": "prompt", "agent": agent, "prompt": text}
        if recall.handle(event, index, None, os.environ, {})["delivered"]:
            noisy.append(text[:120])
    assert len(noisy) <= (len(failures) + len(prompts)) // 50, noisy


def test_seed_lesson_recalled_by_a_prompt_about_it(seeded: Path) -> None:
    """A prompt that is about one of the Node lessons brings that lesson back."""
    index = recall.load_index(os.environ)
    event = {
        "event": "prompt",
        "agent": "claude",
        "prompt": "the vitest run hangs in the non-interactive terminal, "
        "can you fix the pool config?",
    }
    decision = recall.handle(event, index, None, os.environ, {})
    assert decision["delivered"]
    assert "vitest hangs in non-interactive terminal" in decision["context"]
