"""Tier 1: parsing ``#lesson`` blocks, and what must never be captured."""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from lessons_core import protocol, services
from lessons_core.models import Candidate
from lessons_core.scan import engine, intake, planning, reading
from lessons_core.scan.detectors import tier1

GOOD = """Done.
#lesson
tool: Bash
trigger: pytest tests/
mistake: bare pytest is not on PATH; it lives inside the project's virtualenv
fix: run .venv/bin/python -m pytest so the virtualenv's pytest is used
tags: tool:pytest, lang:python
#/lesson
"""


def test_a_block_in_assistant_text_becomes_a_tier1_candidate(script):
    """Fields map onto the candidate; confidence is 0.85; the trigger is generalised."""
    script.say(GOOD)
    (candidate,) = tier1.detect(script.events)
    assert candidate.tier == 1
    assert candidate.tool == "Bash"
    assert candidate.trigger == r"\bpytest\b"
    assert candidate.mistake.startswith("bare pytest is not on PATH")
    assert candidate.fix.startswith("run .venv/bin/python -m pytest")
    assert candidate.tags == ("tool:pytest", "lang:python")
    assert candidate.confidence == 0.85
    assert candidate.evidence[0].line == 1
    assert candidate.evidence[0].call_id is None
    assert candidate.evidence[0].session_id == "s1"


def test_field_order_aliases_crlf_indentation_and_continuations():
    """Any order, problem/solution, CRLF, indentation, bullets and wrapped values parse."""
    text = (
        "  #lesson\r\n"
        "   - **solution**: pass --offline so cargo uses\r\n"
        "     the vendored crates\r\n"
        "   - problem: cargo build hangs on the blocked network\r\n"
        "   - tool: bash\r\n"
        "  #/lesson\r\n"
    )
    (fields,) = tier1.parse_blocks(text)
    assert fields["fix"] == "pass --offline so cargo uses the vendored crates"
    assert fields["mistake"] == "cargo build hangs on the blocked network"
    assert tier1.canonical_tool(fields["tool"]) == "Bash"
    assert tier1.rejection(fields) is None


def test_blocks_in_tool_results_and_user_text_are_not_captured(script):
    """Only the agent's own prose counts: quoted or pasted blocks are not lessons."""
    script.run("cat NOTES.md", GOOD)
    script.user(GOOD)
    assert list(tier1.detect(script.events)) == []


def test_the_protocol_template_is_rejected(script):
    """An agent echoing the protocol's example block has not learned anything."""
    script.say(protocol.PROTOCOL_TEXT)
    assert list(tier1.detect(script.events)) == []


def test_placeholders_are_rejected(script):
    """``<…>``, ``...``, ``TODO`` in the fields mark an unfilled template."""
    for body in (
        "tool: <tool>\nmistake: <what went wrong>\nfix: <what worked>",
        "mistake: the build failed because of ...\nfix: fix the build configuration properly",
        "mistake: pip install fails outside the virtualenv\nfix: TODO",
    ):
        script.say(f"#lesson\n{body}\n#/lesson")
    assert list(tier1.detect(script.events)) == []


def test_missing_mistake_or_fix_is_rejected():
    """A block needs both halves."""
    assert tier1.rejection({"mistake": "something went quite wrong here"}) is not None
    assert tier1.rejection({"fix": "do the right thing next time around"}) is not None


def test_regex_triggers_are_kept_and_file_triggers_become_globs():
    """A trigger that already is a regex stays; a file tool's trigger is a glob."""
    assert tier1.trigger_for("Bash", r"\bcargo\s+build\b(?!.*--offline)") == (
        r"\bcargo\s+build\b(?!.*--offline)"
    )
    assert tier1.trigger_for("Edit", "src/app/models.py") == "**/*.py"
    assert tier1.trigger_for("Edit", "**/migrations/*.py") == "**/migrations/*.py"


def test_an_unsafe_regex_trigger_is_kept_as_written():
    """A trigger the compiler would refuse stays as the agent wrote it: intake then holds the
    block for review instead of making it live (see tests/security/test_patterns.py)."""
    from lessons_core.patterns.regex_safety import check_pattern

    got = tier1.trigger_for("Bash", r"\bnpm\s+(\w+\s*)+test\b")
    assert got == r"\bnpm\s+(\w+\s*)+test\b"
    assert check_pattern(got) is not None


def test_a_block_split_over_two_text_events_is_joined(script):
    """Claude writes one content block per line; a block may span two of them."""
    head, tail = GOOD.split("fix:")
    script.say(head)
    script.say("fix:" + tail)
    (candidate,) = tier1.detect(script.events)
    assert candidate.fix.startswith("run .venv/bin/python")


def test_several_blocks_in_one_message(script):
    """Every block of a message is its own candidate."""
    other = GOOD.replace("pytest tests/", "npm test").replace("bare pytest", "bare npm test")
    script.say(GOOD + "\n" + other)
    assert len(list(tier1.detect(script.events))) == 2


# -- parsing what models write ----------------------------------------------------------------


def test_keys_in_bold_either_way():
    """``**tool**: Bash`` and ``**tool:** Bash`` both give the plain value."""
    for open_, close in (("**", "**:"), ("**", ":**"), ("__", "__:")):
        text = (
            f"#lesson\n{open_}tool{close} Bash\n{open_}mistake{close} npx tsc wrote .js files"
            f" next to the sources\n{open_}fix{close} type-check with npx tsc --noEmit\n#/lesson"
        )
        (fields,) = tier1.parse_blocks(text)
        assert fields == {
            "tool": "Bash",
            "mistake": "npx tsc wrote .js files next to the sources",
            "fix": "type-check with npx tsc --noEmit",
        }


def test_code_fences_and_list_decoration_are_not_values():
    """A fence (with a language) or a bare bullet inside the block adds nothing to a field."""
    text = (
        "1. Recorded:\n"
        "   > #lesson\n"
        "   > ```yaml\n"
        "   > - tool: Bash\n"
        "   > 2) mistake: cargo build hangs on the blocked network\n"
        "   > * fix: pass --offline so cargo uses the vendored crates\n"
        "   > ```\n"
        "   > -\n"
        "   > #/lesson\n"
    )
    (fields,) = tier1.parse_blocks(text)
    assert fields == {
        "tool": "Bash",
        "mistake": "cargo build hangs on the blocked network",
        "fix": "pass --offline so cargo uses the vendored crates",
    }


def test_a_mention_of_the_marker_before_a_block_does_not_swallow_it():
    """Prose naming ``#lesson`` ahead of a real block: the block is read from its own marker."""
    text = "I'll note it as a #lesson format: short.\n" + GOOD
    (fields,) = tier1.parse_blocks(text)
    assert fields["tool"] == "Bash"
    assert fields["mistake"].startswith("bare pytest")
    assert "format" not in fields


def test_a_placeholder_inside_longer_text_is_a_usage_line_not_a_template():
    """Only a value that is nothing but a placeholder marks an unfilled template."""
    fields = {
        "mistake": "git checkout <branch> fails when the branch exists only on the remote",
        "fix": "use git switch --track origin/<branch> to create the tracking branch",
        "trigger": "git checkout",
    }
    assert tier1.rejection(fields) is None
    for value in ("<what went wrong>", "<tool> / <command>", "TODO", "{{mistake}}", "TBD."):
        assert tier1.rejection({**fields, "mistake": value}) == "placeholder in mistake"
    cut = {**fields, "fix": "fix the build configuration because of ..."}
    assert tier1.rejection(cut) == "placeholder in fix"


def test_a_usage_line_with_a_placeholder_passes_intake(script):
    """Intake's own placeholder check does not undo Tier 1's: the lesson is admitted."""
    from lessons_core.scan import intake

    script.say(
        "#lesson\ntool: Bash\ntrigger: git checkout\n"
        "mistake: git checkout <branch> fails when the branch exists only on the remote\n"
        "fix: use git switch --track origin/<branch> to create the tracking branch\n#/lesson"
    )
    (candidate,) = tier1.detect(script.events)
    assert intake.rejection(candidate) is None


def test_a_prose_trigger_is_refused_by_intake_not_turned_into_a_pattern(script):
    """``trigger: running tests`` must not become ``\\brunning\\b``, a live trigger."""
    from lessons_core.scan import intake

    script.say(
        "#lesson\ntool: Bash\ntrigger: running tests\n"
        "mistake: the suite took nine minutes because it ran the integration tests too\n"
        "fix: mark integration tests slow and run them in CI with pytest -m slow\n#/lesson"
    )
    (candidate,) = tier1.detect(script.events)
    assert candidate.trigger == "running tests"
    assert intake.rejection(candidate) == "trigger is prose, not a pattern"
    assert tier1.trigger_for("Bash", "Running the whole test suite") == (
        "Running the whole test suite"
    )
    # A short command that happens to end in -ing is a command.
    assert tier1.trigger_for("Bash", "ping localhost") == r"\bping\b"


# -- the authored transcripts, through the real scan ------------------------------------------

TIER1 = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "tier1"
#: Where each agent's part of the fixture tree goes in a home directory.
AGENT_HOMES = {"claude": ".claude", "codex": ".codex", "gemini": ".gemini"}
SIDECAR = ".expected.json"


def _transcripts() -> list[Path]:
    return sorted(p.with_name(p.name[: -len(SIDECAR)]) for p in TIER1.rglob(f"*{SIDECAR}"))


def _relative(path: str) -> str:
    """A transcript's path inside the fixture tree, from its path inside a home."""
    parts = Path(path).parts
    for agent, folder in AGENT_HOMES.items():
        if folder in parts:
            return "/".join((agent, *parts[parts.index(folder) + 1 :]))
    raise AssertionError(f"not a fixture transcript: {path}")


def _norm(text: str) -> str:
    return " ".join(text.split())


def _expected(paths: Sequence[Path]) -> Counter[tuple[str, int, str]]:
    want: Counter[tuple[str, int, str]] = Counter()
    for path in paths:
        doc = json.loads(path.with_name(path.name + SIDECAR).read_text(encoding="utf-8"))
        rel = path.relative_to(TIER1).as_posix()
        for block in doc["blocks"]:
            want[(rel, int(block["line"]), _norm(block["mistake"]))] += 1
    return want


def _install(paths: Sequence[Path], home: Path) -> None:
    """Copy transcripts (never their sidecars) into the agents' roots under ``home``."""
    for path in paths:
        agent, *rest = path.relative_to(TIER1).parts
        target = home.joinpath(AGENT_HOMES[agent], *rest)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        meta = path.with_name(path.stem + ".meta.json")
        if meta.exists():
            shutil.copyfile(meta, target.with_name(meta.name))


class Capture:
    """The Tier 1 outcomes of real scans: what intake admitted, folded or refused."""

    def __init__(self) -> None:
        self.captured: Counter[tuple[str, int, str]] = Counter()
        self.duplicates: list[Candidate] = []
        self.reports: list[Any] = []

    def scan(self, **kw: Any) -> Any:
        with services.session() as sess:
            report = engine.run_scan(sess, **kw)
        self.reports.append(report)
        return report


@pytest.fixture(name="capture")
def fixture_capture(monkeypatch) -> Capture:
    """Records every Tier 1 outcome of the real intake (the method itself runs unchanged)."""
    cap = Capture()
    real = intake.Intake.admit

    def admit(self: intake.Intake, candidate: Candidate, **kw: Any) -> intake.Outcome:
        outcome = real(self, candidate, **kw)
        if candidate.tier == 1:
            e = candidate.evidence[0]
            key = (_relative(e.file), e.line, _norm(candidate.mistake))
            if outcome.status in (intake.NEW, intake.PROMOTED):
                cap.captured[key] += 1
            elif outcome.status == intake.DUPLICATE:
                cap.duplicates.append(candidate)
        return outcome

    monkeypatch.setattr(intake.Intake, "admit", admit)
    return cap


@pytest.mark.parametrize(
    "transcript", _transcripts(), ids=lambda p: p.relative_to(TIER1).as_posix()
)
def test_each_authored_transcript_captures_exactly_its_blocks(transcript, capture):
    """Every expected block once, at its line; nothing else (an empty sidecar: nothing)."""
    home = Path(os.environ["HOME"])
    _install([transcript], home)
    capture.scan()
    assert capture.captured == _expected([transcript])
    assert capture.duplicates == []


def test_tier1_recall_and_stray_captures_over_every_sidecar(capture):
    """The Tier 1 target over all authored transcripts, scanned together from the default
    roots: captured/expected >= 0.98, no stray capture, no block counted twice."""
    paths = _transcripts()
    _install(paths, Path(os.environ["HOME"]))
    capture.scan()
    want = _expected(paths)
    assert sum(want.values()) >= 25
    found = sum(min(n, capture.captured[key]) for key, n in want.items())
    stray = capture.captured - want
    assert found / sum(want.values()) >= 0.98, sorted(want - capture.captured)
    assert not stray, sorted(stray)
    assert capture.duplicates == []
    # A second scan finds nothing new and counts nothing twice.
    capture.scan()
    assert capture.captured == want
    assert capture.duplicates == []


def test_alike_lessons_about_different_executables_stay_two_lessons(capture):
    """``npm test`` and ``yarn test`` blocks read alike but are two lessons, each with its own
    trigger; the default dedup plugin must not fold one into the other."""
    (main,) = (p for p in _transcripts() if p.name.endswith("4a01.jsonl"))
    _install([main], Path(os.environ["HOME"]))
    capture.scan()
    with services.open_store() as store:
        lessons = store.list_lessons()
    jest = [les for les in lessons if "jest in watch mode" in les.mistake]
    assert sorted(les.triggers.command_patterns for les in jest) == [
        (r"\bnpm\b[^|;&\n]*?\btest\b",),
        (r"\byarn\b[^|;&\n]*?\btest\b",),
    ]
    assert all(les.provenance.occurrences == 1 for les in jest)
    assert not any("running" in p for les in lessons for p in les.triggers.command_patterns)


def test_go_package_patterns_are_not_cut_off_text(script):
    """``go test ./...`` ends with three dots and is a complete command."""
    script.say(
        "#lesson\ntool: Bash\ntrigger: go test ./...\n"
        "mistake: go test from the repository root also ran the vendored packages' tests\n"
        "fix: list the module's own packages and run go vet ./...\n#/lesson"
    )
    (candidate,) = tier1.detect(script.events)
    assert intake.rejection(candidate) is None


# -- blocks late in long sessions: batches, pieces, incremental reads -------------------------


def _long_session(path: Path, *, lines: int) -> list[tuple[int, str]]:
    """A Claude Code session of ``lines`` lines made of the long fixture's filler, with blocks
    around every place a read is divided: the event batches, the cut of two pieces and its
    overlaps, and the very end. Returns the (line, mistake) of every block."""
    (source,) = (p for p in _transcripts() if p.name.endswith("4a02.jsonl"))
    records = source.read_text(encoding="utf-8").splitlines()
    filler = [r for r in records[1:] if "#lesson" not in r]
    text_line = json.loads(next(r for r in filler if '"type":"text"' in r))
    out = [records[0]] + [filler[i % len(filler)] for i in range(lines - 1)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    from lessons_core.scan import pieces

    (cut,) = pieces.cuts(str(path), 0, 0, 2)
    batch = reading.BATCH
    # (first line, split over two lines?) — the piece boundary is between cut.line and the next.
    wanted = [
        (cut.line - 3, True),
        (cut.line - 1, False),
        (cut.line, True),
        (cut.line + 2, False),
        (cut.line + 3, False),
        (cut.back_line + 1, False),
        (cut.line + 60, True),
        (batch - 1, True),
        (batch + 1, False),
        (2 * batch - 1, True),
        (2 * batch + 1, False),
        (lines - 3, True),
        (lines, False),
    ]
    used: set[int] = {1}
    whole: set[int] = set()
    split: set[int] = set()
    for n, two in wanted:
        span = {n, n + 1} if two else {n}
        if max(span) <= lines and not span & used:
            used |= span
            (split if two else whole).add(n)
    blocks: list[tuple[int, str]] = []

    def text(body: str) -> str:
        record = json.loads(json.dumps(text_line))
        record["message"]["content"] = [{"type": "text", "text": body}]
        return json.dumps(record, separators=(",", ":"))

    for n in sorted(whole | split):
        # Words of their own per block: alike blocks would rightly be folded into one lesson.
        mistake = f"step{n} of job{n} ran target{n} against cache{n} and failed"
        body = f"#lesson\ntool: Bash\ntrigger: tool{n} check\nmistake: {mistake}\n"
        fix = f"fix: give target{n} the flag{n} so job{n} reuses cache{n}\n#/lesson"
        if n in split:
            out[n - 1], out[n] = text(body), text(fix)
        else:
            out[n - 1] = text(body + fix)
        blocks.append((n, mistake))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    assert pieces.cuts(str(path), 0, 0, 2)[0].line in range(cut.line - 3, cut.line + 4)
    return blocks


@pytest.mark.parametrize("workers", ["1", "2"])
def test_blocks_late_in_a_long_session_are_captured_once(capture, monkeypatch, workers):
    """Past the event batches and across the cut of a read in two pieces (a file of several
    megabytes read by two processes), every block is captured exactly once."""
    monkeypatch.setenv("LESSONS_SCAN_WORKERS", workers)
    path = Path(os.environ["HOME"]) / ".claude" / "projects" / "-home-dev-shop" / "long.jsonl"
    blocks = _long_session(path, lines=2 * reading.BATCH + 400)
    assert path.stat().st_size > 2 * planning.PIECE_MIN_BYTES  # cut in two
    report = capture.scan()
    assert report.events >= 2 * reading.BATCH
    rel = "claude/projects/-home-dev-shop/long.jsonl"
    assert capture.captured == Counter({(rel, n, m): 1 for n, m in blocks})
    assert capture.duplicates == []


def test_a_block_appended_after_a_scan_is_captured_once(capture):
    """An incremental scan that starts inside a block split over two lines (the first half
    read before, the second appended since) captures it once, at its first line."""
    path = Path(os.environ["HOME"]) / ".claude" / "projects" / "-home-dev-shop" / "grow.jsonl"
    blocks = _long_session(path, lines=reading.BATCH + 200)
    data = path.read_bytes().splitlines(keepends=True)
    split_at = reading.BATCH  # the split block's second half is on this line (1-based)
    path.write_bytes(b"".join(data[: split_at - 1]))
    capture.scan()
    with path.open("ab") as fh:
        fh.write(b"".join(data[split_at - 1 :]))
    capture.scan()
    rel = "claude/projects/-home-dev-shop/grow.jsonl"
    assert capture.captured == Counter({(rel, n, m): 1 for n, m in blocks})
    assert capture.duplicates == []


def test_the_summary_is_the_first_sentence_not_the_first_dots(script):
    """A mistake that quotes ``go test ./...`` is not cut at the dots."""
    script.say(
        "#lesson\ntool: Bash\nmistake: go test ./... also ran the vendored tests. It took ages\n"
        "fix: run go test over the module's own packages only\n#/lesson"
    )
    (candidate,) = tier1.detect(script.events)
    assert candidate.summary == "go test ./... also ran the vendored tests"


def test_lessons_scan_path_captures_the_authored_blocks(tmp_path):
    """The command a user (or the capture benchmark) runs: ``lessons scan --json PATH`` over
    the fixture tree, in a real process with a scratch home."""
    import subprocess
    import sys

    exe = Path(sys.executable).parent / "lessons"
    env = {**os.environ, "LESSONS_HOME": str(tmp_path / "lh"), "HOME": str(tmp_path / "h")}
    done = subprocess.run(
        [str(exe) if exe.exists() else "lessons", "scan", "--json", str(TIER1)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    got: Counter[tuple[str, int, str]] = Counter()
    for line in done.stdout.splitlines():
        item = json.loads(line)
        if item["tier"] == 1:
            first = item["evidence"][0]
            rel = Path(first["file"]).relative_to(TIER1).as_posix()
            got[(rel, first["line"], _norm(item["mistake"]))] += 1
    assert got == _expected(_transcripts())


@pytest.mark.parametrize(
    "transcript", _transcripts(), ids=lambda p: p.relative_to(TIER1).as_posix()
)
def test_each_transcript_read_in_two_scans_captures_its_blocks_once(transcript, capture):
    """The session grows between two scans (a Gemini document is rewritten with more
    messages): the second scan re-reads its context and still captures every block once."""
    home = Path(os.environ["HOME"])
    _install([transcript], home)
    agent, *rest = transcript.relative_to(TIER1).parts
    target = home.joinpath(AGENT_HOMES[agent], *rest)
    full = target.read_bytes()
    if target.suffix == ".json":
        doc = json.loads(full)
        half = {**doc, "messages": doc["messages"][: len(doc["messages"]) // 2]}
        target.write_text(json.dumps(half, indent=2), encoding="utf-8")
    else:
        lines = full.splitlines(keepends=True)
        target.write_bytes(b"".join(lines[: len(lines) // 2]))
    capture.scan()
    target.write_bytes(full)
    capture.scan()
    assert capture.captured == _expected([transcript])
    assert capture.duplicates == []


def test_a_placeholder_summary_falls_back_to_the_mistake(script):
    """A block whose real fields were filled in but whose ``summary`` was left as the slot."""
    script.say(
        "#lesson\nsummary: <one line>\ntool: Bash\n"
        "mistake: helm upgrade kept the old values because --reuse-values was passed\n"
        "fix: pass the values file again with -f values.yaml on every helm upgrade\n#/lesson"
    )
    (candidate,) = tier1.detect(script.events)
    assert candidate.summary == "helm upgrade kept the old values because --reuse-values was passed"
