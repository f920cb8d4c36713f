"""The capture evaluation (``benchmarks/capture_eval.py``) and the labels it reads.

The arithmetic is checked on hand-built labels and candidates whose recall and precision are
known; the labels are checked against the real corpus (each labelled event still sits at its
line with its call id, and every failure the raw files hold is labelled); and the evaluation is
run end to end on the corpus, in-process and through the ``lessons`` processes. No test asserts
what the scanner's figures should be: those are measurements, not contracts.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
LABELS = REPO / "benchmarks" / "labels"


def _load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


ce = _load("capture_eval", REPO / "benchmarks" / "capture_eval.py")
enum = _load("enumerate_events", LABELS / "enumerate_events.py")


def _label(file, line, call_id, kind="validation", reusable=True, fixed=True):
    return ce.Label(
        agent=file.split("/", 1)[0],
        file=file,
        line=line,
        call_id=call_id,
        tool="Edit",
        kind=kind,
        reusable=reusable,
        fixed_by={"call_id": "fix", "line": line + 2} if fixed else None,
        lesson={"mistake": "m", "fix": "f", "trigger": "t"} if reusable else None,
        note="n",
    )


def _cand(agent, file, line, call_id, tier=2, status="pending", summary=""):
    return {
        "tier": tier,
        "agent": agent,
        "status": status,
        "summary": summary,
        "evidence": [{"file": file, "line": line, "call_id": call_id, "session_id": "s"}],
    }


# -- the arithmetic, on a hand-built example ---------------------------------------------------


def test_recall_and_precision_on_a_known_example(tmp_path):
    """Six labels, six candidates: every figure is known in advance."""
    root = tmp_path / "corpus"
    a, b = "claude/p/a.jsonl", "codex/r.jsonl"
    g = "gemini/s.json"
    labels = [
        _label(a, 10, "toolu_1"),  # found by call id
        _label(a, 20, "toolu_2", kind="cwd-drift"),  # found by line (candidate has no call id)
        _label(a, 30, "toolu_3"),  # missed
        _label(a, 40, "toolu_4", reusable=False, fixed=False, kind="error"),  # one-off
        _label(b, 5, "call_9", kind="error"),  # found by line, other call id (a poll)
        _label(b, 7, "call_8", kind="error", fixed=False),  # reusable, unfixed: not expected
        _label(g, 3, "shell-1", kind="error"),  # gemini: line alone does not match
    ]
    candidates = [
        _cand("claude", str(root / a), 99, "toolu_1"),
        _cand("claude", str(root / a), 20, None),
        _cand("claude", str(root / a), 40, "toolu_4"),  # points at the one-off
        _cand("claude", str(root / "claude/p/other.jsonl"), 1, "toolu_x"),  # unlabelled
        _cand("codex", str(root / b), 5, "call_start"),
        _cand("gemini", str(root / g), 3, "shell-2"),  # same line, other call: unlabelled
        _cand("claude", str(root / a), 30, "toolu_3", status="rejected"),  # not counted
        _cand("claude", str(root / a), 30, "toolu_3", tier=1),  # Tier 1: not counted
    ]
    result = ce.evaluate(labels, candidates, root)
    assert (result["expected"], result["found"], result["recall"]) == (5, 3, 0.6)
    assert (result["candidates"], result["on_reusable"]) == (6, 3)
    assert (result["one_off"], result["unlabelled"], result["precision"]) == (1, 2, 0.5)
    claude, codex, gemini = (result["by_agent"][x] for x in ("claude", "codex", "gemini"))
    assert (claude["expected"], claude["found"], claude["candidates"]) == (3, 2, 4)
    assert (claude["on_reusable"], claude["precision"]) == (2, 0.5)
    assert (codex["expected"], codex["found"], codex["precision"]) == (1, 1, 1.0)
    assert (gemini["expected"], gemini["found"], gemini["precision"]) == (1, 0, 0.0)
    kinds = result["by_kind"]
    assert (kinds["validation"]["expected"], kinds["validation"]["found"]) == (2, 1)
    assert (kinds["cwd-drift"]["found"], kinds["cwd-drift"]["on_reusable"]) == (1, 1)
    assert (kinds["error"]["expected"], kinds["error"]["found"]) == (2, 1)
    assert (kinds["error"]["candidates"], kinds["error"]["one_off"]) == (2, 1)
    assert kinds["unlabelled"]["candidates"] == 2
    assert [(m["file"], m["line"]) for m in result["missed"]] == [(a, 30), (g, 3)]
    assert len(result["false_positives"]) == 3


def test_no_candidates_and_no_expected_events_give_no_ratio(tmp_path):
    result = ce.evaluate(
        [_label("claude/a.jsonl", 1, "t", reusable=False, fixed=False)], [], tmp_path
    )
    assert result["recall"] is None and result["precision"] is None
    assert result["by_agent"]["codex"]["candidates"] == 0


def test_evidence_under_a_shortened_home_is_resolved(tmp_path):
    """The scanner may print the scanning user's home as ``~``; it still points at the label."""
    home = tmp_path / "me"
    root = home / "corpus"
    label = _label("claude/a.jsonl", 4, "toolu_1")
    result = ce.evaluate(
        [label], [_cand("claude", "~/corpus/claude/a.jsonl", 4, "toolu_1")], root, str(home)
    )
    assert result["found"] == 1


def test_tier1_captured_strays_and_duplicates(tmp_path):
    fixtures = tmp_path / "fixtures"
    (fixtures / "claude").mkdir(parents=True)
    transcript = fixtures / "claude" / "t.jsonl"
    transcript.write_text("{}\n")
    (fixtures / "claude" / "t.expected.json").write_text(
        json.dumps({"blocks": [{"line": 2, "summary": "Use uv"}, {"line": 5, "summary": "B"}]})
    )
    (exp,) = ce.load_expectations(fixtures)
    assert exp.agent == "claude" and exp.blocks == ((2, "Use uv"), (5, "B"))
    cands = [
        _cand("claude", str(transcript), 2, None, tier=1, summary="x"),  # by line
        _cand("claude", str(transcript), 9, None, tier=1, summary="  use UV "),  # by summary: dup
        _cand("claude", str(transcript), 7, None, tier=1, summary="other"),  # stray
        _cand("claude", str(transcript), 5, None, tier=2),  # heuristic: not Tier 1
    ]
    result = ce.evaluate_tier1([exp], cands, fixtures)
    assert (result["expected"], result["captured"]) == (2, 1)
    assert (result["strays"], result["duplicates"]) == (1, 1)
    assert result["by_transcript"][0]["missed"] == ["B"]


def test_a_sidecar_without_its_transcript_is_an_error(tmp_path):
    (tmp_path / "x.expected.json").write_text('{"blocks": []}')
    with pytest.raises(ValueError, match="no transcript"):
        ce.load_expectations(tmp_path)


CLAUDE_LINE = {
    "parentUuid": None,
    "isSidechain": False,
    "userType": "external",
    "cwd": "/home/dev/app",
    "sessionId": "7a1c0000-0000-4000-8000-000000000001",
    "version": "2.1.33",
    "type": "assistant",
}


def _say(n, text):
    return json.dumps(
        {
            **CLAUDE_LINE,
            "uuid": f"u-{n}",
            "timestamp": f"2026-02-01T10:00:{n:02d}.000Z",
            "message": {
                "id": f"msg_{n}",
                "role": "assistant",
                "content": [{"type": "text", "text": text}],
            },
        }
    )


BLOCK = """Noted.
#lesson
summary: {summary}
tool: Bash
trigger: {trigger}
mistake: {mistake}
fix: {fix}
#/lesson
"""


def test_tier1_end_to_end_through_the_scanner(tmp_path):
    """An authored transcript with two blocks and a sidecar expecting one: the real scan
    captures it, and the other block counts as a stray."""
    folder = tmp_path / "fixtures" / "claude"
    folder.mkdir(parents=True)
    first = BLOCK.format(
        summary="pytest is not on PATH here",
        trigger="pytest",
        mistake="bare pytest is not on PATH; it lives in the project's virtualenv",
        fix="run .venv/bin/python -m pytest so the virtualenv's pytest is used",
    )
    second = BLOCK.format(
        summary="npm is not this project's package manager",
        trigger="npm install",
        mistake="npm install in a pnpm workspace wrote a second lock file",
        fix="run pnpm install, which reads pnpm-lock.yaml",
    )
    (folder / "s.jsonl").write_text(
        _say(1, "Starting.") + "\n" + _say(2, first) + "\n" + _say(3, second) + "\n"
    )
    (folder / "s.expected.json").write_text(
        json.dumps({"blocks": [{"line": 2, "summary": "pytest is not on PATH here"}]})
    )
    result = ce.run(
        tmp_path / "no-corpus", LABELS, tmp_path / "fixtures", scratch=tmp_path / "scratch"
    )
    assert result["tier2"] is None and "no corpus" in result["tier2_skipped"]
    t1 = result["tier1"]
    assert (t1["transcripts"], t1["expected"], t1["captured"]) == (1, 1, 1)
    assert (t1["strays"], t1["duplicates"]) == (1, 0)


def test_main_skips_tier2_with_a_message_when_the_corpus_is_absent(tmp_path, capsys):
    assert ce.main(["--corpus", str(tmp_path / "missing"), "--fixtures", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Tier 2: skipped" in out and "no corpus at" in out
    assert "Tier 1 (#lesson blocks): no labelled transcripts" in out


# -- the labels themselves ---------------------------------------------------------------------


def test_the_label_files_are_well_formed():
    """Every record has the stable keys and consistent values; no machine paths."""
    labels = ce.load_labels(LABELS)
    assert {lb.agent for lb in labels} == {"claude", "codex", "gemini"}
    for path in LABELS.glob("*.jsonl"):
        for raw in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(raw)
            assert ce.record_problems(record) == [], raw[:200]
            assert path.stem == record["file"].split("/", 1)[0]
    text = "".join(p.read_text(encoding="utf-8") for p in LABELS.iterdir() if p.is_file())
    for prefix in ("/work/", "/root/", "/tmp/"):
        assert prefix not in text


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"kind": "oops"}, "kind"),
        ({"line": 0}, "line"),
        ({"file": "/abs/claude/x.jsonl"}, "relative"),
        ({"lesson": None}, "needs a lesson"),
        ({"fixed_by": {"call_id": "x"}}, "fixed_by"),
        ({"note": ""}, "note"),
        ({"tool": 3}, "tool"),
        ({"extra": 1}, "unknown keys"),
    ],
)
def test_a_malformed_record_is_named(change, problem):
    good = {
        "file": "claude/a.jsonl",
        "line": 3,
        "call_id": "toolu_1",
        "tool": "Edit",
        "kind": "validation",
        "reusable": True,
        "fixed_by": {"call_id": "toolu_2", "line": 5},
        "lesson": {"mistake": "m", "fix": "f", "trigger": "t"},
        "note": "why",
    }
    assert ce.record_problems(good) == []
    problems = ce.record_problems({**good, **change})
    assert any(problem in p for p in problems), problems


@pytest.mark.corpus
def test_every_label_still_sits_at_its_line_with_its_call_id(shared_dir):
    """Catches drift: a transcript replaced or edited under the labels."""
    corpus = shared_dir / "corpus" / "real"
    assert ce.corpus_problems(ce.load_labels(LABELS), corpus) == []


@pytest.mark.corpus
def test_drift_is_reported(shared_dir):
    corpus = shared_dir / "corpus" / "real"
    label = next(lb for lb in ce.load_labels(LABELS) if lb.tool is not None)
    moved = ce.Label(**{**vars(label), "line": label.line + 1})
    gone = ce.Label(**{**vars(label), "file": "claude/none.jsonl"})
    problems = ce.corpus_problems([moved, gone], corpus)
    assert len(problems) == 2
    assert "does not hold call id" in problems[0] or "past the end" in problems[0]
    assert "no such transcript" in problems[1]


@pytest.mark.corpus
def test_every_raw_failure_in_the_corpus_is_labelled(shared_dir):
    """The raw files, read without the scanner, hold no failing call the labels miss."""
    corpus = shared_dir / "corpus" / "real"
    labelled = {(lb.file, lb.line, lb.call_id) for lb in ce.load_labels(LABELS)}
    missing = []
    for agent, reader in enum.READERS.items():
        for path in sorted((corpus / agent).rglob("*")):
            if path.suffix not in (".jsonl", ".json") or path.name.endswith(".meta.json"):
                continue
            rel = path.relative_to(corpus).as_posix()
            for row in reader(path):
                if row["event"] == "failure" and (rel, row["line"], row["call_id"]) not in labelled:
                    missing.append((rel, row["line"], row["call_id"]))
    assert missing == []


@pytest.mark.corpus
def test_the_evaluation_runs_on_the_corpus_in_process_and_as_processes(shared_dir, tmp_path):
    """Consistent figures (no targets): parts add up, and both ways of scanning agree."""
    corpus = shared_dir / "corpus" / "real"
    result = ce.run(corpus, LABELS, tmp_path / "no-fixtures", scratch=tmp_path / "a")
    t2 = result["tier2"]
    assert t2["labels"] == len(ce.load_labels(LABELS))
    assert 0 <= t2["found"] <= t2["expected"] <= t2["reusable_labels"] <= t2["labels"]
    assert t2["on_reusable"] + t2["one_off"] + t2["unlabelled"] == t2["candidates"]
    assert sum(p["candidates"] for p in t2["by_agent"].values()) == t2["candidates"]
    assert sum(p["expected"] for p in t2["by_agent"].values()) == t2["expected"]
    assert sum(p["found"] for p in t2["by_agent"].values()) == t2["found"]
    if t2["expected"]:
        assert t2["recall"] == round(t2["found"] / t2["expected"], 3)
    assert result["tier1"] == {"transcripts": 0}
    via_cli = ce.run(corpus, LABELS, tmp_path / "no-fixtures", cli=True, scratch=tmp_path / "b")
    keys = ("expected", "found", "candidates", "on_reusable", "one_off", "unlabelled")
    assert {k: via_cli["tier2"][k] for k in keys} == {k: t2[k] for k in keys}
    assert via_cli["tier2"]["by_agent"] == t2["by_agent"]
