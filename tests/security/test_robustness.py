"""Robustness: interrupts, oversized and hostile input, serialised builds, scan-state keys.

Everything here runs the real ``lessons`` console script as a process (or its ``main`` with the
output captured), against real SQLite stores in scratch homes.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURE = (
    REPO
    / "tests"
    / "fixtures"
    / "transcripts"
    / "claude"
    / "projects"
    / "-home-dev-app"
    / "5f0c2a8e-1111-4c3b-9d7e-000000000001.jsonl"
)
LESSONS = str(Path(sys.executable).parent / "lessons")
_UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _env(base: Path, store: str, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_CONFIG_HOME")
    }
    env.update(
        HOME=str(base / "home"),
        LESSONS_HOME=str(base / store),
        LESSONS_STATE_DIR=str(base / f"{store}-state"),
        LESSONS_AUTO_SCAN="0",
        **extra,
    )
    return env


def _run(
    env: dict[str, str], *args: str, stdin: bytes | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [LESSONS, *args], env=env, input=stdin, capture_output=True, timeout=300, check=False
    )
    return subprocess.CompletedProcess(
        done.args,
        done.returncode,
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
    )


# -- Ctrl-C during a scan -------------------------------------------------------------------


def _bulk(session: str, n: int) -> bytes:
    """A successful command with a long output (read, skimmed, finds nothing)."""
    output = "".join(f"line {i} of the build: compiling module_{i}.c ok\n" for i in range(400))
    call = {
        "cwd": "/home/dev/app",
        "sessionId": session,
        "type": "assistant",
        "uuid": f"b{n}a",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": f"tb{n}", "name": "Bash", "input": {"command": "make"}}
            ],
        },
    }
    result = {
        "cwd": "/home/dev/app",
        "sessionId": session,
        "type": "user",
        "uuid": f"b{n}r",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": f"tb{n}", "content": output}],
        },
    }
    return (json.dumps(call) + "\n" + json.dumps(result) + "\n").encode()


def _fresh() -> bytes:
    return str(uuid.uuid4()).encode()


def make_corpus(home: Path, megabytes: float, per_file: float = 4.0) -> list[Path]:
    """Claude Code transcripts of about ``per_file`` MB each, ``megabytes`` in all: the test
    session (failures, fixes, #lesson blocks) again and again under fresh ids, between long
    command outputs."""
    template = FIXTURE.read_bytes()
    files: list[Path] = []
    total = 0
    n = 0
    while total < megabytes * 1e6:
        n += 1
        parts: list[bytes] = []
        size = 0
        while size < per_file * 1e6:
            ids: dict[bytes, bytes] = {}
            part = _UUID.sub(lambda m, ids=ids: ids.setdefault(m[0], _fresh()), template)
            session = next(iter(ids.values())).decode()
            part += _bulk(session, len(parts))
            parts.append(part)
            size += len(part)
        path = home / ".claude" / "projects" / f"-home-dev-p{n % 3}" / f"{uuid.uuid4()}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(parts))
        files.append(path)
        total += size
    return files


@pytest.fixture(scope="module", name="corpus")
def fixture_corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    """≥ 32 MB of transcripts (the worker pool's threshold), written in about a second."""
    base = tmp_path_factory.mktemp("corpus")
    return base, make_corpus(base / "home", 34)


def _group(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry))
    return found


def _reading(pids: list[int], corpus: Path) -> bool:
    """Whether one of ``pids`` has a transcript of ``corpus`` open."""
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}").startswith(str(corpus)):
                    return True
            except OSError:
                continue
    return False


def _candidates(env: dict[str, str]) -> list[tuple[object, ...]]:
    """Every candidate, without what differs between two runs (ids, times, reading order)."""
    out = _run(env, "candidates", "--status", "all", "--json")
    assert out.returncode == 0, out.stderr
    rows = []
    for line in out.stdout.splitlines():
        c = json.loads(line)
        # Which of the identical sessions came first depends on the order results arrived in.
        evidence = sorted(e["line"] for e in c["evidence"])
        rows.append((c["tier"], c["trigger"], c["mistake"], c["fix"], c["status"], evidence))
    lessons = _run(env, "list", "--json")
    assert lessons.returncode == 0, lessons.stderr
    for line in lessons.stdout.splitlines():
        rows.append(("lesson", json.loads(line)["slug"].rsplit("-", 1)[0]))  # minus its suffix
    return sorted(rows, key=repr)


#: name -> (LESSONS_SCAN_WORKERS, what to scan: everything, one project folder, one file).
_SCANS = {
    "single-process": ("1", "all"),
    "split": ("2", "folder"),
    "pieces": ("2", "file"),
    "pool": ("2", "all"),
}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("name", list(_SCANS))
def test_one_ctrl_c_stops_any_scan_and_the_next_scan_is_right(
    corpus: tuple[Path, list[Path]], tmp_path: Path, name: str
) -> None:
    """SIGINT to the scan's process group (what Ctrl-C does) once it reads: it is gone within
    a few seconds with its helpers, says one line, exits 130; the next scan then finds exactly
    what one uninterrupted scan finds."""
    base, files = corpus
    workers, what = _SCANS[name]
    args = {"all": [], "folder": [str(files[0].parent)], "file": [str(files[0])]}[what]
    store = f"store-{name}-{tmp_path.name}"
    env = _env(base, store, LESSONS_SCAN_WORKERS=workers)
    scan = subprocess.Popen(
        [LESSONS, "scan", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not _reading(_group(scan.pid), base / "home"):
            if scan.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"the scan ended before it could be interrupted: {scan.returncode}")
            time.sleep(0.01)
        time.sleep(0.2)  # well into it: helpers forked, reading under way
        os.killpg(scan.pid, signal.SIGINT)
        started = time.monotonic()
        try:
            out, err = scan.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{name}: still running 30 s after Ctrl-C")
        took = time.monotonic() - started
    finally:
        if scan.poll() is None:
            os.killpg(scan.pid, signal.SIGKILL)
            scan.wait()
    leftover = _group(scan.pid)
    for pid in leftover:
        os.kill(pid, signal.SIGKILL)
    assert not leftover, f"helpers left running: {leftover}"
    assert took < 3.0, f"{name}: took {took:.2f} s to stop"
    assert scan.returncode == 130, (scan.returncode, err[-2000:])
    assert "Traceback" not in err
    assert err.strip().splitlines() == ["Interrupted."]
    assert "Scanned" not in out

    again = _run(env, "scan", *args)
    assert again.returncode == 0, again.stderr
    if what not in _REFERENCE:  # one uninterrupted scan, in a single process
        reference = _env(base, f"reference-{what}", LESSONS_SCAN_WORKERS="1")
        assert _run(reference, "scan", *args).returncode == 0
        _REFERENCE[what] = _candidates(reference)
    assert _candidates(env) == _REFERENCE[what]


_REFERENCE: dict[str, list[tuple[object, ...]]] = {}


# -- scan state keyed by the file, not by how it was named ---------------------------------


def _scanned(out: subprocess.CompletedProcess[str]) -> tuple[int, int]:
    """(files read, files unchanged) from a scan's summary line."""
    assert out.returncode == 0, out.stderr
    m = re.search(r"Scanned (\d+) of \d+ transcript\(s\) .*?(\d+) unchanged", out.stdout)
    assert m, out.stdout
    return int(m[1]), int(m[2])


def _evidence(env: dict[str, str]) -> int:
    out = _run(env, "candidates", "--status", "all", "--json")
    return sum(len(json.loads(line)["evidence"]) for line in out.stdout.splitlines())


def _one_transcript(base: Path) -> Path:
    folder = base / "work" / "transcripts"
    folder.mkdir(parents=True)
    target = folder / "5f0c2a8e-1111-4c3b-9d7e-000000000001.jsonl"
    target.write_bytes(FIXTURE.read_bytes())
    return target


def test_a_file_named_another_way_is_not_read_again(tmp_path: Path) -> None:
    """Relative, absolute, through a symlink or ``..``: one file, one scan state."""
    target = _one_transcript(tmp_path)
    (tmp_path / "link").symlink_to(target.parent)
    env = _env(tmp_path, "store")
    cwd = tmp_path / "work"

    def scan(name: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [LESSONS, "scan", "--agent", "claude", name],
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            check=False,
        )

    assert _scanned(scan("transcripts/" + target.name)) == (1, 0)
    evidence = _evidence(env)
    assert evidence > 0
    for other in (
        str(target),
        str(tmp_path / "link" / target.name),
        f"../work/{target.parent.name}",
    ):
        assert _scanned(scan(other)) == (0, 1), other
    assert _evidence(env) == evidence


def test_a_state_kept_under_a_relative_path_is_taken_over(tmp_path: Path) -> None:
    """A store from before keyed this file by the relative path it was given: a scan naming it
    by its absolute path takes that state over instead of reading the file again."""
    import sqlite3

    target = _one_transcript(tmp_path)
    env = _env(tmp_path, "store")
    assert _scanned(_run(env, "scan", "--agent", "claude", str(target))) == (1, 0)
    evidence = _evidence(env)
    db = sqlite3.connect(tmp_path / "store" / "lessons.db")
    with db:
        db.execute(
            "UPDATE scan_state SET path = ? WHERE path = ?",
            ("transcripts/" + target.name, str(target)),
        )
    db.close()
    assert _scanned(_run(env, "scan", "--agent", "claude", str(target))) == (0, 1)
    assert _evidence(env) == evidence
    with target.open("ab") as fh:  # and it goes on from there
        fh.write(FIXTURE.read_bytes().splitlines(keepends=True)[1])
    assert _scanned(_run(env, "scan", "--agent", "claude", str(target)))[0] == 1
