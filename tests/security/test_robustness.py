"""Robustness: interrupts, oversized and hostile input, serialised builds, scan-state keys.

Everything here runs the real ``lessons`` console script as a process (or its ``main`` with the
output captured), against real SQLite stores in scratch homes.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


#: Long command outputs after each copy of the session: they make up the bytes to read, while
#: the session's findings keep the store busy (a scan of about two seconds here).
BULK = 3


def _fresh() -> bytes:
    return str(uuid.uuid4()).encode()


def make_corpus(
    home: Path, megabytes: float, per_file: float = 4.0, first: float = 12.0
) -> list[Path]:
    """Claude Code transcripts of about ``per_file`` MB each (the first one ``first`` MB),
    ``megabytes`` in all: the test session (failures, fixes, #lesson blocks) again and again
    under fresh ids, between long command outputs."""
    template = FIXTURE.read_bytes()
    files: list[Path] = []
    total = 0
    n = 0
    while total < megabytes * 1e6:
        n += 1
        parts: list[bytes] = []
        size = 0
        while size < (first if n == 1 else per_file) * 1e6:
            ids: dict[bytes, bytes] = {}
            part = _UUID.sub(lambda m, ids=ids: ids.setdefault(m[0], _fresh()), template)
            session = next(iter(ids.values())).decode()
            part += b"".join(_bulk(session, len(parts) * 10 + k) for k in range(BULK))
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


def _as_in_a_terminal() -> None:
    """Run in the scan's process before it starts: Ctrl-C's default action, as a terminal gives
    a command. A shell that starts a job in the background without job control (a CI runner's
    script, ``cmd &`` under ``nohup``) makes its children ignore SIGINT, and a scan started so
    would rightly not stop."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_until_reading(scan: subprocess.Popen[Any], base: Path) -> float:
    """Wait until the scan (or one of its helpers) has a transcript open; returns the deadline
    the test keeps to."""
    deadline = time.monotonic() + 60
    while not _reading(_group(scan.pid), base / "home"):
        if scan.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"the scan ended before it could be interrupted: {scan.returncode}")
        time.sleep(0.01)
    return deadline


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


#: name -> (LESSONS_SCAN_WORKERS, what to scan: everything (the pool, from 32 MB), one project
#: folder (20 MB: the split), the 12 MB file (cut in pieces)).
_SCANS = {
    "single-process": ("1", "all"),
    "split": ("2", "folder"),
    "pieces": ("2", "file"),
    "pool": ("2", "all"),
    "pool-ctrl-c-twice": ("2", "all"),
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
        preexec_fn=_as_in_a_terminal,
    )
    try:
        _wait_until_reading(scan, base)
        time.sleep(0.1)  # into it: helpers forked, reading under way
        os.killpg(scan.pid, signal.SIGINT)
        started = time.monotonic()
        if name.endswith("twice"):  # the second lands while the first is being handled
            time.sleep(0.02)
            os.killpg(scan.pid, signal.SIGINT)
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


# -- oversized lessons ----------------------------------------------------------------------

SMALL = {
    "summary": "git stash leaves untracked files behind",
    "mistake": "git stash without -u leaves untracked files in the tree",
    "remediation": "use git stash -u",
    "triggers": {"toolNames": ["Bash"], "commandPatterns": ["\\bgit\\s+stash\\b"]},
}


def _big(size: int) -> dict[str, object]:
    return {
        "summary": "a lesson far too long",
        "mistake": "x" * size,
        "remediation": "keep lessons short",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": ["\\brm\\s+-rf\\b"]},
    }


def _fires(env: dict[str, str], command: str) -> list[str]:
    """Slugs ``explain`` says would fire for a Bash call (failing on any error)."""
    out = _run(env, "explain", "--agent", "claude", "--tool", "Bash", "--command", command)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    return re.findall(r"^\s+(\S+) \[.*\]: fires", out.stdout, re.M)


def _node_manifest(*lessons: dict[str, object]) -> dict[str, object]:
    entries = {}
    for n, lesson in enumerate(lessons):
        entries[f"01KNH2FRACBQMQWX29GPYE47D{n}"] = {
            "slug": f"node-{n}",
            "type": "hint",
            "priority": 5,
            "toolNames": ["Bash"],
            "commandRegexSources": [{"source": "\\brm\\s+-rf\\b", "flags": ""}],
            "pathRegexSources": [],
            "modelRegexSources": [],
            "commandMatchTarget": "full",
            "tags": [],
            "scope": None,
            "summary": lesson["summary"],
            "problem": lesson["mistake"],
            "solution": lesson["remediation"],
            "message": lesson["summary"],
        }
    return {"type": "lessons-learned-manifest", "lessons": entries}


@pytest.mark.parametrize("how", ["add", "add-jsonl", "import-jsonl", "import-node"])
def test_an_oversized_lesson_is_refused_at_intake(tmp_path: Path, how: str) -> None:
    """More than 64 KiB of text in one lesson: ``Error:``, exit 1, nothing stored."""
    env = _env(tmp_path, "store")
    assert _run(env, "add", "-", stdin=json.dumps(SMALL).encode()).returncode == 0
    big = _big(65 * 1024)
    if how == "add":
        data, args = json.dumps(big), ["add", "-"]
    elif how == "add-jsonl":
        data, args = json.dumps(SMALL) + "\n" + json.dumps(big) + "\n", ["add", "-"]
    elif how == "import-jsonl":
        data, args = json.dumps(big) + "\n", ["import", "-"]
    else:
        data, args = json.dumps(_node_manifest(big)), ["import", "-"]
    out = _run(env, *args, stdin=data.encode())
    assert out.returncode == 1, out.stdout + out.stderr
    assert out.stderr.startswith("Error: ")
    assert "64 KiB" in out.stderr
    assert "Traceback" not in out.stderr
    listed = _run(env, "list", "--json").stdout.splitlines()
    assert [json.loads(line)["summary"] for line in listed] == [SMALL["summary"]]


def test_a_lesson_at_the_limit_is_taken(tmp_path: Path) -> None:
    """The limit is what docs/contract.md says, not less."""
    env = _env(tmp_path, "store")
    lesson = _big(0)
    others = sum(len(str(v).encode()) for k, v in lesson.items() if k != "triggers")
    lesson["mistake"] = "y" * (64 * 1024 - others - len("Bash") - len("\\brm\\s+-rf\\b"))
    over = {**lesson, "summary": lesson["summary"] + "!"}
    refused = _run(env, "add", "-", stdin=json.dumps(over).encode())
    assert refused.returncode == 1
    assert "65537 bytes" in refused.stderr
    assert _run(env, "add", "-", stdin=json.dumps(lesson).encode()).returncode == 0
    assert (REPO / "docs" / "contract.md").read_text().count("64 KiB") >= 1


def test_an_oversized_lesson_block_in_a_transcript_is_rejected(tmp_path: Path) -> None:
    """A ``#lesson`` block that never ends sensibly does not become a lesson."""
    env = _env(tmp_path, "store")
    text = (
        "Recording this:\\n\\n#lesson\\ntool: Bash\\ntrigger: make deploy\\n"
        "mistake: make deploy without DRY_RUN pushes to production " + "and more " * 8000 + "\\n"
        "fix: always run make deploy DRY_RUN=1 first and read the plan\\n#/lesson"
    )
    record = {
        "cwd": "/home/dev/app",
        "sessionId": "5f0c2a8e-1111-4c3b-9d7e-00000000000f",
        "type": "assistant",
        "uuid": "u-1",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "TEXT"}]},
    }
    line = json.dumps(record).replace("TEXT", text)
    target = tmp_path / "home" / ".claude" / "projects" / "-home-dev-app" / "s.jsonl"
    target.parent.mkdir(parents=True)
    target.write_text(line + "\n")
    assert json.loads(line)  # the block is in one real record
    out = _run(env, "scan", "--json", str(target))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ""
    assert _run(env, "list", "--json").stdout.strip() == ""
    stored = _run(env, "candidates", "--status", "all", "--json").stdout
    assert "and more and more" not in stored


def test_the_compiler_refuses_a_lesson_its_index_cannot_hold(tmp_path: Path) -> None:
    """A store that holds a lesson over 16 MiB anyway (an older version, another writer): the
    build names it and leaves it out; every other lesson is still delivered, ``explain`` works
    and ``doctor`` finds the manifest sound."""
    env = _env(tmp_path, "store")
    assert _run(env, "add", "-", stdin=json.dumps(SMALL).encode()).returncode == 0
    script = (
        "import json, sys\n"
        "from lessons_core import serde\n"
        "from lessons_core.store.sqlite import open_sqlite_store\n"
        "store = open_sqlite_store(sys.argv[1])\n"
        "lesson = serde.lesson_from_json(json.loads(sys.stdin.read()))\n"
        "store.add_lessons([lesson])\n"
        "store.close()\n"
    )
    big = json.dumps(_big(17 << 20))
    subprocess.run(
        [sys.executable, "-c", script, env["LESSONS_HOME"]],
        input=big.encode(),
        env=env,
        check=True,
    )
    built = _run(env, "build")
    assert built.returncode == 1
    assert "64 KiB" in built.stdout + built.stderr
    assert "Traceback" not in built.stderr
    assert _fires(env, "git stash") == [_slug(env, SMALL["summary"])]
    assert _fires(env, "rm -rf /tmp/x") == []
    doctor = json.loads(_run(env, "doctor", "--json").stdout)
    manifest = next(f for f in doctor["findings"] if f["check"] == "manifest")
    assert manifest["status"] == "ok", manifest


def _slug(env: dict[str, str], summary: str) -> str:
    for line in _run(env, "list", "--json").stdout.splitlines():
        lesson = json.loads(line)
        if lesson["summary"] == summary:
            return str(lesson["slug"])
    raise AssertionError(summary)


def test_the_cache_refuses_an_entry_its_index_cannot_address() -> None:
    """``offset << 24 | size``: an entry of 16 MiB would spill into its offset."""
    from lessons_core.hot import manifest as hot_manifest

    head = {"type": "lessons-manifest"}
    ok = hot_manifest.pack_cache(b"h\n", head, {"a": "x" * 1000}, {})
    assert ok.startswith(b"h\n")
    with pytest.raises(ValueError, match="too large"):
        hot_manifest.pack_cache(b"h\n", head, {"a": "x" * (16 << 20)}, {})


def _built(tmp_path: Path) -> tuple[dict[str, str], Path]:
    env = _env(tmp_path, "store")
    second = {**SMALL, "summary": "another one", "mistake": "another mistake made here"}
    stdin = (json.dumps(SMALL) + "\n" + json.dumps(second) + "\n").encode()
    assert _run(env, "add", "-", stdin=stdin).returncode == 0
    return env, Path(env["LESSONS_HOME"]) / "lesson-manifest.json"


def _doctor_manifest(env: dict[str, str]) -> dict[str, object]:
    report = json.loads(_run(env, "doctor", "--json").stdout)
    found: dict[str, object] = next(f for f in report["findings"] if f["check"] == "manifest")
    return found


def test_doctor_catches_a_marshal_copy_that_disagrees_with_the_json(tmp_path: Path) -> None:
    """The copy the hook loads, bound to the JSON by its header, holding other text."""
    from lessons_core.hot import manifest as hot_manifest
    from lessons_core.patterns import programs

    env, path = _built(tmp_path)
    assert _doctor_manifest(env)["status"] == "ok"
    manifest = json.loads(path.read_text())
    lessons = dict(manifest["lessons"])
    first = next(iter(lessons))
    lessons[first] = {**lessons[first], "text": "something else entirely"}
    head = {k: v for k, v in manifest.items() if k != "lessons"}
    import marshal

    head["prefilter"] = {k: marshal.dumps(v) for k, v in manifest["prefilter"].items()}
    compiled = programs.programs(programs.manifest_sources(manifest))
    cache = Path(hot_manifest.cache_path(str(path)))
    data = hot_manifest.pack_cache(hot_manifest.cache_header(path.stat()), head, lessons, compiled)
    cache.write_bytes(data)
    found = _doctor_manifest(env)
    assert found["status"] == "fail", found
    assert "disagrees" in str(found["detail"])


def test_doctor_catches_an_index_pointing_past_the_file(tmp_path: Path) -> None:
    """A cut-short copy (or a corrupt index): the hook would deliver nothing, doctor fails."""
    from lessons_core.hot import manifest as hot_manifest

    env, path = _built(tmp_path)
    cache = Path(hot_manifest.cache_path(str(path)))
    data = cache.read_bytes()
    cache.write_bytes(data[: len(data) - 40])
    found = _doctor_manifest(env)
    assert found["status"] == "fail", found


# -- builds racing each other and `add` -----------------------------------------------------

# A builder whose reading takes a while (as on a large store): the lessons arrive 30 ms after
# they were read, which leaves room for an ``add`` to commit in between.
_BUILDER = """
import os, sys, time
from lessons_core import services
with services.open_store() as store:
    read = store.list_lessons
    def slow_read(*args, **kwargs):
        found = read(*args, **kwargs)
        time.sleep(0.03)
        return found
    store.list_lessons = slow_read
    while not os.path.exists(sys.argv[1]):
        services.rebuild_manifest(store)
"""

_ADDER = """
import sys
from lessons_core import serde, services
with services.open_store() as store, open(sys.argv[2], "a") as log:
    for n in range(int(sys.argv[1])):
        lesson = serde.lesson_from_json({
            "summary": f"lesson number {n}",
            "mistake": f"mistake number {n} made again",
            "remediation": f"remediation number {n}",
            "triggers": {"toolNames": ["Bash"], "commandPatterns": [f"\\\\bstep{n}\\\\b"]},
        })
        [stored] = store.add_lessons([lesson])
        log.write(f"{store.revision()} {stored.id}\\n")
        log.flush()
        services.rebuild_manifest(store)  # what `lessons add` does after storing
"""


def _claims_too_much(path: Path, log: Path) -> str | None:
    """A manifest claiming revision R without a lesson committed at or before R."""
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    claimed = manifest["storeRevision"]
    for line in log.read_text().splitlines():
        revision, lesson_id = line.split()
        if int(revision) <= claimed and lesson_id not in manifest["lessons"]:
            return f"claims revision {claimed} yet lacks {lesson_id} (added at {revision})"
    return None


def _store_now(env: dict[str, str]) -> tuple[int, set[str]]:
    from lessons_core.models import Status
    from lessons_core.store.sqlite import open_sqlite_store

    store = open_sqlite_store(Path(env["LESSONS_HOME"]))
    try:
        return store.revision(), {x.id for x in store.list_lessons(status=Status.ACTIVE)}
    finally:
        store.close()


def test_builds_racing_add_publish_a_manifest_true_to_its_revision(tmp_path: Path) -> None:
    """Two processes rebuilding in a loop while a third adds lessons and rebuilds after each
    (as ``add`` does): no manifest ever claims a revision without all of its lessons, and the
    last one's marshal copy agrees with its JSON."""
    from lessons_core.compiler import verify

    env = _env(tmp_path, "store")
    assert _run(env, "add", "-", stdin=json.dumps(SMALL).encode()).returncode == 0
    path = Path(env["LESSONS_HOME"]) / "lesson-manifest.json"
    log = tmp_path / "added.log"
    log.touch()
    problems: list[str] = []
    for round_ in range(2):
        stop = tmp_path / f"stop-{round_}"
        builders = [
            subprocess.Popen([sys.executable, "-c", _BUILDER, str(stop)], env=env) for _ in range(2)
        ]
        adder = subprocess.Popen([sys.executable, "-c", _ADDER, "10", str(log)], env=env)
        while adder.poll() is None:
            problem = _claims_too_much(path, log)
            if problem:
                problems.append(problem)
            time.sleep(0.005)
        stop.touch()
        assert adder.returncode == 0
        assert all(b.wait(timeout=120) == 0 for b in builders)
        problem = _claims_too_much(path, log)
        if problem:
            problems.append(problem)
        manifest = json.loads(path.read_text())
        revision, active = _store_now(env)
        if (manifest["storeRevision"], set(manifest["lessons"])) != (revision, active):
            problems.append(
                f"the last build is of revision {manifest['storeRevision']}, not {revision}"
            )
        try:
            note = verify.check_cache(path, manifest)
        except verify.Problem as exc:
            note = str(exc)
        if note:
            problems.append(note)
    assert problems == []


# -- hostile input: never a traceback ---------------------------------------------------------


_LESSON_KEYS = (
    "summary",
    "mistake",
    "remediation",
    "injection",
    "type",
    "triggers",
    "priority",
    "confidence",
    "tags",
    "scope",
    "commandMatchTarget",
    "id",
    "slug",
    "status",
    "errorLines",
    "provenance",
)
_TRIGGER_KEYS = ("toolNames", "commandPatterns", "pathPatterns", "contentPatterns", "modelPatterns")
_CONFIG_KEYS = (
    "injectionBudgetBytes",
    "maxLessonsPerInjection",
    "minConfidence",
    "minPriority",
    "autoScan",
    "autoScanIntervalHours",
    "scoring",
    "store",
)

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
)
_json = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def _deep(depth: int, kind: str) -> str:
    if kind == "array":
        return "[" * depth + "]" * depth
    if kind == "object":
        return '{"a":' * depth + "1" + "}" * depth
    return (
        '{"summary": "s", "mistake": "m", "remediation": "r", "triggers": '
        + ('{"toolNames": ' * depth + "[]" + "}" * depth)
        + "}"
    )


_nested = st.builds(
    _deep,
    st.integers(min_value=900, max_value=60000),
    st.sampled_from(["array", "object", "field"]),
)


def _wrong_lesson(values: dict[str, object], triggers: dict[str, object]) -> str:
    lesson: dict[str, object] = {"summary": "s", "mistake": "m", "remediation": "r", **values}
    if triggers:
        lesson["triggers"] = triggers
    return json.dumps(lesson)


_wrong_types = st.builds(
    _wrong_lesson,
    st.dictionaries(st.sampled_from(_LESSON_KEYS), _json, min_size=1, max_size=4),
    st.dictionaries(st.sampled_from(_TRIGGER_KEYS), _json, max_size=3),
)
_huge_numbers = st.builds(
    lambda key, digits, exp: (
        f'{{"summary": "s", "mistake": "m", "remediation": "r", "{key}": {"9" * digits}{exp}}}'
    ),
    st.sampled_from(["priority", "confidence", "provenance", "tags"]),
    st.integers(min_value=300, max_value=20000),
    st.sampled_from(["", "e999999", ".5e-99999", "e5"]),
)


def _spoil(text: str, at: int, junk: bytes) -> bytes:
    data = text.encode()
    at %= len(data) + 1
    return data[:at] + junk + data[at:]


_garbled = st.builds(
    _spoil,
    st.sampled_from([json.dumps(SMALL), json.dumps(SMALL) + "\n" + json.dumps(SMALL)]),
    st.integers(min_value=0, max_value=400),
    st.sampled_from([b"\x00", b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00\xff\xfe", b"\\ud800"]),
)
_text_inputs = st.one_of(_nested, _wrong_types, _huge_numbers)
_hostile = st.one_of(_text_inputs.map(str.encode), _garbled, st.binary(max_size=64))


def _cli(*argv: str, stdin: bytes = b"") -> tuple[int, str]:
    """``lessons`` run through its console entry point in this process: (exit code, stderr).

    Anything escaping ``main`` other than ``SystemExit`` is what would print a traceback.
    """
    import contextlib
    import gc
    import io
    from unittest import mock

    from lessons_core.cli import common
    from lessons_core.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    fake_stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    with (
        # The command's own hold and settle of the collector run (settling switches it back
        # on), all but the freeze, which would hide the test runner's heap from it for good.
        mock.patch.object(gc, "freeze", lambda: None),
        mock.patch.object(sys, "stdin", fake_stdin),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            main(list(argv))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException as exc:  # what would print a traceback
            pytest.fail(f"lessons {' '.join(argv)}: {type(exc).__name__} escaped: {exc!r:.300}")
        finally:
            common.OWN_PROCESS = False
    return code, err.getvalue()


def _refused(code: int, err: str, *, must: bool) -> None:
    assert "Traceback" not in err
    if must or code != 0:
        assert code == 1, err[-500:]
        assert err.lstrip().startswith("Error:"), err[-500:]


_SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@_SETTINGS
@given(data=_hostile, via_stdin=st.booleans())
def test_add_never_prints_a_traceback(tmp_path: Path, data: bytes, via_stdin: bool) -> None:
    """``lessons add`` on nested, mistyped, huge, garbled or random input."""
    if via_stdin:
        code, err = _cli("add", "-", stdin=data)
    else:
        source = tmp_path / "input.json"
        source.write_bytes(data)
        code, err = _cli("add", str(source))
    _refused(code, err, must=False)


def _export(line: str) -> str:
    return json.dumps({"type": "lessons-export", "version": 1}) + "\n" + line + "\n"


def _node(lessons: object) -> str:
    return json.dumps({"type": "lessons-learned-manifest", "lessons": lessons})


_node_entries = st.dictionaries(
    st.text(max_size=30),
    st.one_of(
        _json,
        st.dictionaries(
            st.sampled_from(
                [
                    *_LESSON_KEYS,
                    "problem",
                    "solution",
                    "toolNames",
                    "commandRegexSources",
                    "pathRegexSources",
                ]
            ),
            _json,
            max_size=6,
        ),
    ),
    max_size=3,
)


@_SETTINGS
@given(
    data=st.one_of(
        _hostile,
        _text_inputs.map(_export).map(str.encode),
        _node_entries.map(_node).map(str.encode),
        _nested.map(
            lambda deep: _node({"01KNH2FRACBQMQWX29GPYE47D8": json.loads("[]")}) + deep
        ).map(str.encode),
    )
)
def test_import_never_prints_a_traceback(tmp_path: Path, data: bytes) -> None:
    """``lessons import`` of a JSONL export or a Node manifest gone wrong."""
    source = tmp_path / "import.jsonl"
    source.write_bytes(data)
    code, err = _cli("import", str(source))
    _refused(code, err, must=False)


@_SETTINGS
@given(
    data=st.one_of(
        _hostile,
        st.dictionaries(st.sampled_from(_CONFIG_KEYS), _json, min_size=1, max_size=4)
        .map(json.dumps)
        .map(str.encode),
    ),
    command=st.sampled_from([("build",), ("list",), ("scan",)]),
)
def test_a_bad_config_never_prints_a_traceback(data: bytes, command: tuple[str, ...]) -> None:
    """``config.json`` damaged in any of those ways: every command says what is wrong."""
    home = Path(os.environ["LESSONS_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.json").write_bytes(data)
    code, err = _cli(*command)
    _refused(code, err, must=False)


@pytest.mark.parametrize(
    "data",
    [
        _deep(100000, "array").encode(),
        _deep(5000, "field").encode(),
        b'{"summary": "s\xff", "mistake": "m", "remediation": "r"}',
        b'{"summary": "s\x00", "mistake": "m", "remediation": "r"}',
        b'{"summary": "s", "mistake": "m", "remediation": "r", "priority": ' + b"9" * 5000 + b"}",
    ],
    ids=["deep-array", "deep-field", "invalid-utf8", "nul", "huge-number"],
)
def test_bad_input_to_a_real_process_is_an_error_line(tmp_path: Path, data: bytes) -> None:
    """The same through real processes, stdin and a file: ``Error:``, exit 1."""
    env = _env(tmp_path, "store")
    source = tmp_path / "bad.json"
    source.write_bytes(data)
    for args, stdin in (
        (["add", "-"], data),
        (["add", str(source)], None),
        (["import", str(source)], None),
    ):
        out = _run(env, *args, stdin=stdin)
        assert "Traceback" not in out.stderr, out.stderr[-800:]
        assert out.returncode == 1, (args, out.stdout[-300:], out.stderr[-300:])
        assert out.stderr.startswith("Error:"), out.stderr[-300:]


def test_a_moved_transcript_keeps_its_state(tmp_path: Path) -> None:
    """Same inode, new name (an agent archiving a session, a hard link): not read again, and
    its state then goes by the new name."""
    target = _one_transcript(tmp_path)
    env = _env(tmp_path, "store")
    assert _scanned(_run(env, "scan", "--agent", "claude", str(target.parent))) == (1, 0)
    evidence = _evidence(env)
    archive = tmp_path / "work" / "archive"
    archive.mkdir()
    moved = target.rename(archive / target.name)
    assert _scanned(_run(env, "scan", "--agent", "claude", str(archive))) == (0, 1)
    assert _evidence(env) == evidence
    linked = tmp_path / "work" / "linked.jsonl"
    os.link(moved, linked)
    assert _scanned(_run(env, "scan", "--agent", "claude", str(archive), str(linked))) == (0, 2)
    assert _evidence(env) == evidence
    with moved.open("ab") as fh:
        fh.write(FIXTURE.read_bytes().splitlines(keepends=True)[1])
    assert _scanned(_run(env, "scan", "--agent", "claude", str(archive)))[0] == 1


def test_two_transcript_roots_naming_one_folder_read_it_once(tmp_path: Path) -> None:
    """``~/.claude`` and ``$XDG_CONFIG_HOME/claude`` may be one folder (a symlink): each file
    is read and counted once."""
    project = tmp_path / "home" / ".claude" / "projects" / "-home-dev-app"
    project.mkdir(parents=True)
    (project / FIXTURE.name).write_bytes(FIXTURE.read_bytes())
    config = tmp_path / "config"
    config.mkdir()
    (config / "claude").symlink_to(tmp_path / "home" / ".claude")
    env = _env(tmp_path, "store", XDG_CONFIG_HOME=str(config))
    out = _run(env, "scan", "--agent", "claude")
    assert out.returncode == 0, out.stderr
    assert "Scanned 1 of 1 transcript(s)" in out.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_second_ctrl_c_after_the_line_still_leaves_exit_code_130(
    corpus: tuple[Path, list[Path]], tmp_path: Path
) -> None:
    """Once the scan has said ``Interrupted.`` it ends at once: a second Ctrl-C right after the
    line cannot land in the interpreter's shutdown (which gives SIGINT back to the system's
    default, whose action kills the process without its exit code)."""
    import select

    base, _ = corpus
    env = _env(base, f"store-twice-{tmp_path.name}", LESSONS_SCAN_WORKERS="1")
    scan = subprocess.Popen(
        [LESSONS, "scan"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        start_new_session=True, preexec_fn=_as_in_a_terminal,
    )  # fmt: skip
    assert scan.stderr is not None
    said = b""
    try:
        deadline = _wait_until_reading(scan, base)
        os.killpg(scan.pid, signal.SIGINT)
        fd = scan.stderr.fileno()
        while b"Interrupted." not in said and time.monotonic() < deadline:
            if select.select([fd], [], [], 1.0)[0]:
                chunk = os.read(fd, 4096)
                if not chunk:
                    break
                said += chunk
        with contextlib.suppress(ProcessLookupError):
            os.killpg(scan.pid, signal.SIGINT)  # the moment the line is out
        said += scan.stderr.read()
        scan.wait(timeout=30)
    finally:
        if scan.poll() is None:
            os.killpg(scan.pid, signal.SIGKILL)
            scan.wait()
        scan.stderr.close()
    assert scan.returncode == 130, (scan.returncode, said[-2000:])
    assert said.decode().strip().splitlines() == ["Interrupted."]
