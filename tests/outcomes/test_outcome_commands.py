"""`lessons stats`, `lessons scan`, `lessons doctor` and `lessons build` use the outcome figures."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from outcome_support import MODULE_ERROR, SESSION, ClaudeTranscript

from lessons_core import services
from lessons_core.cli.main import cli
from lessons_core.hot import deliveries


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def iso(offset: float) -> str:
    stamp = datetime.fromtimestamp(time.time() + offset, UTC)
    return stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def log_delivery(home: Path, transcript: Path, session: str, call_id: str, at: str) -> None:
    line = {"id": "oc-venv-pytest", "kind": "hint", "session": session, "agent": "claude",
            "event": "pre_tool", "at": at, "callId": call_id,
            "transcript": str(transcript)}  # fmt: skip
    with (home / deliveries.LOG_NAME).open("a") as fh:
        fh.write(json.dumps(line) + "\n")


def repeated_session(home: Path, tmp_path: Path) -> None:
    """Two sessions where the hinted mistake happened again afterwards."""
    for n in range(2):
        session = f"{SESSION[:-1]}{n}"
        t = ClaudeTranscript(tmp_path / f"s{n}.jsonl", session=session)
        log_delivery(home, t.path, session, f"toolu_{n}a", iso(-60))
        t.call(f"toolu_{n}a", "pytest -q", iso(-60))
        t.result(f"toolu_{n}a", MODULE_ERROR, iso(-59), error=True)
        t.call(f"toolu_{n}b", "pytest -x", iso(-50))
        t.result(f"toolu_{n}b", MODULE_ERROR, iso(-49), error=True)


def test_stats_ingests_and_shows_outcomes(lesson_home: Path, tmp_path: Path) -> None:
    """`lessons stats` reads the delivery log and lists failing lessons; JSON carries figures."""
    repeated_session(lesson_home, tmp_path)
    text = invoke("stats").output
    assert "deliveries: 2 (prevented 0, recurred 2" in text
    assert "keep failing to prevent their mistake: 1:" in text
    figures = json.loads(invoke("stats", "--json").output)["outcomes"]
    assert figures["failingToPrevent"] == ["oc-venv-pytest"]
    assert figures["lessons"]["oc-venv-pytest"]["recurred"] == 2


def test_scan_ingests_the_delivery_log(lesson_home: Path, tmp_path: Path) -> None:
    """`lessons scan` runs the outcome loop too."""
    repeated_session(lesson_home, tmp_path)
    invoke("scan", str(tmp_path / "s0.jsonl"))
    with services.open_store() as store:
        outcomes_seen = sorted(r["outcome"] for r in store.list_deliveries())
    assert outcomes_seen == ["recurred", "recurred"]


def test_doctor_warns_about_failing_lessons(lesson_home: Path, tmp_path: Path) -> None:
    """`lessons doctor` names the outcome problem in one finding."""
    repeated_session(lesson_home, tmp_path)
    invoke("stats")
    report = json.loads(invoke("doctor", "--json").output)
    found = [f for f in report["findings"] if f["check"] == "outcomes"]
    assert found and "1 keep failing to prevent their mistake" in found[0]["detail"]


def test_build_lowers_the_confidence_of_a_failing_lesson(lesson_home: Path, tmp_path: Path) -> None:
    """The manifest carries the adjusted confidence; the store keeps the original."""
    repeated_session(lesson_home, tmp_path)
    invoke("stats")
    invoke("build")
    manifest = json.loads((lesson_home / "lesson-manifest.json").read_text())
    assert manifest["lessons"]["oc-venv-pytest"]["confidence"] < 0.8
    with services.open_store() as store:
        assert [x.confidence for x in store.list_lessons()] == [0.8]


@pytest.mark.parametrize("command", [("stats",), ("scan", "s0.jsonl")])
def test_verdicts_reach_the_manifest_without_a_build(
    lesson_home: Path, tmp_path: Path, command: tuple[str, ...]
) -> None:
    """Whatever records a verdict rebuilds the manifest, so the hooks act on it at once:
    here the lesson that keeps failing ranks lower without a `lessons build`."""
    invoke("build")
    before = json.loads((lesson_home / "lesson-manifest.json").read_text())
    assert before["verdicts"] == 0
    repeated_session(lesson_home, tmp_path)
    invoke(*[str(tmp_path / a) if a.endswith(".jsonl") else a for a in command])
    after = json.loads((lesson_home / "lesson-manifest.json").read_text())
    assert after["verdicts"] == 2
    assert (
        after["lessons"]["oc-venv-pytest"]["confidence"]
        < (before["lessons"]["oc-venv-pytest"]["confidence"])
    )
    manifest = [f for f in json.loads(invoke("doctor", "--json").output)["findings"]
                if f["check"] == "manifest"]  # fmt: skip
    assert manifest[0]["status"] == "ok", manifest


def test_doctor_calls_the_manifest_stale_while_a_verdict_waits(
    lesson_home: Path, tmp_path: Path
) -> None:
    """A verdict recorded without a build after it (the rebuild failed, or another program
    recorded it) is named, with what to do."""
    invoke("build")
    with services.open_store() as store:
        store.record_delivery("oc-venv-pytest", "s-9", "claude", "pre_tool", outcome="recurred")
    found = [f for f in json.loads(invoke("doctor", "--json").output)["findings"]
             if f["check"] == "manifest"]  # fmt: skip
    assert found[0]["status"] == "fail"
    assert "1 outcome verdict(s) recorded since it was built" in found[0]["detail"]
    assert found[0]["fix"] == "run `lessons build`"
    invoke("build")
    found = [f for f in json.loads(invoke("doctor", "--json").output)["findings"]
             if f["check"] == "manifest"]  # fmt: skip
    assert found[0]["status"] == "ok"


def test_concurrent_stats_runs_record_each_delivery_once(lesson_home: Path, tmp_path: Path) -> None:
    """Two `lessons stats` processes ingesting the same log at once record every line once."""
    import os
    import subprocess
    import sys

    for n in range(20):
        line = {"id": "oc-venv-pytest", "kind": "hint", "session": f"c{n}", "agent": "claude",
                "event": "pre_tool", "at": f"2026-01-01T00:00:{n:02d}.000000Z"}  # fmt: skip
        with (lesson_home / deliveries.LOG_NAME).open("a") as fh:
            fh.write(json.dumps(line) + "\n")
    command = [str(Path(sys.executable).parent / "lessons"), "stats", "--json"]
    procs = [
        subprocess.Popen(command, env=dict(os.environ), stdout=subprocess.PIPE) for _ in range(2)
    ]
    for proc in procs:
        proc.communicate(timeout=60)
        assert proc.returncode == 0
    with services.open_store() as store:
        rows = store.list_deliveries()
    assert len(rows) == 20
    assert {r["outcome"] for r in rows} == {"unknown"}  # old, and no transcript to read
