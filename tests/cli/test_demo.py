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
