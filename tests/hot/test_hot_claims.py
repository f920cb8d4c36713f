"""Once-per-session delivery across processes, clear/compact, and refused state dirs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hot_support import HERE, install_manifest, make_lesson

from lessons_core.hot import claims


def test_claim_is_exclusive_and_recorded(state_dir):
    """The first claim wins, a second one loses, and `has` sees it from a fresh object."""
    state = claims.open_session("session-a")
    assert state.claim("L1") is True
    assert state.claim("L1") is False
    again = claims.open_session("session-a")
    assert again.has("L1")
    assert not again.has("L2")
    assert not claims.open_session("session-b").has("L1")
    assert (state_dir.stat().st_mode & 0o777) == 0o700


def test_wipe_and_release(state_dir):
    """`wipe` forgets everything; `release` forgets only the given names."""
    state = claims.open_session("s")
    for name in ("A", "B", "nudge:A", "session"):
        assert state.claim(name)
    state.release(["A", "nudge:A"])
    fresh = claims.open_session("s")
    assert not fresh.has("A")
    assert not fresh.has("nudge:A")
    assert fresh.has("B")
    assert fresh.claim("A")
    fresh.wipe()
    assert not claims.open_session("s").has("B")


def test_symlinked_state_dir_is_refused(tmp_path, monkeypatch):
    """A symlink where the state dir should be is not followed."""
    real = tmp_path / "elsewhere"
    real.mkdir(mode=0o700)
    link = tmp_path / "state-link"
    link.symlink_to(real)
    monkeypatch.setenv("LESSONS_STATE_DIR", str(link))
    with pytest.raises(claims.UnsafeStateDir, match="symlink"):
        claims.open_session("s")


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o702])
def test_shared_writable_state_dir_is_refused(tmp_path, monkeypatch, mode):
    """Group- or world-writable state dirs are refused."""
    shared = tmp_path / "shared-state"
    shared.mkdir()
    shared.chmod(mode)
    monkeypatch.setenv("LESSONS_STATE_DIR", str(shared))
    with pytest.raises(claims.UnsafeStateDir, match="writable"):
        claims.open_session("s")


def test_prune_removes_old_sessions(state_dir):
    """Session records untouched for over a week are removed; recent ones stay."""
    old = claims.open_session("old")
    old.claim("X")
    new = claims.open_session("new")
    new.claim("Y")
    week_ago = os.stat(old.seen_path).st_mtime - 8 * 24 * 3600
    os.utime(old.seen_path, (week_ago, week_ago))
    os.utime(old.claim_dir, (week_ago, week_ago))
    assert claims.prune(str(state_dir)) == 2
    assert not os.path.exists(old.seen_path)
    assert os.path.exists(new.seen_path)


RACERS = 16


def _race(home: Path, session: str, command: str) -> list[dict]:
    """Start RACERS hook processes at once on one session; return their parsed outputs."""
    payload = json.dumps(
        {"event": "pre_tool", "tool": "Bash", "command": command, "session_id": session}
    ).encode()
    env = dict(os.environ)
    procs = [
        subprocess.Popen(
            [sys.executable, str(HERE / "run_echo_hook.py")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        for _ in range(RACERS)
    ]
    # Write to all of them only once every process is started, so they really race.
    outputs = []
    for proc in procs:
        proc.stdin.write(payload)
        proc.stdin.close()
    for proc in procs:
        out = proc.stdout.read()
        proc.stdout.close()
        assert proc.wait(timeout=60) == 0
        outputs.append(json.loads(out) if out else None)
    return outputs


@pytest.mark.parametrize("round_", range(4))
def test_parallel_processes_deliver_exactly_once(home, round_):
    """16 hook processes matching the same hint in one session: exactly one delivers it."""
    hint = make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": ["cargo"]})
    install_manifest(home, hint)
    outputs = _race(home, f"race-{round_}", "cargo build")
    delivered = [o for o in outputs if o and hint.id in o["decision"]["delivered"]]
    assert len(delivered) == 1
    assert sum(o is None for o in outputs) == RACERS - 1


def test_parallel_nudge_denies_exactly_once(home):
    """16 racing calls that match a nudge: one is denied, fifteen pass."""
    nudge = make_lesson(
        type="nudge", triggers={"tool_names": ["Bash"], "command_patterns": ["helm"]}
    )
    install_manifest(home, nudge)
    outputs = _race(home, "nudge-race", "helm upgrade x")
    denied = [o for o in outputs if o and o["decision"]["deny"]]
    assert len(denied) == 1


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown")
def test_state_dir_of_another_user_is_refused(tmp_path, monkeypatch):
    """A state dir owned by someone else is not trusted, even with private permissions."""
    theirs = tmp_path / "their-state"
    theirs.mkdir(mode=0o700)
    os.chown(theirs, 12345, 12345)
    monkeypatch.setenv("LESSONS_STATE_DIR", str(theirs))
    with pytest.raises(claims.UnsafeStateDir, match="owned by uid 12345"):
        claims.open_session("s")


def test_without_directory_descriptors_release_still_frees_a_name(state_dir, monkeypatch):
    """Where ``os.open`` cannot take a directory descriptor, claims go by name, and so must
    `release`: a name compaction dropped is deliverable again, the others stay delivered."""
    monkeypatch.setattr(claims, "_AT", False)
    state = claims.open_session("by-name")
    assert state.claim("A")
    assert state.claim("B")
    assert sorted(os.listdir(state.claim_dir)) == ["A", "B"]
    state.release(["A"])
    fresh = claims.open_session("by-name")
    assert not fresh.has("A")
    assert fresh.has("B")
    assert fresh.claim("A")
