"""``LESSONS_HOME`` is the user's: a home, or a file in it, that someone else owns or may write
is not used.

Each case plants what another user could leave in a shared or foreign home (a store holding a
guard, a configuration, a plugin cache naming a module of theirs, a manifest) and runs the real
``lessons`` and ``lessons-codex-hook`` processes: the commands refuse with a message that says
what to do, the hook delivers nothing and logs why, and no planted module is imported. Files of
"another user" are made with ``os.chown`` (these tests run with the right to do so). See
docs/security.md, "The lessons home".
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

import hook_support
from privileges import bound_by_permissions

LESSONS = str(hook_support.BIN / "lessons")
HOOK = str(hook_support.BIN / "lessons-codex-hook")
#: ``nobody`` on most systems: a user these files must not be trusted from.
OTHER_UID = 65534

GUARD = {
    "summary": "Planted guard",
    "mistake": "PLANTED-GUARD: every command is refused",
    "remediation": "Nothing.",
    "type": "guard",
    "priority": 10,
    "triggers": {"toolNames": ["Bash"], "commandPatterns": ["\\bls\\b"]},
}

needs_chown = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="making a file of another user needs the right to chown",
)


def run_lessons(
    home: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "LESSONS_HOME": str(home), **(env or {})}
    return subprocess.run(
        [LESSONS, *args],
        capture_output=True,
        text=True,
        env=environ,
        timeout=60,
        check=False,
    )


def pre_tool(command: str) -> dict[str, Any]:
    return {
        "session_id": "home-session",
        "cwd": "/home/dev/project",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "call_1",
    }


@pytest.fixture(scope="module", name="built_home")
def fixture_built_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home whose store and manifest hold one guard on ``ls``, built by ``lessons add``."""
    return hook_support.build_lessons_home(tmp_path_factory.mktemp("planted"), [GUARD])


@pytest.fixture(name="planted")
def fixture_planted(built_home: Path, tmp_path: Path) -> Path:
    home = tmp_path / "lessons-home"
    shutil.copytree(built_home, home)
    home.chmod(0o700)
    return home


# -- the commands ---------------------------------------------------------------------------------


def test_a_home_writable_by_others_is_refused(planted: Path) -> None:
    """A world-writable home: its store is not read, and the message says ``chmod go-w``."""
    planted.chmod(0o777)
    proc = run_lessons(planted, "list")
    assert proc.returncode != 0
    assert "Planted guard" not in proc.stdout
    assert "writable by" in proc.stderr
    assert f"chmod go-w {planted}" in proc.stderr
    assert "Traceback" not in proc.stderr
    planted.chmod(0o700)
    assert "Planted guard" in run_lessons(planted, "list").stdout  # the user's own: used


@pytest.mark.parametrize("name", ["lessons.db", "config.json", "lesson-manifest.json"])
def test_a_file_others_may_write_in_an_open_home_is_refused(planted: Path, name: str) -> None:
    """A home others may enter (0755) holding a file others may write: refused, named."""
    planted.chmod(0o755)
    target = planted / name
    if not target.exists():
        target.write_text("{}\n")
    target.chmod(0o666)
    proc = run_lessons(planted, "list")
    assert proc.returncode != 0
    assert f"chmod go-w {target}" in proc.stderr


def test_a_file_group_writable_in_a_private_home_is_used(planted: Path) -> None:
    """In a 0700 home nobody else can reach a file to write it, whatever its mode (a umask of
    002 makes files group-writable): the user's own files are used."""
    (planted / "config.json").write_text("{}\n")
    (planted / "config.json").chmod(0o664)
    proc = run_lessons(planted, "list")
    assert proc.returncode == 0, proc.stderr
    assert "Planted guard" in proc.stdout


@needs_chown
@pytest.mark.parametrize("name", ["lessons.db", "config.json", "plugin-entry-points.json"])
def test_a_steering_file_of_another_user_is_refused(planted: Path, name: str) -> None:
    """The store, the configuration or the plugin cache owned by someone else: refused, and
    the message names the file and ``chown``."""
    run_lessons(planted, "list")  # leaves the plugin cache
    target = planted / name
    if not target.exists():
        target.write_text("{}\n")
    os.chown(target, OTHER_UID, OTHER_UID)
    proc = run_lessons(planted, "list")
    assert proc.returncode != 0, proc.stdout
    assert "Planted guard" not in proc.stdout
    assert str(target) in proc.stderr
    assert "chown" in proc.stderr
    assert "another user" in proc.stderr


@needs_chown
def test_a_home_of_another_user_is_refused_to_a_process_bound_by_permissions() -> None:
    """A process that file modes bind (root without its overrides, see ``tests/privileges.py``),
    over a home another user owns and lets everyone read: the planted guard is not listed, and
    the message names the owner."""
    base = Path(tempfile.mkdtemp(prefix="lessons-foreign-"))
    try:
        home = hook_support.build_lessons_home(base / "home", [GUARD])
        for path in [base, *base.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        for path in [home, *home.rglob("*")]:
            os.chown(path, OTHER_UID, OTHER_UID)
        proc = subprocess.run(
            [*bound_by_permissions(), LESSONS, "list"],
            capture_output=True,
            text=True,
            env={**os.environ, "LESSONS_HOME": str(home), "HOME": str(base)},
            timeout=60,
            check=False,
        )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert proc.returncode == 1
    assert "Planted guard" not in proc.stdout
    assert f"LESSONS_HOME {home} belongs to another user (uid {OTHER_UID}" in proc.stderr
    assert "set LESSONS_HOME to a directory of your own" in proc.stderr


def test_doctor_names_the_untrusted_home(planted: Path) -> None:
    """``doctor`` reports the home itself, with the fix, instead of suggesting a build."""
    planted.chmod(0o777)
    proc = run_lessons(planted, "doctor", "--json")
    report = json.loads(proc.stdout)
    assert not report["ok"]
    first = report["findings"][0]
    assert first["check"] == "home"
    assert first["status"] == "fail"
    assert f"chmod go-w {planted}" in first["fix"]


# -- the plugin cache -----------------------------------------------------------------------------


def test_a_planted_plugin_cache_does_not_import_its_module(planted: Path, tmp_path: Path) -> None:
    """A cache, up to date and of the user's own mode, that lists a module no installed entry
    point names: the module is never imported (the cache is read again from the metadata)."""
    site = tmp_path / "site"
    site.mkdir()
    marker = tmp_path / "imported"
    (site / "planted_module.py").write_text(
        f"open({str(marker)!r}, 'w').write('imported')\n"
        "def lessons_register_detectors(register):\n    pass\n"
    )
    env = {"PYTHONPATH": os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p)}
    assert run_lessons(planted, "list", env=env).returncode == 0  # writes a fresh cache
    cache = planted / "plugin-entry-points.json"
    document = json.loads(cache.read_text())
    real = document["entryPoints"][0]
    # Shaped like the real entries (whatever their fields), naming the planted module.
    document["entryPoints"].append(["planted", "planted_module", "", "planted-dist", *real[4:]])
    cache.write_text(json.dumps(document))
    cache.chmod(0o600)
    proc = run_lessons(planted, "list", env=env)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists(), "the planted module was imported"
    assert "planted_module" not in cache.read_text()  # the cache was written afresh


# -- the hook -------------------------------------------------------------------------------------


def run_hook(home: Path, tmp_path: Path) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The hook's answer to ``ls -la`` (or None) and the lines it logged."""
    log = tmp_path / "hook.log"
    proc = subprocess.run(
        [HOOK],
        input=json.dumps(pre_tool("ls -la")),
        capture_output=True,
        text=True,
        env={
            **hook_support.hook_env(home, tmp_path / "state"),
            "LESSONS_HOOK_LOG": str(log),
        },
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0
    out = proc.stdout.strip()
    lines = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return (json.loads(out) if out else None), lines


def test_the_hook_answers_from_the_users_own_home(planted: Path, tmp_path: Path) -> None:
    """The baseline: the same home, private, denies ``ls`` with the guard."""
    answer, _ = run_hook(planted, tmp_path)
    assert answer is not None
    assert "PLANTED-GUARD" in json.dumps(answer)


def test_the_hook_delivers_nothing_from_a_home_writable_by_others(
    planted: Path, tmp_path: Path
) -> None:
    """A world-writable home: no deny, no context; the log says why."""
    planted.chmod(0o777)
    answer, lines = run_hook(planted, tmp_path)
    assert answer is None
    assert lines
    assert "writable by" in lines[-1]["error"]


@needs_chown
def test_the_hook_delivers_nothing_from_a_home_of_another_user(
    planted: Path, tmp_path: Path
) -> None:
    """A home owned by someone else, however private: nothing delivered, the owner logged."""
    os.chown(planted, OTHER_UID, OTHER_UID)
    answer, lines = run_hook(planted, tmp_path)
    assert answer is None
    assert f"uid {OTHER_UID}" in lines[-1]["error"]


def test_the_hook_check_is_in_the_standard_library_only() -> None:
    """The hook's home check imports nothing beyond what the hook already loads."""
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "from lessons_core.hot import homecheck\n"
        "print(sorted(set(sys.modules) - before - {'lessons_core', 'lessons_core.hot'}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "['lessons_core.hot.homecheck']"
