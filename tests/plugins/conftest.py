"""Fixtures for the plugin tests: private homes and fake installed plugin distributions.

``fake_dist`` writes a plugin module plus a ``*.dist-info`` folder (METADATA and
``entry_points.txt``) into a directory; with that directory on ``PYTHONPATH``,
``importlib.metadata`` finds it exactly as it finds a pip-installed distribution, so the whole
entry-point path (discovery, loading, distribution info) runs for real in a child process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture(name="home")
def fixture_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "lessons-home"
    monkeypatch.setenv("LESSONS_HOME", str(home))
    monkeypatch.setenv("LESSONS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path))
    for var in ("LESSONS_PLUGINS", "LESSONS_DISABLED_PLUGINS", "LESSONS_DISABLE_PLUGIN_AUTOLOAD"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture(name="site_dir")
def fixture_site_dir(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    return site


def write_dist(site: Path, dist: str, version: str, entry: str, module: str, source: str) -> None:
    """Install (by hand) a distribution ``dist`` whose entry point ``entry`` is ``module``."""
    (site / f"{module}.py").write_text(textwrap.dedent(source))
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[lessons]\n{entry} = {module}\n")


@pytest.fixture(name="fake_dist")
def fixture_fake_dist(site_dir: Path) -> Callable[..., None]:
    def make(dist: str, entry: str, source: str, version: str = "1.2.3") -> None:
        write_dist(site_dir, dist, version, entry, entry.replace("-", "_") + "_plugin", source)

    return make


@pytest.fixture(name="run_lessons")
def fixture_run_lessons(
    site_dir: Path, home: Path
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run the real ``lessons`` CLI in a child process that sees the fake distributions."""

    def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
        child_env = dict(os.environ)
        child_env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(site_dir), child_env.get("PYTHONPATH", "")) if p
        )
        child_env.update(env)
        return subprocess.run(
            [sys.executable, "-c", "from lessons_core.cli.main import main; main()", *args],
            capture_output=True,
            text=True,
            env=child_env,
            timeout=60,
            check=False,
        )

    return run
