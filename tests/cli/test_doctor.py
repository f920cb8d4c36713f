"""``lessons doctor``: each broken piece is reported with what to do, and sets the exit status."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from lessons_claude import install
from lessons_core.models import Lesson
from lessons_core.services import open_store

LESSONS = str(Path(sys.executable).parent / "lessons")


def doctor(*args: str, env: dict[str, str] | None = None) -> tuple[int, dict]:
    proc = subprocess.run(
        [LESSONS, "doctor", "--json", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def finding(report: dict, check: str) -> dict:
    (found,) = [f for f in report["findings"] if f["check"] == check]
    return found


def _no_agent_binaries() -> dict[str, str]:
    """This environment with a PATH holding none of the agents' binaries (only ours)."""
    return {**os.environ, "PATH": str(Path(sys.executable).parent)}


def _agent_checks(report: dict) -> list[str]:
    return sorted(f["check"] for f in report["findings"] if f["check"].startswith("hooks:"))


def test_fresh_home_is_healthy_but_warns_about_hooks():
    """Nothing set up yet: no failure, one warning that no agent has the hooks, and no
    warning per agent, since none is used on this machine."""
    code, report = doctor(env=_no_agent_binaries())
    assert code == 0 and report["ok"]
    assert finding(report, "config")["status"] == "ok"
    store = finding(report, "store")
    assert store["status"] == "ok"
    assert store["counts"]["lessons"] == 0
    assert store["schema_version"] is not None
    assert _agent_checks(report) == []
    hooks = finding(report, "hooks")
    assert hooks["status"] == "warn"
    assert "lessons install" in hooks["fix"]
    unused = finding(report, "agents")
    assert unused["status"] == "ok"
    assert {"claude", "codex", "gemini"} <= set(unused["unused"])


def test_an_agent_in_use_but_not_registered_warns_alone():
    """Codex transcripts on the machine: codex is warned about, the other agents are not."""
    (Path(os.environ["HOME"]) / ".codex" / "sessions").mkdir(parents=True)
    code, report = doctor(env=_no_agent_binaries())
    assert code == 0
    assert _agent_checks(report) == ["hooks:codex"]
    codex = finding(report, "hooks:codex")
    assert codex["status"] == "warn"
    assert "transcripts in" in codex["detail"]
    assert "lessons install codex" in codex["fix"]
    assert "codex" not in finding(report, "agents")["unused"]


def test_only_the_registered_agent_is_checked():
    """Claude registered, nothing else used: no warning about codex, gemini or opencode."""
    install.install(os.environ)
    code, report = doctor(env=_no_agent_binaries())
    assert code == 0
    assert _agent_checks(report) == ["hooks:claude"]
    assert not [f for f in report["findings"] if f["check"] == "hooks"]
    assert "claude" not in finding(report, "agents")["unused"]


def test_installed_hook_is_timed():
    """A registered claude hook is run five times; the median latency is reported."""
    install.install(os.environ)
    code, report = doctor()
    assert code == 0
    claude = finding(report, "hooks:claude")
    assert claude["status"] in ("ok", "warn")  # warn only when the machine is very slow
    assert claude["installed"] and claude["current"]
    assert len(claude["latency_runs_ms"]) == 5
    assert 0 < claude["latency_ms"] < 5000


def test_text_output_names_the_fix():
    """Without --json, each problem is followed by the line saying what to do."""
    settings = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text("{not json")
    proc = subprocess.run(
        [LESSONS, "doctor"], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 1
    assert "FAIL" in proc.stdout
    assert f"→ fix {settings}" in proc.stdout
    assert "problem(s) found" in proc.stdout


def test_partial_registration_fails():
    """Hooks registered for some events only: a failure, with the reinstall advice."""
    install.install(os.environ)
    path = install.settings_path(os.environ)
    settings = json.loads(path.read_text())
    del settings["hooks"]["SessionStart"]
    path.write_text(json.dumps(settings))
    code, report = doctor()
    assert code == 1
    claude = finding(report, "hooks:claude")
    assert claude["status"] == "fail"
    assert "SessionStart" in claude["detail"]
    assert "lessons install claude" in claude["fix"]


def test_broken_registered_command_fails():
    """A registered command that no longer runs (moved venv) is a failure."""
    install.install(os.environ)
    path = install.settings_path(os.environ)
    text = path.read_text()
    settings = json.loads(text)
    for groups in settings["hooks"].values():
        for group in groups:
            group["hooks"][0]["command"] = "/nonexistent/venv/bin/lessons-claude-hook"
    path.write_text(json.dumps(settings))
    code, report = doctor()
    assert code == 1
    claude = finding(report, "hooks:claude")
    assert claude["status"] == "fail"
    assert "fails" in claude["detail"]


def test_bad_config_fails():
    """An unparsable config.json is a failure naming the file."""
    home = Path(os.environ["LESSONS_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.json").write_text("{")
    code, report = doctor()
    assert code == 1
    config = finding(report, "config")
    assert config["status"] == "fail"
    assert "config.json" in config["fix"]


def _lesson() -> Lesson:
    return Lesson(
        id="01JDOCTOR0000000000000000",
        slug="doctor-check",
        summary="pytest hangs without a TTY",
        mistake="bare pytest stalls",
        remediation="use python -m pytest -p no:cacheprovider",
    )


def test_missing_and_stale_manifest_fail():
    """Lessons but no manifest, or one from an older revision: fail, fix with `lessons build`."""
    with open_store(os.environ) as store:
        store.add_lessons([_lesson()])
        revision = store.revision()
    manifest = Path(os.environ["LESSONS_HOME"]) / "lesson-manifest.json"
    manifest.unlink(missing_ok=True)
    code, report = doctor()
    assert code == 1
    found = finding(report, "manifest")
    assert (found["status"], found["fix"]) == ("fail", "run `lessons build`")

    manifest.write_text(
        json.dumps(
            {"type": "lessons-manifest", "version": 1, "storeRevision": revision - 1, "lessons": {}}
        )
    )
    code, report = doctor()
    assert code == 1
    found = finding(report, "manifest")
    assert found["status"] == "fail"
    assert "stale" in found["detail"]

    manifest.write_text(
        json.dumps(
            {
                "type": "lessons-manifest",
                "version": 1,
                "storeRevision": revision,
                "lessons": {"x": {}},
                "byTool": {"Bash": ["x"]},
                "anyTool": [],
                "session": [],
            }
        )
    )
    code, report = doctor()
    found = finding(report, "manifest")
    assert found["status"] == "ok"
    assert found["lessons"] == 1


def test_unsafe_state_dir_fails():
    """A state dir writable by others is refused by the hooks; doctor says so and what to do."""
    state = Path(os.environ["LESSONS_STATE_DIR"])
    state.mkdir(parents=True, exist_ok=True)
    state.chmod(0o777)
    code, report = doctor()
    assert code == 1
    found = finding(report, "state")
    assert found["status"] == "fail"
    assert "writable" in found["detail"]
    assert str(state) in found["fix"]
    state.chmod(0o700)
    code, report = doctor()
    assert finding(report, "state")["status"] == "ok"


def test_plugin_and_settings_hooks_together_warn():
    """Both the plugin and the settings hooks: a warning naming the double run."""
    install.install(os.environ)
    path = install.settings_path(os.environ)
    settings = json.loads(path.read_text())
    settings["enabledPlugins"] = {"lessons@lessons": True}
    path.write_text(json.dumps(settings))
    code, report = doctor()
    assert code == 0
    claude = finding(report, "hooks:claude")
    assert claude["status"] == "warn"
    assert "runs twice" in claude["detail"]
