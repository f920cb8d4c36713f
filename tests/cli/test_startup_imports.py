"""Short commands must not pay for libraries they do not use.

structlog, cattrs and python-ulid together were most of the start-up of ``lessons list``; the first
two are now imported only when something is logged or converted to JSON, and ids are minted
without a library (python-ulid imported ``importlib.metadata``). ``hashlib`` (which
loads OpenSSL), ``shutil`` (three compression modules) and ``multiprocessing`` are not needed by
the common commands at all. These tests run the real command in a fresh interpreter and look at
what it imported, so an eager import slipping back in fails here rather than showing up only as
a slower benchmark.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from transcript_support import claude_sessions

#: Runs the CLI, then prints its exit code, which of the watched modules ended up imported and how
#: many objects the command froze out of the garbage collector.
_WRAPPER = """
import json, sys
from lessons_core.cli.main import main
watched = ("structlog", "cattrs", "asyncio", "hashlib", "shutil", "multiprocessing",
           "pickle", "lessons_core.scan.split", "lessons_core.patterns.regex_safety",
           "lessons_core.outcomes.judging", "lessons_core.verdicts.stats",
           "lessons_core.outcomes.transcripts", "lessons_core.repomem.folder",
           "lessons_core.outcomes.loop", "lessons_core.verdicts.records", "importlib.metadata",
           "email")
code = 0
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = 0 if exc.code is None else exc.code
sys.stdout.flush()
print("EXIT=" + json.dumps(code))
print("\\nIMPORTED=" + json.dumps(sorted(m for m in watched if m in sys.modules)))
import gc
print("FROZEN=" + str(gc.get_freeze_count()))
print("COLLECTOR=" + json.dumps([gc.isenabled(), sum(g["collections"] for g in gc.get_stats())]))
"""


@pytest.fixture(name="env")
def fixture_env(tmp_path: Path) -> dict[str, str]:
    """An environment with LESSONS_HOME, LESSONS_STATE_DIR and HOME inside tmp_path."""
    import os

    env = dict(os.environ)
    env["LESSONS_HOME"] = str(tmp_path / "home")
    env["LESSONS_STATE_DIR"] = str(tmp_path / "state")
    env["HOME"] = str(tmp_path)
    return env


#: The libraries the original tests watch; the scan test watches every module in the wrapper.
LIBRARIES = {"structlog", "cattrs", "importlib.metadata", "asyncio"}


def _imported(env: dict[str, str], *args: str) -> list[str]:
    return [name for name in _run(env, *args)[0] if name in LIBRARIES]


def _run(env: dict[str, str], *args: str) -> tuple[list[str], int]:
    """(watched modules imported, objects frozen out of the collector) after one command."""
    imported, frozen, _, _ = _run_all(env, *args)
    return imported, frozen


def _run_all(
    env: dict[str, str], *args: str
) -> tuple[list[str], int, tuple[bool, int], subprocess.CompletedProcess[str]]:
    """Also whether the collector is on at the end, and how many collections it ran; and the
    process itself, for its output (the command's exit code is its ``EXIT=`` line)."""
    proc = subprocess.run(
        [sys.executable, "-c", _WRAPPER, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    marker = [line for line in proc.stdout.splitlines() if line.startswith("IMPORTED=")]
    assert marker, (proc.stdout, proc.stderr)
    imported: list[str] = json.loads(marker[-1].removeprefix("IMPORTED="))
    frozen = [line for line in proc.stdout.splitlines() if line.startswith("FROZEN=")]
    collector = [line for line in proc.stdout.splitlines() if line.startswith("COLLECTOR=")]
    enabled, collections = json.loads(collector[-1].removeprefix("COLLECTOR="))
    return imported, int(frozen[-1].removeprefix("FROZEN=")), (enabled, collections), proc


def test_help_imports_none_of_the_heavy_libraries(env: dict[str, str]) -> None:
    """``lessons --help`` lists commands without importing logging or conversion libraries."""
    assert _imported(env, "--help") == []


def test_list_on_an_empty_store_imports_none_of_them(env: dict[str, str]) -> None:
    """``lessons list`` opens the store and prints; nothing logs, converts or mints an id."""
    assert _imported(env, "list") == []


def test_an_incremental_scan_imports_none_of_them(env: dict[str, str]) -> None:
    """A scan that finds new lines reads, detects and commits with none of the heavy modules
    (its helpers are forked directly, without the multiprocessing machinery), and pays only for
    what it uses: a few new lines are read without forking, triggers checked by the scan before
    are not timed again, the outcome loop with no deliveries is not even imported (nor is
    ``importlib.metadata``: the plugins are listed from a cache), and a check of
    the lesson sources with no repository included opens no folder. The triggers of the new
    lines were accepted by the scan before: not even the safety rules are imported."""
    sessions = claude_sessions(Path(env["HOME"]))
    _run(env, "scan")  # the first command in a fresh home also lists the installed plugins
    for source, copy in sessions:
        with copy.open("ab") as out:
            out.write(source.read_bytes())
    imported, frozen, (enabled, collections), proc = _run_all(env, "scan")
    assert "EXIT=0" in proc.stdout.splitlines(), (proc.stdout, proc.stderr)
    # The new lines were read (every copy had grown), and their mistakes were met again.
    read = re.search(r"Scanned (\d+) of (\d+) transcript\(s\) \(.*?, (\d+) events;", proc.stdout)
    assert read, proc.stdout
    assert int(read[1]) == int(read[2]) == len(sessions)
    assert int(read[3]) > 0
    merged = re.search(r"(\d+) repeat\(s\) merged", proc.stdout)
    assert merged and int(merged[1]) > 0, proc.stdout
    assert imported == []
    assert frozen > 1000  # what the command imported was frozen out of the collector's walks
    # The collector stayed off while the scanner was imported, and is on again for the work.
    assert enabled
    assert collections > 0


def test_the_console_process_freezes_its_heap_on_the_way_out(env: dict[str, str]) -> None:
    assert _run(env, "--version")[1] > 0


def test_settle_heap_leaves_a_host_process_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inside a test runner (or any host importing us) nothing is frozen."""
    import gc

    from lessons_core.cli import common

    monkeypatch.setattr(common, "OWN_PROCESS", False)
    before = gc.get_freeze_count()
    common.settle_heap()
    assert gc.get_freeze_count() == before


def test_the_collector_is_held_off_only_until_the_heap_is_settled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A scan's imports run without the collector; it is on again once they are done (and a
    collector someone else switched off stays off)."""
    import gc

    from lessons_core.cli import common

    monkeypatch.setattr(common, "OWN_PROCESS", True)
    monkeypatch.setattr(gc, "freeze", lambda: None)  # the test runner's heap stays as it is
    assert gc.isenabled()
    try:
        common.hold_collector()
        assert not gc.isenabled()
        common.settle_heap()
        assert gc.isenabled()
        gc.disable()
        common.hold_collector()
        common.settle_heap()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_list_json_needs_cattrs_but_not_structlog(env: dict[str, str]) -> None:
    """JSON output goes through the converter, which is the one import it needs."""
    assert _imported(env, "list", "--json") == ["cattrs"]


def _add_unknown_tool(
    env: dict[str, str], tmp_path: Path, *flags: str
) -> subprocess.CompletedProcess[str]:
    """``lessons [flags] add`` of a lesson whose tool name no adapter knows (a warning)."""
    lesson = tmp_path / "lesson.json"
    lesson.write_text(
        json.dumps(
            {
                "summary": "Frobnicate needs a flag",
                "mistake": "ran frobnicate without the flag",
                "remediation": "pass --flag",
                "triggers": {"toolNames": ["Frobnicate"]},
            }
        ),
        encoding="utf-8",
    )
    proc = subprocess.run(
        [sys.executable, "-m", "lessons_core", *flags, "add", str(lesson)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc


def test_a_warning_reaches_stderr_as_one_human_line(env: dict[str, str], tmp_path: Path) -> None:
    """Lazy logging still emits, and a person reads it: one short line, no JSON."""
    env.pop("LESSONS_LOG", None)
    proc = _add_unknown_tool(env, tmp_path)
    assert proc.stderr.splitlines() == [
        "Warning: unknown tool name (lesson=lesson 1, tool=Frobnicate)"
    ], proc.stderr


@pytest.mark.parametrize(
    ("flags", "value"), [((), "json"), (("-v",), None), (("-v",), "json")], ids=str
)
def test_json_logs_when_asked(
    env: dict[str, str], tmp_path: Path, flags: tuple[str, ...], value: str | None
) -> None:
    """``LESSONS_LOG=json``, or ``-v`` off a terminal, gives one JSON object per line."""
    env.pop("LESSONS_LOG", None)
    if value is not None:
        env["LESSONS_LOG"] = value
    proc = _add_unknown_tool(env, tmp_path, *flags)
    records = [json.loads(line) for line in proc.stderr.splitlines() if line.startswith("{")]
    assert [(r["level"], r["event"], r["tool"]) for r in records] == [
        ("warning", "unknown tool name", "Frobnicate")
    ], proc.stderr
    assert all(line.startswith("{") for line in proc.stderr.splitlines()), proc.stderr


def test_an_unknown_log_format_is_named_and_the_command_runs(
    env: dict[str, str], tmp_path: Path
) -> None:
    """A typo in LESSONS_LOG is said once; the command still runs, with human lines."""
    env["LESSONS_LOG"] = "jsno"
    proc = _add_unknown_tool(env, tmp_path)
    assert proc.stderr.splitlines() == [
        "Warning: LESSONS_LOG='jsno' is not one of json, console, human; logging short human lines",
        "Warning: unknown tool name (lesson=lesson 1, tool=Frobnicate)",
    ], proc.stderr


def test_human_lines_name_the_area_and_the_error() -> None:
    """A dotted event keeps its area as a prefix; an exception shows as type and message."""
    from lessons_core.logs import render_human

    try:
        raise OSError("disk full")
    except OSError:
        line = render_human(
            None, "warning", {"event": "scan.file_error", "path": "a.jsonl", "exc_info": True}
        )
    assert line == "Warning: scan: file error (path=a.jsonl, error=OSError: disk full)"
    assert render_human(None, "exception", {"event": "x"}) == "Error: x"


def test_verbosity_gates_what_is_emitted(monkeypatch: pytest.MonkeyPatch) -> None:
    """WARNING by default, INFO with -v, DEBUG with -vv: the same levels as before."""
    import structlog
    from structlog.testing import capture_logs

    from lessons_core import logs

    monkeypatch.setattr(logs, "_threshold", None)
    monkeypatch.setattr(logs, "_pending", None)
    log = logs.get_logger()
    seen: dict[int, list[str]] = {}
    try:
        for verbosity in (0, 1, 2):
            logs.configure_logging(verbosity)
            with capture_logs() as captured:
                log.debug("d")
                log.info("i")
                log.warning("w")
                log.error("e")
            seen[verbosity] = [entry["event"] for entry in captured]
    finally:
        structlog.reset_defaults()
    assert seen == {0: ["w", "e"], 1: ["i", "w", "e"], 2: ["d", "i", "w", "e"]}


def test_logs_go_to_the_stderr_of_the_moment(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Logging set up while one stderr was in place writes to the one in place when it logs: a
    caller that swapped stderr and closed its own (a test capturing output, a program
    embedding the CLI) leaves no logger bound to a closed file."""
    import io

    from lessons_core import logs

    first = io.StringIO()
    monkeypatch.setattr(sys, "stderr", first)
    logs.configure_logging(fmt="human")
    logs.get_logger().warning("scan.started")  # (structlog is set up on the first line logged)
    assert first.getvalue() == "Warning: scan: started\n"
    first.close()
    second = io.StringIO()
    monkeypatch.setattr(sys, "stderr", second)
    logs.get_logger().warning("scan.file_error", path="a.jsonl")
    assert second.getvalue() == "Warning: scan: file error (path=a.jsonl)\n"
