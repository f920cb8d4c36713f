"""Denials that stopped working calls: judged needless, and the manifest softens the lesson."""

from __future__ import annotations

import io
import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs
import pytest
from outcome_support import MODULE_ERROR, PYTEST_LESSON, SESSION, ClaudeTranscript

from lessons_claude import hot_claude
from lessons_core import outcomes, serde, services
from lessons_core.hot import manifest as manifest_mod
from lessons_core.hot import runner

GUARD = {**PYTEST_LESSON, "id": "oc-guard-pytest", "type": "guard"}
DENIED = "Blocked by a lesson: run the tests with the project's virtualenv."


def iso(offset: float = 0.0) -> str:
    stamp = datetime.fromtimestamp(time.time() + offset, UTC)
    return stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@pytest.fixture(name="guard_home")
def fixture_guard_home(home: Path) -> Path:
    with services.open_store() as store:
        store.add_lessons([serde.lesson_from_json(GUARD)])
        services.rebuild_manifest(store)
    manifest_mod.clear_cache()
    return home


def hook(transcript: Path, call_id: str, command: str, session: str = SESSION) -> dict[str, Any]:
    manifest_mod.clear_cache()
    payload = {
        "session_id": session,
        "transcript_path": str(transcript),
        "cwd": "/srv/dev/acme",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": call_id,
    }
    out = io.StringIO()
    runner.run(hot_claude, stdin=io.BytesIO(json.dumps(payload).encode()), stdout=out)
    answer: dict[str, Any] = json.loads(out.getvalue())
    return answer


def ingest(home: Path) -> outcomes.IngestReport:
    with services.session() as sess:
        return outcomes.ingest(sess.store, home, agents=sess.plugins.agents())


def manifest_type(lesson_id: str) -> str:
    with services.open_store() as store:
        services.rebuild_manifest(store)
    manifest_mod.clear_cache()
    return str(manifest_mod.load()["lessons"][lesson_id]["type"])


def deny_then_retry(home: Path, tmp: Path, session: str, retried: str, result: str) -> None:
    """The guard denies ``pytest -q``; the agent then runs ``retried``, which gives ``result``."""
    t = ClaudeTranscript(tmp / f"{session}.jsonl", session=session)
    answer = hook(t.path, "toolu_1", "pytest -q", session)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    t.call("toolu_1", "pytest -q", iso(-30))
    t.result("toolu_1", DENIED, iso(-29), error=True)
    t.call("toolu_2", retried, iso(-20))
    t.result("toolu_2", result, iso(-19), error=result == MODULE_ERROR)


def test_denied_call_that_then_runs_fine_unchanged_is_needless(
    guard_home: Path, tmp_path: Path
) -> None:
    deny_then_retry(guard_home, tmp_path, SESSION, "pytest -q", "12 passed in 1.1s")
    assert ingest(guard_home).outcomes == {"needless": 1}


def test_denied_call_changed_by_the_agent_is_prevented(guard_home: Path, tmp_path: Path) -> None:
    deny_then_retry(guard_home, tmp_path, SESSION, ".venv/bin/python -m pytest -q", "12 passed")
    assert ingest(guard_home).outcomes == {"prevented": 1}


def test_a_call_that_ran_as_it_was_is_needless(guard_home: Path, tmp_path: Path) -> None:
    """The replay case: the transcript shows the very call the lesson denied, and it worked."""
    t = ClaudeTranscript(tmp_path / "s.jsonl")
    hook(t.path, "toolu_1", "pytest -q")
    t.call("toolu_1", "pytest -q", iso(-30))
    t.result("toolu_1", "3 passed in 0.4s", iso(-29))
    assert ingest(guard_home).outcomes == {"needless": 1}


def test_a_hint_is_never_needless(lesson_home: Path, tmp_path: Path) -> None:
    """Only a denial can stop a working call; a hint that came with one is quiet."""
    t = ClaudeTranscript(tmp_path / "s.jsonl")
    hook(t.path, "toolu_1", "pytest -q")
    t.call("toolu_1", "pytest -q", iso(-30))
    t.result("toolu_1", "3 passed in 0.4s", iso(-29))
    t.call("toolu_2", "git status", iso(-20))
    t.result("toolu_2", "nothing to commit", iso(-19))
    assert ingest(lesson_home).outcomes == {"quiet": 1}


def test_needless_guard_becomes_a_nudge_then_a_hint(guard_home: Path, tmp_path: Path) -> None:
    """One needless denial softens the guard to a nudge; more make it a hint; the store keeps
    the guard, and stats and doctor say what happened."""
    assert manifest_type(GUARD["id"]) == "guard"
    deny_then_retry(guard_home, tmp_path, "s-1", "pytest -q", "12 passed")
    ingest(guard_home)
    assert manifest_type(GUARD["id"]) == "nudge"
    with services.open_store() as store:
        summary = outcomes.summary(store)
        assert summary["demoted"] == {GUARD["id"]: "nudge"}
        assert any("compiled as nudges" in line for line in outcomes.stats_lines(summary))
        assert "denied calls that then ran fine" in (outcomes.doctor_line(store) or "")
        assert [x.type.value for x in store.list_lessons() if x.id == GUARD["id"]] == ["guard"]
    for n in (2, 3):
        deny_then_retry(guard_home, tmp_path, f"s-{n}", "pytest -q", "12 passed")
    ingest(guard_home)
    assert manifest_type(GUARD["id"]) == "hint"


def test_a_guard_that_also_prevents_stays_a_guard(guard_home: Path, tmp_path: Path) -> None:
    deny_then_retry(guard_home, tmp_path, "s-1", "pytest -q", "12 passed")
    deny_then_retry(guard_home, tmp_path, "s-2", ".venv/bin/python -m pytest", "12 passed")
    deny_then_retry(guard_home, tmp_path, "s-3", ".venv/bin/python -m pytest", "12 passed")
    assert ingest(guard_home).outcomes == {"needless": 1, "prevented": 2}
    assert manifest_type(GUARD["id"]) == "guard"


def record(store: Any, lesson_id: str, outcome: str, n: int) -> None:
    store.record_delivery(
        lesson_id,
        f"s{n}",
        "claude",
        "pre_tool:hint",
        outcome=outcome,
        delivered_at=f"2026-05-{n + 1:02d}T00:00:00Z",
    )


def test_only_judged_deliveries_make_a_lesson_noisy(lesson_home: Path) -> None:
    """Deliveries whose outcome was never seen say nothing about relevance."""
    with services.open_store() as store:
        for n in range(8):
            record(store, "oc-venv-pytest", "unknown", n)
        assert outcomes.summary(store)["noisy"] == []
        for n in range(8, 13):
            record(store, "oc-venv-pytest", "quiet", n)
        assert outcomes.summary(store)["noisy"] == ["oc-venv-pytest"]


def test_a_noisy_lesson_loses_priority_in_the_manifest(lesson_home: Path) -> None:
    with services.open_store() as store:
        for n in range(6):
            record(store, "oc-venv-pytest", "quiet", n)
        services.rebuild_manifest(store)
    manifest_mod.clear_cache()
    entry = manifest_mod.load()["lessons"]["oc-venv-pytest"]
    assert entry["priority"] == PYTEST_LESSON["priority"] - outcomes.NOISY_PRIORITY_PENALTY


def test_session_lessons_are_never_judged_noisy_or_never_fired(home: Path) -> None:
    protocol = {
        "id": "oc-protocol",
        "type": "protocol",
        "summary": "Report lessons",
        "mistake": "m",
        "remediation": "r",
    }
    with services.open_store() as store:
        store.add_lessons([serde.lesson_from_json(protocol)])
        for n in range(6):
            at = f"2026-05-0{n + 1}T00:00:00Z"
            store.record_delivery(
                "oc-protocol",
                f"s{n}",
                "claude",
                "session_start:session",
                outcome="quiet",
                delivered_at=at,
            )
        summary = outcomes.summary(store)
    assert summary["noisy"] == [] and "oc-protocol" not in summary["neverFired"]


def test_outcomes_never_push_a_lesson_below_the_floor(lesson_home: Path) -> None:
    """A lesson whose mistake keeps recurring is about a live mistake: it stays compiled."""
    from lessons_core.models import Config

    floor = Config().min_confidence
    with services.open_store() as store:
        (lesson,) = [x for x in store.list_lessons() if x.id == "oc-venv-pytest"]
        low = attrs.evolve(lesson, confidence=floor + 0.01)
        store.update_lesson(low)
        for n in range(6):
            record(store, lesson.id, "recurred", n)
        assert outcomes.adjust([low], store)[0].confidence < floor
        assert outcomes.adjust([low], store, floor=floor)[0].confidence == floor
        services.rebuild_manifest(store)
    manifest_mod.clear_cache()
    assert lesson.id in manifest_mod.load()["lessons"]


def test_a_hint_on_a_call_the_user_turned_down_was_relevant(
    lesson_home: Path, tmp_path: Path
) -> None:
    """A rejection never reaches a failure hook, so it must count: the mistake was live."""
    t = ClaudeTranscript(tmp_path / "s.jsonl")
    hook(t.path, "toolu_1", "pytest -q")
    t.call("toolu_1", "pytest -q", iso(-30))
    rejected = (
        "The user doesn't want to proceed with this tool use. The tool use was rejected "
        "(eg. if it was a file edit, the new_string was NOT written to the file). STOP what you "
        "are doing and wait for the user to tell you how to proceed."
    )
    t.result("toolu_1", rejected, iso(-29), error=True)
    t.call("toolu_2", ".venv/bin/python -m pytest -q", iso(-20))
    t.result("toolu_2", "3 passed", iso(-19))
    assert ingest(lesson_home).outcomes == {"prevented": 1}


def test_a_hint_told_at_three_starts_for_nothing_is_no_longer_told(home: Path) -> None:
    """A recurring hint speaks at every session start: quiet there three times, it is noisy,
    rests until a failure and leaves the start, which bounds what it costs."""
    from lessons_core.models import Provenance

    told = attrs.evolve(
        serde.lesson_from_json(PYTEST_LESSON),
        provenance=Provenance(source="scan:tier2", sessions=("a", "b"), occurrences=2),
    )
    with services.open_store() as store:
        store.add_lessons([told])
        assert services.rebuild_manifest(store) and _recurring() == [told.id]
        for n in range(3):
            store.record_delivery(
                told.id,
                f"s{n}",
                "claude",
                "session_start:session",
                outcome="quiet",
                delivered_at=f"2026-05-0{n + 1}T00:00:00Z",
            )
        assert outcomes.summary(store)["noisy"] == [told.id]
        services.rebuild_manifest(store)
    assert _recurring() == []
    assert manifest_mod.load()["lessons"][told.id]["when"] == "failure"


def _recurring() -> list[str]:
    manifest_mod.clear_cache()
    return list(manifest_mod.load()["recurring"])
