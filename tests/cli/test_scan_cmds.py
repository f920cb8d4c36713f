"""``lessons scan``, ``candidates``, ``review``, ``promote`` and ``stats`` as a user runs them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

LESSONS = str(Path(sys.executable).parent / "lessons")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
CANDIDATE_KEYS = {
    "id",
    "tier",
    "agent",
    "tool",
    "trigger",
    "mistake",
    "fix",
    "tags",
    "confidence",
    "priority",
    "status",
    "evidence",
}


def lessons(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LESSONS, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=120,
        check=False,
    )


@pytest.fixture(autouse=True)
def _no_xdg_config(monkeypatch):
    """Claude Code also keeps transcripts under $XDG_CONFIG_HOME/claude: never the real one."""
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("LESSONS_SCAN_WORKERS", raising=False)


@pytest.fixture(name="homes")
def fixture_homes() -> Path:
    """The isolated HOME with the fixtures in each agent's default place."""
    home = Path(os.environ["HOME"])
    shutil.copytree(FIXTURES / "claude", home / ".claude")
    shutil.copytree(FIXTURES / "codex", home / ".codex")
    shutil.copytree(FIXTURES / "gemini", home / ".gemini")
    return home


def _json_lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_scan_json_prints_new_candidates_in_the_contract_shape(homes):
    """One JSON object per line with the contract's keys; evidence cites file and line."""
    out = lessons("scan", "--json")
    assert out.returncode == 0, out.stderr
    found = _json_lines(out.stdout)
    assert found
    for candidate in found:
        assert candidate.keys() >= CANDIDATE_KEYS
        for evidence in candidate["evidence"]:
            assert set(evidence) == {"file", "line", "call_id", "session_id"}
            assert evidence["line"] >= 1
    assert {c["agent"] for c in found} == {"claude", "codex", "gemini"}
    assert {c["tier"] for c in found} == {1, 2}
    assert all(c["status"] == "promoted" for c in found if c["tier"] == 1)
    again = lessons("scan", "--json")
    assert again.stdout == ""


def test_scan_human_summary_and_agent_filter(homes):
    """Without --json a short summary; --agent limits the roots scanned."""
    out = lessons("scan", "--agent", "codex")
    assert out.returncode == 0, out.stderr
    assert "Scanned 2 of 2 transcript(s)" in out.stdout
    assert "lessons review" in out.stdout


def test_scan_explicit_path_and_missing_path(homes, tmp_path):
    """PATH arguments are scanned with the agent guessed; a missing path is a clean error."""
    out = lessons("scan", "--json", str(homes / ".codex"))
    assert out.returncode == 0, out.stderr
    assert {c["agent"] for c in _json_lines(out.stdout)} == {"codex"}
    bad = lessons("scan", str(tmp_path / "missing"))
    assert bad.returncode == 1
    assert "no such file or directory" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_background_scan_is_quiet(homes):
    """--background prints nothing and still scans."""
    out = lessons("scan", "--background")
    assert out.returncode == 0
    assert out.stdout == ""
    listed = _json_lines(lessons("candidates", "--json").stdout)
    assert listed


def test_candidates_review_and_promote(homes):
    """List pending candidates, accept one and reject one by script, promote another."""
    lessons("scan")
    pending = _json_lines(lessons("candidates", "--json").stdout)
    assert len(pending) >= 3
    first, second, third = pending[0]["id"], pending[1]["id"], pending[2]["id"]
    out = lessons("review", "--accept", first, "--reject", second)
    assert out.returncode == 0, out.stderr
    assert f"Rejected {second}" in out.stdout
    promoted = lessons("promote", third, "--json")
    assert promoted.returncode == 0, promoted.stderr
    slug = json.loads(promoted.stdout)["slug"]
    shown = lessons("list", "--json")
    assert slug in shown.stdout
    statuses = {
        c["id"]: c["status"]
        for c in _json_lines(lessons("candidates", "--json", "--status", "all").stdout)
    }
    assert statuses[first] == "promoted"
    assert statuses[second] == "rejected"
    assert statuses[third] == "promoted"
    again = lessons("promote", third)
    assert again.returncode == 1
    assert "already promoted" in again.stderr
    missing = lessons("promote", "01NOPE")
    assert missing.returncode == 1
    assert "no candidate" in missing.stderr


def test_review_needs_a_terminal_or_flags(homes):
    """Without a terminal and without --accept/--reject, review explains what to do."""
    out = lessons("review")
    assert out.returncode == 1
    assert "--accept" in out.stderr


def test_interactive_review_accepts_edits_and_rejects(homes, monkeypatch):
    """The prompts accept, edit (re-checked) and reject candidates in turn."""
    from click.testing import CliRunner

    from lessons_core.cli import scan_cmds
    from lessons_core.cli.main import cli

    lessons("scan")
    before = _json_lines(lessons("candidates", "--json").stdout)
    runner = CliRunner()
    # accept (type and scope: the proposals), reject, edit (then the proposals), quit
    keys = "a\n\n\nr\ne\nA sharper summary\n\n\n\n\n\n\nq\n"
    monkeypatch.setattr(scan_cmds, "_interactive", lambda: True)
    result = runner.invoke(cli, ["review"], input=keys, env=dict(os.environ))
    assert result.exit_code == 0, result.output
    assert result.output.count("promoted →") == 2
    assert "rejected" in result.output
    after = {c["id"] for c in _json_lines(lessons("candidates", "--json").stdout)}
    assert len(after) == len(before) - 3


def test_stats_reports_tiers_and_compliance(homes):
    """Per agent: Tier 1 vs Tier 2 detections and the protocol-compliance rate."""
    lessons("scan")
    out = lessons("stats", "--json")
    assert out.returncode == 0, out.stderr
    figures = json.loads(out.stdout)
    claude = figures["agents"]["claude"]
    assert claude["tier1"] == 2
    assert claude["tier2"] >= 4
    assert claude["complianceRate"] == round(2 / (2 + claude["tier2"]), 3)
    assert figures["lessons"]["total"] >= 4
    human = lessons("stats")
    assert "protocol compliance" in human.stdout


def test_two_concurrent_scan_processes_count_once(homes):
    """Two `lessons scan` processes at once: the lock serialises them, nothing doubles."""
    # The store exists already (as it does after the first run): two processes *creating* a
    # store at the same instant is the store's concern, not the scanner's.
    assert lessons("stats").returncode == 0
    procs = [
        subprocess.Popen([LESSONS, "scan", "--json"], stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    total = sum(len(_json_lines(o)) for o in outputs)
    solo = _json_lines(lessons("candidates", "--json", "--status", "all").stdout)
    assert total == len(solo)
    evidence = [(e["file"], e["line"]) for c in solo for e in c["evidence"]]
    assert len(evidence) == len(set(evidence))


def test_background_scan_leaves_when_another_scan_runs(homes):
    """With the scan lock held elsewhere, --background exits at once, quietly, scanning nothing."""
    from lessons_core.scan import lock

    home = Path(os.environ["LESSONS_HOME"])
    with lock.scan_lock(home):
        out = lessons("scan", "--background")
    assert out.returncode == 0
    assert out.stdout == ""
    assert _json_lines(lessons("candidates", "--json").stdout) == []


def test_review_takes_several_ids_after_one_flag(homes):
    """``--accept A B`` and ``--reject A,B`` both work; mixing needs a flag per ID."""
    lessons("scan")
    ids = [c["id"] for c in _json_lines(lessons("candidates", "--json").stdout)]
    out = lessons("review", "--reject", ids[0], ids[1])
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("Rejected") == 2
    out = lessons("review", "--accept", f"{ids[2]},{ids[3]}")
    assert out.stdout.count("Promoted") == 2
    bad = lessons("review", "--accept", ids[4], "--reject", ids[5], ids[6])
    assert bad.returncode == 1
    assert "flag before every ID" in bad.stderr


def _pending() -> list[Any]:
    from lessons_core import services

    with services.open_store() as store:
        return list(store.list_candidates(status="pending"))


def test_review_scopes_a_one_project_candidate_to_its_project(homes):
    """--accept makes a lesson for the project the evidence comes from; --scope global not."""
    from lessons_core.hot.project import path_id, project_id

    lessons("scan")
    first, second = [c for c in _pending() if c.project][:2]
    out = lessons("review", "--accept", first.id, "--json")
    assert out.returncode == 0, out.stderr
    shown = json.loads(lessons("show", json.loads(out.stdout)["id"], "--json").stdout)
    directory = str(Path(first.project).expanduser())
    assert shown["scope"] == (project_id(directory) or path_id(directory))
    out = lessons("review", "--accept", second.id, "--scope", "global", "--json")
    shown = json.loads(lessons("show", json.loads(out.stdout)["id"], "--json").stdout)
    assert shown["scope"] is None


def _review_only(keep: Any, keys: list[str], monkeypatch: Any) -> str:
    """Reject every other pending candidate, then review ``keep`` answering ``keys``."""
    from click.testing import CliRunner

    from lessons_core.cli import scan_cmds
    from lessons_core.cli.main import cli

    others = [c.id for c in _pending() if c.id != keep.id]
    if others:
        assert lessons("review", "--reject", *others).returncode == 0
    monkeypatch.setattr(scan_cmds, "_interactive", lambda: True)
    result = CliRunner().invoke(cli, ["review"], input="\n".join(keys) + "\n", env=dict(os.environ))
    assert result.exit_code == 0, result.output
    return result.output


def test_interactive_review_asks_type_and_proposes_the_project(homes, monkeypatch):
    """An accepted candidate is asked its type and scope; its project is the proposal."""
    from lessons_core.hot.project import path_id, project_id

    lessons("scan")
    target = next(c for c in _pending() if c.project and c.trigger)
    output = _review_only(target, ["a", "nudge", ""], monkeypatch)
    directory = str(Path(target.project).expanduser())
    project = project_id(directory) or path_id(directory)
    assert "type (hint, nudge, guard, protocol, directive)" in output
    assert f"scope: (p)roject {project}, or (g)lobal" in output
    assert f"(nudge, {project})" in output


def test_interactive_review_refuses_a_guard_without_pattern(homes, monkeypatch):
    """A guard with nothing to match is refused as `lessons add` refuses it; it stays pending."""
    lessons("scan")
    target = next(c for c in _pending() if not c.trigger)
    keys = ["a", "guard"] + (["g"] if target.project else [])
    output = _review_only(target, keys, monkeypatch)
    assert "not saved:" in output
    assert "a guard needs a command, path or content pattern" in output
    assert [c.id for c in _pending()] == [target.id]
