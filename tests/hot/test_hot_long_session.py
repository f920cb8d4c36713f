"""Units of the long-session hot modules: notes, executables, thresholds, handoff text."""

from __future__ import annotations

import os
import time

import pytest

from lessons_core.hot import claims, directives, handoff, reminders


def test_notes_are_written_whole_read_back_and_wiped(state_dir):
    state = claims.open_session("notes")
    assert state.read_note("fails") is None
    state.write_note("fails", {"pnpm": {"error": "ERR", "tries": 0}})
    assert claims.open_session("notes").read_note("fails") == {"pnpm": {"error": "ERR", "tries": 0}}
    assert (os.stat(state.note_path("fails")).st_mode & 0o777) == 0o600
    state.wipe()
    assert state.read_note("fails") is None


def test_a_planted_link_is_replaced_not_followed(state_dir, tmp_path):
    target = tmp_path / "victim.txt"
    target.write_text("keep")
    state = claims.open_session("link")
    os.symlink(target, state.note_path("handoff"))
    assert state.read_note("handoff") is None  # never read through the link
    state.write_note("handoff", {"stamp": 1})
    assert target.read_text() == "keep"
    assert not os.path.islink(state.note_path("handoff"))


def test_old_notes_are_pruned(state_dir):
    state = claims.open_session("old")
    state.write_note("handoff", {"stamp": 1})
    old = time.time() - claims.PRUNE_AFTER_SECONDS - 10
    os.utime(state.note_path("handoff"), (old, old))
    assert claims.prune(str(state_dir)) == 1
    assert not os.path.exists(state.note_path("handoff"))


def test_names_keep_the_delivery_order(state_dir):
    state = claims.open_session("order")
    for name in ("B", "A", "recall:C"):
        state.claim(name)
    assert state.names() == ["B", "A", "recall:C"]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("pnpm build", "pnpm"),
        ("FOO=1 BAR=2 /usr/local/bin/docker compose up", "docker"),
        ("python -m pytest -q tests", "pytest"),
        ("python3 script.py", "python3"),
        ("sudo alembic upgrade head", "alembic"),
        ("uv run ruff check .", "ruff"),
        ("npx vitest run", "vitest"),
    ],
)
def test_executable(command, expected):
    assert reminders.executable(command) == expected


def test_thresholds_ignore_junk_and_sort():
    manifest = {"config": {"directiveReinjectThresholds": [900, "x", True, -1, 100]}}
    assert directives.thresholds(manifest) == [100, 900]
    assert directives.thresholds({"config": {}}) == []


def test_handoff_text_stays_within_its_budget():
    note = {
        "stamp": 5,
        "failures": [{"subject": "make", "command": "make all", "error": "E" * 500}],
        "recalled": [["R1", "recalled fix text"]],
        "delivered": [[f"L{i}", "lesson text " * 5] for i in range(12)],
    }
    lines = handoff.render(note)
    assert lines[0].startswith("- still failing: `make all`")
    assert all(len(line.encode()) <= handoff.ITEM_BYTES for line in lines)

    class Session:
        def __init__(self):
            self.claimed = set()

        def read_note(self, kind):
            return note

        def claim(self, name):
            if name in self.claimed:
                return False
            self.claimed.add(name)
            return True

        def drop_note(self, kind):
            pass

    session, stats = Session(), {}
    text = handoff.take(session, 600, stats)
    assert text is not None and len(text.encode()) <= 600
    assert stats["handoff_cut"] is True
    assert handoff.take(session, 600, {}) is None  # once per compaction


def test_lazy_state_finds_a_note_without_opening_the_state(state_dir):
    """``has_note`` names the file exactly as the dedup record does (sub-agents included)."""
    from lessons_core.hot import runner

    for event in (
        {"event": "pre_tool", "session_id": "sess-1"},
        {"event": "pre_tool", "session_id": "sess-1", "agent_id": "a-9"},
    ):
        lazy = runner.LazyState(event, dict(os.environ), {})
        assert lazy.has_note("fails") is False
        claims.open_session(runner.session_key_of(event)).write_note("fails", {})
        assert lazy.has_note("fails") is True
        assert lazy._state is False  # still unopened
        assert lazy.get() is not None and lazy.has_note("fails") is True
