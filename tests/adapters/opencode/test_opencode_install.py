"""The OpenCode installer against scratch homes: the plugin file, idempotence, exact removal."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lessons_core.errors import LessonsError
from lessons_opencode import install

LESSONS = str(Path(sys.executable).parent / "lessons")


def plugin_file() -> Path:
    return Path(os.environ["HOME"]) / ".config" / "opencode" / "plugin" / "lessons.js"


@pytest.fixture(autouse=True)
def _no_xdg(monkeypatch):
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)


def test_install_writes_the_plugin_with_the_hook_command():
    result = install.install(os.environ)
    path = plugin_file()
    assert result.written and result.path == path
    text = path.read_text()
    assert text.startswith(install.MARKER)
    command = install.registered_command(text)
    assert command is not None and "lessons_opencode" in command
    assert "LESSONS_HOME=" in command  # pinned, as for every agent
    assert install.PLACEHOLDER not in text
    assert result.diff.startswith("--- /dev/null")


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
    removed = install.uninstall(os.environ)
    assert not removed.changed
    assert path.read_text().startswith("export const Mine")
    state = install.status(os.environ)
    assert state.foreign and not state.installed and state.notes()


def test_uninstall_removes_the_file_and_the_folder_it_made():
    install.install(os.environ)
    result = install.uninstall(os.environ)
    assert result.written and result.removed_file
    assert not plugin_file().exists() and not plugin_file().parent.exists()
    assert not install.uninstall(os.environ).changed


def test_uninstall_keeps_a_plugin_folder_holding_other_plugins():
    install.install(os.environ)
    other = plugin_file().parent / "theirs.js"
    other.write_text("export const Theirs = async () => ({})\n")
    install.uninstall(os.environ)
    assert other.exists() and not plugin_file().exists()


def test_status_reports_the_registered_command():
    assert not install.status(os.environ).installed
    install.install(os.environ)
    state = install.status(os.environ)
    assert state.installed and state.current
    assert state.registered == install.EVENTS and state.missing == ()
    plugin_file().write_text(install.MARKER + " damaged\n")
    damaged = install.status(os.environ)
    assert damaged.error is not None and not damaged.installed


def test_project_scope_and_xdg(tmp_path, monkeypatch):
    project = tmp_path / "shop"
    project.mkdir()
    result = install.install(os.environ, project=project)
    assert result.path == project.resolve() / ".opencode" / "plugin" / "lessons.js"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    expected = tmp_path / "xdg" / "opencode" / "plugin" / "lessons.js"
    assert install.plugin_path(os.environ) == expected


def test_the_command_survives_quotes_in_paths():
    """The command is embedded as a JSON string: quotes and backslashes round-trip."""
    text = install.render('/opt/my "odd" dir/python -I -S C:\\hook.py')
    assert install.registered_command(text) == '/opt/my "odd" dir/python -I -S C:\\hook.py'


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_written_plugin_is_valid_javascript():
    install.install(os.environ)
    proc = subprocess.run(
        ["node", "--check", str(plugin_file())], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_plugin_fails_open_and_throws_only_for_a_deny(tmp_path):
    """The plugin's hooks run in Node with stand-in commands: a crash, garbage and a timeout-free
    deny. Only the deny reaches OpenCode (as a thrown error)."""
    cases = {
        "crash": "exit 1",
        "garbage": "echo 'not json'",
        "deny": 'echo \'{"deny": "STOP-MARKER"}\'',
        "context": 'echo \'{"context": "CTX-MARKER"}\'',
    }
    script = tmp_path / "drive.mjs"
    files = {}
    for name, command in cases.items():
        path = tmp_path / f"{name}.mjs"
        path.write_text(install.render(command))
        files[name] = str(path)
    script.write_text(
        """
const files = JSON.parse(process.argv[2]);
const out = {};
for (const [name, file] of Object.entries(files)) {
  const { LessonsPlugin } = await import(file);
  const hooks = await LessonsPlugin({ directory: "/tmp" });
  const input = { tool: "bash", sessionID: "s", callID: "c" };
  const args = { args: { command: "ls" } };
  let thrown = null;
  try { await hooks["tool.execute.before"](input, args); } catch (e) { thrown = e.message; }
  const result = { title: "", output: "listing", metadata: { exit: 0 } };
  await hooks["tool.execute.after"]({ ...input, args: args.args }, result);
  const system = { system: ["base"] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "s" }, system);
  out[name] = { thrown, output: result.output, system: system.system };
}
console.log(JSON.stringify(out));
"""
    )
    proc = subprocess.run(
        ["node", str(script), json.dumps(files)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    for name in ("crash", "garbage"):
        assert got[name] == {"thrown": None, "output": "listing", "system": ["base"]}
    assert got["deny"]["thrown"] == "STOP-MARKER"
    context = got["context"]
    assert context["thrown"] is None
    assert context["output"] == "listing\n\nCTX-MARKER\n\nCTX-MARKER"  # before's hint, after's
    assert context["system"] == ["base", "CTX-MARKER"]


def test_lessons_install_and_uninstall_opencode_from_the_cli():
    env = dict(os.environ)
    done = subprocess.run(
        [LESSONS, "install", "opencode", "--no-scan"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert plugin_file().is_file()
    doctor = subprocess.run(
        [LESSONS, "doctor", "--json"], capture_output=True, text=True, env=env, timeout=120
    )
    report = json.loads(doctor.stdout)
    mine = [f for f in _findings(report) if f.get("check") == "hooks:opencode"]
    assert mine and mine[0]["status"] == "ok", doctor.stdout
    gone = subprocess.run(
        [LESSONS, "uninstall", "opencode"], capture_output=True, text=True, env=env, timeout=120
    )
    assert gone.returncode == 0, gone.stderr
    assert not plugin_file().exists()


def _findings(report: object) -> list[dict]:
    """Every finding object in ``lessons doctor --json`` output, wherever it is nested."""
    if isinstance(report, dict):
        found = [report] if "check" in report else []
        for value in report.values():
            found.extend(_findings(value))
        return found
    if isinstance(report, list):
        return [f for item in report for f in _findings(item)]
    return []
