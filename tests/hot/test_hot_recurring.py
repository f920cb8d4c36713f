"""A mistake of earlier sessions told at the start of the next one, once, in its scope."""

from __future__ import annotations

import io
import json

import echo_adapter
import pytest
from hot_support import install_manifest, make_lesson, pre_tool

from lessons_core.hot import runner
from lessons_core.hot.project import project_id
from lessons_core.models import LessonType, Provenance

SEEN = Provenance(source="scan:tier2", sessions=("a", "b"), occurrences=2)


def _decision(payload):
    out = io.StringIO()
    raw = io.BytesIO(json.dumps(payload).encode())
    assert runner.run(echo_adapter, stdin=raw, stdout=out) == 0
    return json.loads(out.getvalue())["decision"] if out.getvalue() else None


def _told(payload) -> list[str]:
    """The lessons a start delivered (the protocol text comes with every block)."""
    decision = _decision(payload)
    return decision["delivered"] if decision else []


def _recurring(pattern: str, **fields):
    return make_lesson(
        summary=f"{pattern}: told at the start",
        triggers={"tool_names": ["Bash"], "command_patterns": [pattern]},
        provenance=SEEN,
        **fields,
    )


def _start(source="startup", **fields):
    return {"event": "session_start", "source": source, "session_id": "s-1", **fields}


def test_told_after_the_directives_then_not_again_at_its_trigger(home):
    directive = make_lesson(type=LessonType.DIRECTIVE, mistake="a standing rule")
    hint = _recurring("rtk bun")
    install_manifest(home, directive, hint)
    decision = _decision(_start())
    assert decision["delivered"] == [directive.id, hint.id]
    context = decision["context"]
    assert context.index("a standing rule") < context.index(runner.RECURRING_HEAD)
    assert context.index(runner.RECURRING_HEAD) < context.index("rtk bun: told at the start")
    assert _decision(pre_tool(tool="Bash", command="rtk bun test")) is None


def test_a_failure_it_is_about_gives_it_once_more(home):
    """Told at the start and made all the same: the error is when it is most likely read."""
    hint = _recurring("rtk bun", error_lines=("rtk: unknown subcommand bun",))
    install_manifest(home, hint)
    assert _decision(_start())["delivered"] == [hint.id]
    failure = {
        "agent": "test",
        "event": "post_failure",
        "session_id": "s-1",
        "tool": "Bash",
        "command": "rtk bun test",
        "error": "rtk: unknown subcommand bun",
    }
    again = _decision(failure)
    assert again["delivered"] == [hint.id]
    assert "given earlier in this session" in again["context"]
    assert _decision(failure) is None


def test_at_most_a_few_and_only_in_their_project(home, tmp_path):
    project = tmp_path / "widgets"
    project.mkdir()
    here = project_id(str(project))
    elsewhere = _recurring("make", scope="github.com/acme/other", priority=9)
    mine = [_recurring(f"tool{n}", scope=here if n == 0 else None) for n in range(5)]
    install_manifest(home, elsewhere, *mine)
    decision = _decision(_start(cwd=str(project)))
    assert decision["delivered"] == [m.id for m in mine[: runner.RECURRING_AT_START]]
    # The next ones are told at the next session start: none was claimed there.
    later = _decision(pre_tool(tool="Bash", command="tool4 run", cwd=str(project)))
    assert later["delivered"] == [mine[4].id]


def test_not_told_to_a_subagent_after_compaction_or_on_resume(home):
    """A subagent's start and a compaction's carry the session's own block; a resumed session
    already has its block in the transcript."""
    hint = _recurring("rtk bun")
    install_manifest(home, hint)
    assert _told({"event": "subagent_start", "session_id": "s-1"}) == []
    assert _told(_start("compact")) == []
    assert _told(_start("startup")) == [hint.id]
    assert _told(_start("resume")) == []
    assert _told({**_start("startup"), "session_id": "s-2"}) == [hint.id]


def test_a_hint_seen_in_one_session_waits_for_its_trigger(home):
    hint = make_lesson(
        triggers={"tool_names": ["Bash"], "command_patterns": ["rtk bun"]},
        provenance=Provenance(source="scan:tier2", sessions=("a",), occurrences=5),
    )
    install_manifest(home, hint)
    assert _told(_start()) == []
    assert _decision(pre_tool(tool="Bash", command="rtk bun x"))["delivered"] == [hint.id]


@pytest.mark.parametrize("size", range(40, 1400, 23))
def test_the_heading_and_the_trailer_stay_within_the_budget(home, size):
    """What the start tells, its heading and the trailer's ids fit ``sessionStartBudgetBytes``;
    a lesson that does not fit whole comes as its summary or is dropped, and is not claimed."""
    hints = [_recurring(f"tool{n}", mistake="m" * size) for n in range(3)]
    budget = 2200
    install_manifest(home, *hints, session_start_budget_bytes=budget)
    decision = _decision(_start())
    told = decision["context"] + decision["trailer"]
    assert len(told.encode()) <= budget
    for hint in hints:
        if hint.id not in decision["delivered"]:
            later = _decision(pre_tool(tool="Bash", command=f"{hint.summary.split(':')[0]} x"))
            assert later["delivered"] == [hint.id]
