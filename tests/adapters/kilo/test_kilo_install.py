"""The Kilo CLI installer against scratch homes: the plugin file, idempotence, exact removal,
and a registered command that runs without ``site``."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from lessons_core.errors import LessonsError
from lessons_kilo import install
from lessons_opencode import install as opencode_install

LESSONS = str(Path(sys.executable).parent / "lessons")


def plugin_file() -> Path:
    return Path(os.environ["HOME"]) / ".config" / "kilo" / "plugin" / "lessons.js"


@pytest.fixture(autouse=True)
def _no_xdg(monkeypatch):
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)


def test_install_writes_kilos_plugin_file_with_its_hook():
    result = install.install(os.environ)
    assert result.written and result.path == plugin_file()
    text = plugin_file().read_text()
    assert text.startswith("// lessons for Kilo CLI:") and text.startswith(install.MARKER)
    assert "`lessons uninstall kilo`" in text and "__LESSONS_" not in text
    command = install.FILE.hook_command(os.environ, "file")
    assert 'const COMMAND = "' in text and "lessons_kilo" in command
    assert "LESSONS_HOME=" in command  # pinned, as for every agent
    assert result.diff.startswith("--- /dev/null")
    assert not opencode_install.plugin_path(os.environ).exists()  # OpenCode's folder untouched


def test_the_file_command_runs_the_hook_without_site(tmp_path):
    """``-I -S``: the command names the folders of lessons_kilo, lessons_core and
    lessons_opencode, and with them answers a session start from a bare interpreter."""
    install.install(os.environ)
    command = opencode_install.registered_command(plugin_file().read_text())
    assert command is not None
    words = shlex.split(command)
    assert "-S" in words
    opencode_dir = str(Path(opencode_install.__file__).resolve().parents[1])
    assert opencode_dir in words
    payload = {"hook_event_name": "session.start", "session_id": "s", "cwd": str(tmp_path)}
    log = tmp_path / "hook.log"
    proc = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env={**os.environ, "LESSONS_HOOK_LOG": str(log)},
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and proc.stderr == ""
    assert json.loads(log.read_text().splitlines()[-1])["agent"] == "kilo"


def test_install_twice_writes_nothing_the_second_time():
    install.install(os.environ)
    before = plugin_file().stat().st_mtime_ns
    again = install.install(os.environ)
    assert not again.changed and not again.written and again.diff == ""
    assert plugin_file().stat().st_mtime_ns == before


def test_dry_run_writes_nothing():
    result = install.install(os.environ, dry_run=True)
    assert result.changed and not result.written
    assert not plugin_file().exists()


def test_a_foreign_file_is_neither_overwritten_nor_removed():
    path = plugin_file()
    path.parent.mkdir(parents=True)
    path.write_text("export const Mine = async () => ({})\n")
    with pytest.raises(LessonsError, match="not written by lessons"):
        install.install(os.environ)
    assert not install.uninstall(os.environ).changed
    assert path.read_text().startswith("export const Mine")
    assert install.status(os.environ).foreign


def test_an_opencode_plugin_file_is_not_taken_for_ours():
    """OpenCode's file of ours, copied into Kilo's folder, is a foreign file to Kilo's adapter."""
    path = plugin_file()
    path.parent.mkdir(parents=True)
    path.write_text(opencode_install.render("true"))
    with pytest.raises(LessonsError, match="not written by lessons"):
        install.install(os.environ)


def test_uninstall_leaves_the_folder_byte_for_byte_as_it_was():
    folder = plugin_file().parent
    folder.mkdir(parents=True)
    (folder / "theirs.js").write_bytes(b"export const Theirs = async () => ({})\n")
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    install.install(os.environ)
    assert not install.uninstall(os.environ, dry_run=True).written and plugin_file().exists()
    result = install.uninstall(os.environ)
    assert result.written and result.removed_file
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    install.install(os.environ)
    install.uninstall(os.environ)
    folder.joinpath("theirs.js").unlink()
    folder.rmdir()
    install.install(os.environ)
    install.uninstall(os.environ)
    assert not folder.exists()  # the folder it made goes with it


def test_status_reports_the_registered_command():
    assert not install.status(os.environ).installed
    install.install(os.environ)
    state = install.status(os.environ)
    assert state.installed and state.current and state.agent == "kilo"
    assert state.registered == install.EVENTS


def test_project_scope_and_xdg(tmp_path, monkeypatch):
    project = tmp_path / "shop"
    project.mkdir()
    result = install.install(os.environ, project=project)
    assert result.path == project.resolve() / ".kilo" / "plugin" / "lessons.js"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert install.plugin_path(os.environ) == tmp_path / "xdg" / "kilo" / "plugin" / "lessons.js"


def test_lessons_install_and_uninstall_kilo_from_the_cli():
    env = dict(os.environ)
    done = subprocess.run(
        [LESSONS, "install", "kilo", "--no-scan"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert plugin_file().is_file()
    gone = subprocess.run(
        [LESSONS, "uninstall", "kilo"], capture_output=True, text=True, env=env, timeout=120
    )
    assert gone.returncode == 0, gone.stderr
    assert not plugin_file().exists()
