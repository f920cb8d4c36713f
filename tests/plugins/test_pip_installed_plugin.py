"""A plugin distribution built and pip-installed into a throwaway virtualenv, then uninstalled.

The throwaway environment sees the test interpreter's packages (lessons-core, the adapters,
hatchling) through a ``.pth`` file, so the build needs no network: ``pip install
--no-index --no-build-isolation``. What runs is exactly what a user gets from ``pip install``:
a wheel, its ``entry_points.txt`` in group ``lessons``, and discovery by ``importlib.metadata``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

PYPROJECT = """
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "lessons-hello"
version = "0.3.0"

[project.entry-points.lessons]
hello = "lessons_hello"

[tool.hatch.build.targets.wheel]
packages = ["lessons_hello"]
"""

PLUGIN = """
from lessons_core.plugin import hookimpl
from lessons_core.plugins.specs import MatcherSpec


@hookimpl
def lessons_register_matchers(register):
    register(MatcherSpec(name="hello-matcher", target="lessons_hello:match"))
"""


def _run(*cmd: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(c) for c in cmd],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        env=env,
    )


def test_pip_install_and_uninstall_a_plugin(tmp_path: Path, home: Path) -> None:
    """After pip install the plugin is listed with its version; after uninstall it is gone."""
    pytest.importorskip("hatchling")
    pytest.importorskip("pip")
    project = tmp_path / "lessons-hello"
    (project / "lessons_hello").mkdir(parents=True)
    (project / "pyproject.toml").write_text(textwrap.dedent(PYPROJECT))
    (project / "lessons_hello" / "__init__.py").write_text(textwrap.dedent(PLUGIN))

    venv = tmp_path / "venv"
    made = _run(sys.executable, "-m", "venv", "--without-pip", venv)
    assert made.returncode == 0, made.stderr
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    inner = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    outer = sysconfig.get_paths()["purelib"]
    (Path(inner.stdout.strip()) / "_outer_env.pth").write_text(
        f"import site; site.addsitedir({outer!r})\n"
    )
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    installed = _run(
        *pip, "install", "-q", "--no-index", "--no-build-isolation", "--no-deps", project
    )
    assert installed.returncode == 0, installed.stderr

    env = {**os.environ, "LESSONS_HOME": str(home)}
    listing = _run(
        python, "-c", "from lessons_core.cli.main import main; main()", "plugins", "--json", env=env
    )
    assert listing.returncode == 0, listing.stderr
    rows = {row["name"]: row for row in map(json.loads, listing.stdout.splitlines())}
    assert rows["hello"]["distribution"] == "lessons-hello"
    assert rows["hello"]["version"] == "0.3.0"
    assert rows["hello"]["registers"] == {"matchers": ["hello-matcher"]}
    assert {"claude", "codex", "gemini"} <= set(rows)

    removed = _run(*pip, "uninstall", "-y", "-q", "lessons-hello")
    assert removed.returncode == 0, removed.stderr
    after = _run(
        python, "-c", "from lessons_core.cli.main import main; main()", "plugins", "--json", env=env
    )
    assert after.returncode == 0, after.stderr
    assert "hello" not in {json.loads(line)["name"] for line in after.stdout.splitlines()}
