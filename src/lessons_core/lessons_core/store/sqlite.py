"""The default store: one SQLite file (``lessons.db`` in ``LESSONS_HOME``), stdlib ``sqlite3``.

Why these settings:

* **WAL** lets the hook process (recall) and the CLI read while a scan writes.
* **``BEGIN IMMEDIATE``** for every write takes the write lock up front, so two writers queue
  on ``busy_timeout`` instead of both starting as readers and one failing with "database is
  locked" when it upgrades (a deferred transaction cannot wait for that).
* **``busy_timeout``** (10 s by default) is how long a writer waits for another; only past it
  does a :class:`StoreError` reach the user.
* The connection runs in autocommit mode (``isolation_level=None``) so that *we* say where a
  transaction begins and ends; the stdlib's implicit transactions would otherwise begin
  deferred ones behind our back.

Rows map to model objects by hand (a few dict look-ups per row): cattrs would be the natural tool
at an I/O boundary, but listing every lesson happens on every manifest build and scan, and the
mapping is short enough to keep in view.

Every lesson and candidate is passed through :mod:`lessons_core.privacy` on its way in (add,
update, merge): whatever path wrote it — scan, ``lessons add``, import, a plugin — no secret is
stored, and so none reaches the manifest, which is compiled from the store.
"""

# SQL text here is built only from the module's own column and table names; values are always
# bound parameters.
# ruff: noqa: S608

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from lessons_core.errors import LessonsError, NotFound, StoreError
from lessons_core.hot.digest import hex_sha256
from lessons_core.ids import make_slug as new_slug
from lessons_core.ids import new_id
from lessons_core.logs import get_logger
from lessons_core.models import (
    Candidate,
    Lesson,
    Status,
    add_sightings,
    content_hash,
)
from lessons_core.store import migrations
from lessons_core.store import rows as row_map
from lessons_core.store.rows import union

if TYPE_CHECKING:
    from lessons_core.store.recall_index import RecallDocument

log = get_logger()

DEFAULT_BUSY_TIMEOUT = 10.0

_LESSON_COLUMNS = (*row_map.LESSON_COLUMNS, *row_map.COUNT_COLUMNS)
_LESSON_SELECT = f"SELECT {', '.join(_LESSON_COLUMNS)} FROM lessons"
_LESSON_INSERT = (
    f"INSERT INTO lessons ({', '.join(_LESSON_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in _LESSON_COLUMNS)})"
)
_LESSON_UPDATE = (
    "UPDATE lessons SET "
    + ", ".join(f"{c} = ?" for c in _LESSON_COLUMNS if c != "id")
    + " WHERE id = ?"
)

_CANDIDATE_COLUMNS = row_map.CANDIDATE_COLUMNS
_CANDIDATE_SELECT = f"SELECT {', '.join(_CANDIDATE_COLUMNS)} FROM candidates"
_CANDIDATE_INSERT = (
    f"INSERT INTO candidates ({', '.join(_CANDIDATE_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in _CANDIDATE_COLUMNS)})"
)
_CANDIDATE_UPDATE = (
    "UPDATE candidates SET "
    + ", ".join(f"{c} = ?" for c in _CANDIDATE_COLUMNS if c != "id")
    + " WHERE id = ?"
)


#: Sorts after every character a key can hold: ``prefix + _MAX_CHAR`` bounds a prefix range.
_MAX_CHAR = "\U0010ffff"
_SCAN_COLUMNS = ("offset", "size", "mtime_ns", "inode")


def utc_now() -> str:
    """ISO-8601 UTC with milliseconds and a ``Z``: sorts as text, parses everywhere."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _norm(text: str | None) -> str:
    return " ".join((text or "").split()).lower()


def candidate_key(candidate: Candidate) -> str:
    """What makes two candidates "the same finding": tier, agent, tool and the normalized text.

    Evidence, confidence and ids are left out, so the same mistake found again in another session
    merges into the pending candidate instead of queuing a second one for review.
    """
    parts = [
        str(candidate.tier),
        candidate.agent,
        candidate.tool or "",
        _norm(candidate.trigger),
        _norm(candidate.mistake),
        _norm(candidate.fix),
    ]
    return hex_sha256("\x1f".join(parts).encode())[:32]


# -- row mapping ------------------------------------------------------------------------------


def _redacted_lesson(lesson: Lesson) -> Lesson:
    # Imported on the first write: reading commands (``lessons list``) never need it.
    from lessons_core.privacy import redact_lesson

    return redact_lesson(lesson)


def _redacted_candidate(candidate: Candidate) -> Candidate:
    from lessons_core.privacy import redact_candidate

    return redact_candidate(candidate)


def _lesson_params(lesson: Lesson, digest: str) -> tuple[Any, ...]:
    values = row_map.lesson_values(lesson, digest, _dumps)
    return tuple(values[column] for column in _LESSON_COLUMNS)


def _row_to_lesson(row: sqlite3.Row) -> Lesson:
    return row_map.lesson_from_row(row, json.loads)


def _candidate_params(candidate: Candidate, key: str) -> tuple[Any, ...]:
    return tuple(row_map.candidate_params(candidate, key, _dumps))


def _row_to_candidate(row: sqlite3.Row) -> Candidate:
    return row_map.candidate_from_row(row, json.loads)


#: The documents recall publishes (:meth:`SQLiteStore.recall_documents`): every lesson, in the
#: full-text index's row order when there is one (the order FTS5 keeps for equal BM25 scores).
_RECALL_COLUMNS = (
    "l.id, l.slug, l.summary, l.mistake, l.remediation, l.error_lines, l.status, l.confidence, "
    "l.scope"
)
_RECALL_FTS_ORDER = (
    f"SELECT {_RECALL_COLUMNS} FROM lessons_fts f JOIN lessons l ON l.id = f.lesson_id "
    "ORDER BY f.rowid"
)
_RECALL_TABLE_ORDER = f"SELECT {_RECALL_COLUMNS} FROM lessons l ORDER BY l.rowid"


def _fts_query(text: str) -> str:
    """Turn free text (an error message, a prompt) into an FTS5 OR-query of quoted words.

    Quoting every token keeps FTS5 syntax characters in error output (``:``, ``-``, ``*``,
    parentheses) from being parsed as operators.
    """
    words = dict.fromkeys(w for w in re.findall(r"\w+", text.lower()) if len(w) > 1)
    return " OR ".join(f'"{w}"' for w in list(words)[:64])


#: Attempts, and the first pause in seconds (doubled each time), for switching on WAL.
_WAL_ATTEMPTS = 8
_WAL_FIRST_PAUSE = 0.01


def _set_wal(conn: sqlite3.Connection) -> Any:
    """``PRAGMA journal_mode = WAL``, retried a few times while another process holds the file.

    Changing the journal mode of a brand-new file needs an exclusive lock, and SQLite does not
    apply ``busy_timeout`` to it: two processes opening a fresh store at the same instant can
    see "database is locked" right away. The other process finishes within milliseconds, so a
    short bounded retry (about 2.5 s in all) is enough; past it the error goes to the caller.
    """
    pause = _WAL_FIRST_PAUSE
    for attempt in range(_WAL_ATTEMPTS):
        try:
            return conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        except sqlite3.OperationalError as exc:
            text = str(exc)
            if attempt == _WAL_ATTEMPTS - 1 or ("locked" not in text and "busy" not in text):
                raise
        time.sleep(pause)
        pause *= 2
    raise AssertionError("unreachable")  # pragma: no cover


#: Files SQLite keeps beside the store; it creates them with the store's own permissions.
SIDECARS = ("-wal", "-shm", "-journal")


def make_private(path: Path) -> None:
    """Create the store 0600 before SQLite does, or tighten an existing one of ours to 0600.

    SQLite creates the database with the process umask (0644 under the usual 022) and gives its
    ``-wal`` and ``-shm`` files the database's own mode, so an empty file created 0600 here
    (``O_EXCL``, never through a link) makes all three private. The lessons hold the user's
    mistakes, commands and paths: nobody else on the machine should read them.
    """
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | nofollow, 0o600)
    except FileExistsError:
        for name in (path, *(path.with_name(path.name + suffix) for suffix in SIDECARS)):
            _tighten(name)
        return
    except OSError:
        return  # a missing directory and the like: SQLite reports it in its own words
    os.close(fd)


def _tighten(path: Path) -> None:
    try:
        st = path.stat()
    except OSError:
        return
    ours = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    if ours and path.is_file() and st.st_mode & 0o077:
        with suppress(OSError):
            path.chmod(st.st_mode & 0o700)


def _refuse_emptied(path: Path) -> None:
    """Refuse an empty store file beside a manifest compiled from a store with lessons.

    SQLite takes an empty file for a new database, so a store truncated to nothing would
    otherwise open as an empty one, and the next rebuild would empty the manifest too.
    """
    from lessons_core.hot.paths import MANIFEST_NAME

    try:
        if path.stat().st_size != 0:
            return
        wal = path.with_name(path.name + "-wal")
        if wal.exists() and wal.stat().st_size != 0:
            return
        manifest = json.loads((path.parent / MANIFEST_NAME).read_text(encoding="utf-8"))
        count = len(manifest["lessons"])
        revision = int(manifest.get("storeRevision") or 0)
    except (OSError, ValueError, KeyError, TypeError):
        return
    if count and revision:
        raise StoreError(
            f"the lessons store {path} is empty, but {MANIFEST_NAME} beside it holds {count} "
            f"lesson(s) compiled from it: the store was truncated or replaced. Run `lessons "
            "doctor --repair` to keep it aside and start a new store (then `lessons import` "
            "an export, if you have one)"
        )


def _read_only(path: Path) -> Path | None:
    """The store file or its directory when this process may not write it, else ``None``."""
    if path.exists() and not os.access(path, os.W_OK):
        return path
    if path.parent.is_dir() and not os.access(path.parent, os.W_OK | os.X_OK):
        return path.parent
    return None


class SQLiteStore:
    """The :class:`~lessons_core.store.base.Store` protocol over one SQLite file.

    One connection per instance. Transactions hold an internal lock, so threads may share an
    instance, but every process opens its own. Use it as a context manager or call
    :meth:`close`.
    """

    name = "sqlite"

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = DEFAULT_BUSY_TIMEOUT):
        self.path = Path(path)
        self._depth = 0
        self._lock = threading.RLock()
        self._conn = self._connect(busy_timeout)
        try:
            self.schema_version = migrations.migrate(self._conn, self.path)
            self.fts = self._meta("fts") == "1"
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise self._error(exc, "open") from exc
        except BaseException:
            self._conn.close()
            raise

    # -- connection ------------------------------------------------------------------------

    def _connect(self, busy_timeout: float) -> sqlite3.Connection:
        if self.path.is_dir():
            raise StoreError(f"{self.path} is a directory, not a lessons store")
        _refuse_emptied(self.path)
        make_private(self.path)
        try:
            conn = sqlite3.connect(
                self.path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise self._error(exc, "open") from exc
        conn.row_factory = sqlite3.Row
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000):d}")
            # Reading the schema version first makes a non-database file fail here, clearly,
            # and refuses a newer store before anything (even the journal mode) is changed.
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if version > migrations.LATEST:
                conn.close()
                raise migrations.newer_schema_error(version, self.path)
            mode = _set_wal(conn)
            if str(mode).lower() != "wal":
                log.warning("store.no_wal", path=str(self.path), journal_mode=mode)
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise self._error(exc, "open") from exc
        return conn

    def _error(self, exc: sqlite3.Error, doing: str) -> StoreError:
        text = str(exc)
        blocked = _read_only(self.path)
        if blocked is not None and ("readonly" in text or "unable to open" in text):
            what = (
                f"the lessons store {self.path} is read-only"
                if blocked == self.path
                else f"{blocked} is read-only, so the lessons store {self.path} cannot be written"
            )
            return StoreError(
                f"{what} ({text}); make it writable (chmod u+w {blocked}) or set LESSONS_HOME "
                "to a writable directory"
            )
        if "not a database" in text or "malformed" in text or "corrupt" in text:
            return StoreError(
                f"the lessons store {self.path} is corrupt or not a SQLite database ({text}); "
                "run `lessons doctor --repair` to keep it aside, start a new store and save "
                "the lessons that can still be read"
            )
        if "locked" in text or "busy" in text:
            return StoreError(
                f"the lessons store {self.path} stayed locked by another process while trying "
                f"to {doing} ({text}); try again"
            )
        return StoreError(f"the lessons store {self.path} failed to {doing}: {text}")

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> SQLiteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[SQLiteStore]:
        """One atomic write unit; nested uses join the outer transaction."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self
                finally:
                    self._depth -= 1
                return
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise self._error(exc, "begin a write") from exc
            self._depth = 1
            try:
                yield self
            except BaseException:
                self._depth = 0
                self._conn.execute("ROLLBACK")
                raise
            self._depth = 0
            try:
                self._conn.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                self._conn.execute("ROLLBACK")
                raise self._error(exc, "commit") from exc

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._error(exc, "read") from exc

    def _meta(self, key: str) -> str | None:
        rows = self._read("SELECT value FROM meta WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    # -- lessons ---------------------------------------------------------------------------

    def add_lessons(self, lessons: Iterable[Lesson]) -> list[Lesson]:
        """Insert lessons; one whose content hash is stored already merges into that row.

        Missing ids, slugs and timestamps are assigned here. A merge adds the occurrences,
        unions sessions and projects, keeps the higher confidence and refreshes ``updated_at``.
        """
        out: list[Lesson] = []
        with self.transaction():
            for lesson in lessons:
                out.append(self._add_one(lesson))
        return out

    def _add_one(self, lesson: Lesson) -> Lesson:
        lesson = _redacted_lesson(lesson)
        digest = content_hash(lesson)
        now = utc_now()
        existing = self.find_by_hash(digest)
        if existing is not None:
            merged = attrs.evolve(
                existing,
                confidence=max(existing.confidence, lesson.confidence),
                provenance=attrs.evolve(
                    existing.provenance,
                    sessions=union(existing.provenance.sessions, lesson.provenance.sessions),
                    projects=union(existing.provenance.projects, lesson.provenance.projects),
                    occurrences=existing.provenance.occurrences + lesson.provenance.occurrences,
                    evidence=add_sightings(
                        existing.provenance.evidence, lesson.provenance.evidence
                    ),
                ),
                error_lines=union(existing.error_lines, lesson.error_lines),
                tags=union(existing.tags, lesson.tags),
                updated_at=now,
            )
            self._execute(_LESSON_UPDATE, (*_lesson_params(merged, digest)[1:], merged.id))
            log.debug("store.lesson_merged", id=merged.id, hash=digest)
            return merged
        lesson_id = lesson.id or new_id()
        if lesson.id and self._read("SELECT 1 FROM lessons WHERE id = ?", (lesson_id,)):
            raise LessonsError(
                f"a different lesson with id {lesson_id} is already stored; "
                "change its content with an update, or give the new lesson no id"
            )
        slug = lesson.slug or new_slug(lesson.summary)
        while self._read("SELECT 1 FROM lessons WHERE slug = ?", (slug,)):
            slug = new_slug(lesson.summary)
        stored = attrs.evolve(
            lesson,
            id=lesson_id,
            slug=slug,
            created_at=lesson.created_at or now,
            updated_at=lesson.updated_at or lesson.created_at or now,
        )
        self._execute(_LESSON_INSERT, _lesson_params(stored, digest))
        return stored

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> sqlite3.Cursor:
        try:
            return self._conn.execute(sql, params)
        except sqlite3.IntegrityError as exc:
            raise LessonsError(f"the store refused a change: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            raise self._error(exc, "write") from exc

    def update_lesson(self, lesson: Lesson) -> Lesson:
        """Replace the lesson with this id; ``updated_at`` is refreshed."""
        lesson = _redacted_lesson(lesson)
        digest = content_hash(lesson)
        updated = attrs.evolve(lesson, updated_at=utc_now())
        with self.transaction():
            if not self._read("SELECT 1 FROM lessons WHERE id = ?", (lesson.id,)):
                raise NotFound(f"no lesson with id {lesson.id}")
            other = self._read(
                "SELECT id, slug FROM lessons WHERE content_hash = ? AND id != ?",
                (digest, lesson.id),
            )
            if other:
                raise LessonsError(
                    f"lesson {lesson.slug or lesson.id} would become identical to "
                    f"{other[0]['slug']}; remove one of them instead"
                )
            self._execute(_LESSON_UPDATE, (*_lesson_params(updated, digest)[1:], lesson.id))
        return updated

    def get_lesson(self, key: str) -> Lesson | None:
        """By id, slug, or an unambiguous prefix of either (ids compare case-insensitively)."""
        key = key.strip()
        if not key:
            return None
        rows = self._read(f"{_LESSON_SELECT} WHERE id = ? OR slug = ?", (key.upper(), key))
        if not rows:
            # Half-open ranges instead of substr()/LIKE so both lookups use their unique index.
            rows = self._read(
                f"{_LESSON_SELECT} WHERE (id >= ? AND id < ?) OR (slug >= ? AND slug < ?) "
                "ORDER BY id LIMIT 11",
                (key.upper(), key.upper() + _MAX_CHAR, key, key + _MAX_CHAR),
            )
        if len(rows) > 1:
            shown = ", ".join(f"{r['slug']} ({r['id']})" for r in rows[:10])
            more = " …" if len(rows) > 10 else ""
            raise LessonsError(f"{key!r} matches several lessons: {shown}{more}; say which")
        return _row_to_lesson(rows[0]) if rows else None

    def find_by_hash(self, content_hash: str) -> Lesson | None:
        rows = self._read(f"{_LESSON_SELECT} WHERE content_hash = ?", (content_hash,))
        return _row_to_lesson(rows[0]) if rows else None

    def list_lessons(
        self, *, status: Status | None = None, types: Sequence[str] | None = None
    ) -> list[Lesson]:
        where: list[str] = []
        params: list[Any] = []
        if status is not None:
            where.append("status = ?")
            params.append(str(status))
        if types:
            where.append(f"type IN ({', '.join('?' for _ in types)})")
            params.extend(str(t) for t in types)
        sql = _LESSON_SELECT + (f" WHERE {' AND '.join(where)}" if where else "")
        return [_row_to_lesson(r) for r in self._read(sql + " ORDER BY id", params)]

    def remove_lesson(self, key: str) -> Lesson | None:
        with self.transaction():
            lesson = self.get_lesson(key)
            if lesson is not None:
                self._execute("DELETE FROM lessons WHERE id = ?", (lesson.id,))
        return lesson

    def search_lessons(
        self, text: str, *, limit: int = 5, status: Status | None = Status.ACTIVE
    ) -> list[Lesson]:
        """Lessons whose text best matches ``text`` (FTS5 with BM25; ``LIKE`` without FTS5)."""
        status_sql = "" if status is None else " AND l.status = ?"
        status_args: tuple[Any, ...] = () if status is None else (str(status),)
        if self.fts:
            query = _fts_query(text)
            if not query:
                return []
            cols = ", ".join(f"l.{c}" for c in _LESSON_COLUMNS)
            rows = self._read(
                f"SELECT {cols} FROM lessons_fts f JOIN lessons l ON l.id = f.lesson_id "
                f"WHERE lessons_fts MATCH ?{status_sql} ORDER BY bm25(lessons_fts) LIMIT ?",
                (query, *status_args, limit),
            )
        else:
            words = [w for w in re.findall(r"\w+", text.lower()) if len(w) > 2][:8]
            if not words:
                return []
            like = " OR ".join(
                "lower(l.summary || ' ' || l.mistake || ' ' || l.remediation || ' ' || "
                "l.error_lines) LIKE ?"
                for _ in words
            )
            rows = self._read(
                f"{_LESSON_SELECT} l WHERE ({like}){status_sql} LIMIT ?",
                (*(f"%{w}%" for w in words), *status_args, limit),
            )
        return [_row_to_lesson(r) for r in rows]

    # -- candidates ------------------------------------------------------------------------

    def add_candidate(self, candidate: Candidate) -> Candidate:
        """Insert a candidate, or merge its evidence into the pending one with the same content."""
        candidate = _redacted_candidate(candidate)
        key = candidate_key(candidate)
        with self.transaction():
            rows = self._read(
                f"{_CANDIDATE_SELECT} WHERE content_key = ? AND status = 'pending'", (key,)
            )
            if rows and candidate.status == "pending":
                old = _row_to_candidate(rows[0])
                seen = {(e.file, e.line, e.call_id) for e in old.evidence}
                extra = tuple(
                    e for e in candidate.evidence if (e.file, e.line, e.call_id) not in seen
                )
                merged = attrs.evolve(
                    old,
                    evidence=old.evidence + extra,
                    confidence=max(old.confidence, candidate.confidence),
                    priority=max(old.priority, candidate.priority),
                    tags=union(old.tags, candidate.tags),
                    error_lines=union(old.error_lines, candidate.error_lines),
                )
                self._execute(_CANDIDATE_UPDATE, (*_candidate_params(merged, key)[1:], merged.id))
                return merged
            stored = attrs.evolve(
                candidate,
                id=candidate.id or new_id(),
                created_at=candidate.created_at or utc_now(),
            )
            self._execute(_CANDIDATE_INSERT, _candidate_params(stored, key))
        return stored

    def get_candidate(self, key: str) -> Candidate | None:
        """By id or an unambiguous id prefix (case-insensitive)."""
        key = key.strip().upper()
        if not key:
            return None
        rows = self._read(
            f"{_CANDIDATE_SELECT} WHERE id >= ? AND id < ? ORDER BY id LIMIT 11",
            (key, key + _MAX_CHAR),
        )
        exact = [r for r in rows if r["id"] == key]
        if exact:
            rows = exact
        if len(rows) > 1:
            shown = ", ".join(r["id"] for r in rows[:10])
            raise LessonsError(f"{key!r} matches several candidates: {shown}; say which")
        return _row_to_candidate(rows[0]) if rows else None

    def list_candidates(self, *, status: str | None = None) -> list[Candidate]:
        if status is None:
            rows = self._read(f"{_CANDIDATE_SELECT} ORDER BY id")
        else:
            rows = self._read(f"{_CANDIDATE_SELECT} WHERE status = ? ORDER BY id", (status,))
        return [_row_to_candidate(r) for r in rows]

    def update_candidate(self, candidate: Candidate) -> Candidate:
        candidate = _redacted_candidate(candidate)
        with self.transaction():
            cur = self._execute(
                _CANDIDATE_UPDATE,
                (*_candidate_params(candidate, candidate_key(candidate))[1:], candidate.id),
            )
            if cur.rowcount == 0:
                raise NotFound(f"no candidate with id {candidate.id}")
        return candidate

    # -- scanner offsets -------------------------------------------------------------------

    def get_scan_state(self, path: str) -> dict[str, Any] | None:
        rows = self._read(
            "SELECT offset, size, mtime_ns, inode, extra FROM scan_state WHERE path = ?", (path,)
        )
        if not rows:
            return None
        row = rows[0]
        state: dict[str, Any] = json.loads(row["extra"])
        state.update({c: row[c] for c in _SCAN_COLUMNS})
        return state

    def list_scan_states(self) -> dict[str, dict[str, Any]]:
        """Every file's scan state at once (the scanner checks thousands of files per run)."""
        rows = self._read("SELECT path, offset, size, mtime_ns, inode, extra FROM scan_state")
        out: dict[str, dict[str, Any]] = {}
        for row in rows:
            state: dict[str, Any] = json.loads(row["extra"])
            state.update({c: row[c] for c in _SCAN_COLUMNS})
            out[row["path"]] = state
        return out

    def list_scan_stamps(self) -> dict[str, tuple[int, int, int]]:
        """``(size, mtime_ns, inode)`` of every scanned file: enough to tell which files changed
        without decoding every file's full state (most files are unchanged on most scans)."""
        rows = self._read("SELECT path, size, mtime_ns, inode FROM scan_state")
        return {row[0]: (row[1], row[2], row[3]) for row in rows}

    def set_scan_state(self, path: str, state: dict[str, Any]) -> None:
        """Remember how far a transcript was read; keys other than the columns go to ``extra``."""
        extra = {k: v for k, v in state.items() if k not in _SCAN_COLUMNS}
        with self.transaction():
            self._execute(
                "INSERT INTO scan_state (path, offset, size, mtime_ns, inode, extra) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (path) DO UPDATE SET "
                "offset = excluded.offset, size = excluded.size, mtime_ns = excluded.mtime_ns, "
                "inode = excluded.inode, extra = excluded.extra",
                (path, *(int(state.get(c) or 0) for c in _SCAN_COLUMNS), _dumps(extra)),
            )

    # -- deliveries ------------------------------------------------------------------------

    def record_delivery(
        self,
        lesson_id: str,
        session_id: str,
        agent: str,
        event: str,
        *,
        outcome: str | None = None,
        delivered_at: str | None = None,
    ) -> None:
        """Note that a lesson reached a session (the outcome loop fills ``outcome`` later)."""
        with self.transaction():
            self._execute(
                "INSERT INTO deliveries (lesson_id, session_id, agent, event, delivered_at, "
                "outcome) VALUES (?, ?, ?, ?, ?, ?)",
                (lesson_id, session_id, agent, event, delivered_at or utc_now(), outcome),
            )

    def list_deliveries(self, *, lesson_id: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT lesson_id, session_id, agent, event, delivered_at, outcome FROM deliveries"
        rows = (
            self._read(sql + " WHERE lesson_id = ? ORDER BY rowid", (lesson_id,))
            if lesson_id
            else self._read(sql + " ORDER BY rowid")
        )
        return [dict(r) for r in rows]

    # -- housekeeping ----------------------------------------------------------------------

    def revision(self) -> int:
        return int(self._meta("revision") or 0)

    def counts(self) -> dict[str, int]:
        """Row counts per table, for ``doctor`` and ``stats``."""
        tables = ("lessons", "candidates", "scan_state", "deliveries")
        return {t: int(self._read(f"SELECT count(*) FROM {t}")[0][0]) for t in tables}

    def recall_documents(self) -> Iterator[RecallDocument]:
        """Every lesson as recall searches it, in the order of the full-text index (its rowids),
        so that lessons of equal score rank as FTS5 ranks them (see ``store/recall_index.py``)."""
        from lessons_core.store.recall_index import RecallDocument

        for row in self._read(_RECALL_FTS_ORDER if self.fts else _RECALL_TABLE_ORDER):
            yield RecallDocument(
                row[0], row[1], row[2], row[3], row[4], row[5], row[6] == "active", row[7], row[8]
            )

    def iter_rows(self) -> Iterator[dict[str, Any]]:
        """Raw lesson rows, JSON columns decoded (export and diagnostics)."""
        json_cols = {"triggers", "tags", "error_lines", "sessions", "projects"}
        for row in self._read(f"{_LESSON_SELECT} ORDER BY id"):
            yield {k: (json.loads(row[k]) if k in json_cols else row[k]) for k in row.keys()}  # noqa: SIM118


def open_sqlite_store(
    home: str | os.PathLike[str], *, busy_timeout: float = DEFAULT_BUSY_TIMEOUT
) -> SQLiteStore:
    """Open (creating if needed) ``lessons.db`` in ``home``."""
    from lessons_core.hot.paths import STORE_NAME

    return SQLiteStore(Path(home) / STORE_NAME, busy_timeout=busy_timeout)
