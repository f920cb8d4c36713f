"""The team store's schema in PostgreSQL, as an ordered list of migration steps.

Step *n* takes a database at schema ``n - 1`` to ``n``. :func:`migrate` runs the pending steps
in one transaction holding a transaction-level advisory lock, so machines that open a new team
database at the same moment do not race: the first migrates, the others wait for the lock,
re-read the version and find nothing to do. A crash half-way rolls everything back (PostgreSQL
DDL is transactional). Never edit a released step; append one.

What the schema holds, besides the columns of a lesson and a candidate:

* ownership: ``author``, ``machine`` and ``project`` on lessons and candidates (who wrote the
  row, from which machine, for which project), ``machine`` on deliveries and scan offsets;
* ``revision``: every change to a lesson takes the next number of one counter row, which it
  holds locked until it commits, so revisions commit in order and "everything after revision
  *n*" never skips a row that committed late (a sequence could hand out 6 before 5 commits);
* ``lesson_tombstones``: a removed lesson leaves its id and revision, so machines that pulled it
  remove it too;
* ``lesson_conflicts``: the version of a lesson that lost a conflict, kept whole;
* ``search``: a generated ``tsvector`` of the lesson's text with a GIN index, for recall.
"""

from __future__ import annotations

from typing import Any

from lessons_core.api import StoreError

#: Key of the advisory lock taken while migrating (any fixed 64-bit number of ours).
MIGRATION_LOCK = 0x6C6573736F6E73  # "lessons"

_V1 = [
    """
    CREATE TABLE IF NOT EXISTS lessons_meta (
        key   text PRIMARY KEY,
        value text NOT NULL
    )
    """,
    """
    INSERT INTO lessons_meta (key, value) VALUES
        ('revision', '0'), ('schema_version', '0'), ('site', md5(random()::text))
    ON CONFLICT (key) DO NOTHING
    """,
    """
    CREATE TABLE lessons (
        id                   text PRIMARY KEY,
        slug                 text NOT NULL UNIQUE,
        content_hash         text NOT NULL UNIQUE,
        status               text NOT NULL DEFAULT 'active',
        type                 text NOT NULL DEFAULT 'hint',
        summary              text NOT NULL,
        mistake              text NOT NULL,
        remediation          text NOT NULL,
        injection            text,
        triggers             jsonb NOT NULL DEFAULT '{}',
        command_match_target text NOT NULL DEFAULT 'full',
        priority             integer NOT NULL DEFAULT 5,
        confidence           double precision NOT NULL DEFAULT 0.8,
        tags                 jsonb NOT NULL DEFAULT '[]',
        scope                text,
        error_lines          jsonb NOT NULL DEFAULT '[]',
        source               text NOT NULL DEFAULT 'manual',
        sessions             jsonb NOT NULL DEFAULT '[]',
        projects             jsonb NOT NULL DEFAULT '[]',
        occurrences          integer NOT NULL DEFAULT 1,
        created_at           text NOT NULL,
        updated_at           text NOT NULL,
        author               text NOT NULL DEFAULT '',
        machine              text NOT NULL DEFAULT '',
        project              text,
        edited_by            text NOT NULL DEFAULT '',
        revision             bigint NOT NULL DEFAULT 0,
        search               tsvector GENERATED ALWAYS AS (
            to_tsvector('english'::regconfig,
                summary || ' ' || mistake || ' ' || remediation || ' ' || error_lines::text)
        ) STORED
    )
    """,
    "CREATE INDEX lessons_status ON lessons (status, type)",
    "CREATE INDEX lessons_revision ON lessons (revision)",
    "CREATE INDEX lessons_search ON lessons USING gin (search)",
    """
    CREATE TABLE lesson_tombstones (
        id           text PRIMARY KEY,
        content_hash text NOT NULL,
        revision     bigint NOT NULL,
        removed_at   timestamptz NOT NULL DEFAULT now()
    )
    """,
    "CREATE INDEX lesson_tombstones_revision ON lesson_tombstones (revision)",
    """
    CREATE TABLE lesson_conflicts (
        id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        lesson_id     text NOT NULL,
        base_revision bigint NOT NULL,
        team_revision bigint NOT NULL,
        author        text NOT NULL DEFAULT '',
        machine       text NOT NULL DEFAULT '',
        lesson        jsonb NOT NULL,
        detected_at   timestamptz NOT NULL DEFAULT now()
    )
    """,
    """
    CREATE FUNCTION lessons_next_revision() RETURNS bigint LANGUAGE sql AS $$
        UPDATE lessons_meta SET value = (value::bigint + 1)::text WHERE key = 'revision'
        RETURNING value::bigint
    $$
    """,
    """
    CREATE FUNCTION lessons_stamp_revision() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        NEW.revision := lessons_next_revision();
        IF TG_OP = 'INSERT' THEN
            DELETE FROM lesson_tombstones WHERE id = NEW.id;
        END IF;
        RETURN NEW;
    END
    $$
    """,
    """
    CREATE FUNCTION lessons_leave_tombstone() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO lesson_tombstones (id, content_hash, revision)
        VALUES (OLD.id, OLD.content_hash, lessons_next_revision())
        ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, removed_at = now();
        RETURN OLD;
    END
    $$
    """,
    """
    CREATE TRIGGER lessons_revision BEFORE INSERT OR UPDATE ON lessons
    FOR EACH ROW EXECUTE FUNCTION lessons_stamp_revision()
    """,
    """
    CREATE TRIGGER lessons_tombstone AFTER DELETE ON lessons
    FOR EACH ROW EXECUTE FUNCTION lessons_leave_tombstone()
    """,
    """
    CREATE TABLE candidates (
        id          text PRIMARY KEY,
        content_key text NOT NULL,
        tier        integer NOT NULL,
        agent       text NOT NULL,
        tool        text,
        trigger     text,
        mistake     text NOT NULL,
        fix         text NOT NULL,
        summary     text NOT NULL DEFAULT '',
        tags        jsonb NOT NULL DEFAULT '[]',
        confidence  double precision NOT NULL DEFAULT 0.5,
        priority    integer NOT NULL DEFAULT 5,
        status      text NOT NULL DEFAULT 'pending',
        evidence    jsonb NOT NULL DEFAULT '[]',
        error_lines jsonb NOT NULL DEFAULT '[]',
        project     text,
        detector    text NOT NULL DEFAULT '',
        created_at  text NOT NULL,
        author      text NOT NULL DEFAULT '',
        machine     text NOT NULL DEFAULT ''
    )
    """,
    """
    CREATE UNIQUE INDEX candidates_pending_key ON candidates (content_key)
    WHERE status = 'pending'
    """,
    "CREATE INDEX candidates_status ON candidates (status)",
    """
    CREATE TABLE scan_state (
        machine  text NOT NULL,
        path     text NOT NULL,
        "offset" bigint NOT NULL DEFAULT 0,
        size     bigint NOT NULL DEFAULT 0,
        mtime_ns bigint NOT NULL DEFAULT 0,
        inode    bigint NOT NULL DEFAULT 0,
        extra    jsonb NOT NULL DEFAULT '{}',
        PRIMARY KEY (machine, path)
    )
    """,
    """
    CREATE TABLE deliveries (
        seq          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        lesson_id    text NOT NULL REFERENCES lessons (id) ON DELETE CASCADE,
        session_id   text NOT NULL,
        agent        text NOT NULL,
        event        text NOT NULL,
        delivered_at text NOT NULL,
        outcome      text,
        machine      text NOT NULL DEFAULT ''
    )
    """,
    # One row per delivery: a record pushed twice (a sync cut short, then retried) is one row.
    """
    CREATE UNIQUE INDEX deliveries_key
    ON deliveries (machine, lesson_id, session_id, event, delivered_at)
    """,
    "CREATE INDEX deliveries_lesson ON deliveries (lesson_id)",
]

#: Where each lesson was seen (its provenance's ``evidence``), not only how often.
_V2 = ["ALTER TABLE lessons ADD COLUMN evidence jsonb NOT NULL DEFAULT '[]'"]

#: The migration steps, oldest first; the schema version is the length of this list.
MIGRATIONS: list[list[str]] = [_V1, _V2]
LATEST = len(MIGRATIONS)


def _version(cur: Any) -> int:
    # A query on pg_tables, not to_regclass(): a name lookup may answer from the backend's
    # cache of "no such table", which waiting for an advisory lock does not refresh, and the
    # second machine would then migrate a database the first has just migrated.
    cur.execute(
        "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_tables "
        "WHERE schemaname = current_schema() AND tablename = 'lessons_meta')"
    )
    row = cur.fetchone()
    if not row or not _first(row):
        return 0
    cur.execute("SELECT value FROM lessons_meta WHERE key = 'schema_version'")
    row = cur.fetchone()
    return int(_first(row)) if row else 0


def _first(row: Any) -> Any:
    return next(iter(row.values())) if isinstance(row, dict) else row[0]


def migrate(conn: Any, where: str) -> int:
    """Bring the team database up to date (``conn`` is not in a transaction); return the version."""
    with conn.cursor() as cur:
        found = _version(cur)
    if found == LATEST:
        return found
    if found > LATEST:
        raise _newer(found, where)
    with conn.transaction(), conn.cursor() as cur:
        cur.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        found = _version(cur)  # another machine may have migrated while we waited
        if found == LATEST:
            return found
        if found > LATEST:
            raise _newer(found, where)
        for step in MIGRATIONS[found:]:
            for statement in step:
                cur.execute(statement)
        cur.execute(
            "UPDATE lessons_meta SET value = %s WHERE key = 'schema_version'", (str(LATEST),)
        )
    return LATEST


def _newer(found: int, where: str) -> StoreError:
    return StoreError(
        f"the team store {where} was written by a newer lessons (schema {found}); upgrade "
        f"lessons-postgres on this machine (it reads schema {LATEST} and older)"
    )
