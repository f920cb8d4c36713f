"""``lessons demo`` is the README's first command: it must run the real pipeline and pass."""

from __future__ import annotations

import subprocess
import sys


def test_demo_runs_the_pipeline_and_checks_itself(tmp_path):
    """The demo adds, scans, compiles and replays hook calls, failing if delivery misbehaves."""
    home = tmp_path / "demo-home"
    done = subprocess.run(
        [sys.executable, "-m", "lessons_core", "demo", "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Every step behaved as expected." in done.stdout
    assert "DENIED" in done.stdout
    # The scan found the #lesson block in the sample transcript and made it a lesson.
    assert "running-pytest-before-the-project-was-installed" in done.stdout
    assert (home / "data" / "lessons.db").exists()
    assert (home / "data" / "lesson-manifest.json").exists()


def _run_demo(home):
    done = subprocess.run(
        [sys.executable, "-m", "lessons_core", "demo", "--home", str(home)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_demo_fits_100_columns_and_cuts_no_word(tmp_path):
    """Every line fits 100 columns; long text wraps between words, so every lesson's summary
    reads whole, and a shortened text ends with a whole word and " …"."""
    import json
    import os

    home = tmp_path / "demo-home"
    out = _run_demo(home)
    lines = out.splitlines()
    assert all(len(line) <= 100 for line in lines), max(lines, key=len)
    flowing = " ".join(out.split())
    listed = subprocess.run(
        [sys.executable, "-m", "lessons_core", "list", "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "LESSONS_HOME": str(home / "data")},
        check=True,
    ).stdout.splitlines()
    assert listed
    for line in listed:
        summary = " ".join(json.loads(line)["summary"].split())
        assert summary in flowing
    for line in lines:
        if line.endswith("…"):
            assert line.endswith(" …"), line


def test_demo_explains_its_words_and_ends_with_the_next_step(tmp_path):
    out = _run_demo(tmp_path / "demo-home")
    for word in ("store", "WAL", "manifest", "candidate", "intake", "hook", "budget"):
        assert f"({word}: " in out, word
    tail = [line for line in out.splitlines() if line.strip()][-3:]
    assert any("lessons install claude" in line for line in tail)


def test_readme_first_command_runs_the_demo():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("```sh", 1)[1].split("```", 1)[0]
    first = next(line for line in block.splitlines() if line.strip() and not line.startswith("#"))
    assert first.rstrip().endswith("lessons demo")
