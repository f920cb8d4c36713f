"""Once-per-session delivery across processes, clear/compact, and refused state dirs."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hot_support import HERE, install_manifest, make_lesson

from lessons_core.hot import claims
from privileges import bound_by_permissions


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


def test_names_keep_the_order_of_delivery(state_dir):
    """`names` lists what the session was given, first delivered first, each once."""
    state = claims.open_session("order")
    for name in ("B", "nudge:A", "A"):
        assert state.claim(name)
    assert not state.claim("B")
    assert claims.open_session("order").names() == ["B", "nudge:A", "A"]


def test_the_seen_file_is_read_up_to_its_limit_only(state_dir):
    """A seen file grown past what a session delivers is no record of ours: the hook reads its
    first 4 MiB and no more, so a name written after them is not taken as delivered."""
    state = claims.open_session("big")
    filler = "f" * (4 * 1024 * 1024 - len("first\n") - 1)
    Path(state.seen_path).write_text(f"first\n{filler}\nlate\n")
    fresh = claims.open_session("big")
    assert fresh.names() == ["first", filler]
    assert "late" not in fresh.seen()


def test_notes_round_trip_and_a_broken_note_reads_as_none(state_dir):
    """A note of a few kilobytes comes back whole; one that is not JSON reads as no note."""
    state = claims.open_session("notes")
    value = {"pending": ["x" * 100] * 40}
    state.write_note("handoff", value)
    assert claims.open_session("notes").read_note("handoff") == value
    Path(state.note_path("fails")).write_bytes(b"{not json")
    assert state.read_note("fails") is None


def test_a_note_of_the_full_bound_comes_back_whole(state_dir):
    """Notes are read up to 64 KiB: one that fills them exactly is read, a byte more is not."""
    state = claims.open_session("big-note")
    frame = len(json.dumps({"x": ""}).encode())
    for extra, whole in ((0, True), (1, False)):
        value = {"x": "y" * (64 * 1024 - frame + extra)}
        Path(state.note_path("handoff")).write_text(json.dumps(value))
        assert (state.read_note("handoff") == value) is whole


def test_a_plain_file_where_the_claim_dir_should_be_is_replaced(state_dir):
    state = claims.open_session("dir-file")
    Path(state.claim_dir).write_text("planted")
    assert state.claim("A")
    assert os.listdir(state.claim_dir) == ["A"]


def test_a_seen_file_that_cannot_be_replaced_leaves_release_working(state_dir):
    """Release drops the names even when the seen file cannot be rewritten (a directory there)."""
    state = claims.open_session("seen-dir")
    assert state.claim("A") and state.claim("B")
    os.unlink(state.seen_path)
    os.mkdir(state.seen_path)
    state.release(["A"])
    assert not state.has("A") and state.has("B")


def test_a_linked_seen_file_is_replaced_not_written_through(state_dir, tmp_path):
    """A link where the seen file should be is dropped; the record starts in a file of ours."""
    state = claims.open_session("seen-link")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    Path(state.seen_path).symlink_to(victim)
    assert state.claim("A")
    assert victim.read_text() == "precious\n"
    assert not os.path.islink(state.seen_path)
    assert Path(state.seen_path).read_text() == "A\n"


def test_a_linked_claim_dir_is_replaced_not_followed(state_dir, tmp_path):
    """A link to a directory where the claim dir should be gets no claims; a real one does."""
    state = claims.open_session("dir-link")
    victim = tmp_path / "victim-dir"
    victim.mkdir(mode=0o700)
    Path(state.claim_dir).symlink_to(victim, target_is_directory=True)
    assert state.claim("A")
    assert list(victim.iterdir()) == []
    assert not os.path.islink(state.claim_dir)
    assert os.listdir(state.claim_dir) == ["A"]


@pytest.mark.parametrize("mode", [0o755, 0o750, 0o701])
def test_a_readable_state_dir_is_tightened_to_exactly_0700(tmp_path, monkeypatch, mode):
    """Others lose read and search; the owner keeps all three rights."""
    root = tmp_path / "readable-state"
    root.mkdir()
    root.chmod(mode)
    monkeypatch.setenv("LESSONS_STATE_DIR", str(root))
    assert claims.open_session("s").claim("A")
    assert stat.S_IMODE(root.stat().st_mode) == 0o700


def test_tightening_changes_the_directory_checked_not_what_its_name_leads_to(tmp_path, monkeypatch):
    """The state dir swapped for a link between its check and its chmod: the chmod goes to
    the directory checked (through its descriptor), never to the link's target."""
    root = tmp_path / "state"
    root.mkdir()
    root.chmod(0o755)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    elsewhere.chmod(0o755)
    moved = tmp_path / "moved"
    real_open = os.open

    def open_then_swap(path, flags, *args, **kwargs):
        fd = real_open(path, flags, *args, **kwargs)
        if path == str(root):
            os.rename(root, moved)
            root.symlink_to(elsewhere, target_is_directory=True)
        return fd

    monkeypatch.setattr(claims.os, "open", open_then_swap)
    claims.check_state_dir(str(root))
    assert stat.S_IMODE(moved.stat().st_mode) == 0o700
    assert stat.S_IMODE(elsewhere.stat().st_mode) == 0o755


def _open_descriptors() -> set[int]:
    """The descriptors this process holds among the first 1024 (probing opens none)."""
    held = set()
    for fd in range(1024):
        try:
            os.fstat(fd)
        except OSError:
            continue
        held.add(fd)
    return held


def test_close_releases_the_claim_dir_descriptor_once(state_dir):
    """A closed session holds no descriptor; closing one that never opened its claim dir, or
    whose descriptor someone else closed already, raises nothing."""
    claims.open_session("never-claimed").close()
    before = _open_descriptors()
    state = claims.open_session("closing")
    assert state.claim("A")
    (opened,) = _open_descriptors() - before
    state.close()
    assert _open_descriptors() == before
    again = claims.open_session("closing")
    assert not again.has("B")  # not in the seen file: looked up in the claim dir
    (opened,) = _open_descriptors() - before
    os.close(opened)
    again.close()
    again.close()


def test_prune_goes_on_past_a_recent_session(state_dir):
    """Recent records and files that are no record, among old ones, are left alone, and every
    old one is still removed."""
    old, new, others = [], [], []
    for i in range(6):
        for group, prefix in ((old, "old"), (new, "new")):
            state = claims.open_session(f"{prefix}-{i}")
            state.claim("X")
            group.append(state)
        other = state_dir / f"notes-{i}.txt"
        other.write_text("not a session record")
        week_ago = other.stat().st_mtime - 8 * 24 * 3600
        os.utime(other, (week_ago, week_ago))
        others.append(other)
    for state in old:
        for path in (state.seen_path, state.claim_dir):
            week_ago = os.stat(path).st_mtime - 8 * 24 * 3600
            os.utime(path, (week_ago, week_ago))
    assert claims.prune(str(state_dir)) == 12
    assert not any(os.path.exists(s.seen_path) or os.path.exists(s.claim_dir) for s in old)
    assert all(os.path.exists(s.seen_path) and os.path.exists(s.claim_dir) for s in new)
    assert all(other.exists() for other in others)


def test_a_name_that_is_no_plain_file_name_is_claimed_under_its_hash(state_dir):
    """Names with a separator, a space or non-ASCII letters never become paths of their own:
    a claim stays one hashed entry inside the claim dir."""
    state = claims.open_session("odd-names")
    for name in ("../outside", "a b", "caf\u00e9"):
        assert state.claim(name)
        assert claims.open_session("odd-names").has(name)
    entries = os.listdir(state.claim_dir)
    assert len(entries) == 3
    assert all(entry.startswith("h-") for entry in entries)
    assert not (state_dir / "outside").exists()
    assert state.claim("nudge:01ABC")
    assert "nudge.01ABC" in os.listdir(state.claim_dir)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown")
def test_claim_dir_of_another_user_is_refused(state_dir):
    """A claim dir someone else owns could be pre-filled to silence lessons: it is refused."""
    state = claims.open_session("foreign")
    os.mkdir(state.claim_dir, 0o700)
    os.chown(state.claim_dir, 12345, 12345)
    with pytest.raises(claims.UnsafeStateDir, match="not a directory of ours"):
        state.claim("A")


_UNOPENABLE = """
import os, sys
from lessons_core.hot import claims
state = claims.open_session("locked")
os.mkdir(state.claim_dir, 0o700)
os.chmod(state.claim_dir, 0)
print(state.has("A"))
try:
    state.claim("A")
except claims.UnsafeStateDir as error:
    print("refused:", error)
print(sorted(os.listdir(".")))
"""


def test_a_claim_dir_that_cannot_be_opened_is_refused_not_bypassed(state_dir, tmp_path):
    """A claim dir of ours that even three tries cannot open: nothing was delivered, and a
    claim is refused instead of being made anywhere else (such as the working directory)."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    proc = subprocess.run(
        [*bound_by_permissions(), sys.executable, "-c", _UNOPENABLE],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "False"
    assert lines[1].startswith("refused:") and "cannot be opened" in lines[1]
    assert lines[2] == "[]"
