"""``lessons doctor --repair``: set a broken store aside, start a new one, save what can be read.

A store can break without any fault of ours: a disk that fills up, a sync tool that copies half
a file, a backup restored over it, garbage written by another program. The lessons in it are
the user's own work, so repairing never deletes anything: the broken file (and its ``-wal``
journal, which may hold the last commits) is renamed beside the new store and kept.

Reading what is left works on a scratch copy, never on the kept file:

1. A truncated file still claims its old size in the header (bytes 28-31, the page count), and
   SQLite then refuses every query, the schema included. The copy's count is set to the pages
   that are really there, which makes the surviving pages readable again.
2. The whole ``lessons`` table is read at once; when a damaged page stops that, each row is
   fetched alone by its rowid, so one bad page loses the rows on it and not the rest.

Candidates, scan offsets and delivery records are not carried over: the next ``lessons scan``
reads the transcripts again (candidates come back, deduplicated against the saved lessons).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import struct
import tempfile
import time
from contextlib import closing, suppress
from pathlib import Path

import attrs

from lessons_core.models import Lesson

#: The first bytes of every SQLite database file.
HEADER = b"SQLite format 3\x00"
#: Rowids tried past the last one found before the row-by-row reading gives up.
MISS_LIMIT = 5000


@attrs.frozen
class Salvage:
    """What could be read from a broken store."""

    lessons: tuple[Lesson, ...]
    unreadable: int  # rows seen (or rowids failing) that could not be turned into a lesson
    how: str  # "whole table", "row by row" or "nothing readable"


@attrs.frozen
class Repair:
    """What ``repair`` did."""

    kept: Path
    saved: int
    unreadable: int
    how: str


def check(path: Path) -> str | None:
    """``None`` when the store at ``path`` reads cleanly, else what SQLite says is wrong."""
    if not path.exists():
        return None
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            rows = conn.execute("PRAGMA quick_check").fetchall()
            conn.execute("SELECT count(*) FROM lessons").fetchone()
    except sqlite3.DatabaseError as exc:
        return str(exc)
    result = "; ".join(str(r[0]) for r in rows)
    return None if result == "ok" else result


def _fix_page_count(copy: Path) -> None:
    """Make the header's page count match the pages the (truncated) file really holds."""
    with open(copy, "r+b") as fh:
        head = fh.read(100)
        if len(head) < 100 or not head.startswith(HEADER):
            return
        page_size = struct.unpack(">H", head[16:18])[0]
        page_size = 65536 if page_size == 1 else page_size
        if page_size < 512:
            return
        pages = os.fstat(fh.fileno()).st_size // page_size
        claimed = struct.unpack(">I", head[28:32])[0]
        if pages and claimed > pages:
            fh.seek(28)
            fh.write(struct.pack(">I", pages))


def _to_lesson(row: sqlite3.Row) -> Lesson | None:
    from lessons_core.store.sqlite import _row_to_lesson

    try:
        return _row_to_lesson(row)
    except (KeyError, IndexError, ValueError, TypeError):
        return None


def salvage(path: Path) -> Salvage:
    """The lessons that can still be read from the broken store at ``path`` (left untouched)."""
    with tempfile.TemporaryDirectory(prefix="lessons-repair-") as scratch:
        copy = Path(scratch) / "broken.db"
        shutil.copyfile(path, copy)
        wal = path.with_name(path.name + "-wal")
        if wal.is_file():
            shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
        _fix_page_count(copy)
        try:
            conn = sqlite3.connect(copy)
        except sqlite3.Error:
            return Salvage((), 0, "nothing readable")
        with closing(conn):
            conn.row_factory = sqlite3.Row
            try:
                rows = conn.execute("SELECT * FROM lessons ORDER BY rowid").fetchall()
            except sqlite3.DatabaseError:
                return _row_by_row(conn)
            found = [_to_lesson(r) for r in rows]
            lessons = tuple(lesson for lesson in found if lesson is not None)
            return Salvage(lessons, len(found) - len(lessons), "whole table")


def _row_by_row(conn: sqlite3.Connection) -> Salvage:
    lessons: list[Lesson] = []
    failed: list[int] = []
    rowid, last_hit = 0, 0
    try:
        conn.execute("SELECT 1 FROM lessons LIMIT 0").fetchall()
    except sqlite3.DatabaseError:
        return Salvage((), 0, "nothing readable")
    while rowid - last_hit < MISS_LIMIT:
        rowid += 1
        try:
            row = conn.execute("SELECT * FROM lessons WHERE rowid = ?", (rowid,)).fetchone()
        except sqlite3.DatabaseError:
            failed.append(rowid)
            continue
        if row is None:
            continue
        last_hit = rowid
        lesson = _to_lesson(row)
        if lesson is None:
            failed.append(rowid)
        else:
            lessons.append(lesson)
    # Rowids past the last lesson read fail too (their pages are gone, or they never existed):
    # only those before it are known to be lost rows. The caller compares with the manifest.
    unreadable = sum(1 for r in failed if r < last_hit)
    how = "row by row" if lessons else "nothing readable"
    return Salvage(tuple(lessons), unreadable, how)


def set_aside(path: Path) -> Path:
    """Rename the store (and its journal files) to ``<name>.broken-<time>``; the new name."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    kept = path.with_name(f"{path.name}.broken-{stamp}")
    n = 1
    while kept.exists():
        n += 1
        kept = path.with_name(f"{path.name}.broken-{stamp}-{n}")
    path.rename(kept)
    for suffix in ("-wal", "-shm", "-journal"):
        side = path.with_name(path.name + suffix)
        with suppress(FileNotFoundError):
            side.rename(kept.with_name(kept.name + suffix))
    return kept


def repair(path: Path) -> Repair:
    """Set the broken store at ``path`` aside, create a new one and add what could be read."""
    from lessons_core.store.sqlite import SQLiteStore

    found = salvage(path)
    kept = set_aside(path)
    with SQLiteStore(path) as store:
        if found.lessons:
            store.add_lessons(found.lessons)
    return Repair(kept, len(found.lessons), found.unreadable, found.how)
