"""The outcome loop on crafted transcripts: deliveries logged by the hook, judged afterwards."""

from __future__ import annotations

import io
import json
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from outcome_support import MODULE_ERROR, SESSION, ClaudeTranscript

from lessons_claude import hot_claude
from lessons_core import outcomes, services
from lessons_core.hot import deliveries, runner
from lessons_core.hot import manifest as manifest_mod


def iso(offset: float = 0.0) -> str:
    stamp = datetime.fromtimestamp(time.time() + offset, UTC)
    return stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def hook(payload: dict[str, Any]) -> dict[str, Any] | None:
    """Run the real hook runner in-process with the Claude adapter (it writes the log)."""
    manifest_mod.clear_cache()
    out = io.StringIO()
    runner.run(hot_claude, stdin=io.BytesIO(json.dumps(payload).encode()), stdout=out)
    return json.loads(out.getvalue()) if out.getvalue() else None


def pre_tool(transcript: Path, call_id: str, command: str, session: str = SESSION) -> dict:
    return {
        "session_id": session,
        "transcript_path": str(transcript),
        "cwd": "/srv/dev/acme",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": call_id,
    }


def ingest(home: Path, now: float | None = None) -> outcomes.IngestReport:
    with services.session() as sess:
        return outcomes.ingest(sess.store, home, agents=sess.plugins.agents(), now=now)


def rows() -> list[dict[str, Any]]:
    with services.open_store() as store:
        return store.list_deliveries()


def record(store: Any, lesson_id: str, session: str, outcome: str, month: str, n: int) -> None:
    """A judged delivery straight into the store."""
    at = f"2026-{month}-{n + 1:02d}T00:00:00Z"
    store.record_delivery(lesson_id, session, "claude", "pre_tool:hint", outcome=outcome,
                          delivered_at=at)  # fmt: skip


def figures() -> dict[str, outcomes.LessonFigures]:
    with services.open_store() as store:
        return outcomes.figures(store)


def test_hint_logged_by_the_hook_then_mistake_avoided(lesson_home: Path, tmp_path: Path) -> None:
    """The failing call got the hint; later runs use the venv and pass: prevented."""
    t = ClaudeTranscript(tmp_path / "s.jsonl")
    answer = hook(pre_tool(t.path, "toolu_1", "pytest -q"))
    assert answer is not None and "additionalContext" in answer["hookSpecificOutput"]
    logged = [json.loads(x) for x in (lesson_home / deliveries.LOG_NAME).read_text().splitlines()]
    assert [(e["id"], e["kind"], e["callId"]) for e in logged] == [
        ("oc-venv-pytest", "hint", "toolu_1")
    ]
    t.call("toolu_1", "pytest -q", iso(-30))
    t.result("toolu_1", MODULE_ERROR, iso(-29), error=True)
    t.call("toolu_2", ".venv/bin/python -m pytest -q", iso(-20))
    t.result("toolu_2", "3 passed in 0.2s", iso(-19))
    report = ingest(lesson_home)
    assert report.recorded == 1 and report.outcomes == {"prevented": 1}
    assert [(r["lesson_id"], r["event"], r["outcome"]) for r in rows()] == [
        ("oc-venv-pytest", "pre_tool:hint", "prevented")
    ]


def test_hint_delivered_then_mistake_repeated(lesson_home: Path, tmp_path: Path) -> None:
    """The same failing command runs again after the hint: recurred."""
    t = ClaudeTranscript(tmp_path / "s.jsonl")
    hook(pre_tool(t.path, "toolu_1", "pytest -q"))
    t.call("toolu_1", "pytest -q", iso(-30))
    t.result("toolu_1", MODULE_ERROR, iso(-29), error=True)
    t.call("toolu_2", "pytest tests/test_api.py", iso(-20))
    t.result("toolu_2", MODULE_ERROR, iso(-19), error=True)
    assert ingest(lesson_home).outcomes == {"recurred": 1}


def test_recurrence_by_error_fingerprint(lesson_home: Path, tmp_path: Path) -> None:
    """Another command that is not the trigger fails with the lesson's error line: recurred."""
    t = ClaudeTranscript(tmp_path / "s.jsonl")
    hook(pre_tool(t.path, "toolu_1", "pytest -q"))
    t.call("toolu_1", "pytest -q", iso(-30))
    t.result("toolu_1", MODULE_ERROR, iso(-29), error=True)
    t.call("toolu_2", "python -c 'import requests'", iso(-20))
    t.result(
        "toolu_2", "Exit code 1\nE   ModuleNotFoundError: No module named 'requests'", iso(-19),
        error=True,
    )  # fmt: skip
    assert ingest(lesson_home).outcomes == {"recurred": 1}


def test_hint_on_a_call_that_worked_is_quiet(lesson_home: Path, tmp_path: Path) -> None:
    """The hint fired but the mistake never showed: quiet (not prevented)."""
    t = ClaudeTranscript(tmp_path / "s.jsonl")
    hook(pre_tool(t.path, "toolu_1", "pytest -q"))
    t.call("toolu_1", "pytest -q", iso(-30))
    t.result("toolu_1", "5 passed", iso(-29))
    t.call("toolu_2", "ls", iso(-20))
    t.result("toolu_2", "README.md", iso(-19))
    assert ingest(lesson_home).outcomes == {"quiet": 1}


def test_a_running_session_waits_then_is_judged(lesson_home: Path, tmp_path: Path) -> None:
    """Nothing after the delivery yet: it waits; once the session goes on, it is judged."""
    t = ClaudeTranscript(tmp_path / "s.jsonl")
    hook(pre_tool(t.path, "toolu_1", "pytest -q"))
    t.call("toolu_1", "pytest -q", iso(-2))
    first = ingest(lesson_home)
    assert (first.recorded, first.waiting) == (0, 1)
    assert figures()["oc-venv-pytest"].waiting == 1
    t.result("toolu_1", MODULE_ERROR, iso(-1), error=True)
    t.call("toolu_2", "pytest -q", iso(0))
    t.result("toolu_2", MODULE_ERROR, iso(0), error=True)
    second = ingest(lesson_home)
    assert (second.recorded, second.waiting, second.outcomes) == (1, 0, {"recurred": 1})


def test_ingest_is_idempotent(lesson_home: Path, tmp_path: Path) -> None:
    """Running the loop again reads nothing twice and records nothing twice."""
    t = ClaudeTranscript(tmp_path / "s.jsonl")
    hook(pre_tool(t.path, "toolu_1", "pytest -q"))
    t.call("toolu_1", "pytest -q", iso(-30))
    t.result("toolu_1", MODULE_ERROR, iso(-29), error=True)
    t.say("switching to the venv", iso(-25))
    t.call("toolu_2", ".venv/bin/python -m pytest", iso(-20))
    t.result("toolu_2", "ok", iso(-19))
    assert ingest(lesson_home).recorded == 1
    again = ingest(lesson_home)
    assert (again.read, again.recorded) == (0, 0)
    # even a log read again from the start (lost offsets) records nothing new
    with services.open_store() as store:
        store.set_scan_state(outcomes.LOG_STATE_KEY, {"files": {}})
    replay = ingest(lesson_home)
    assert (replay.read, replay.recorded, replay.duplicates) == (1, 0, 1)
    assert len(rows()) == 1


def test_transcript_found_by_session_id_when_the_hook_had_no_path(
    lesson_home: Path, tmp_path: Path
) -> None:
    """Without a transcript path in the log, the session's file under the agent's root is used."""
    project = tmp_path / "user" / ".claude" / "projects" / "-work-acme"
    t = ClaudeTranscript(project / f"{SESSION}.jsonl")
    payload = pre_tool(t.path, "toolu_1", "pytest -q")
    del payload["transcript_path"]
    hook(payload)
    t.call("toolu_1", "pytest -q", iso(-30))
    t.result("toolu_1", MODULE_ERROR, iso(-29), error=True)
    t.call("toolu_2", "pytest -x", iso(-20))
    t.result("toolu_2", MODULE_ERROR, iso(-19), error=True)
    assert ingest(lesson_home).outcomes == {"recurred": 1}


def test_unfindable_transcript_settles_as_unknown(lesson_home: Path) -> None:
    """A delivery whose session cannot be read waits, then counts as unknown."""
    hook(pre_tool(Path("/nonexistent/t.jsonl"), "toolu_1", "pytest -q", session="lost"))
    assert ingest(lesson_home).waiting == 1
    later = ingest(lesson_home, now=time.time() + outcomes.SETTLE_SECONDS + 60)
    assert later.outcomes == {"unknown": 1}


def test_bad_log_lines_and_partial_lines(lesson_home: Path) -> None:
    """Garbage lines are counted and skipped; a half-written last line waits for its end."""
    log = lesson_home / deliveries.LOG_NAME
    line = {"id": "oc-venv-pytest", "session": "s", "agent": "claude", "event": "pre_tool",
            "kind": "hint", "at": "2026-01-01T00:00:00.000001Z"}  # fmt: skip
    log.write_text("not json\n" + json.dumps({"id": 3}) + "\n" + json.dumps(line)[:20])
    report = ingest(lesson_home)
    assert (report.read, report.bad_lines, report.waiting) == (2, 2, 0)
    with log.open("a") as fh:
        fh.write(json.dumps(line)[20:] + "\n")
    report = ingest(lesson_home)
    assert report.read == 1 and report.outcomes == {"unknown": 1}  # old and unreadable


def test_deliveries_of_removed_lessons_are_dropped(lesson_home: Path) -> None:
    """A log line for a lesson the store no longer holds is not recorded (orphan)."""
    log = lesson_home / deliveries.LOG_NAME
    line = {"id": "gone", "session": "s", "agent": "claude", "event": "pre_tool", "at": iso()}
    log.write_text(json.dumps(line) + "\n")
    report = ingest(lesson_home)
    assert (report.orphans, report.recorded) == (1, 0)


def test_figures_never_fired_failing_and_noisy(lesson_home: Path) -> None:
    """The lists stats and doctor show come from the recorded outcomes."""
    with services.open_store() as store:
        from lessons_core import serde

        store.add_lessons(
            [serde.lesson_from_json({"id": "oc-never", "summary": "never fires",
                                     "mistake": "m", "remediation": "r",
                                     "triggers": {"commandPatterns": ["^zzz\\b"]}})]
        )  # fmt: skip
        for n in range(6):
            record(store, "oc-venv-pytest", f"s{n}", "quiet", "01", n)
        summary = outcomes.summary(store)
        assert summary["neverFired"] == ["oc-never"]
        assert summary["noisy"] == ["oc-venv-pytest"]
        assert summary["failingToPrevent"] == []
        for n in range(3):
            record(store, "oc-venv-pytest", f"r{n}", "recurred", "02", n)
        summary = outcomes.summary(store)
        assert summary["failingToPrevent"] == ["oc-venv-pytest"]
        assert summary["noisy"] == []
        assert summary["totals"]["fired"] == 9
        assert summary["lessons"]["oc-venv-pytest"]["recurred"] == 3


def test_confidence_adjustment_is_small_and_follows_outcomes(lesson_home: Path) -> None:
    """Prevented raises, recurred lowers, never by more than MAX_ADJUSTMENT; store untouched."""
    with services.open_store() as store:
        (lesson,) = [x for x in store.list_lessons() if x.id == "oc-venv-pytest"]
        assert outcomes.adjust([lesson], store)[0].confidence == 0.8
        for n in range(8):
            record(store, lesson.id, f"p{n}", "prevented", "03", n)
        up = outcomes.adjust([lesson], store)[0].confidence
        assert 0.8 < up <= 0.8 + outcomes.MAX_ADJUSTMENT
        for n in range(9):
            record(store, lesson.id, f"q{n}", "recurred", "04", n)
        down = outcomes.adjust([lesson], store)[0].confidence
        assert 0.8 - outcomes.MAX_ADJUSTMENT <= down < 0.8
        assert [x.confidence for x in store.list_lessons() if x.id == lesson.id] == [0.8]


def test_codex_session_found_by_its_id_and_judged(home: Path, tmp_path: Path) -> None:
    """Codex gives the hook no transcript path: the rollout named for the session is read."""
    from lessons_core import serde

    with services.open_store() as store:
        store.add_lessons(
            [
                serde.lesson_from_json(
                    {
                        "id": "oc-fake-initial",
                        "summary": "--fake-initial hides conflicting migrations",
                        "mistake": "migrated with --fake-initial over a branch conflict",
                        "remediation": "Run makemigrations --merge first.",
                        "triggers": {"commandPatterns": ["--fake-initial"]},
                        "errorLines": ["CommandError: Conflicting migrations detected"],
                    }
                )
            ]
        )
    session = "019a0000-0000-7000-8000-0000000000cc"
    rollout = tmp_path / "user" / ".codex" / "sessions" / "2025" / "06" / "01"
    rollout.mkdir(parents=True)

    def shell(call_id: str, command: str, output: str, code: int) -> list[dict[str, Any]]:
        args = json.dumps({"command": ["bash", "-lc", command]})
        out = json.dumps({"output": output, "metadata": {"exit_code": code}})
        return [
            {"type": "function_call", "name": "shell", "arguments": args, "call_id": call_id},
            {"type": "function_call_output", "call_id": call_id, "output": out},
        ]

    lines: list[dict[str, Any]] = [
        {"id": session, "timestamp": "2025-06-01T10:00:00Z", "instructions": ""},
        {"record_type": "state"},
    ]
    lines += shell("call_1", "python3 manage.py migrate --fake-initial",
                   "CommandError: Conflicting migrations detected\n", 1)  # fmt: skip
    lines += shell("call_2", "python3 manage.py makemigrations --merge", "Created\n", 0)
    lines += shell("call_3", "python3 manage.py migrate --fake-initial",
                   "CommandError: Conflicting migrations detected\n", 1)  # fmt: skip
    path = rollout / f"rollout-2025-06-01T10-00-00-{session}.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    log = home / deliveries.LOG_NAME
    entry = {"id": "oc-fake-initial", "kind": "hint", "session": session, "agent": "codex",
             "event": "pre_tool", "at": iso(-60), "callId": "call_1"}  # fmt: skip
    log.write_text(json.dumps(entry) + "\n")
    assert ingest(home).outcomes == {"recurred": 1}
