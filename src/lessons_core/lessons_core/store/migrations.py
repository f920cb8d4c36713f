"""The SQLite store's schema, as an ordered list of migration steps.

Step *n* takes a database at schema ``n - 1`` to schema ``n``. :func:`migrate` runs every pending
step inside one ``BEGIN IMMEDIATE`` transaction and then writes the new number to both
``PRAGMA user_version`` (cheap to read on every open) and the ``meta`` table (readable by humans
and by tools that do not know about pragmas). A crash half-way therefore leaves the old schema
intact, and two processes opening a fresh store at once cannot both migrate: the second waits
for the write lock, re-reads the version and finds nothing left to do.

Never edit a released step; append a new one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from lessons_core.errors import StoreError

Step = Callable[[sqlite3.Connection], None]


def fts5_available(conn: sqlite3.Connection) -> bool:
    """Whether this SQLite build has FTS5 (most do; some minimal system builds do not)."""
    try:
        conn.execute("CREATE VIRTUAL TABLE temp._lessons_fts5_probe USING fts5(x)")
        conn.execute("DROP TABLE temp._lessons_fts5_probe")
    except sqlite3.OperationalError:
        return False
    return True


_V1_TABLES = """
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
INSERT INTO meta (key, value) VALUES ('revision', '0');

CREATE TABLE lessons (
    id                   TEXT PRIMARY KEY,
    slug                 TEXT NOT NULL UNIQUE,
    content_hash         TEXT NOT NULL UNIQUE,
    status               TEXT NOT NULL DEFAULT 'active',
    type                 TEXT NOT NULL DEFAULT 'hint',
    summary              TEXT NOT NULL,
    mistake              TEXT NOT NULL,
    remediation          TEXT NOT NULL,
    injection            TEXT,
    triggers             TEXT NOT NULL DEFAULT '{}',
    command_match_target TEXT NOT NULL DEFAULT 'full',
    priority             INTEGER NOT NULL DEFAULT 5,
    confidence           REAL NOT NULL DEFAULT 0.8,
    tags                 TEXT NOT NULL DEFAULT '[]',
    scope                TEXT,
    error_lines          TEXT NOT NULL DEFAULT '[]',
    source               TEXT NOT NULL DEFAULT 'manual',
    sessions             TEXT NOT NULL DEFAULT '[]',
    projects             TEXT NOT NULL DEFAULT '[]',
    occurrences          INTEGER NOT NULL DEFAULT 1,
    session_count        INTEGER NOT NULL DEFAULT 0,
    project_count        INTEGER NOT NULL DEFAULT 0,
    created_at           TEXT NOT NULL,
    updated_at           TEXT NOT NULL
);
CREATE INDEX lessons_status ON lessons (status, type);

CREATE TABLE candidates (
    id          TEXT PRIMARY KEY,
    content_key TEXT NOT NULL,
    tier        INTEGER NOT NULL,
    agent       TEXT NOT NULL,
    tool        TEXT,
    trigger     TEXT,
    mistake     TEXT NOT NULL,
    fix         TEXT NOT NULL,
    summary     TEXT NOT NULL DEFAULT '',
    tags        TEXT NOT NULL DEFAULT '[]',
    confidence  REAL NOT NULL DEFAULT 0.5,
    priority    INTEGER NOT NULL DEFAULT 5,
    status      TEXT NOT NULL DEFAULT 'pending',
    evidence    TEXT NOT NULL DEFAULT '[]',
    error_lines TEXT NOT NULL DEFAULT '[]',
    project     TEXT,
    detector    TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL
);
-- One pending candidate per content: a duplicate found again merges into it.
CREATE UNIQUE INDEX candidates_pending_key ON candidates (content_key) WHERE status = 'pending';
CREATE INDEX candidates_status ON candidates (status);

CREATE TABLE scan_state (
    path     TEXT PRIMARY KEY,
    offset   INTEGER NOT NULL DEFAULT 0,
    size     INTEGER NOT NULL DEFAULT 0,
    mtime_ns INTEGER NOT NULL DEFAULT 0,
    inode    INTEGER NOT NULL DEFAULT 0,
    extra    TEXT NOT NULL DEFAULT '{}'
);

CREATE TABLE deliveries (
    lesson_id    TEXT NOT NULL REFERENCES lessons (id) ON DELETE CASCADE,
    session_id   TEXT NOT NULL,
    agent        TEXT NOT NULL,
    event        TEXT NOT NULL,
    delivered_at TEXT NOT NULL,
    outcome      TEXT
);
CREATE INDEX deliveries_lesson ON deliveries (lesson_id);
CREATE INDEX deliveries_session ON deliveries (session_id);

-- Any change to a lesson moves the revision, whoever makes it (even a raw SQL edit), so the
-- compiler can tell that a manifest is stale.
CREATE TRIGGER lessons_rev_insert AFTER INSERT ON lessons BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'revision';
END;
CREATE TRIGGER lessons_rev_update AFTER UPDATE ON lessons BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'revision';
END;
CREATE TRIGGER lessons_rev_delete AFTER DELETE ON lessons BEGIN
    UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'revision';
END;
"""

# The full-text index keeps its own copy of the text, keyed by the lesson id (an UNINDEXED
# column) rather than by rowid: the lessons table has a text primary key, whose implicit rowids
# VACUUM may renumber, which would silently detach an external-content index.
_V1_FTS = """
CREATE VIRTUAL TABLE lessons_fts USING fts5(
    lesson_id UNINDEXED, summary, mistake, remediation, error_lines,
    tokenize = 'porter unicode61'
);
CREATE TRIGGER lessons_fts_insert AFTER INSERT ON lessons BEGIN
    INSERT INTO lessons_fts (lesson_id, summary, mistake, remediation, error_lines)
    VALUES (new.id, new.summary, new.mistake, new.remediation, new.error_lines);
END;
CREATE TRIGGER lessons_fts_delete AFTER DELETE ON lessons BEGIN
    DELETE FROM lessons_fts WHERE lesson_id = old.id;
END;
CREATE TRIGGER lessons_fts_update AFTER UPDATE OF id, summary, mistake, remediation, error_lines
ON lessons BEGIN
    DELETE FROM lessons_fts WHERE lesson_id = old.id;
    INSERT INTO lessons_fts (lesson_id, summary, mistake, remediation, error_lines)
    VALUES (new.id, new.summary, new.mistake, new.remediation, new.error_lines);
END;
"""


def _v1_initial(conn: sqlite3.Connection) -> None:
    for statement in _split(_V1_TABLES):
        conn.execute(statement)
    fts = fts5_available(conn)
    if fts:
        for statement in _split(_V1_FTS):
            conn.execute(statement)
    conn.execute("INSERT INTO meta (key, value) VALUES ('fts', ?)", ("1" if fts else "0",))


def _split(script: str) -> list[str]:
    """Split a script into statements (``executescript`` would commit our transaction).

    Triggers contain ``;`` inside ``BEGIN … END``, so complete statements are found with
    :func:`sqlite3.complete_statement` rather than by splitting on every semicolon.
    """
    statements: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        if not buffer and (not line.strip() or line.lstrip().startswith("--")):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        statements.append(buffer.strip())
    return statements


def _v2_lesson_evidence(conn: sqlite3.Connection) -> None:
    """Where each lesson was seen (its provenance's ``evidence``): the place of every repeat a
    scan folds into it, not only the counts."""
    conn.execute("ALTER TABLE lessons ADD COLUMN evidence TEXT NOT NULL DEFAULT '[]'")


#: The migration steps, oldest first; the schema version is the length of this list.
MIGRATIONS: list[Step] = [_v1_initial, _v2_lesson_evidence]

LATEST = len(MIGRATIONS)


def newer_schema_error(found: int, path: object) -> StoreError:
    return StoreError(
        f"this store was written by a newer lessons (schema {found}); upgrade lessons "
        f"(store: {path}, this version reads schema {LATEST} and older)"
    )


def migrate(conn: sqlite3.Connection, path: object, steps: list[Step] | None = None) -> int:
    """Bring the database up to date; return the schema version it ends at.

    ``steps`` exists for tests, which migrate through a longer or shorter history.
    """
    steps = MIGRATIONS if steps is None else steps
    target = len(steps)
    found = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if found > target:
        raise newer_schema_error(found, path)
    if found == target:
        return found
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Re-read under the write lock: another process may have migrated meanwhile.
        found = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if found > target:
            raise newer_schema_error(found, path)
        for step in steps[found:]:
            step(conn)
        conn.execute(f"PRAGMA user_version = {target:d}")
        conn.execute(
            "INSERT INTO meta (key, value) VALUES ('schema_version', ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (str(target),),
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return target
