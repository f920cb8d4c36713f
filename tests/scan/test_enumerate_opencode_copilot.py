"""The worksheet generator's OpenCode and Copilot CLI readers, on the real transcripts.

``benchmarks/labels/enumerate_events.py`` lists the raw failures a person labels; these readers
decide what counts as a failure in an OpenCode export and a Copilot CLI ``events.jsonl``, and on
which line it sits. They are checked on the second real corpus (``corpus/real2``) against the
labels made from them: every failure they list is labelled, every label sits at a line holding
its call id, and the shapes that are easy to get wrong (a call id repeated in one export, the
``invalid`` tool, a shell's exit code at the end of its output) are read as the files hold them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmark_scripts import load

REPO = Path(__file__).resolve().parents[2]
LABELS = REPO / "benchmarks" / "labels" / "real2"
AGENTS = ("opencode", "copilot")


enum = load("enumerate_events", REPO / "benchmarks" / "labels" / "enumerate_events.py")


def _labels(agent: str) -> list[dict[str, Any]]:
    path = LABELS / f"{agent}.jsonl"
    return [json.loads(raw) for raw in path.read_text(encoding="utf-8").splitlines() if raw]


def _rows(corpus: Path, agent: str) -> list[dict[str, Any]]:
    rows = []
    for path in sorted((corpus / agent).rglob("*.jsonl")):
        for row in enum.READERS[agent](path):
            row["file"] = path.relative_to(corpus).as_posix()
            rows.append(row)
    return rows


@pytest.fixture(name="corpus")
def fixture_corpus(shared_dir: Path) -> Path:
    corpus = shared_dir / "corpus" / "real2"
    if not (corpus / "opencode").is_dir():
        pytest.skip("the second real corpus is not in the shared folder")
    return corpus


@pytest.mark.corpus
@pytest.mark.parametrize("agent", AGENTS)
def test_every_listed_failure_is_labelled_and_every_failure_label_is_listed(corpus, agent):
    listed = {
        (r["file"], r["line"], r["call_id"])
        for r in _rows(corpus, agent)
        if r["event"] == "failure"
    }
    labelled = {(lb["file"], lb["line"], lb["call_id"]) for lb in _labels(agent) if lb["tool"]}
    assert listed, "the reader found no failure at all"
    assert listed - labelled == set()
    assert labelled - listed == set()


@pytest.mark.corpus
@pytest.mark.parametrize("agent", AGENTS)
def test_each_label_and_fix_sits_at_a_line_holding_its_call_id(corpus, agent):
    problems = []
    for lb in _labels(agent):
        lines = (corpus / lb["file"]).read_text(encoding="utf-8").splitlines()
        if lb["tool"] and lb["call_id"] not in lines[lb["line"] - 1]:
            problems.append((lb["file"], lb["line"], "call id"))
        fix = lb["fixed_by"]
        if fix and fix["call_id"] not in lines[fix["line"] - 1]:
            problems.append((lb["file"], lb["line"], "fix"))
        if lb["reusable"] and lb.get("scope") not in ("global", "project"):
            problems.append((lb["file"], lb["line"], "scope"))
    assert problems == []


@pytest.mark.corpus
def test_opencode_call_ids_repeated_in_one_export_get_their_own_lines(corpus):
    """kimi numbers its calls ``functions.bash:0`` afresh in each step: two parts, two lines."""
    path = next((corpus / "opencode").rglob("360aa9943d/0/full.jsonl"))
    rows = [r for r in enum.opencode(path) if r["event"] == "failure"]
    lines = [r["line"] for r in rows]
    assert len(lines) == len(set(lines))
    assert [r["tool"] for r in rows].count("invalid") == 1  # a malformed call is a failure too
    text = path.read_text(encoding="utf-8").splitlines()
    assert all(f'"callID": "{r["call_id"]}"' in text[r["line"] - 1] for r in rows)


@pytest.mark.corpus
def test_copilot_shell_exit_codes_and_tool_failures_are_both_read(corpus):
    path = next((corpus / "copilot").rglob("9e1b9e5502/0/full.jsonl"))
    rows = [r for r in enum.copilot(path) if r["event"] == "failure"]
    assert [(r["tool"], r["output"].rstrip()[-4:]) for r in rows[1:]] == [
        ("bash", "e 1>"),
        ("bash", "128>"),
    ]
    assert rows[0]["tool"] == "read_bash" and "already stopped" in rows[0]["output"]
    aborts = list(enum.copilot(next((corpus / "copilot").rglob("8be769afd1/0/full.jsonl"))))
    assert any(r["event"] == "user" and r["text"] == "[abort user_initiated]" for r in aborts)
