"""Intake remembers the triggers the compiler's safety check accepted, from one scan to the next.

The check times each pattern (milliseconds to tens of milliseconds), and the same triggers come
back in every scan: a scan of a few new lines must not time them again. Tier 2's own triggers
are not timed by intake at all, only when a build takes them into a manifest.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lessons_core import services
from lessons_core.models import Candidate
from lessons_core.patterns import probe, regex_safety
from lessons_core.scan import engine, intake, trigger_checks

TRIGGER = r"\bpytest\b[^|;&\n]*?\s--lf\b"
SECRET_TRIGGER = r"\bcurl\b[^|;&\n]*?ghp_abcdefghijklmnopqrstuvwxyz0123456789"


@pytest.fixture(name="checked")
def fixture_checked(monkeypatch):
    """Every pattern the compiler's check really judges, in order; nothing remembered yet."""
    trigger_checks.forget()
    seen: list[str] = []
    real = regex_safety.judge

    def counting(source: str, *, measure: bool = True) -> regex_safety.Verdict:
        if measure:
            seen.append(source)
        return real(source, measure=measure)

    monkeypatch.setattr(regex_safety, "judge", counting)
    yield seen
    trigger_checks.forget()


def _home() -> Path:
    return Path(os.environ["LESSONS_HOME"])


def test_an_accepted_trigger_is_checked_once_per_process(checked):
    """The second candidate with the same trigger is not judged again."""
    assert intake.pattern_problem(TRIGGER) is None
    assert intake.pattern_problem(TRIGGER) is None
    assert checked == [TRIGGER]


def test_a_refused_trigger_is_judged_every_time(checked):
    """A refusal is never remembered (a busy moment may have made a timing slow)."""
    unsafe = r"\bnpm\b\s+(?:\S+\s*)*?\btest\b"
    assert intake.pattern_problem(unsafe) is not None
    assert intake.pattern_problem(unsafe) is not None
    assert checked == [unsafe, unsafe]


def test_the_next_scan_remembers_what_this_one_accepted(checked):
    """Acceptances are kept in LESSONS_HOME, as digests (a trigger is checked before its
    secrets are redacted), in a private file; a later process does not judge them again."""
    home = _home()
    home.mkdir(parents=True, exist_ok=True)
    with trigger_checks.remembered(home):
        assert intake.pattern_problem(TRIGGER) is None
        assert intake.pattern_problem(SECRET_TRIGGER) is None
    path = home / trigger_checks.MEMORY_NAME
    text = path.read_text(encoding="utf-8")
    assert "pytest" not in text and "ghp_" not in text
    assert len(json.loads(text)["accepted"]) == 2
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    trigger_checks.forget()  # as a new process starts
    with trigger_checks.remembered(home):
        assert intake.pattern_problem(TRIGGER) is None
    assert checked == [TRIGGER, SECRET_TRIGGER]


def test_a_memory_of_other_rules_or_a_broken_one_is_ignored(checked):
    """Written under another format (or Python), or unreadable: everything is judged anew."""
    home = _home()
    home.mkdir(parents=True, exist_ok=True)
    path = home / trigger_checks.MEMORY_NAME
    with trigger_checks.remembered(home):
        intake.pattern_problem(TRIGGER)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["key"] = "0:other"
    path.write_text(json.dumps(data), encoding="utf-8")
    trigger_checks.forget()
    with trigger_checks.remembered(home):
        intake.pattern_problem(TRIGGER)
    path.write_text("{not json", encoding="utf-8")
    trigger_checks.forget()
    with trigger_checks.remembered(home):
        intake.pattern_problem(TRIGGER)
    assert checked == [TRIGGER, TRIGGER, TRIGGER]


def test_a_link_in_place_of_the_memory_is_not_followed(checked, tmp_path):
    """The memory is opened without following a link, and replaced rather than written
    through one. The link's target is a memory that accepted the trigger: read through the
    link, it would spare the trigger its check."""
    home = _home()
    home.mkdir(parents=True, exist_ok=True)
    target = tmp_path / "elsewhere.json"
    planted = json.dumps(
        {"key": trigger_checks._key(), "accepted": [trigger_checks._digest(TRIGGER)]}
    )
    target.write_text(planted)
    (home / trigger_checks.MEMORY_NAME).symlink_to(target)
    with trigger_checks.remembered(home):
        intake.pattern_problem(TRIGGER)
    assert checked == [TRIGGER]  # judged: the planted memory was not read
    assert target.read_text() == planted  # nor written through
    assert not (home / trigger_checks.MEMORY_NAME).is_symlink()


def _transcript(path: Path) -> None:
    """A Claude Code session whose failure and fix make a candidate with a trigger."""

    def line(kind: str, **kw: object) -> str:
        rec = {"type": kind, "sessionId": "sess-1", "cwd": "/home/dev/app", **kw}
        return json.dumps(rec) + "\n"

    def bash(cid: str, command: str, output: str, error: bool = False) -> str:
        use = {"type": "tool_use", "id": cid, "name": "Bash", "input": {"command": command}}
        result = {"type": "tool_result", "tool_use_id": cid, "content": output}
        if error:
            result["is_error"] = True
        return line("assistant", message={"role": "assistant", "content": [use]}) + line(
            "user", message={"role": "user", "content": [result]}
        )

    path.write_text(
        bash("c1", "pytest tests/", "bash: pytest: command not found", error=True)
        + bash("c2", ".venv/bin/python -m pytest tests/", "3 passed in 0.1s"),
        encoding="utf-8",
    )


def test_a_heuristic_trigger_is_timed_when_promoted_not_when_found(checked, tmp_path):
    """Tier 2 triggers wait for review: intake judges them by the structural rules only; the
    promotion that makes one a lesson, and the build that takes it into a manifest, time it."""
    session = tmp_path / "s.jsonl"
    _transcript(session)
    with services.session() as sess:
        report = engine.run_scan(sess, paths=[session], workers=1)
    found = [c for c in report.new if c.trigger and c.tier == 2]
    assert found
    assert checked == []  # nothing timed by the scan
    assert not trigger_checks.accepted(found[0].trigger)  # nor remembered as timed
    from lessons_core.cli.scan_cmds import _promote

    probe.forget()
    probe._measure.cache_clear()  # as a new process: nothing measured yet
    timed = probe._measure.cache_info().misses
    with services.open_store() as store:
        with store.transaction():
            _promote(store, [found[0].id])  # checked as `lessons add` checks a lesson
        services.rebuild_manifest(store)
    # Judged with its timing only once promoted (the promotion's check and the build), and
    # timed once: the build takes the promotion's measurement.
    assert checked and set(checked) == {found[0].trigger}
    assert probe._measure.cache_info().misses - timed == 1


def test_an_acceptance_by_the_structural_rules_is_kept_apart(checked, monkeypatch):
    """Accepted without its timing, a pattern counts as accepted only for what needs no timing;
    an acceptance with its timing counts for both. Both are remembered between scans."""
    calls: list[str] = []
    real = regex_safety.check_pattern

    def structural(source: str, *, measure: bool = True) -> str | None:
        calls.append(source)
        return real(source, measure=measure)

    monkeypatch.setattr(regex_safety, "check_pattern", structural)
    assert intake.pattern_problem(TRIGGER, measure=False) is None
    assert trigger_checks.accepted(TRIGGER, timed=False)
    assert not trigger_checks.accepted(TRIGGER)
    home = _home()
    home.mkdir(parents=True, exist_ok=True)
    with trigger_checks.remembered(home):
        trigger_checks.accept(TRIGGER, timed=False)
        trigger_checks.accept(SECRET_TRIGGER)
    trigger_checks.forget()  # as a new process starts
    with trigger_checks.remembered(home):
        assert intake.pattern_problem(TRIGGER, measure=False) is None
        assert intake.pattern_problem(SECRET_TRIGGER, measure=False) is None
        assert not trigger_checks.accepted(TRIGGER)
    assert calls == [TRIGGER]  # the later process judged nothing


def _prepared(tier: int, tool: str, trigger: str | None) -> Candidate:
    return Candidate(
        id="",
        tier=tier,
        agent="claude",
        tool=tool,
        trigger=trigger,
        mistake="`pytest --lf` ran every test again: no failures were recorded",
        fix="Run `pytest -x` first so that `--lf` has failures to run.",
    )


def test_the_commit_remembers_only_the_triggers_intake_checked(checked):
    """A candidate checked while reading (maybe in a helper) has its trigger remembered as the
    check accepted it: a heuristic's by the structural rules, a plugin's with its timing. A
    ``#lesson`` block's trigger may have passed unchecked for safety, and a file tool's path
    glob is no pattern: neither is remembered."""
    block, glob = r"\bnpm\s+test\b", "src/**/*.py"
    intake.note_accepted(_prepared(1, "Bash", block))
    intake.note_accepted(_prepared(2, "Edit", glob))
    intake.note_accepted(_prepared(3, "Write", glob))
    assert not trigger_checks.accepted(block, timed=False)
    assert not trigger_checks.accepted(glob, timed=False)
    intake.note_accepted(_prepared(2, "Bash", TRIGGER))
    assert trigger_checks.accepted(TRIGGER, timed=False)
    assert not trigger_checks.accepted(TRIGGER)
    intake.note_accepted(_prepared(3, "Bash", SECRET_TRIGGER))
    assert trigger_checks.accepted(SECRET_TRIGGER)
    intake.note_accepted(_prepared(2, "Bash", None))  # nothing to remember
    assert checked == []  # remembered, not judged


def test_a_structurally_unsafe_heuristic_trigger_is_still_refused_at_intake(checked):
    """Untimed is not unchecked: the structural rules refuse what they can prove slow."""
    unsafe = r"\bnpm\b\s+(?:\S+\s*)*?\btest\b"
    assert intake.pattern_problem(unsafe, measure=False) is not None
    assert checked == []


def test_a_scan_of_new_lines_does_not_time_known_triggers_again(checked, tmp_path, monkeypatch):
    """The second scan meets the same mistake in new lines: merged as a repeat, no timing.

    (Timed as a plugin's findings are: the transcript's finding is Tier 2, which intake leaves
    to the build otherwise.)
    """
    monkeypatch.setattr(intake, "UNTIMED_TIERS", frozenset())
    session = tmp_path / "s.jsonl"
    _transcript(session)
    with services.session() as sess:
        first = engine.run_scan(sess, paths=[session], workers=1)
    assert [c.trigger for c in first.new if c.trigger]
    judged = list(checked)
    assert judged
    trigger_checks.forget()  # as a new process starts
    text = session.read_text(encoding="utf-8")
    session.write_text(text + text.replace("sess-1", "sess-2"), encoding="utf-8")
    with services.session() as sess:
        second = engine.run_scan(sess, paths=[session], workers=1)
    assert second.duplicates >= 1
    assert checked == judged


def test_what_helpers_accepted_is_remembered_by_the_scanning_process(
    checked, tmp_path, monkeypatch
):
    """Read in forked helpers (a pool: the scanning process reads nothing itself), the
    candidates come back checked; their triggers are remembered all the same. (Timed as a
    plugin's findings are, like the test above.)"""
    from lessons_core.scan import planning

    monkeypatch.setattr(intake, "UNTIMED_TIERS", frozenset())

    if not planning.can_fork():
        pytest.skip("worker processes need fork")
    monkeypatch.setattr(planning, "PARALLEL_MIN_BYTES", 0)
    for n in range(3):
        _transcript(tmp_path / f"s{n}.jsonl")
    with services.session() as sess:
        report = engine.run_scan(sess, paths=sorted(tmp_path.glob("s*.jsonl")), workers=3)
    triggers = {c.trigger for c in report.new if c.trigger}
    assert triggers
    assert checked == []  # every check ran in a helper
    assert all(trigger_checks.accepted(t) for t in triggers)
    trigger_checks.forget()
    with trigger_checks.remembered(_home()):
        assert all(trigger_checks.accepted(t) for t in triggers)
