"""The capture evaluation's second corpus, its locked dev/test split and its lesson rule.

The split (``benchmarks/labels/split.py`` and the committed ``split.json``) decides, by session,
which labelled events measure the scanner (test) and which may inform its rules (dev); these
tests check that sessions are read from the transcripts as each agent writes them, that the
committed file is what the script gives, and that no session has events on both sides. The
lesson rule and the report's shape are checked on hand-made cases whose answers are known.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from benchmark_scripts import load

REPO = Path(__file__).resolve().parents[2]
LABELS = REPO / "benchmarks" / "labels"


ce = load("capture_eval", REPO / "benchmarks" / "capture_eval.py")
split = load("labels_split", LABELS / "split.py")


def _record(file, line=3, call_id="toolu_1", reusable=True, **extra):
    return {
        "file": file,
        "line": line,
        "call_id": call_id,
        "tool": "Edit",
        "kind": "validation",
        "reusable": reusable,
        "fixed_by": {"call_id": "toolu_2", "line": line + 2} if reusable else None,
        "lesson": {"mistake": "m", "fix": "f", "trigger": "t"} if reusable else None,
        "note": "why",
        **extra,
    }


def _write(path: Path, records) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


# -- the loader over two corpora ---------------------------------------------------------------


def test_labels_of_two_corpora_name_their_corpus_agent_and_scope(tmp_path):
    _write(tmp_path / "real" / "claude.jsonl", [_record("claude/a.jsonl")])
    _write(
        tmp_path / "real2" / "claude-others.jsonl",
        [_record("claude/a.jsonl"), _record("claude/b.jsonl", scope="project")],
    )
    _write(tmp_path / "real2" / "opencode.jsonl", [_record("opencode/x/full.jsonl", call_id=None)])
    _write(tmp_path / "real2" / "copilot.jsonl", [_record("copilot/y/full.jsonl", reusable=False)])
    labels = ce.load_labels(tmp_path)
    seen = [(lb.corpus, lb.agent, lb.file, lb.scope) for lb in labels]
    assert seen == [
        ("real", "claude", "claude/a.jsonl", None),
        ("real2", "claude", "claude/a.jsonl", None),  # same path, other corpus: not a duplicate
        ("real2", "claude", "claude/b.jsonl", "project"),
        ("real2", "copilot", "copilot/y/full.jsonl", None),
        ("real2", "opencode", "opencode/x/full.jsonl", None),
    ]
    assert labels[1].key == "real2/claude/a.jsonl"


def test_an_event_labelled_twice_in_one_corpus_is_an_error(tmp_path):
    _write(tmp_path / "real2" / "claude-packmind.jsonl", [_record("claude/a.jsonl")])
    _write(tmp_path / "real2" / "claude-others.jsonl", [_record("claude/a.jsonl")])
    with pytest.raises(ValueError, match="labelled twice"):
        ce.load_labels(tmp_path)


def test_a_bad_scope_names_its_file_and_line(tmp_path):
    _write(
        tmp_path / "real2" / "codex.jsonl",
        [_record("codex/a.jsonl"), _record("codex/b.jsonl", reusable=False, scope="global")],
    )
    with pytest.raises(ValueError, match=r"real2/codex.jsonl:2: scope belongs to a reusable"):
        ce.load_labels(tmp_path)


def test_labels_without_corpus_folders_are_an_error_that_says_the_layout(tmp_path):
    _write(tmp_path / "claude.jsonl", [_record("claude/a.jsonl")])
    with pytest.raises(ValueError, match=r"<corpus>/\*.jsonl"):
        ce.load_labels(tmp_path)


# -- session ids and the split -----------------------------------------------------------------


def _lines(path: Path, *records) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_each_agent_names_its_session_in_its_own_way(tmp_path):
    claude = _lines(
        tmp_path / "claude/p/s.jsonl",
        {"type": "summary", "summary": "x"},
        {"type": "user", "sessionId": "c-1", "message": {"content": "hi"}},
    )
    sub = _lines(tmp_path / "claude/p/s/subagents/agent-1.jsonl", {"sessionId": "c-1"})
    codex = _lines(
        tmp_path / "codex/r.jsonl",
        {"type": "session_meta", "payload": {"id": "x-1", "cwd": "/w"}},
        {"type": "response_item", "payload": {"id": "not-this"}},
    )
    (tmp_path / "gemini").mkdir()
    (tmp_path / "opencode").mkdir()
    gemini = tmp_path / "gemini/s.json"
    gemini.write_text(json.dumps({"sessionId": "g-1", "messages": []}, indent=2))
    log = tmp_path / "gemini/logs.json"
    log.write_text(json.dumps([{"sessionId": "g-1", "type": "user", "message": "hi"}]))
    opencode = tmp_path / "opencode/full.jsonl"
    opencode.write_text(json.dumps({"info": {"id": "ses_a"}, "messages": []}, indent=2))
    child = tmp_path / "opencode/child.jsonl"
    child.write_text(json.dumps({"info": {"id": "ses_b", "parentID": "ses_a"}, "messages": []}))
    copilot = _lines(
        tmp_path / "copilot/events.jsonl",
        {"type": "session.start", "data": {"sessionId": "p-1"}, "id": "e-1"},
    )
    nothing = _lines(tmp_path / "claude/q.jsonl", {"type": "summary", "summary": "only"})
    assert split.session_of(claude, "claude") == split.session_of(sub, "claude") == "c-1"
    assert split.session_of(codex, "codex") == "x-1"
    assert split.session_of(gemini, "gemini") == split.session_of(log, "gemini") == "g-1"
    assert split.session_of(opencode, "opencode") == split.session_of(child, "opencode") == "ses_a"
    assert split.session_of(copilot, "copilot") == "p-1"
    assert split.session_of(nothing, "claude") is None


def test_the_split_keeps_sessions_whole_and_applies_moves(tmp_path):
    corpus = tmp_path / "real2"
    for n in range(40):
        _lines(corpus / f"claude/p/{n}.jsonl", {"sessionId": f"s-{n % 20}"})
    (corpus / "claude/p/0.meta.json").write_text("{}")  # a sidecar, not a transcript
    (corpus / "SOURCES.md").write_text("sources")
    _lines(corpus / "copilot/none.jsonl", {"type": "other"})
    built = split.build({"real2": corpus})
    assert len(built["files"]) == 41 and "real2/claude/p/0.meta.json" not in built["files"]
    assert built["files"]["real2/copilot/none.jsonl"] == "real2/copilot/none.jsonl"  # its path
    assert built["files"]["real2/claude/p/3.jsonl"] == built["files"]["real2/claude/p/23.jsonl"]
    assert all(built["sessions"][s] == split.side(s) for s in built["sessions"])
    assert set(built["sessions"].values()) == {"dev", "test"}
    test_one = next(s for s, side in built["sessions"].items() if side == "test")
    moved = split.build({"real2": corpus}, [{"session": test_one, "reason": "rule from a miss"}])
    assert moved["sessions"][test_one] == "dev"
    assert moved["moved_to_dev"] == [{"session": test_one, "reason": "rule from a miss"}]


def test_the_side_rule_is_the_fixed_hash():
    """The rule is fixed for good: these sides must never change."""
    assert split.SEED == "lessons-split-v1:" and split.TEST_SHARE == 0.45
    # sha256("lessons-split-v1:c-1")[:8] / 2**32, worked out by hand from hashlib
    import hashlib

    for session in ("c-1", "ses_277daa810ffePOBsdfS6gm8uA2", "real/claude/x.jsonl"):
        digest = hashlib.sha256(f"lessons-split-v1:{session}".encode()).hexdigest()
        expected = "test" if int(digest[:8], 16) / 2**32 < 0.45 else "dev"
        assert split.side(session) == expected


def test_every_labelled_transcript_has_one_side_and_no_session_has_two():
    committed = ce.load_split(LABELS / "split.json")
    labels = ce.load_labels(LABELS)
    assert ce.unsplit(labels, committed) == []
    sides = defaultdict(set)
    for label in labels:
        sides[committed.files[label.key]].add(committed.side_of(label.key))
    assert all(len(s) == 1 for s in sides.values())
    data = json.loads((LABELS / "split.json").read_text(encoding="utf-8"))
    assert set(data["sessions"].values()) <= {"dev", "test"}
    assert all(set(m) == {"session", "reason"} for m in data["moved_to_dev"])
    for moved in data["moved_to_dev"]:
        assert data["sessions"][moved["session"]] == "dev"


def test_a_third_of_the_labelled_events_are_on_the_test_side():
    labels = ce.load_labels(LABELS)
    if not {"real", "real2"} <= {lb.corpus for lb in labels}:
        pytest.skip("the second corpus is not labelled yet")
    committed = ce.load_split(LABELS / "split.json")
    test = sum(committed.side_of(lb.key) == "test" for lb in labels)
    assert test * 3 >= len(labels)


@pytest.mark.corpus
def test_the_committed_split_is_what_the_script_gives(shared_dir):
    corpora = {n: shared_dir / "corpus" / n for n in split.NAMES}
    if not all(p.is_dir() for p in corpora.values()):
        pytest.skip("both corpora are needed to rebuild the split")
    committed = (LABELS / "split.json").read_text(encoding="utf-8")
    moved = json.loads(committed)["moved_to_dev"]
    assert split.dump(split.build(corpora, moved)) == committed


def test_a_missing_split_says_how_to_make_it(tmp_path):
    with pytest.raises(ValueError, match=r"split\.py"):
        ce.load_split(tmp_path / "split.json")


# -- the lesson rule ---------------------------------------------------------------------------


PNPM = {
    "mistake": "Ran `npm install` in a project whose owner uses pnpm.",
    "fix": "Use the package manager the project uses (`pnpm install`); check pnpm-lock.yaml.",
    "trigger": "command `npm install` in a project with pnpm-lock.yaml.",
}
TABS = {
    "mistake": "Edit old_string in a Go file used the wrong number of tabs.",
    "fix": "Copy the indentation exactly (gofmt uses tabs).",
    "trigger": "Edit on a *.go file whose old_string starts with tab characters.",
}
UNREAD = {
    "mistake": "Edit on a file that had not been Read in this session.",
    "fix": "Read the file before the first Edit of it.",
    "trigger": "Edit / MultiEdit on an existing path with no earlier Read of that path.",
}


def test_key_words_drop_common_words_escapes_and_plurals():
    assert ce.key_words(r"\bnpm\b[^|;&\n]*?\binstall\b") == {"npm", "install"}
    assert ce.key_words("Use the old_string instead; the tests failed") == {"test"}
    assert ce.key_words("class process tabs") == {"class", "process", "tab"}


def test_a_candidate_says_a_lesson_by_its_when_and_its_what():
    rejected = {
        "summary": "npm install: the user wanted another way",
        "trigger": r"\bnpm\b[^|;&\n]*?\binstall\b",
        "mistake": "`npm install` was rejected by the user; the user said: “use pnpm”.",
        "fix": "Run `pnpm install` instead.",
    }
    assert ce.says_lesson(rejected, PNPM, "Bash")
    stale = {
        "summary": "Edit: copy the text to replace from the file as it is now",
        "trigger": None,
        "mistake": "Edit on main.go failed: the text to replace did not match the file.",
        "fix": "Read the file again before the Edit; the Edit call on main.go then worked.",
    }
    assert not ce.says_lesson(stale, TABS, "Edit")  # right event, another lesson
    unread = {
        "summary": "Edit: read the file before changing it",
        "mistake": "Edit on vercel.json failed: the file had not been read in this session.",
        "fix": "Read the file first, then repeat the Edit.",
    }
    assert ce.says_lesson(unread, UNREAD, "Edit")  # another tool's name is the lesson
    retry = {"summary": "Edit: the call failed", "fix": "Repeat the Edit."}
    assert not ce.says_lesson(retry, UNREAD, "Edit")  # the failing tool's name is not
    assert ce.says_lesson(retry, UNREAD, None)
    assert ce.says_lesson({"fix": "pnpm-lock.yaml"}, PNPM, "Bash")  # a word of both sides
    assert not ce.says_lesson({"fix": "npm ci"}, PNPM, "Bash")  # a word of the trigger only


def test_lesson_recall_counts_found_events_whose_candidate_says_their_lesson(tmp_path):
    root = tmp_path / "corpora"
    file = root / "real" / "claude" / "a.jsonl"

    def label(line, lesson):
        return ce.Label(
            agent="claude",
            file="claude/a.jsonl",
            line=line,
            call_id=None,
            tool="Bash",
            kind="error",
            reusable=True,
            fixed_by={"call_id": "x", "line": line + 1},
            lesson=lesson,
            note="n",
        )

    labels = [label(3, PNPM), label(5, TABS), label(7, PNPM)]
    cands = [
        {
            "tier": 2,
            "agent": "claude",
            "fix": "Run pnpm install",
            "trigger": "npm install",
            "evidence": [{"file": str(file), "line": 3}],
        },
        {
            "tier": 2,
            "agent": "claude",
            "fix": "Run pnpm install",
            "trigger": "npm install",
            "evidence": [{"file": str(file), "line": 5}],
        },
    ]
    result = ce.evaluate(labels, cands, root)
    assert (result["expected"], result["found"], result["lesson_found"]) == (3, 2, 1)
    assert result["lesson_recall"] == 0.333
    assert [w["line"] for w in result["wrong_lesson"]] == [5]


# -- the report --------------------------------------------------------------------------------


def _claude_session(path: Path, session: str) -> None:
    _lines(
        path,
        {
            "type": "user",
            "sessionId": session,
            "cwd": "/home/dev/app",
            "version": "2.1.33",
            "uuid": "u-1",
            "timestamp": "2026-02-01T10:00:00.000Z",
            "message": {"role": "user", "content": "start"},
        },
    )


def _corpus(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Two corpora: real (one Claude session per side), real2 (a Copilot CLI log)."""
    corpora = tmp_path / "corpora"
    sessions: dict[str, str] = {}
    n = 0
    while len(sessions) < 2:  # the first session id of each side
        sessions.setdefault(split.side(f"s-{n}"), f"s-{n}")
        n += 1
    for side, sid in sessions.items():
        _claude_session(corpora / "real" / "claude" / "p" / f"{side}.jsonl", sid)
    _lines(
        corpora / "real2" / "copilot" / "x" / "events.jsonl",
        {"type": "session.start", "data": {"sessionId": "p-1", "version": 1}, "id": "e"},
    )
    labels = tmp_path / "labels"
    _write(
        labels / "real" / "claude.jsonl",
        [_record("claude/p/test.jsonl", call_id=None), _record("claude/p/dev.jsonl", call_id=None)],
    )
    _write(labels / "real2" / "copilot.jsonl", [_record("copilot/x/events.jsonl", call_id=None)])
    split_file = tmp_path / "split.json"
    split_file.write_text(split.dump(split.build({n: corpora / n for n in ("real", "real2")})))
    return corpora, labels, split_file


def test_the_report_leads_with_the_test_side_and_names_what_no_reader_reads(tmp_path, monkeypatch):
    # Copilot CLI's reader blocked: its log is one no installed reader reads.
    monkeypatch.setenv("LESSONS_DISABLED_PLUGINS", "copilot")
    corpora, labels, split_file = _corpus(tmp_path)
    result = ce.run(
        corpora, labels, tmp_path / "no-fixtures", scratch=tmp_path / "s", split_file=split_file
    )
    t2 = result["tier2"]
    assert t2["evaluated"] == ["real", "real2"]
    copilot_on_test = split.side("p-1") == "test"
    assert (t2["test"]["labels"], t2["dev"]["labels"]) == (1 + copilot_on_test, 2 - copilot_on_test)
    assert t2["test"]["expected"] == 1 + copilot_on_test and t2["test"]["found"] == 0
    assert set(t2["by_corpus"]) == {"real", "real2"}
    assert set(t2["by_corpus"]["real"]) == {"test", "dev", "all"}
    assert t2["test"]["user_correction"]["labels"] == 0
    assert t2["corpora"]["real2"]["readers"]["copilot"]["status"] == "no reader"
    assert t2["corpora"]["real"]["readers"]["claude"]["status"] == "read"
    text = ce.render(result)
    assert text.index("TEST side") < text.index("dev side") < text.index("Per corpus")
    assert "copilot" in text and "no reader" in text


def test_a_labelled_transcript_the_split_does_not_know_is_an_error(tmp_path):
    corpora, labels, split_file = _corpus(tmp_path)
    data = json.loads(split_file.read_text())
    del data["files"]["real/claude/p/dev.jsonl"]
    split_file.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"run python benchmarks/labels/split\.py"):
        ce.run(corpora, labels, tmp_path / "f", scratch=tmp_path / "s", split_file=split_file)


def test_the_sample_is_seeded_and_taken_from_the_test_side(tmp_path):
    root = tmp_path / "corpora"
    committed = ce.Split(
        {"real/claude/t.jsonl": "t", "real/claude/d.jsonl": "d"}, {"t": "test", "d": "dev"}
    )
    labels, cands = [], []
    for name in ("t", "d"):
        for line in range(1, 11):
            labels.append(
                ce.Label(
                    "claude",
                    f"claude/{name}.jsonl",
                    line,
                    None,
                    "Bash",
                    "error",
                    True,
                    {"call_id": "x", "line": 99},
                    PNPM,
                    "n",
                )
            )
            cands.append(
                {
                    "tier": 2,
                    "summary": f"{name}{line}",
                    "fix": "pnpm install",
                    "evidence": [
                        {"file": str(root / "real/claude" / f"{name}.jsonl"), "line": line}
                    ],
                }
            )

    def on_test(key):
        return committed.side_of(key) == "test"

    one = ce.sample(labels, cands, root, 4, 7, on_test)
    assert one == ce.sample(labels, cands, root, 4, 7, on_test)
    assert len(one) == 4 and all(s["candidate"]["summary"].startswith("t") for s in one)
    assert all(s["judged"] is None and s["lesson_rule"] for s in one)
    assert one != ce.sample(labels, cands, root, 4, 8, on_test)
    assert len(ce.sample(labels, cands, root, 50, 7, on_test)) == 10


def _scanned_both_sides(corpora: Path, paths) -> ce.Scan:
    """A scan that found one candidate in each side's session of :func:`_corpus` (in ``real``,
    none in the other corpus)."""
    if [Path(p).name for p in paths] != ["real"]:
        return ce.Scan([], 0, 1)
    cands = [
        {
            "tier": 2,
            "summary": f"on the {side} side",
            "evidence": [{"file": str(corpora / "real/claude/p" / f"{side}.jsonl"), "line": 3}],
        }
        for side in ("test", "dev")
    ]
    return ce.Scan(cands, 0, 2)


@pytest.mark.parametrize("side", ["test", "dev"])
def test_the_sample_is_drawn_from_the_side_asked_and_says_so(tmp_path, monkeypatch, side):
    """``--sample-side dev`` judges the candidates rules may be changed for; the file names its
    side and the number of candidates it was drawn from."""
    corpora, labels, split_file = _corpus(tmp_path)
    monkeypatch.setattr(
        ce, "scan_in_process", lambda paths, home: _scanned_both_sides(corpora, paths)
    )
    monkeypatch.setattr("lessons_core.logs.configure_logging", lambda *_a, **_k: None)
    out = tmp_path / "sample.json"
    argv = ["--corpora", str(corpora), "--labels", str(labels), "--split", str(split_file)]
    argv += ["--fixtures", str(tmp_path / "none"), "--sample", "5", "--seed", "3"]
    argv += ["--sample-out", str(out), "--sample-side", side]
    assert ce.main(argv) == 0
    written = json.loads(out.read_text())
    assert (written["side"], written["population"], written["asked"]) == (side, 1, 5)
    assert [d["candidate"]["summary"] for d in written["drawn"]] == [f"on the {side} side"]


def test_an_unknown_sample_side_is_an_error(tmp_path):
    corpora, labels, split_file = _corpus(tmp_path)
    with pytest.raises(ValueError, match="sample side"):
        ce.run(corpora, labels, tmp_path / "f", split_file=split_file, sample_side="train")


def test_a_judged_dev_sample_is_reported_beside_the_test_one_never_in_its_place(tmp_path):
    corpora, labels, split_file = _corpus(tmp_path)
    verdicts = [
        {"cause": True, "fix": True, "trigger": True, "why": "right"},
        {"cause": False, "fix": True, "trigger": True, "why": "only the error text"},
    ]
    files = {}
    for side, drawn in (("test", verdicts[:1]), ("dev", verdicts)):
        files[side] = tmp_path / f"{side}-sample.json"
        entries = [{"candidate": {}, "judged": v} for v in drawn]
        body = {"side": side, "seed": 1, "population": len(drawn), "drawn": entries}
        files[side].write_text(json.dumps(body))
    result = ce.run(
        corpora,
        labels,
        tmp_path / "f",
        scratch=tmp_path / "s",
        split_file=split_file,
        judged_file=files["test"],
        judged_dev_file=files["dev"],
    )
    assert result["judged"]["all_three"] == 1 and result["judged_dev"]["all_three"] == 1
    assert result["judged_dev"]["side"] == "dev" and result["judged_dev"]["cause"] == 1
    lines = ce.render(result).splitlines()
    test_line = next(i for i, s in enumerate(lines) if "1 of 1 test-side" in s)
    dev_line = next(i for i, s in enumerate(lines) if "2 of 2 dev-side" in s)
    assert dev_line == test_line + 1
    assert lines[dev_line].lstrip().startswith("dev, not the headline:")
    assert "all three right 1/2" in lines[dev_line]


def test_without_a_judged_dev_sample_only_the_test_figure_is_printed(tmp_path):
    corpora, labels, split_file = _corpus(tmp_path)
    result = ce.run(
        corpora,
        labels,
        tmp_path / "f",
        scratch=tmp_path / "s",
        split_file=split_file,
        judged_dev_file=tmp_path / "absent.json",
    )
    assert result["judged_dev"] is None
    assert "dev, not the headline" not in ce.render(result)
