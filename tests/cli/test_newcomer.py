"""A newcomer's path through the README, as real processes from a fresh ``LESSONS_HOME``.

Installed (the README's ``pip install``: the console scripts beside this interpreter), then
``lessons install claude`` into a scratch home, ``lessons import`` of the Node original's
catalogue exactly as the README writes it, ``lessons add`` of the canonical force-push guard,
and ``lessons explain`` of a call each should answer; and the README's install lines, run by a
shell whose PATH holds only the system folders, with the PATH line they give.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

LESSONS = str(Path(sys.executable).parent / "lessons")
SEED = (
    Path(__file__).resolve().parents[2]
    / ".."
    / "shared"
    / "corpus"
    / "seed-lessons"
    / "lesson-manifest.json"
)
FORCE_PUSH = {
    "summary": "Never force-push over a teammate's commits",
    "mistake": "ran git push --force and overwrote commits pushed by someone else",
    "remediation": "use git push --force-with-lease, which refuses when the remote moved",
    "type": "guard",
    "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"\bgit\s+push\b.*--force\b"]},
}


@pytest.fixture(name="env")
def fixture_env(tmp_path: Path) -> dict[str, str]:
    if not SEED.is_file():
        pytest.skip("the shared seed catalogue is not beside this checkout")
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LESSONS_")}
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"):
        env.pop(var, None)
    env.update(
        HOME=str(home),
        LESSONS_HOME=str(tmp_path / "lessons-home"),
        LESSONS_STATE_DIR=str(tmp_path / "state"),
        LESSONS_AUTO_SCAN="0",
    )
    return env


def lessons(
    env: dict[str, str], *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LESSONS, *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=env["HOME"],
    )


def installed_and_imported(env: dict[str, str]) -> None:
    """The README's first steps: install the Claude hooks, import the catalogue."""
    install = lessons(env, "install", "claude", "--no-scan")
    assert install.returncode == 0, install.stderr
    settings = json.loads((Path(env["HOME"]) / ".claude" / "settings.json").read_text())
    assert "lessons_claude" in json.dumps(settings["hooks"]["PreToolUse"])
    imported = lessons(env, "import", str(SEED))
    assert imported.returncode == 0, imported.stderr
    assert "(Node lesson-manifest.json):" in imported.stdout
    assert sum(line.startswith("  note:") for line in imported.stdout.splitlines()) <= 3


def test_install_import_explain(env: dict[str, str]) -> None:
    """An imported guard answers the call it was written for."""
    installed_and_imported(env)
    explained = lessons(
        env, "explain", "--agent", "claude", "--tool", "Bash", "--command", "gh pr merge 12 --auto"
    )
    assert explained.returncode == 0, explained.stderr
    assert "Outcome:" in explained.stdout
    assert "Note:" not in explained.stdout
    listed = [json.loads(line) for line in lessons(env, "list", "--json").stdout.splitlines()]
    assert len(listed) > 100


def test_add_the_force_push_guard_and_explain(env: dict[str, str]) -> None:
    """The guard everyone writes first is accepted, and denies the call it names."""
    installed_and_imported(env)
    added = lessons(env, "add", "-", "--json", stdin=json.dumps(FORCE_PUSH))
    assert added.returncode == 0, added.stderr
    explained = lessons(
        env,
        "explain",
        "--agent",
        "claude",
        "--tool",
        "Bash",
        "--command",
        "git push --force origin main",
        "--json",
    )
    assert explained.returncode == 0, explained.stderr
    assert json.loads(explained.stdout)["effect"] == "deny"


README = Path(__file__).resolve().parents[2] / "README.md"


def readme_install_block() -> list[str]:
    """The README's install commands: the first shell block of its Install section, with the
    continuation lines joined and the comments cut."""
    section = README.read_text(encoding="utf-8").split("\n## Install\n", 1)[1]
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    joined = block.replace("\\\n", " ")
    return [line.split("  #", 1)[0].strip() for line in joined.splitlines() if line.strip()]


def test_the_readme_install_puts_lessons_on_path(env: dict[str, str]) -> None:
    """From a fresh shell, the README's install lines after `pip install` run as written: the
    PATH line it gives finds `lessons` in the folder `pip` installed into (here: this
    interpreter's), then the newcomer's path goes on with bare `lessons` commands."""
    lines = readme_install_block()
    pip = next(i for i, line in enumerate(lines) if " install " in line and "/bin/pip" in line)
    venv_bin = lines[pip].split()[0].rsplit("/", 1)[0]  # ~/.lessons-venv/bin
    after = lines[pip + 1 :]
    assert after[0].startswith("export PATH="), after
    assert venv_bin.replace("~", "$HOME") in after[0]
    here = str(Path(sys.executable).parent)
    script = "\n".join(
        ["set -e", *(line.replace(venv_bin.replace("~", "$HOME"), here) for line in after)]
    )
    shell = subprocess.run(
        ["/bin/sh", "-c", script],
        env={**env, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        cwd=env["HOME"],
    )
    assert shell.returncode == 0, (script, shell.stdout, shell.stderr)
    assert "hooks installed" in shell.stdout
    assert "starter lessons added" in shell.stdout
    assert "not on PATH" not in shell.stdout
    # ... and on: the Node catalogue, the force-push guard, the explanation.
    imported = lessons(env, "import", str(SEED))
    assert imported.returncode == 0, imported.stderr
    added = lessons(env, "add", "-", "--json", stdin=json.dumps(FORCE_PUSH))
    assert added.returncode == 0, added.stderr
    explained = lessons(
        env, "explain", "--agent", "claude", "--tool", "Bash", "--command", "git push --force",
        "--json",
    )  # fmt: skip
    assert explained.returncode == 0, explained.stderr
    assert json.loads(explained.stdout)["effect"] == "deny"


def test_help_leaves_nothing_behind(tmp_path: Path) -> None:
    """Reading the help on a new machine writes no home (the plugin cache waits for one)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LESSONS_")}
    env.update(HOME=str(tmp_path), LESSONS_HOME=str(tmp_path / "lessons-home"))
    for args in (["--help"], ["plugins"], ["add", "--help"]):
        shown = lessons(env, *args)
        assert shown.returncode == 0, shown.stderr
    assert "Usage:" in shown.stdout
    assert not (tmp_path / "lessons-home").exists()
    added = lessons(env, "add", "--starter")
    assert added.returncode == 0, added.stderr
    assert (tmp_path / "lessons-home" / "lessons.db").is_file()
