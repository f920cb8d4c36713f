"""The ``lessons`` group itself: its help names the agents, and a mistyped command is helped."""

from __future__ import annotations

import subprocess
import sys

import pytest

from lessons_core.cli.main import COMMANDS


def _lessons(*args: str) -> subprocess.CompletedProcess[str]:
    """The real console entry point in a fresh interpreter, as a user types it."""
    return subprocess.run(
        [sys.executable, "-m", "lessons_core", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("imprt", "'import'"),
        ("instal", "'install'"),
        ("cand", "'candidates'"),
        ("doctr", "'doctor'"),
        ("expot", "'export', 'report' or 'repo'"),
    ],
)
def test_a_mistyped_command_is_told_what_it_may_have_meant(typed: str, meant: str) -> None:
    proc = _lessons(typed)
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[-1] == (
        f"Error: No such command '{typed}'. Did you mean {meant}?"
    ), proc.stderr
    assert proc.stdout == ""


def test_a_name_like_no_command_gets_no_guess() -> None:
    proc = _lessons("zzzqqq")
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[-1] == "Error: No such command 'zzzqqq'.", proc.stderr


def test_every_suggestion_is_a_command() -> None:
    """What is suggested is taken by the group: no guess names a command that does not exist."""
    from lessons_core.cli.main import _meant

    names = list(COMMANDS)
    for typed in ("i", "re", "sca", "promot", "unistall", "expor"):
        meant = _meant(typed, names)
        assert meant, typed
        assert set(meant) <= set(names)


def test_help_names_every_supported_agent() -> None:
    proc = _lessons("--help")
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    for agent in ("Claude Code", "Codex CLI", "Gemini CLI", "OpenCode"):
        assert agent in text, text
