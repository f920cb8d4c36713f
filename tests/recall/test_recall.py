"""Failure-time and prompt-time recall in-process, on our own fixture catalogue."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from lessons_core.hot import claims, recall, runner
from lessons_core.hot import manifest as manifest_mod

PYTEST_FAILURE = (
    "Exit code 1\n"
    "==================================== ERRORS ====================================\n"
    "_____________________ ERROR collecting tests/test_client.py _____________________\n"
    "ImportError while importing test module '/srv/dev/acme/tests/test_client.py'.\n"
    "tests/test_client.py:2: in <module>\n    import requests\n"
    "E   ModuleNotFoundError: No module named 'requests'\n"
    "=========================== short test summary info ============================\n"
    "ERROR tests/test_client.py\n!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!\n"
)


def failure(error: str, session: str = "sess-1", **extra: Any) -> dict[str, Any]:
    event = {
        "agent": "claude",
        "event": "post_failure",
        "session_id": session,
        "cwd": "/srv/dev/acme",
        "tool": "Bash",
        "command": "pytest -q",
        "paths": [],
        "error": error,
    }
    event.update(extra)
    return event


def prompt(text: str, session: str = "sess-1") -> dict[str, Any]:
    return {"agent": "claude", "event": "prompt", "session_id": session, "prompt": text}


def decide(event: dict[str, Any], state: Any = None, manifest: Any = None) -> tuple[dict, dict]:
    stats: dict[str, Any] = {}
    manifest = manifest if manifest is not None else manifest_mod.load()
    wrapped = runner._Fixed(state) if state is not None else None
    decision = recall.handle(event, manifest, wrapped, os.environ, stats)
    return decision, stats


def test_exact_fingerprint_finds_the_lesson(catalogue: Path) -> None:
    """The stored error line, seen again with other paths and numbers, is an exact hit."""
    decision, stats = decide(failure(PYTEST_FAILURE))
    assert decision["delivered"][0] == "rc-missing-requests"
    assert stats["recall_exact"] == 1
    assert "Fix: Run the tests with .venv/bin/python -m pytest" in decision["context"]
    assert decision["context"].startswith(recall.FAILURE_HEADER)
    assert "injected=rc-missing-requests" in decision["trailer"]


def test_manifest_carries_error_fingerprints(catalogue: Path) -> None:
    """The compiler indexes every lesson's error lines by the hot path's fingerprint."""
    manifest = manifest_mod.load()
    index = manifest["errorFingerprints"]
    assert ["rc-git-non-fast-forward"] in index.values()
    assert sum(1 for ids in index.values() if ids == ["rc-npm-eresolve"]) == 2
    # the low-confidence lesson is below the build floor, so it is not indexed
    assert all("rc-low-confidence" not in ids for ids in index.values())


def test_full_text_search_ranks_the_right_lesson_first(catalogue: Path) -> None:
    """Without an exact line, the words of the error find the lesson (BM25 order)."""
    text = (
        "To github.com:acme/api.git\n ! [remote rejected] main -> main (fetch first)\n"
        "hint: Updates were rejected because the remote contains work that you do not have; "
        "non-fast-forward push refused\n"
    )
    decision, stats = decide(failure(text, command="git push origin main"))
    assert stats["recall_exact"] == 0
    assert decision["delivered"][:1] == ["rc-git-non-fast-forward"]


def test_alembic_wording_finds_the_alembic_lesson(catalogue: Path) -> None:
    """Another catalogue entry, found by its words from different output."""
    text = "alembic.util.exc.CommandError: Multiple head revisions are present; merge heads first"
    decision, _ = decide(failure(text, command="alembic upgrade head"))
    assert decision["delivered"] == ["rc-alembic-heads"]


def test_unrelated_failure_recalls_nothing(catalogue: Path) -> None:
    """Sharing one common word with a lesson is not a match: silence."""
    text = "Segmentation fault (core dumped) in libvips while resizing thumbnails"
    decision, stats = decide(failure(text, command="./resize"))
    assert decision["delivered"] == []
    assert decision["context"] is None
    assert stats["recall_found"] == 0


def test_low_confidence_lessons_stay_silent(catalogue: Path) -> None:
    """Lessons below the configured confidence floor are not recalled either."""
    text = "TypeError: unsupported operand type(s) for +: 'decimal.Decimal' and 'float'"
    decision, _ = decide(failure(text, command="python billing.py"))
    assert "rc-low-confidence" not in decision["delivered"]


def test_once_per_session(catalogue: Path) -> None:
    """The same lesson is recalled once per session, again in a new session."""
    first, _ = decide(failure(PYTEST_FAILURE), claims.open_session("sess-a"))
    again, _ = decide(failure(PYTEST_FAILURE), claims.open_session("sess-a"))
    other, _ = decide(failure(PYTEST_FAILURE), claims.open_session("sess-b"))
    assert first["delivered"] == ["rc-missing-requests"]
    assert again["delivered"] == [] and again["context"] is None
    assert other["delivered"] == ["rc-missing-requests"]


def test_a_lesson_already_given_as_hint_is_not_repeated(catalogue: Path) -> None:
    """A hint claimed earlier in the session means the model has it already."""
    session = claims.open_session("sess-h")
    assert session.claim("rc-missing-requests")
    decision, _ = decide(failure(PYTEST_FAILURE), session)
    assert decision["delivered"] == []


@pytest.mark.parametrize(
    ("error", "extra"),
    [
        (PYTEST_FAILURE, {"interrupted": True}),
        ("The user doesn't want to proceed with this tool use. ModuleNotFoundError requests", {}),
        ("Permission to use Bash has been denied. No module named 'requests'", {}),
        (PYTEST_FAILURE, {"command": "lessons scan --json"}),
        (PYTEST_FAILURE, {"command": "echo '{}' | lessons-claude-hook"}),
        ("", {}),
    ],
    ids=["interrupt", "rejected", "denied", "own-cli", "own-hook", "empty"],
)
def test_ignored_failures(catalogue: Path, error: str, extra: dict[str, Any]) -> None:
    """Interrupts, decisions and our own commands' failures recall nothing."""
    decision, _ = decide(failure(error, **extra))
    assert decision["delivered"] == []


def test_recall_budget_is_a_hard_cap(catalogue: Path) -> None:
    """Everything delivered, header included, fits ``recallBudgetBytes``."""
    manifest = json.loads(json.dumps(manifest_mod.load()))
    manifest["config"]["recallBudgetBytes"] = 200
    text = PYTEST_FAILURE + "\nnpm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve"
    decision, _ = decide(failure(text), manifest=manifest)
    assert decision["delivered"]
    assert len(decision["context"].encode("utf-8")) <= 200
    big = json.loads(json.dumps(manifest))
    big["config"]["recallBudgetBytes"] = 100_000  # above the 2 KB ceiling
    decision, _ = decide(failure(text), manifest=big)
    assert len(decision["context"].encode("utf-8")) <= recall.MAX_BUDGET


def test_prompt_recall_matches_clearly_related_prompts(catalogue: Path) -> None:
    """A prompt about a lesson's subject brings it back before work starts."""
    decision, _ = decide(prompt("git push was rejected as non-fast-forward, please push my fix"))
    assert decision["delivered"] == ["rc-git-non-fast-forward"]
    assert decision["context"].startswith(recall.PROMPT_HEADER)


@pytest.mark.parametrize(
    "text",
    [
        "fix it",
        "/review the docker socket permission denied problem",
        "please tidy up the README wording and the changelog",
        "the docker build is slow, can you speed it up a bit",
    ],
    ids=["short", "slash-command", "unrelated", "one-shared-word"],
)
def test_prompt_recall_is_silent_on_a_miss(catalogue: Path, text: str) -> None:
    """Short prompts, slash commands and loose matches get nothing."""
    decision, _ = decide(prompt(text))
    assert decision["delivered"] == []
    assert decision["context"] is None


def test_missing_store_fails_open_with_fingerprint_hits(catalogue: Path) -> None:
    """Without the store the manifest's fingerprints still recall, with its short text."""
    (catalogue / "lessons.db").unlink()
    decision, stats = decide(failure(PYTEST_FAILURE))
    assert decision["delivered"] == ["rc-missing-requests"]
    assert "ModuleNotFoundError for requests" in decision["context"]
    assert "no store" in stats["recall_error"]


def test_corrupt_store_fails_open(catalogue: Path) -> None:
    """A store that is not a database: no exception, the error noted for the log."""
    for name in ("lessons.db", "lessons.db-wal", "lessons.db-shm"):
        (catalogue / name).unlink(missing_ok=True)
    (catalogue / "lessons.db").write_bytes(b"this is not sqlite\x00" * 200)
    decision, stats = decide(failure("npm ERR! ERESOLVE could not resolve peer react"))
    assert "DatabaseError" in stats["recall_error"]
    assert decision["delivered"] == []


def test_locked_store_fails_open_quickly(catalogue: Path) -> None:
    """A store held exclusively by another process: recall gives up within its busy timeout."""
    holder = sqlite3.connect(catalogue / "lessons.db", isolation_level=None)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("UPDATE meta SET value = value WHERE key = 'revision'")
    try:
        started = time.perf_counter()
        decision, stats = decide(failure(PYTEST_FAILURE))
        elapsed = time.perf_counter() - started
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert "locked" in stats["recall_error"] or "busy" in stats["recall_error"]
    assert elapsed < 2.0
    assert decision["delivered"] == ["rc-missing-requests"]  # from the manifest's fingerprints


def test_recall_never_writes_to_the_store(catalogue: Path) -> None:
    """The store is opened read-only: its bytes are unchanged by recall."""
    db = catalogue / "lessons.db"
    before = db.read_bytes()
    decide(failure(PYTEST_FAILURE))
    decide(prompt("git push was rejected as non-fast-forward, please push my fix"))
    assert db.read_bytes() == before
