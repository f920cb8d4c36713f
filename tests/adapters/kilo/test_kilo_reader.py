"""Reading Kilo CLI's session database: the rows of real Kilo CLI 7.7 sessions
(``session_rows.json``), where its sessions live, and which files are its."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

from test_kilo_adapter_contract import load_database

from lessons_core.scan import events as ev
from lessons_kilo import reader, roots
from lessons_opencode import roots as opencode_roots


def test_events_are_kilos_with_canonical_tools_failures_and_text(tmp_path):
    events = list(reader.read(load_database(tmp_path / "kilo.db")))
    assert {e.agent for e in events} == {"kilo"}
    calls = [e for e in events if e.kind == ev.TOOL_CALL]
    assert [(c.tool, c.native_tool) for c in calls] == [
        ("Bash", "bash"),
        ("Bash", "bash"),
        ("Read", "read"),
    ]
    results = [e for e in events if e.kind == ev.TOOL_RESULT]
    assert [(r.failure, r.exit_code) for r in results] == [
        (None, 0),
        (ev.ERROR, 3),
        (ev.ERROR, None),
    ]
    assert "File not found" in (results[-1].text or "")
    lesson = [e for e in events if e.kind == ev.ASSISTANT_TEXT and "#lesson" in (e.text or "")]
    assert len(lesson) == 1 and "KILO-SCAN-1" in (lesson[0].text or "")
    assert {e.project for e in events} == {"/home/dev/shop"}


def test_a_second_read_resumes_after_the_last_part(tmp_path):
    database = load_database(tmp_path / "kilo.db")
    progress = ev.Progress(0)
    first = list(reader.read(database, progress=progress))
    assert first and progress.line > 0
    assert list(reader.read(database, progress=progress)) == []


def test_a_database_that_is_not_kilos_yields_nothing(tmp_path):
    other = tmp_path / "kilo-other.db"
    with closing(sqlite3.connect(other)) as db, db:
        db.execute("CREATE TABLE notes (body text)")
    assert list(reader.read(other)) == []


def test_roots_follow_xdg_and_kilo_db(tmp_path):
    env = {"HOME": str(tmp_path), "KILO_DB": str(tmp_path / "elsewhere" / "kilo.db")}
    assert roots.transcript_roots(env) == [
        tmp_path / ".local" / "share" / "kilo",
        tmp_path / "elsewhere",
    ]
    xdg = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "xdg")}
    assert roots.transcript_roots(xdg) == [tmp_path / "xdg" / "kilo"]


def test_kilos_database_is_told_from_opencodes(tmp_path):
    kilo = load_database(tmp_path / "kilo.db")
    assert roots.is_transcript(str(kilo)) and not opencode_roots.is_transcript(str(kilo))
    assert roots.recognize(kilo, None) > opencode_roots.recognize(kilo, None)
    opencode = tmp_path / "opencode.db"
    kilo.rename(opencode)
    head = opencode.read_bytes()[:8192]
    assert roots.recognize(opencode, None) == 0
    assert roots.recognize(opencode, head) < opencode_roots.recognize(opencode, head)
    assert roots.recognize(tmp_path / "notes.json", json.dumps({"a": 1}).encode()) == 0


def test_kilos_own_table_tells_an_unnamed_database(tmp_path):
    """An unnamed copy of Kilo's database: its ``kilo_board`` table wins over OpenCode's claim."""
    copy = load_database(tmp_path / "sessions.db")
    with closing(sqlite3.connect(copy)) as db, db:
        db.execute("CREATE TABLE `kilo_board` (`id` text PRIMARY KEY)")
    head = copy.read_bytes()[:8192]
    assert roots.recognize(copy, head) > opencode_roots.recognize(copy, head)
