"""The hook's state directory and the files it opens, attacked through real hook processes.

Every case plants something under a name the hook uses (a symbolic link, a FIFO, a file of
another user, a device) and runs the real ``lessons-codex-hook`` on a payload, then checks that
nothing outside was written, deleted or read without bound, and that the hook returned at once.
See docs/security.md, "The state directory and the files the hook opens".
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import hook_support
from lessons_codex import hot_codex
from lessons_core.hot import claims

HOOK = str(hook_support.BIN / "lessons-codex-hook")
SESSION = "security-session"
KEY = claims.session_key(SESSION)
#: A hook call that gets stuck takes this long to be noticed; a healthy one takes milliseconds.
QUICK_SECONDS = 5.0

LESSONS = [
    {
        "summary": "Quiet pytest",
        "mistake": "HINT-PYTEST: verbose output floods the context",
        "remediation": "Use pytest -q.",
        "type": "hint",
        "priority": 9,
        "triggers": {"toolNames": ["Bash"], "commandPatterns": ["\\bpytest\\b"]},
    },
    {
        "summary": "Settings are generated",
        "mistake": "PATH-SETTINGS: config/settings.py is generated",
        "remediation": "Edit settings.toml instead.",
        "type": "hint",
        "triggers": {"toolNames": ["Edit", "Write"], "pathPatterns": ["**/config/settings.py"]},
    },
]

posix_only = pytest.mark.skipif(not hasattr(os, "getuid"), reason="needs POSIX ownership")


@pytest.fixture(scope="module", name="built_home")
def fixture_built_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One lessons home for the module, built by the real ``lessons add``."""
    return hook_support.build_lessons_home(tmp_path_factory.mktemp("security-home"), LESSONS)


@pytest.fixture(name="lessons_home")
def fixture_lessons_home(built_home: Path, tmp_path: Path) -> Path:
    """A private copy of the built home, so a test may plant files in it."""
    home = tmp_path / "lessons-home"
    shutil.copytree(built_home, home)
    return home


@pytest.fixture(name="state")
def fixture_state(tmp_path: Path) -> Path:
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    return state


def pre_tool(command: str = "pytest tests/") -> dict[str, Any]:
    return {
        "session_id": SESSION,
        "cwd": "/home/dev/project",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "call_1",
    }


def run_hook(
    payload: Any,
    lessons_home: Path,
    state: Path,
    *,
    argv: list[str] | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = QUICK_SECONDS,
    memory_limit: int | None = None,
) -> tuple[dict[str, Any] | None, float]:
    """Run the hook on ``payload``; its parsed answer (or None) and how long it took.

    A hook that does not return within ``timeout`` fails the test (it would hang the agent).
    """
    data = payload if isinstance(payload, str) else json.dumps(payload)
    environ = {**hook_support.hook_env(lessons_home, state), **(env or {})}

    def limit() -> None:
        if memory_limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))

    started = time.monotonic()
    try:
        proc = subprocess.run(
            argv or [HOOK],
            input=data,
            capture_output=True,
            text=True,
            env=environ,
            timeout=timeout,
            check=False,
            preexec_fn=limit if memory_limit is not None else None,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the hook did not return within {timeout} s")
    elapsed = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.strip()
    return (json.loads(out) if out else None), elapsed


def context_of(answer: dict[str, Any] | None) -> str:
    return "" if answer is None else answer["hookSpecificOutput"].get("additionalContext", "")


def log_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# -- links planted in the state directory -------------------------------------------------------


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_seen_link_is_not_appended_through(lessons_home, state, tmp_path, link):
    """``<key>.seen`` linked to another file: the delivery is recorded, the target untouched.

    A hard link is no link to ``O_NOFOLLOW``; its second name gives it away (``st_nlink``).
    """
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    if link == "symlink":
        (state / f"{KEY}.seen").symlink_to(victim)
    else:
        (state / f"{KEY}.seen").hardlink_to(victim)
    answer, _ = run_hook(pre_tool(), lessons_home, state)
    assert "HINT-PYTEST" in context_of(answer)
    assert victim.read_text() == "precious\n"
    seen = state / f"{KEY}.seen"
    assert not seen.is_symlink()
    assert seen.read_text().split() == [answer_ids(answer)[0]]
    again, _ = run_hook(pre_tool(), lessons_home, state)
    assert again is None  # still delivered once


def answer_ids(answer: dict[str, Any] | None) -> list[str]:
    """Lesson ids named in the answer's trailer (``injected=a,b``)."""
    text = context_of(answer)
    injected = text.rsplit("injected=", 1)[1].split(" ", 1)[0]
    return injected.split(",")


def test_claim_dir_link_gets_no_claims(lessons_home, state, tmp_path):
    """``<key>.d`` linked to another directory: no claim file is created there."""
    victim = tmp_path / "victim-dir"
    victim.mkdir()
    (state / f"{KEY}.d").symlink_to(victim, target_is_directory=True)
    answer, _ = run_hook(pre_tool(), lessons_home, state)
    assert "HINT-PYTEST" in context_of(answer)
    assert list(victim.iterdir()) == []
    assert (state / f"{KEY}.d").is_dir()
    assert not (state / f"{KEY}.d").is_symlink()


def test_clear_does_not_delete_through_a_claim_dir_link(lessons_home, state, tmp_path):
    """``/clear`` with ``<key>.d`` linked to another directory deletes nothing there."""
    victim = tmp_path / "victim-dir"
    victim.mkdir()
    for name in ("notes.txt", "thesis.tex"):
        (victim / name).write_text(name)
    (state / f"{KEY}.d").symlink_to(victim, target_is_directory=True)
    payload = {
        "session_id": SESSION,
        "cwd": "/home/dev/project",
        "hook_event_name": "SessionStart",
        "source": "clear",
    }
    run_hook(payload, lessons_home, state)
    assert sorted(p.name for p in victim.iterdir()) == ["notes.txt", "thesis.tex"]


#: Plants ``<seen>.<own pid>.tmp`` -> argv[3], then runs the Codex hook in this very process.
_PLANT_TMP_THEN_HOOK = """
import os, sys
state, key, victim = sys.argv[1:4]
os.symlink(victim, os.path.join(state, f"{key}.seen.{os.getpid()}.tmp"))
from lessons_codex import hook
sys.exit(hook.main())
"""


def test_compaction_does_not_write_through_a_temp_link(lessons_home, state, tmp_path):
    """PreCompact rewrites the seen file through a new temporary file, never a planted link."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    answer, _ = run_hook(pre_tool(), lessons_home, state)  # something to re-arm
    assert "HINT-PYTEST" in context_of(answer)
    (state / f"{KEY}.seen").write_text("other-lesson\n" + answer_ids(answer)[0] + "\n")
    payload = {
        "session_id": SESSION,
        "cwd": "/home/dev/project",
        "hook_event_name": "PreCompact",
        "trigger": "auto",
    }
    argv = [sys.executable, "-c", _PLANT_TMP_THEN_HOOK, str(state), KEY, str(victim)]
    run_hook(payload, lessons_home, state, argv=argv)
    assert victim.read_text() == "precious\n"
    assert (state / f"{KEY}.seen").read_text() == "other-lesson\n"
    assert [p.name for p in state.iterdir() if p.name.endswith(".tmp")] == []


# -- the state directory itself -----------------------------------------------------------------


@posix_only
@pytest.mark.parametrize("mode", [0o755, 0o750, 0o711], ids=oct)
def test_readable_state_dir_is_tightened_to_0700(lessons_home, tmp_path, mode):
    """A state dir of ours that others may read is made 0700 and used."""
    state = tmp_path / "state"
    state.mkdir()
    state.chmod(mode)
    answer, _ = run_hook(pre_tool(), lessons_home, state)
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert "HINT-PYTEST" in context_of(answer)
    assert (state / f"{KEY}.d").is_dir()


# -- files in the lessons home ------------------------------------------------------------------


def foreign_uid() -> int:
    """A uid other than ours that this process may hand files to (root only)."""
    if not hasattr(os, "getuid") or os.getuid() != 0:
        pytest.skip("only root can give a file to another user")
    return 65534


@posix_only
@pytest.mark.parametrize("copy", ["with-marshal-copy", "json-only"])
@pytest.mark.parametrize("attack", ["foreign-owner", "world-writable", "symlink"])
def test_untrusted_manifest_is_not_used(tmp_path, state, attack, copy):
    """A manifest of another user, writable by others, or a link, gives no lessons.

    The marshal copy is ours and still matches the JSON's size, time and inode, so only a check
    of the JSON itself can refuse it.
    """
    uid = foreign_uid() if attack == "foreign-owner" else -1
    home = hook_support.build_lessons_home(tmp_path / "home", LESSONS)
    manifest = home / "lesson-manifest.json"
    if copy == "json-only":
        (home / "lesson-manifest.marshal").unlink()
    answer, _ = run_hook(pre_tool(), home, state)
    assert "HINT-PYTEST" in context_of(answer)  # the home works before the attack
    shutil.rmtree(state)
    state.mkdir(mode=0o700)
    if attack == "foreign-owner":
        os.chown(manifest, uid, -1)
    elif attack == "world-writable":
        manifest.chmod(0o666)
    else:
        real = tmp_path / "elsewhere.json"
        manifest.rename(real)
        manifest.symlink_to(real)
    answer, _ = run_hook(pre_tool(), home, state)
    assert answer is None


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_delivery_log_link_is_not_appended_through(lessons_home, state, tmp_path, link):
    """``deliveries.jsonl`` linked to another file: nothing is appended to the target."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    if link == "symlink":
        (lessons_home / "deliveries.jsonl").symlink_to(victim)
    else:
        (lessons_home / "deliveries.jsonl").hardlink_to(victim)
    answer, _ = run_hook(pre_tool(), lessons_home, state)
    assert "HINT-PYTEST" in context_of(answer)  # delivered all the same, just not logged
    assert victim.read_text() == "precious\n"


def test_hook_log_link_is_not_appended_through(lessons_home, state, tmp_path):
    """``LESSONS_HOOK_LOG`` naming a link: the hook does not append through it."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    log = tmp_path / "hook.log"
    log.symlink_to(victim)
    answer, _ = run_hook(pre_tool(), lessons_home, state, env={"LESSONS_HOOK_LOG": str(log)})
    assert "HINT-PYTEST" in context_of(answer)
    assert victim.read_text() == "precious\n"


@pytest.mark.parametrize("name", ["manifest.stamp", "config.json"])
def test_fifo_in_the_home_does_not_stall_the_hook(lessons_home, state, tmp_path, name):
    """A FIFO under a name the hook reads (the stamp, the config) is skipped, not waited on."""
    (lessons_home / name).unlink(missing_ok=True)
    os.mkfifo(lessons_home / name)
    (lessons_home / "autoscan.stamp").touch()  # a scan is not due: none is started
    log = tmp_path / "hook.log"
    payload = {
        "session_id": SESSION,
        "cwd": str(tmp_path),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    env = {"LESSONS_HOOK_LOG": str(log), "LESSONS_AUTO_SCAN": "1"}
    run_hook(payload, lessons_home, state, env=env)
    assert [line.get("error") for line in log_lines(log)] == [None]


def test_autoscan_stamp_link_is_not_touched(lessons_home, state, tmp_path):
    """``autoscan.stamp`` linked to another file: that file's time is not changed."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    os.utime(victim, (1_000_000, 1_000_000))
    (lessons_home / "autoscan.stamp").symlink_to(victim)
    (lessons_home / "config.json").write_text(json.dumps({"autoScanIntervalHours": 1}))
    payload = {
        "session_id": SESSION,
        "cwd": str(tmp_path),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    run_hook(payload, lessons_home, state, env={"LESSONS_AUTO_SCAN": "1"})
    assert victim.stat().st_mtime == 1_000_000
    assert victim.read_text() == "precious\n"


# -- the store ----------------------------------------------------------------------------------


@posix_only
def test_store_and_its_wal_files_are_created_0600(tmp_path):
    """``lessons.db`` and its ``-wal``/``-shm`` are private, whatever the umask lets through."""
    from lessons_core.store.sqlite import open_sqlite_store

    home = tmp_path / "home"
    home.mkdir()
    old = os.umask(0o022)
    try:
        store = open_sqlite_store(home)
    finally:
        os.umask(old)
    try:
        made = sorted(p.name for p in home.iterdir() if p.name.startswith("lessons.db"))
        assert {"lessons.db", "lessons.db-wal", "lessons.db-shm"} <= set(made)
        for name in made:
            assert stat.S_IMODE((home / name).stat().st_mode) == 0o600, name
    finally:
        store.close()


@posix_only
def test_existing_readable_store_is_tightened(tmp_path):
    """A store of ours left 0644 by an older version is made 0600 when opened."""
    from lessons_core.store.sqlite import open_sqlite_store

    home = tmp_path / "home"
    home.mkdir()
    open_sqlite_store(home).close()
    (home / "lessons.db").chmod(0o644)
    store = open_sqlite_store(home)
    try:
        assert stat.S_IMODE((home / "lessons.db").stat().st_mode) == 0o600
    finally:
        store.close()


# -- Codex's transcript_path --------------------------------------------------------------------


def post_tool_without_exit_code(transcript: str) -> dict[str, Any]:
    """A unified-exec PostToolUse: only the output, so the hook looks at the transcript."""
    return {
        "session_id": SESSION,
        "cwd": "/home/dev/project",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "make"},
        "tool_response": "broken\n",
        "tool_use_id": "call_1",
        "transcript_path": transcript,
    }


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_transcript_that_is_no_regular_file_is_not_read(lessons_home, state, tmp_path, kind):
    """A FIFO would block the hook, ``/dev/zero`` would be read until memory runs out.

    The hook runs with 1 GiB of address space, so an unbounded read fails fast instead of
    taking the machine's memory; either way the log must show a clean call.
    """
    if kind == "fifo":
        transcript = tmp_path / "rollout.jsonl"
        os.mkfifo(transcript)
        path = str(transcript)
    else:
        if not Path("/dev/zero").exists():
            pytest.skip("no /dev/zero here")
        path = "/dev/zero"
    log = tmp_path / "hook.log"
    _, elapsed = run_hook(
        post_tool_without_exit_code(path),
        lessons_home,
        state,
        env={"LESSONS_HOOK_LOG": str(log)},
        memory_limit=1 << 30,
    )
    assert elapsed < QUICK_SECONDS
    [line] = log_lines(log)
    assert line["error"] is None
    assert line["event"] == "post_tool"


def test_transcript_is_read_from_its_tail_only(tmp_path):
    """A large transcript is read from its last bytes; the completion there is found."""
    transcript = tmp_path / "rollout.jsonl"
    completed = {
        "type": "event_msg",
        "payload": {"type": "exec_command_end", "call_id": "call_1", "exit_code": 2},
    }
    with transcript.open("w") as fh:
        fh.write(("x" * 1000 + "\n") * 2000)
        fh.write(json.dumps(completed) + "\n")
    assert hot_codex.transcript_failure(str(transcript), "call_1", "out").startswith("Exit code: 2")


# -- a patch of 40,000 files --------------------------------------------------------------------


def big_patch(files: int) -> str:
    lines = ["*** Begin Patch", "*** Update File: config/settings.py", "+DEBUG = False"]
    for i in range(files):
        lines.append(f"*** Update File: src/pkg{i % 97}/module_{i}.py")
        lines.append(f"+value_{i} = {i}")
    lines.append("*** End Patch")
    return "\n".join(lines) + "\n"


def test_patch_of_40000_files_is_handled_quickly(lessons_home, state):
    """Path de-duplication is linear and the paths matched are bounded: well under a second."""
    payload = {
        "session_id": SESSION,
        "cwd": "/home/dev/project",
        "hook_event_name": "PreToolUse",
        "tool_name": "apply_patch",
        "tool_input": {"command": big_patch(40_000)},
        "tool_use_id": "call_9",
    }
    answer, elapsed = run_hook(payload, lessons_home, state, timeout=30)
    assert "PATH-SETTINGS" in context_of(answer)
    assert elapsed < QUICK_SECONDS


def test_patch_paths_are_listed_once_and_bounded():
    """Repeated paths appear once; past ``MAX_PATCH_PATHS`` no more are listed."""
    patch = big_patch(5) + big_patch(5) + big_patch(hot_codex.MAX_PATCH_PATHS + 10)
    paths, added, _ = hot_codex.parse_patch(patch, "/repo")
    assert len(paths) == len(set(paths)) == hot_codex.MAX_PATCH_PATHS
    assert paths[:2] == ["/repo/config/settings.py", "/repo/src/pkg0/module_0.py"]
    assert len(added) == 3 + 5 + 5 + hot_codex.MAX_PATCH_PATHS + 10  # every "+" line is kept


# -- what the CLI writes and reads beside the hook ----------------------------------------------


def test_scan_lock_link_is_not_truncated(tmp_path):
    """``scan.lock`` linked to another file: the scan refuses it instead of truncating it."""
    from lessons_core.errors import LessonsError
    from lessons_core.scan.lock import LOCK_NAME, scan_lock

    home = tmp_path / "home"
    home.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (home / LOCK_NAME).symlink_to(victim)
    with pytest.raises(LessonsError, match="scan lock"), scan_lock(home, wait=False):
        pass
    assert victim.read_text() == "precious\n"


def test_delivery_log_fifo_is_not_read_by_the_ingest(store, home):
    """A FIFO where ``deliveries.jsonl`` should be is skipped (reading it would never end)."""
    from lessons_core import outcomes

    fifo = home / "deliveries.jsonl"
    os.mkfifo(fifo)
    found: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        found["report"] = outcomes.ingest(store, home)
        done.set()

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    if not done.wait(QUICK_SECONDS):
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # let the stuck reader go
        worker.join(QUICK_SECONDS)
        pytest.fail("the ingest waited on the FIFO")
    assert found["report"].read == 0


def test_autoscan_replaces_a_linked_stamp_with_its_own(tmp_path, monkeypatch):
    """Once due, the claim replaces a linked stamp by a file of its own (the target untouched)."""
    from lessons_core.hot import autoscan

    home = tmp_path / "home"
    home.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    os.utime(victim, (1_000_000, 1_000_000))
    stamp = home / autoscan.STAMP_NAME
    stamp.symlink_to(victim)
    started: list[list[str]] = []

    class Recorder:
        def __init__(self, command: list[str], **_: Any) -> None:
            started.append(command)

    monkeypatch.delenv("LESSONS_AUTO_SCAN")
    env = {"LESSONS_HOME": str(home)}
    later = time.time() + 7200
    assert autoscan.maybe_start(env, now=later, popen=Recorder) is True
    assert len(started) == 1
    assert not stamp.is_symlink()
    assert stamp.stat().st_mtime == later
    assert victim.stat().st_mtime == 1_000_000


@pytest.mark.parametrize("planted", ["dir-link", "file-link", "fifo", "file"])
def test_claim_replaces_whatever_sits_where_the_claim_dir_should_be(tmp_path, planted):
    """The first thing a session does may be a claim: it clears the odd entry and claims."""
    root = tmp_path / "state"
    root.mkdir(mode=0o700)
    claim_dir = root / f"{KEY}.d"
    target = tmp_path / "target"
    if planted == "dir-link":
        target.mkdir()
        claim_dir.symlink_to(target, target_is_directory=True)
    elif planted == "file-link":
        target.write_text("precious\n")
        claim_dir.symlink_to(target)
    elif planted == "fifo":
        os.mkfifo(claim_dir)
    else:
        claim_dir.write_text("not a directory\n")
    state = claims.SessionState(str(root), SESSION)
    try:
        assert state.claim("session") is True
        assert state.claim("session") is False
    finally:
        state.close()
    assert claim_dir.is_dir() and not claim_dir.is_symlink()
    assert (claim_dir / "session").is_file()
    if planted == "dir-link":
        assert list(target.iterdir()) == []
    if planted == "file-link":
        assert target.read_text() == "precious\n"


def test_config_kept_in_dotfiles_is_still_obeyed(tmp_path, monkeypatch):
    """``config.json`` may be a link to the user's dotfiles: its ``autoScan: false`` holds."""
    from lessons_core.hot import autoscan

    home = tmp_path / "home"
    home.mkdir()
    dotfile = tmp_path / "dotfiles-config.json"
    dotfile.write_text(json.dumps({"autoScan": False}))
    (home / "config.json").symlink_to(dotfile)
    started: list[list[str]] = []

    class Recorder:
        def __init__(self, command: list[str], **_: Any) -> None:
            started.append(command)

    monkeypatch.delenv("LESSONS_AUTO_SCAN")
    assert autoscan.maybe_start({"LESSONS_HOME": str(home)}, popen=Recorder) is False
    assert started == []


@posix_only
def test_group_writable_hook_log_of_ours_is_still_written(lessons_home, state, tmp_path):
    """The log's mode is the user's choice; only links, FIFOs and second names are refused."""
    log = tmp_path / "hook.log"
    log.touch()
    log.chmod(0o664)
    run_hook(pre_tool(), lessons_home, state, env={"LESSONS_HOOK_LOG": str(log)})
    assert [line["event"] for line in log_lines(log)] == ["pre_tool"]


@pytest.mark.parametrize("name", [".git", "config"])
def test_fifo_in_a_repository_does_not_stall_the_project_id(tmp_path, name):
    """A cloned repository is anybody's: a FIFO as its ``.git`` or its config is not read."""
    repo = tmp_path / "repo"
    repo.mkdir()
    if name == ".git":
        os.mkfifo(repo / ".git")
    else:
        (repo / ".git").mkdir()
        os.mkfifo(repo / ".git" / "config")
    code = (
        "import sys\n"
        "from lessons_core.hot.project import origin_url\n"
        "print(origin_url(sys.argv[1]))\n"
    )
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code, str(repo)],
            capture_output=True,
            text=True,
            timeout=QUICK_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("reading the repository's files waited on a FIFO")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "None"
