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
    assert "- ModuleNotFoundError for requests: the test venv lacks" in decision["context"]
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


def test_once_per_session_and_once_more_at_a_failure(catalogue: Path) -> None:
    """The same lesson is recalled once per session, and once more when its failure comes
    again (the first time was not heeded); never a third time. A new session starts over."""
    first, _ = decide(failure(PYTEST_FAILURE), claims.open_session("sess-a"))
    again, stats = decide(failure(PYTEST_FAILURE), claims.open_session("sess-a"))
    third, _ = decide(failure(PYTEST_FAILURE), claims.open_session("sess-a"))
    other, _ = decide(failure(PYTEST_FAILURE), claims.open_session("sess-b"))
    assert first["delivered"] == ["rc-missing-requests"]
    assert recall.AGAIN_NOTE not in first["context"]
    assert again["delivered"] == ["rc-missing-requests"]
    assert recall.AGAIN_NOTE in again["context"]
    assert stats["again"] == ["rc-missing-requests"]
    assert third["delivered"] == [] and third["context"] is None
    assert other["delivered"] == ["rc-missing-requests"]
    assert recall.AGAIN_NOTE not in other["context"]


def test_a_lesson_given_as_hint_comes_back_once_at_its_failure(catalogue: Path) -> None:
    """A hint claimed earlier in the session was not heeded when its failure follows: it comes
    back once, said to be a repeat; at a prompt it is not repeated at all."""
    session = claims.open_session("sess-h")
    assert session.claim("rc-missing-requests")
    asked, _ = decide(
        prompt("No module named requests: how do I install requests?", "sess-h"), session
    )
    assert "rc-missing-requests" not in asked["delivered"]
    decision, _ = decide(failure(PYTEST_FAILURE), session)
    assert decision["delivered"] == ["rc-missing-requests"]
    assert recall.AGAIN_NOTE in decision["context"]
    later, _ = decide(failure(PYTEST_FAILURE), claims.open_session("sess-h"))
    assert later["delivered"] == []


def _add(home: Path, *lessons: dict[str, Any]) -> None:
    """Store more lessons beside the catalogue and publish again."""
    from lessons_core import serde, services

    with services.open_store() as store:
        store.add_lessons([serde.lesson_from_json(obj) for obj in lessons])
        services.rebuild_manifest(store)
    manifest_mod.clear_cache()


def _edit_lesson(lesson_id: str, summary: str, confidence: float, line: str) -> dict[str, Any]:
    return {
        "id": lesson_id,
        "summary": summary,
        "mistake": "Edit of a block typed from memory.",
        "remediation": f"{summary}, then retry the edit.",
        "errorLines": [line],
        "tags": ["tool:edit"],
        "priority": 5,
        "confidence": confidence,
    }


NOT_FOUND = "String to replace not found in file."


def test_one_lesson_per_error_line(catalogue: Path) -> None:
    """Lessons stored with the same error line are ways out of one error: the best ranked one
    is given, not all; a failure that also shows another lesson's line gets that one too."""
    _add(
        catalogue,
        _edit_lesson("rc-edit-tabs", "Edit: copy the leading tabs", 0.7, NOT_FOUND),
        _edit_lesson("rc-edit-reread", "Edit: read the lines again", 0.9, NOT_FOUND),
        _edit_lesson("rc-edit-long", "Edit: copy long lines whole", 0.8, NOT_FOUND),
    )
    # the way a refused call reads back, with the tool's markup around the line
    refused = f"<tool_use_error>{NOT_FOUND}\nString:     return total</tool_use_error>"
    for error in (NOT_FOUND, refused):
        decision, stats = decide(failure(error, tool="Edit", command=None))
        assert decision["delivered"] == ["rc-edit-reread"], error
        assert stats["recall_found"] == 1
    both, _ = decide(failure(f"{NOT_FOUND}\n{PYTEST_FAILURE}", tool="Edit", command=None))
    assert both["delivered"] == ["rc-edit-reread", "rc-missing-requests"]


def test_a_lesson_found_by_its_summary_is_no_way_out_of_a_line(catalogue: Path) -> None:
    """A lesson with no stored error line, found because the failure covers its summary,
    answers no line of it: it is given beside the line's lesson, not passed over."""
    summary_only = _edit_lesson(
        "rc-collection-summary", "Collection error interrupted: requests module", 0.7, ""
    )
    summary_only["errorLines"] = []
    _add(catalogue, summary_only)
    decision, _ = decide(failure(PYTEST_FAILURE))
    assert decision["delivered"] == ["rc-missing-requests", "rc-collection-summary"]


def test_the_lesson_whose_line_is_written_in_the_failure_is_the_one_given(
    catalogue: Path,
) -> None:
    """Normalized lines hide paths, so lessons about two missing files share one: the lesson
    whose line appears as written in the failure goes first, whatever the rank says."""
    line = "cat: {}: No such file or directory"
    _add(
        catalogue,
        _edit_lesson(
            "rc-where-config", "The config lives in conf/", 0.9, line.format("config/app.yml")
        ),
        _edit_lesson("rc-where-docs", "The docs live in site/", 0.6, line.format("docs/index.md")),
    )
    decision, _ = decide(failure(line.format("docs/index.md"), command="cat docs/index.md"))
    assert decision["delivered"] == ["rc-where-docs"]
    decision, _ = decide(failure(line.format("notes/todo.md"), command="cat notes/todo.md"))
    assert decision["delivered"] == ["rc-where-config"]


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
    assert "Fix: git pull --rebase origin BRANCH" in decision["context"]


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


def test_recall_needs_no_store(catalogue: Path) -> None:
    """The hook reads only the published index: with the store gone, recall is unchanged."""
    before, _ = decide(failure(PYTEST_FAILURE))
    for name in ("lessons.db", "lessons.db-wal", "lessons.db-shm"):
        (catalogue / name).unlink(missing_ok=True)
    decision, stats = decide(failure(PYTEST_FAILURE))
    assert decision == before
    assert decision["delivered"] == ["rc-missing-requests"]
    assert "Fix: Run the tests with .venv/bin/python -m pytest" in decision["context"]
    assert "recall_error" not in stats


def test_missing_index_fails_open_with_fingerprint_hits(catalogue: Path) -> None:
    """Without the index the manifest's fingerprints still recall, with their short text."""
    (catalogue / recall.INDEX_NAME).unlink()
    decision, stats = decide(failure(PYTEST_FAILURE), manifest=recall.load_index())
    assert decision["delivered"] == ["rc-missing-requests"]
    assert "ModuleNotFoundError for requests" in decision["context"]
    assert "FileNotFoundError" in stats["recall_error"]


def test_the_published_index_answers_by_fingerprint(catalogue: Path) -> None:
    """Read from the published index, the stored error line is an exact hit, as from the
    manifest: the index's fingerprint table is not taken for empty."""
    decision, stats = decide(failure(PYTEST_FAILURE), manifest=recall.load_index())
    assert decision["delivered"] == ["rc-missing-requests"]
    assert stats["recall_exact"] == 1
    assert "recall_error" not in stats


def test_an_index_that_fails_mid_search_still_gives_the_exact_hits(
    catalogue: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index opened, then a record could not be read: the fingerprint hits are given with
    the manifest's short texts, read from the full manifest since the index has none."""

    def unreadable(self: Any, lesson_id: str) -> Any:
        raise recall.UnusableIndex("recall index truncated")

    monkeypatch.setattr(recall.RecallIndex, "record", unreadable)
    decision, stats = decide(failure(PYTEST_FAILURE), manifest=recall.load_index())
    assert decision["delivered"] == ["rc-missing-requests"]
    assert "ModuleNotFoundError for requests" in decision["context"]
    assert "truncated" in stats["recall_error"]


def test_the_normalizer_programs_are_taken_only_for_this_interpreter(catalogue: Path) -> None:
    """The compiler's regex programs load for the interpreter they were built for, and are
    refused for another (marshal and ``_sre`` change between versions)."""
    import marshal

    assert recall.load_programs(os.environ) is True
    path = catalogue / recall.PROGRAMS_NAME
    path.write_bytes(marshal.dumps({"python": "py2.7 m0", "programs": {}}))
    assert recall.load_programs(os.environ) is False


class _Counts:
    """An index whose words are found in the given numbers of documents."""

    def __init__(self, docs: dict[str, int]) -> None:
        self.docs = docs

    def term(self, word: str) -> tuple[int] | None:
        return (self.docs[word],) if word in self.docs else None


def test_query_words_are_the_rarest_within_the_document_cap() -> None:
    """Rarest first; past the first two, a word is taken only while the documents the words
    touch stay within the cap; a word found nowhere is dropped."""
    index = _Counts({"common": 1000, "middle": 300, "rare": 5, "mid2": 600})
    assert recall.pick_terms(index, ["common", "middle", "rare", "absent"]) == ["rare", "middle"]
    assert recall.pick_terms(index, ["common", "rare"]) == ["rare", "common"]
    assert recall.pick_terms(index, ["mid2", "middle", "rare"]) == ["rare", "middle", "mid2"]


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"this is not an index\x00" * 200,
        lambda data: data[: len(data) // 2],
        lambda data: data[:200] + bytes(len(data) - 200),
        lambda data: data + b"\x00",
    ],
    ids=["garbage", "truncated", "zeroed", "grown"],
)
def test_damaged_index_fails_open(catalogue: Path, damage: Any) -> None:
    """A damaged index: no exception, the error noted for the log, nothing read from it."""
    path = catalogue / recall.INDEX_NAME
    path.write_bytes(damage(path.read_bytes()))
    decision, stats = decide(failure("npm ERR! ERESOLVE could not resolve peer react"))
    assert stats["recall_error"]
    assert decision["delivered"] == []


def test_stale_index_is_not_read(catalogue: Path) -> None:
    """An index published for another store revision than the manifest's stamp is not read."""
    stamp = catalogue / manifest_mod.STAMP_NAME
    stamp.write_text(f"{int(stamp.read_text()) + 1}\n")
    decision, stats = decide(failure(PYTEST_FAILURE), manifest=recall.load_index())
    assert "stale recall index" in stats["recall_error"]
    assert decision["delivered"] == ["rc-missing-requests"]  # from the manifest's fingerprints
    assert "\n  Fix: " not in decision["context"]  # the short text: the index was not read
    prompted, stats = decide(
        prompt("git push was rejected as non-fast-forward, please push my fix")
    )
    assert prompted["delivered"] == []
    assert "stale recall index" in stats["recall_error"]


def test_locked_store_does_not_slow_recall(catalogue: Path) -> None:
    """A store held exclusively by another process: recall never waits for it."""
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
    assert "recall_error" not in stats
    assert elapsed < 2.0
    assert decision["delivered"] == ["rc-missing-requests"]


def test_recall_never_writes_to_the_store(catalogue: Path) -> None:
    """The store is opened read-only: its bytes are unchanged by recall."""
    db = catalogue / "lessons.db"
    before = db.read_bytes()
    decide(failure(PYTEST_FAILURE))
    decide(prompt("git push was rejected as non-fast-forward, please push my fix"))
    assert db.read_bytes() == before


def test_recall_without_pread(catalogue: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where ``os.pread`` is missing (Windows) a seek and a read give the same answer."""
    before, _ = decide(failure(PYTEST_FAILURE))
    monkeypatch.setattr(recall, "_PREAD", recall._pread)
    after, stats = decide(failure(PYTEST_FAILURE), state=None)
    assert "recall_error" not in stats
    assert after == before


def _scoped(lesson_id: str, directory: Path) -> None:
    """Limit a stored lesson to ``directory``'s project, as ``lessons rescope`` does."""
    import attrs

    from lessons_core import services
    from lessons_core.hot.project import project_id

    directory.mkdir(parents=True, exist_ok=True)
    with services.open_store() as store:
        (lesson,) = [item for item in store.list_lessons() if item.id == lesson_id]
        store.update_lesson(attrs.evolve(lesson, scope=project_id(str(directory))))
        services.rebuild_manifest(store)
    manifest_mod.clear_cache()


def test_a_scoped_lesson_is_recalled_in_its_project_only(catalogue: Path, tmp_path: Path) -> None:
    """Recall keeps to a lesson's scope as the triggers do: the error text of another project
    that looks alike does not bring back a fact of this one (a teammate's, a repository's)."""
    mine, other = tmp_path / "acme", tmp_path / "elsewhere"
    _scoped("rc-missing-requests", mine)
    other.mkdir()
    here, _ = decide(failure(PYTEST_FAILURE, cwd=str(mine)))
    assert here["delivered"][:1] == ["rc-missing-requests"]
    there, _ = decide(failure(PYTEST_FAILURE, cwd=str(other), session="sess-2"))
    assert "rc-missing-requests" not in there.get("delivered", [])
    # a call whose project cannot be told is no project's
    nowhere, _ = decide(failure(PYTEST_FAILURE, cwd=None, session="sess-3"))
    assert "rc-missing-requests" not in nowhere.get("delivered", [])


def test_without_the_index_a_scoped_fingerprint_hit_keeps_to_its_project(
    catalogue: Path, tmp_path: Path
) -> None:
    """The manifest's fingerprints, all recall has when the index is gone, keep to scope too."""
    mine, other = tmp_path / "acme", tmp_path / "elsewhere"
    _scoped("rc-missing-requests", mine)
    other.mkdir()
    (catalogue / recall.INDEX_NAME).unlink()
    index = recall.load_index()
    here, _ = decide(failure(PYTEST_FAILURE, cwd=str(mine)), manifest=index)
    assert here["delivered"] == ["rc-missing-requests"]
    there, stats = decide(failure(PYTEST_FAILURE, cwd=str(other), session="s-2"), manifest=index)
    assert "rc-missing-requests" not in there.get("delivered", [])
    assert "FileNotFoundError" in stats["recall_error"]
