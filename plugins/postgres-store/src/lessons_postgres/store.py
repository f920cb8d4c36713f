"""The :class:`~lessons_core.store.base.Store` protocol on PostgreSQL, with psycopg 3.

One store serves a whole team: every machine connects to it, so concurrency is the database's
business, never a file lock's:

* every write is one transaction; :meth:`PostgresStore.transaction` groups several;
* adding a lesson or a candidate takes a transaction-level advisory lock on its content key
  first, so two machines adding the same content at once merge into one row instead of one of
  them failing on the unique index (the lock ends with the transaction);
* scan offsets and delivery records are upserts (``ON CONFLICT``), keyed by machine;
* edits pushed by ``lessons sync`` lock the row (``SELECT … FOR UPDATE``) and compare revisions.

Connections come from a small :class:`psycopg_pool.ConnectionPool`: the store is used from one
thread at a time by the CLI, but the MCP server and tests share one from several. A
transaction pins its connection to the thread that opened it.

Text search for recall is PostgreSQL's own: a generated ``tsvector`` column (English
configuration, so ``failed`` finds ``failing``) ranked by ``ts_rank``.

Every lesson and candidate passes through :mod:`lessons_core.privacy` on its way in, as in the
SQLite store: no secret is stored, whichever machine wrote it.

The connection string is never printed or logged with its password: every message that could
carry it goes through :func:`lessons_core.team.mask_url`, and the password itself is scrubbed
from errors the driver raises.
"""

# SQL text is built only from this module's own column names; values are bound parameters.
# ruff: noqa: S608

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import attrs
import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from lessons_core.api import (
    Candidate,
    Lesson,
    LessonsError,
    NotFound,
    Status,
    StoreError,
    add_sightings,
    candidate_key,
    content_hash,
    get_logger,
    json_loads,
    mask_url,
    new_id,
    utc_now,
)
from lessons_core.api import make_slug as new_slug
from lessons_core.api import rows as row_map
from lessons_core.api.rows import union
from lessons_postgres import schema

log = get_logger()

#: Seconds to wait for the server to answer a connection attempt.
CONNECT_TIMEOUT = 5

_LESSON_COLUMNS = row_map.LESSON_COLUMNS
_OWNER_COLUMNS = ("author", "machine", "project", "edited_by")
_LESSON_SELECT = f"SELECT {', '.join(_LESSON_COLUMNS)}, revision FROM lessons"
_LESSON_INSERT = (
    f"INSERT INTO lessons ({', '.join(_LESSON_COLUMNS + _OWNER_COLUMNS)}) "
    f"VALUES ({', '.join('%s' for _ in _LESSON_COLUMNS + _OWNER_COLUMNS)})"
)
#: Content columns an update replaces (ownership stays with the row's first writer).
_LESSON_UPDATE = (
    "UPDATE lessons SET "
    + ", ".join(f"{c} = %s" for c in _LESSON_COLUMNS if c != "id")
    + ", edited_by = %s WHERE id = %s RETURNING revision"
)

_CANDIDATE_COLUMNS = row_map.CANDIDATE_COLUMNS
_CANDIDATE_SELECT = f"SELECT {', '.join(_CANDIDATE_COLUMNS)} FROM candidates"
_CANDIDATE_INSERT = (
    f"INSERT INTO candidates ({', '.join(_CANDIDATE_COLUMNS)}, author, machine) "
    f"VALUES ({', '.join('%s' for _ in _CANDIDATE_COLUMNS)}, %s, %s)"
)
_CANDIDATE_UPDATE = (
    "UPDATE candidates SET "
    + ", ".join(f"{c} = %s" for c in _CANDIDATE_COLUMNS if c != "id")
    + " WHERE id = %s"
)
_SCAN_COLUMNS = ("offset", "size", "mtime_ns", "inode")


class TeamUnreachable(StoreError):
    """The team server cannot be reached (refused, timed out, dropped): ``lessons sync``
    reports it as offline and catches up next time."""


def _lesson_params(lesson: Lesson, digest: str) -> list[Any]:
    values = row_map.lesson_values(lesson, digest, Jsonb)
    return [values[column] for column in _LESSON_COLUMNS]


def _decoded(value: Any) -> Any:
    return value  # psycopg returns ``jsonb`` already decoded


#: What a ``jsonb`` value that cannot be read stands as: a key no lesson field has, so the
#: lesson checks refuse the row (and a sync quarantines it) instead of the fetch failing.
UNREADABLE_KEY = "unreadableJson"


def team_json(data: bytes | str) -> Any:
    """A ``jsonb`` value as Python, read with the limits of user input
    (:func:`lessons_core.api.json_loads`: depth, lone surrogates); one that breaks them is
    ``{UNREADABLE_KEY: why}``, so one teammate's row cannot fail a whole page of rows."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes | bytearray) else data
    try:
        return json_loads(text)
    except json.JSONDecodeError as exc:
        return {UNREADABLE_KEY: exc.msg}


def _configure(conn: psycopg.Connection[Any]) -> None:
    from psycopg.types.json import set_json_loads

    set_json_loads(team_json, conn)


def row_to_lesson(row: dict[str, Any]) -> Lesson:
    return row_map.lesson_from_row(row, _decoded)


def _candidate_params(candidate: Candidate, key: str) -> list[Any]:
    return row_map.candidate_params(candidate, key, Jsonb)


def _row_to_candidate(row: dict[str, Any]) -> Candidate:
    return row_map.candidate_from_row(row, _decoded)


def ts_query(text: str) -> str:
    """Free text (an error message) as a ``to_tsquery`` OR-query of quoted words.

    Only word characters reach the query, each word quoted, so the punctuation of error output
    (``:``, ``!``, ``&``, parentheses) is never read as a query operator.
    """
    words = dict.fromkeys(w for w in re.findall(r"[^\W_]+", text.lower()) if len(w) > 1)
    return " | ".join(f"'{w}'" for w in list(words)[:64])


def _lock_key(kind: str, value: str) -> str:
    return f"lessons:{kind}:{value}"


def _redacted_lesson(lesson: Lesson) -> Lesson:
    from lessons_core.api import redact_lesson

    return redact_lesson(lesson)


def _redacted_candidate(candidate: Candidate) -> Candidate:
    from lessons_core.api import redact_candidate

    return redact_candidate(candidate)


class PostgresStore:
    """A team store in one PostgreSQL database (its default schema).

    ``author`` and ``machine`` are written into the rows this instance creates; scan offsets
    are kept per ``machine``. Use it as a context manager or call :meth:`close`.
    """

    name = "postgres"

    def __init__(
        self,
        dsn: str,
        *,
        author: str = "",
        machine: str = "",
        pool_size: int = 4,
        connect_timeout: float = CONNECT_TIMEOUT,
    ):
        self.where = mask_url(dsn)
        self.author = author
        self.machine = machine or socket.gethostname()
        self._secret = _password(dsn)
        self._local = threading.local()
        kwargs: dict[str, Any] = {
            "connect_timeout": max(1, int(connect_timeout)),
            "application_name": "lessons",
        }
        try:
            conninfo_to_dict(dsn)
        except (psycopg.Error, ValueError) as exc:
            msg = f"not a PostgreSQL connection string ({self.where}): {self._clean(exc)}"
            raise LessonsError(msg) from None
        try:
            with psycopg.connect(dsn, autocommit=True, **kwargs) as conn:
                self.schema_version = schema.migrate(conn, self.where)
        except psycopg.OperationalError as exc:
            text = self._clean(exc)
            if "FATAL:" in text:  # the server answered and refused: not offline, a setting
                raise StoreError(
                    f"the team store {self.where} refused the connection ({text}); check the "
                    "user, password and database of the URL"
                ) from None
            raise TeamUnreachable(f"cannot connect to {self.where}: {text}") from None
        except psycopg.Error as exc:
            msg = f"the team store {self.where} failed to open: {self._clean(exc)}"
            raise StoreError(msg) from None
        self._pool: ConnectionPool[psycopg.Connection[dict[str, Any]]] = ConnectionPool(
            dsn,
            min_size=1,
            max_size=max(1, pool_size),
            kwargs={**kwargs, "row_factory": dict_row},
            configure=_configure,
            open=False,
            timeout=connect_timeout * 2,
            name="lessons-team",
        )
        try:
            self._pool.open(wait=True, timeout=connect_timeout * 2)
        except Exception as exc:
            self._pool.close()
            raise TeamUnreachable(f"cannot connect to {self.where}: {self._clean(exc)}") from None

    # -- connections and errors ------------------------------------------------------------

    def _clean(self, exc: BaseException) -> str:
        """The driver's message, one line, the password (if it echoes one) scrubbed out."""
        text = " ".join(str(exc).split()) or type(exc).__name__
        if self._secret:
            text = text.replace(self._secret, "***")
        return mask_url(text)

    def _error(self, exc: psycopg.Error, doing: str) -> LessonsError:
        if isinstance(exc, psycopg.IntegrityError):
            return LessonsError(f"the team store refused a change: {self._clean(exc)}")
        if isinstance(exc, psycopg.OperationalError):
            return TeamUnreachable(
                f"lost the team store {self.where} while trying to {doing}: {self._clean(exc)}"
            )
        return StoreError(f"the team store {self.where} failed to {doing}: {self._clean(exc)}")

    @contextmanager
    def _cursor(self) -> Iterator[psycopg.Cursor[dict[str, Any]]]:
        conn = getattr(self._local, "conn", None)
        try:
            if conn is not None:
                with conn.cursor() as cur:
                    yield cur
                return
            with self._pool.connection() as pooled, pooled.cursor() as cur:
                yield cur
        except psycopg.Error as exc:
            raise self._error(exc, "run a query") from None
        except Exception as exc:
            if type(exc).__name__ == "PoolTimeout":
                raise TeamUnreachable(
                    f"no connection to the team store {self.where}: {self._clean(exc)}"
                ) from None
            raise

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self._cursor() as cur:
            cur.execute(sql, params)
            return cur.fetchall() if cur.description else []

    def _exec(self, sql: str, params: Sequence[Any] = ()) -> int:
        with self._cursor() as cur:
            cur.execute(sql, params)
            return cur.rowcount

    def _lock(self, kind: str, value: str) -> None:
        """A transaction-level advisory lock on one content key (held until commit)."""
        self._exec(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (_lock_key(kind, value),)
        )

    @contextmanager
    def transaction(self) -> Iterator[PostgresStore]:
        """One atomic unit on one connection; nested uses join the outer transaction."""
        if getattr(self._local, "conn", None) is not None:
            yield self
            return
        try:
            with self._pool.connection() as conn:
                self._local.conn = conn
                try:
                    yield self
                finally:
                    self._local.conn = None
        except psycopg.Error as exc:
            raise self._error(exc, "commit") from None

    def close(self) -> None:
        self._pool.close()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- lessons ---------------------------------------------------------------------------

    def add_lessons(self, lessons: Iterable[Lesson]) -> list[Lesson]:
        """Insert lessons; one whose content hash is stored already merges into that row.

        New content is inserted in one batch (a sync may bring thousands): the advisory locks
        of every content hash and slug are taken in one statement, in sorted order (so two
        machines adding overlapping batches cannot deadlock), then the rows go in with one
        ``executemany``. Content already stored, or repeated in the batch, merges one by one.
        """
        items = [_redacted_lesson(lesson) for lesson in lessons]
        digests = [content_hash(lesson) for lesson in items]
        if not items:
            return []
        with self.transaction():
            keys = {_lock_key("lesson", d) for d in digests}
            keys |= {_lock_key("slug", x.slug) for x in items if x.slug}
            self._rows(
                "SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) "
                'FROM unnest(%s::text[]) AS k ORDER BY k COLLATE "C"',
                (sorted(keys),),
            )
            present = {
                r["content_hash"]
                for r in self._rows(
                    "SELECT content_hash FROM lessons WHERE content_hash = ANY(%s)",
                    (sorted(set(digests)),),
                )
            }
            fresh: dict[str, int] = {}
            for index, digest in enumerate(digests):
                if digest not in present and digest not in fresh:
                    fresh[digest] = index
            out: list[Lesson | None] = [None] * len(items)
            for inserted, stored in self._insert_new([(items[i], d) for d, i in fresh.items()]):
                out[fresh[inserted]] = stored
            for index, lesson in enumerate(items):
                if out[index] is None:
                    out[index] = self._add_one(lesson, digests[index])
        return [lesson for lesson in out if lesson is not None]

    def _insert_new(self, batch: list[tuple[Lesson, str]]) -> list[tuple[str, Lesson]]:
        """Insert lessons whose content is not stored (their locks are held); by digest."""
        if not batch:
            return []
        given = [lesson.id for lesson, _ in batch if lesson.id]
        if given:
            taken = self._rows("SELECT id FROM lessons WHERE id = ANY(%s)", (given,))
            if taken:
                raise LessonsError(
                    f"a different lesson with id {taken[0]['id']} is already stored; "
                    "change its content with an update, or give the new lesson no id"
                )
        slugs = [lesson.slug or new_slug(lesson.summary) for lesson, _ in batch]
        used = {
            r["slug"] for r in self._rows("SELECT slug FROM lessons WHERE slug = ANY(%s)", (slugs,))
        }
        now = utc_now()
        params = []
        out = []
        for (lesson, digest), slug in zip(batch, slugs, strict=True):
            while slug in used:
                slug = new_slug(lesson.summary)
            used.add(slug)
            stored = attrs.evolve(
                lesson,
                id=lesson.id or new_id(),
                slug=slug,
                created_at=lesson.created_at or now,
                updated_at=lesson.updated_at or lesson.created_at or now,
            )
            project = (stored.provenance.projects or (stored.scope,))[0]
            params.append(
                [*_lesson_params(stored, digest), self.author, self.machine, project, self.machine]
            )
            out.append((digest, stored))
        with self._cursor() as cur:
            cur.executemany(_LESSON_INSERT, params)
        return out

    def _add_one(self, lesson: Lesson, digest: str) -> Lesson:
        """Merge one (redacted) lesson into the stored row of its content, or insert it."""
        self._lock("lesson", digest)
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
            self._write(merged, digest)
            return merged
        lesson_id = lesson.id or new_id()
        if lesson.id and self._rows("SELECT 1 FROM lessons WHERE id = %s", (lesson_id,)):
            raise LessonsError(
                f"a different lesson with id {lesson_id} is already stored; "
                "change its content with an update, or give the new lesson no id"
            )
        slug = lesson.slug or new_slug(lesson.summary)
        self._lock("slug", slug)
        while self._rows("SELECT 1 FROM lessons WHERE slug = %s", (slug,)):
            slug = new_slug(lesson.summary)
        stored = attrs.evolve(
            lesson,
            id=lesson_id,
            slug=slug,
            created_at=lesson.created_at or now,
            updated_at=lesson.updated_at or lesson.created_at or now,
        )
        project = (stored.provenance.projects or (stored.scope,))[0]
        self._exec(
            _LESSON_INSERT,
            [*_lesson_params(stored, digest), self.author, self.machine, project, self.machine],
        )
        return stored

    def _write(self, lesson: Lesson, digest: str) -> int:
        rows = self._rows(
            _LESSON_UPDATE, [*_lesson_params(lesson, digest)[1:], self.machine, lesson.id]
        )
        if not rows:
            raise NotFound(f"no lesson with id {lesson.id}")
        return int(rows[0]["revision"])

    def update_lesson(self, lesson: Lesson) -> Lesson:
        """Replace the lesson with this id; ``updated_at`` is refreshed."""
        return self.update_lesson_at(lesson)[0]

    def update_lesson_at(self, lesson: Lesson) -> tuple[Lesson, int]:
        """:meth:`update_lesson`, also returning the revision the change took."""
        lesson = _redacted_lesson(lesson)
        digest = content_hash(lesson)
        updated = attrs.evolve(lesson, updated_at=utc_now())
        with self.transaction():
            self._lock("lesson", digest)
            other = self._rows(
                "SELECT slug FROM lessons WHERE content_hash = %s AND id <> %s",
                (digest, lesson.id),
            )
            if other:
                raise LessonsError(
                    f"lesson {lesson.slug or lesson.id} would become identical to "
                    f"{other[0]['slug']}; remove one of them instead"
                )
            revision = self._write(updated, digest)
        return updated, revision

    def get_lesson(self, key: str) -> Lesson | None:
        """By id, slug, or an unambiguous prefix of either (ids compare case-insensitively)."""
        key = key.strip()
        if not key:
            return None
        rows = self._rows(f"{_LESSON_SELECT} WHERE id = %s OR slug = %s", (key.upper(), key))
        if not rows:
            # starts_with() rather than a range: range bounds depend on the collation.
            rows = self._rows(
                f"{_LESSON_SELECT} WHERE starts_with(id, %s) OR starts_with(slug, %s) "
                'ORDER BY id COLLATE "C" LIMIT 11',
                (key.upper(), key),
            )
        if len(rows) > 1:
            shown = ", ".join(f"{r['slug']} ({r['id']})" for r in rows[:10])
            more = " …" if len(rows) > 10 else ""
            raise LessonsError(f"{key!r} matches several lessons: {shown}{more}; say which")
        return row_to_lesson(rows[0]) if rows else None

    def find_by_hash(self, content_hash: str) -> Lesson | None:
        rows = self._rows(f"{_LESSON_SELECT} WHERE content_hash = %s", (content_hash,))
        return row_to_lesson(rows[0]) if rows else None

    def list_lessons(
        self, *, status: Status | None = None, types: Sequence[str] | None = None
    ) -> list[Lesson]:
        where: list[str] = []
        params: list[Any] = []
        if status is not None:
            where.append("status = %s")
            params.append(str(status))
        if types:
            where.append("type = ANY(%s)")
            params.append([str(t) for t in types])
        sql = _LESSON_SELECT + (f" WHERE {' AND '.join(where)}" if where else "")
        return [row_to_lesson(r) for r in self._rows(sql + ' ORDER BY id COLLATE "C"', params)]

    def remove_lesson(self, key: str) -> Lesson | None:
        with self.transaction():
            lesson = self.get_lesson(key)
            if lesson is not None:
                self._exec("DELETE FROM lessons WHERE id = %s", (lesson.id,))
        return lesson

    def search_lessons(
        self, text: str, *, limit: int = 5, status: Status | None = Status.ACTIVE
    ) -> list[Lesson]:
        """Lessons whose text best matches ``text`` (``tsvector`` search ranked by ``ts_rank``)."""
        query = ts_query(text)
        if not query:
            return []
        status_sql = "" if status is None else " AND status = %s"
        status_args: tuple[Any, ...] = () if status is None else (str(status),)
        rows = self._rows(
            f"{_LESSON_SELECT}, to_tsquery('english', %s) AS q "
            f"WHERE search @@ q{status_sql} ORDER BY ts_rank(search, q) DESC, id LIMIT %s",
            (query, *status_args, limit),
        )
        return [row_to_lesson(r) for r in rows]

    # -- candidates ------------------------------------------------------------------------

    def add_candidate(self, candidate: Candidate) -> Candidate:
        """Insert a candidate, or merge its evidence into the pending one with the same content."""
        candidate = _redacted_candidate(candidate)
        key = candidate_key(candidate)
        with self.transaction():
            self._lock("candidate", key)
            rows = self._rows(
                f"{_CANDIDATE_SELECT} WHERE content_key = %s AND status = 'pending'", (key,)
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
                self._exec(_CANDIDATE_UPDATE, [*_candidate_params(merged, key)[1:], merged.id])
                return merged
            stored = attrs.evolve(
                candidate,
                id=candidate.id or new_id(),
                created_at=candidate.created_at or utc_now(),
            )
            self._exec(
                _CANDIDATE_INSERT, [*_candidate_params(stored, key), self.author, self.machine]
            )
        return stored

    def get_candidate(self, key: str) -> Candidate | None:
        """By id or an unambiguous id prefix (case-insensitive)."""
        key = key.strip().upper()
        if not key:
            return None
        rows = self._rows(
            f'{_CANDIDATE_SELECT} WHERE starts_with(id, %s) ORDER BY id COLLATE "C" LIMIT 11',
            (key,),
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
            rows = self._rows(f'{_CANDIDATE_SELECT} ORDER BY id COLLATE "C"')
        else:
            rows = self._rows(
                f'{_CANDIDATE_SELECT} WHERE status = %s ORDER BY id COLLATE "C"', (status,)
            )
        return [_row_to_candidate(r) for r in rows]

    def update_candidate(self, candidate: Candidate) -> Candidate:
        candidate = _redacted_candidate(candidate)
        count = self._exec(
            _CANDIDATE_UPDATE,
            [*_candidate_params(candidate, candidate_key(candidate))[1:], candidate.id],
        )
        if count == 0:
            raise NotFound(f"no candidate with id {candidate.id}")
        return candidate

    # -- scanner offsets (per machine) -----------------------------------------------------

    def get_scan_state(self, path: str) -> dict[str, Any] | None:
        rows = self._rows(
            'SELECT "offset", size, mtime_ns, inode, extra FROM scan_state '
            "WHERE machine = %s AND path = %s",
            (self.machine, path),
        )
        if not rows:
            return None
        row = rows[0]
        state: dict[str, Any] = dict(row["extra"])
        state.update({c: row[c] for c in _SCAN_COLUMNS})
        return state

    def list_scan_states(self) -> dict[str, dict[str, Any]]:
        rows = self._rows(
            'SELECT path, "offset", size, mtime_ns, inode, extra FROM scan_state '
            "WHERE machine = %s",
            (self.machine,),
        )
        out: dict[str, dict[str, Any]] = {}
        for row in rows:
            state: dict[str, Any] = dict(row["extra"])
            state.update({c: row[c] for c in _SCAN_COLUMNS})
            out[row["path"]] = state
        return out

    def set_scan_state(self, path: str, state: dict[str, Any]) -> None:
        extra = {k: v for k, v in state.items() if k not in _SCAN_COLUMNS}
        self._exec(
            'INSERT INTO scan_state (machine, path, "offset", size, mtime_ns, inode, extra) '
            "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (machine, path) DO UPDATE SET "
            '"offset" = excluded."offset", size = excluded.size, '
            "mtime_ns = excluded.mtime_ns, inode = excluded.inode, extra = excluded.extra",
            (
                self.machine,
                path,
                *(int(state.get(c) or 0) for c in _SCAN_COLUMNS),
                Jsonb(extra),
            ),
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
        """Note that a lesson reached a session; the same delivery recorded twice is one row."""
        self._exec(
            "INSERT INTO deliveries (lesson_id, session_id, agent, event, delivered_at, outcome, "
            "machine) VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
            (lesson_id, session_id, agent, event, delivered_at or utc_now(), outcome, self.machine),
        )

    def list_deliveries(self, *, lesson_id: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT lesson_id, session_id, agent, event, delivered_at, outcome FROM deliveries"
        if lesson_id:
            return self._rows(sql + " WHERE lesson_id = %s ORDER BY seq", (lesson_id,))
        return self._rows(sql + " ORDER BY seq")

    # -- housekeeping ----------------------------------------------------------------------

    def revision(self) -> int:
        rows = self._rows("SELECT value FROM lessons_meta WHERE key = 'revision'")
        return int(rows[0]["value"]) if rows else 0

    def site(self) -> str:
        """A random id made when the team database was created: a sync tells two apart."""
        rows = self._rows("SELECT value FROM lessons_meta WHERE key = 'site'")
        return str(rows[0]["value"]) if rows else ""

    def counts(self) -> dict[str, int]:
        tables = ("lessons", "candidates", "scan_state", "deliveries", "lesson_conflicts")
        return {t: int(self._rows(f"SELECT count(*) AS n FROM {t}")[0]["n"]) for t in tables}

    def iter_rows(self) -> Iterator[dict[str, Any]]:
        """Raw lesson rows with their ownership columns (export and diagnostics)."""
        cols = ", ".join((*_LESSON_COLUMNS, *_OWNER_COLUMNS, "revision"))
        yield from self._rows(f'SELECT {cols} FROM lessons ORDER BY id COLLATE "C"')


def _password(dsn: str) -> str:
    """The password inside ``dsn`` (URL or key-value form), to scrub from driver messages."""
    try:
        value = conninfo_to_dict(dsn).get("password")
    except (psycopg.Error, ValueError):
        return ""
    return str(value) if value else ""
