"""The capture evaluation (``benchmarks/capture_eval.py``) and the labels it reads.

The arithmetic is checked on hand-built labels and candidates whose recall and precision are
known; the labels are checked against the real corpus (each labelled event still sits at its
line with its call id, and every failure the raw files hold is labelled); and the evaluation is
run end to end on the corpus, in-process and through the ``lessons`` processes. No test asserts
what the scanner's figures should be: those are measurements, not contracts.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchmark_scripts import load

REPO = Path(__file__).resolve().parents[2]
LABELS = REPO / "benchmarks" / "labels"


ce = load("capture_eval", REPO / "benchmarks" / "capture_eval.py")
enum = load("enumerate_events", LABELS / "enumerate_events.py")


def _label(file, line, call_id, kind="validation", reusable=True, fixed=True, corpus="real"):
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
        corpus=corpus,
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
    root = tmp_path / "corpora"
    real = root / "real"
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
        _cand("claude", str(real / a), 99, "toolu_1"),
        _cand("claude", str(real / a), 20, None),
        _cand("claude", str(real / a), 40, "toolu_4"),  # points at the one-off
        _cand("claude", str(real / "claude/p/other.jsonl"), 1, "toolu_x"),  # unlabelled
        _cand("codex", str(real / b), 5, "call_start"),
        _cand("gemini", str(real / g), 3, "shell-2"),  # same line, other call: unlabelled
        _cand("claude", str(real / a), 30, "toolu_3", status="rejected"),  # not counted
        _cand("claude", str(real / a), 30, "toolu_3", tier=1),  # Tier 1: not counted
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
    assert [(m["file"], m["line"]) for m in result["missed"]] == [
        (f"real/{a}", 30),
        (f"real/{g}", 3),
    ]
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
    root = home / "corpora"
    label = _label("claude/a.jsonl", 4, "toolu_1")
    result = ce.evaluate(
        [label], [_cand("claude", "~/corpora/real/claude/a.jsonl", 4, "toolu_1")], root, str(home)
    )
    assert result["found"] == 1


def test_tier1_captured_strays_and_duplicates(tmp_path):
    fixtures = tmp_path / "fixtures"
    (fixtures / "claude").mkdir(parents=True)
    transcript = fixtures / "claude" / "t.jsonl"
    transcript.write_text("{}\n")
    (fixtures / "claude" / "t.jsonl.expected.json").write_text(
        json.dumps({"blocks": [{"line": 2, "summary": "Use uv"}, {"line": 5, "summary": "B"}]})
    )
    (exp,) = ce.load_expectations(fixtures)
    assert exp.agent == "claude" and exp.blocks == (ce.Block(2, "Use uv"), ce.Block(5, "B"))
    cands = [
        _cand("claude", str(transcript), 2, None, tier=1, summary="x"),  # by line
        _cand("claude", str(transcript), 9, None, tier=1, summary="  use UV "),  # by words: dup
        _cand("claude", str(transcript), 7, None, tier=1, summary="other"),  # stray
        _cand("claude", str(transcript), 5, None, tier=2),  # heuristic: not Tier 1
    ]
    result = ce.evaluate_tier1([exp], cands, fixtures)
    assert (result["expected"], result["captured"]) == (2, 1)
    assert (result["strays"], result["duplicates"]) == (1, 1)
    assert result["by_transcript"][0]["missed"] == ["line 5: B"]


def test_blocks_sharing_a_line_are_paired_by_their_words():
    """Several blocks in one record: each capture goes to the block it names; one more
    capture on that line is a duplicate, not a stray."""
    blocks = [ce.Block(9, "npm test never exits"), ce.Block(9, "yarn test never exits", "m")]
    captures = [(9, "yarn test never exits"), (9, "npm test never exits"), (9, "again")]
    paired, dupes, strays = ce.assign(blocks, captures)
    assert paired == {0: 1, 1: 0}
    assert (dupes, strays) == ([2], [])
    paired, dupes, strays = ce.assign(blocks, [(3, "m")])  # by the mistake, elsewhere
    assert (paired, dupes, strays) == ({1: 0}, [], [])


def test_a_sidecar_may_also_replace_the_extension(tmp_path):
    (tmp_path / "gemini").mkdir()
    (tmp_path / "gemini" / "s.json").write_text("{}")
    (tmp_path / "gemini" / "s.expected.json").write_text('{"blocks": []}')
    (exp,) = ce.load_expectations(tmp_path)
    assert exp.transcript.name == "s.json" and exp.agent == "gemini" and exp.blocks == ()


def test_a_sidecar_without_its_transcript_is_an_error(tmp_path):
    (tmp_path / "x.jsonl.expected.json").write_text('{"blocks": []}')
    with pytest.raises(ValueError, match="no transcript"):
        ce.load_expectations(tmp_path)


def test_a_malformed_sidecar_is_an_error(tmp_path):
    (tmp_path / "x.jsonl").write_text("{}")
    (tmp_path / "x.jsonl.expected.json").write_text('{"blocks": [{"line": "2"}]}')
    with pytest.raises(ValueError, match="needs"):
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
    (folder / "s.jsonl.expected.json").write_text(
        json.dumps({"blocks": [{"line": 2, "summary": "pytest is not on PATH here"}]})
    )
    result = ce.run(
        tmp_path / "no-corpus", LABELS, tmp_path / "fixtures", scratch=tmp_path / "scratch"
    )
    assert result["tier2"] is None and "no corpus" in result["tier2_skipped"]
    t1 = result["tier1"]
    assert (t1["transcripts"], t1["expected"], t1["captured"]) == (1, 1, 1)
    assert (t1["strays"], t1["duplicates"]) == (1, 0)


def _user(n, text):
    return json.dumps(
        {
            **CLAUDE_LINE,
            "type": "user",
            "uuid": f"u-{n}",
            "timestamp": f"2026-02-01T10:00:{n:02d}.000Z",
            "message": {"role": "user", "content": text},
        }
    )


def test_the_correction_detector_is_measured_apart_though_off_by_default(tmp_path):
    """The defaults leave the correction detector out, so the headline scan has none of its
    candidates; the scan made for its own figure switches it on and keeps only its own."""
    folder = tmp_path / "corpus" / "claude"
    folder.mkdir(parents=True)
    (folder / "s.jsonl").write_text(
        "\n".join(
            [
                _user(1, "Add the lodash dependency to the web package."),
                _say(2, "I will add it with npm."),
                _user(3, "no, use pnpm instead of npm, this repository is a pnpm workspace"),
            ]
        )
        + "\n"
    )
    plain = ce.scan_in_process([folder], tmp_path / "defaults")
    assert not [c for c in plain.candidates if c.get("detector") == ce.CORRECTIONS]
    alone = ce._detector_alone(ce.scan_in_process, folder, tmp_path / "on")
    assert len(alone) == 1
    assert "use pnpm instead of npm" in alone[0]["summary"]
    assert [e["line"] for e in alone[0]["evidence"]] == [3]


def test_main_skips_tier2_with_a_message_when_the_corpus_is_absent(tmp_path, capsys, monkeypatch):
    # main() sets up logging on the stream it finds; keep it off pytest's captured one
    monkeypatch.setattr("lessons_core.logs.configure_logging", lambda *_a, **_k: None)
    assert ce.main(["--corpora", str(tmp_path / "missing"), "--fixtures", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Tier 2: skipped" in out and "no corpus at" in out
    assert "Tier 1 (#lesson blocks): no labelled transcripts" in out


# -- the labels themselves ---------------------------------------------------------------------


def test_the_label_files_are_well_formed():
    """Every record has the stable keys and consistent values; no machine paths. Each file of
    ``<corpus>/`` is named after the agent of its records (``claude.jsonl``,
    ``claude-others.jsonl``)."""
    labels = ce.load_labels(LABELS)
    assert {lb.agent for lb in labels if lb.corpus == "real"} == {"claude", "codex", "gemini"}
    assert {lb.corpus for lb in labels} <= set(ce.CORPUS_NAMES)
    for path in LABELS.glob("*/*.jsonl"):
        for raw in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(raw)
            assert ce.record_problems(record) == [], raw[:200]
            assert path.stem.split("-", 1)[0] == record["file"].split("/", 1)[0]
    text = "".join(
        p.read_text(encoding="utf-8")
        for p in LABELS.rglob("*")
        if p.is_file() and p.suffix in {".jsonl", ".json", ".md", ".py"}
    )
    # No paths of this machine, as the start of a path: a folder of the same name inside
    # another path (a Maven group's ``androidx/work/``) is no hit.
    for folder in (REPO.parent, Path.home()):
        assert not re.search(rf"(?<![\w.-]){re.escape(str(folder))}/", text), folder


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
        ({"file": "cursor/a.jsonl"}, "under an agent folder"),
        ({"scope": "team"}, "scope must be one of"),
        ({"scope": None}, "scope must be one of"),
        (
            {"scope": "project", "reusable": False, "lesson": None, "fixed_by": None},
            "reusable event only",
        ),
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
    labels = ce.load_labels(LABELS)
    present = [lb for lb in labels if (shared_dir / "corpus" / lb.corpus).is_dir()]
    assert ce.corpus_problems(present, shared_dir / "corpus") == []


@pytest.mark.corpus
def test_drift_is_reported(shared_dir):
    label = next(lb for lb in ce.load_labels(LABELS) if lb.tool is not None)
    moved = ce.Label(**{**vars(label), "line": label.line + 1})
    gone = ce.Label(**{**vars(label), "file": "claude/none.jsonl"})
    problems = ce.corpus_problems([moved, gone], shared_dir / "corpus")
    assert len(problems) == 2
    assert "does not hold call id" in problems[0] or "past the end" in problems[0]
    assert "no such transcript" in problems[1]


@pytest.mark.corpus
def test_every_raw_failure_in_the_corpus_is_labelled(shared_dir):
    """The raw files, read without the scanner, hold no failing call the labels miss."""
    corpus = shared_dir / "corpus" / "real"
    labelled = {
        (lb.file, lb.line, lb.call_id) for lb in ce.load_labels(LABELS) if lb.corpus == "real"
    }
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
    """Consistent figures (no targets): parts add up, the two sides make the whole, and both
    ways of scanning agree."""
    corpora = shared_dir / "corpus"
    result = ce.run(corpora, LABELS, tmp_path / "no-fixtures", scratch=tmp_path / "a")
    t2 = result["tier2"]
    real = t2["by_corpus"]["real"]
    whole = real["all"]
    labels = ce.load_labels(LABELS)
    assert whole["labels"] == sum(lb.corpus == "real" for lb in labels)
    assert 0 <= whole["lesson_found"] <= whole["found"] <= whole["expected"]
    assert whole["expected"] <= whole["reusable_labels"] <= whole["labels"]
    assert whole["on_reusable"] + whole["one_off"] + whole["unlabelled"] == whole["candidates"]
    for key in ("labels", "expected", "found", "lesson_found"):
        assert real["test"][key] + real["dev"][key] == whole[key]
    for side in ("test", "dev"):
        part = t2[side]
        assert sum(p["expected"] for p in part["by_agent"].values()) == part["expected"]
        assert sum(p["found"] for p in part["by_agent"].values()) == part["found"]
        assert sum(p["candidates"] for p in part["by_agent"].values()) == part["candidates"]
        if part["expected"]:
            assert part["recall"] == round(part["found"] / part["expected"], 3)
    assert t2["corpora"]["real"]["readers"]["codex"]["status"] == "read"
    assert result["tier1"] == {"transcripts": 0}
    via_cli = ce.run(corpora, LABELS, tmp_path / "no-fixtures", cli=True, scratch=tmp_path / "b")
    keys = ("expected", "found", "one_off")
    for side in ("test", "dev"):
        assert {k: via_cli["tier2"][side][k] for k in keys} == {k: t2[side][k] for k in keys}
        # Known defect: read in parallel helpers, the CLI scan can keep one more candidate on
        # an event already found (a repeat its order did not fold), whose lesson may match the
        # label where the other's did not; what is found agrees.
        for key in ("candidates", "on_reusable", "lesson_found"):
            assert abs(via_cli["tier2"][side][key] - t2[side][key]) <= 1, key
        for agent, part in t2[side]["by_agent"].items():
            assert via_cli["tier2"][side]["by_agent"][agent]["found"] == part["found"], agent


# -- the sample judged by hand ------------------------------------------------------------------


def _judged_file(tmp_path: Path, verdicts: list[dict[str, object] | None]) -> Path:
    path = tmp_path / "sample.json"
    drawn = [{"candidate": {"summary": f"c{i}"}, "judged": v} for i, v in enumerate(verdicts)]
    path.write_text(json.dumps({"seed": 7, "population": 9, "drawn": drawn}), encoding="utf-8")
    return path


def test_judged_counts_each_verdict_and_the_entries_right_on_all_three(tmp_path: Path) -> None:
    path = _judged_file(
        tmp_path,
        [
            {"cause": True, "fix": True, "trigger": True, "why": "all right"},
            {"cause": True, "fix": False, "trigger": True, "why": "fix from a later call"},
            {"cause": False, "fix": True, "trigger": False, "why": "wrong command"},
        ],
    )
    figures = ce.judged(path)
    assert figures is not None
    assert (figures["cause"], figures["fix"], figures["trigger"]) == (2, 2, 2)
    assert figures["all_three"] == 1
    assert (figures["judged"], figures["population"], figures["seed"]) == (3, 9, 7)
    line = ce._judged_line(figures)
    assert "fix right 2/3" in line and "all three right 1/3 (33.3%)" in line


@pytest.mark.parametrize(
    "verdict",
    [
        None,
        {"cause": True, "fix": True},
        {"cause": True, "fix": True, "trigger": "yes", "why": "x"},
    ],
)
def test_a_half_judged_sample_is_refused_not_counted(tmp_path: Path, verdict: object) -> None:
    ok = {"cause": True, "fix": True, "trigger": True, "why": "right"}
    path = _judged_file(tmp_path, [ok, verdict])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="entry 1 is not judged"):
        ce.judged(path)


def test_a_verdict_without_its_reason_is_refused(tmp_path: Path) -> None:
    path = _judged_file(tmp_path, [{"cause": True, "fix": True, "trigger": True, "why": " "}])
    with pytest.raises(ValueError, match='no "why"'):
        ce.judged(path)


def test_the_committed_judged_sample_is_whole() -> None:
    """Every candidate of the committed sample carries three verdicts and a reason."""
    figures = ce.judged(ce.JUDGED)
    assert figures is not None, "benchmarks/labels/judged/test-sample.json is missing"
    assert figures["judged"] == figures["population"] or figures["judged"] >= 30


def test_the_committed_judged_dev_sample_is_whole_and_on_the_dev_side() -> None:
    """The dev sample is every dev-side candidate, judged: the defects wording rules answer."""
    figures = ce.judged(ce.JUDGED_DEV)
    assert figures is not None, "benchmarks/labels/judged/dev-sample.json is missing"
    assert figures["side"] == "dev"
    assert figures["judged"] == figures["population"]


def test_the_sample_draws_false_finds_too(tmp_path):
    """A sample of only the candidates the labels agree with would flatter the judged share."""
    root = tmp_path / "corpora"
    real = root / "real"
    a = "claude/p/a.jsonl"
    labels = [_label(a, 10, "toolu_1")]
    candidates = [
        _cand("claude", str(real / a), 10, "toolu_1", summary="on a label"),
        _cand("claude", str(real / a), 50, "toolu_9", summary="a false find"),
        _cand("claude", str(real / a), 60, "toolu_8", summary="rejected", status="rejected"),
    ]
    drawn = ce.sample(labels, candidates, root, 10, 1, lambda key: True)
    by_summary = {d["candidate"]["summary"]: d for d in drawn}
    assert set(by_summary) == {"on a label", "a false find"}
    assert by_summary["a false find"]["labels"] == []
    assert len(by_summary["on a label"]["labels"]) == 1
    assert all(d["judged"] is None for d in drawn)
