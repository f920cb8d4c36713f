"""``lessons sync`` with a PostgreSQL team store: what travels, in which order, and conflicts.

One sync, on one machine, against the team database:

1. **lessons out** — a local lesson the team has never seen is added to the team store (merged
   by content hash, like any add). A lesson that came from the team and was edited here since
   the last sync is pushed as an edit *on the revision it was based on*: the row is locked and
   its revision compared. When the team's row moved on meanwhile (edited elsewhere), that is a
   conflict: the higher revision — the team's — wins and is written back here at once, and the
   local edit is kept whole in the team's ``lesson_conflicts`` table and in
   ``team-conflicts.jsonl`` in ``LESSONS_HOME``. Nothing is lost, and the report names it. The
   places a lesson was seen (its provenance's ``evidence``: transcript paths, project
   directories) stay here, like the transcripts: a lesson leaves without them.
2. **candidates out** — pending candidates, merged on the team by content (the same finding on
   two machines is one candidate with both pieces of evidence). Evidence travels as the
   transcript's file name and a line number; the transcript itself never leaves the machine.
3. **deliveries out** — delivery records and their outcomes (lesson, agent, event, outcome,
   time, an opaque session id): the counts behind ``lessons stats``, nothing of the text.
4. **lessons in** — every team lesson whose revision is above this machine's cursor, and every
   removal (tombstone), in revision order; new active ones are added here, changed ones
   updated, removed ones removed. The local writes and the new cursor commit together.
   A team row is a teammate's input: each is checked as ``lessons add`` checks its input
   (:mod:`lessons_core.shared`); one that fails is quarantined (named in the report and in
   ``team-quarantine.jsonl``, left on the team) and its neighbours are applied. A guard, nudge,
   directive or protocol lesson the team adds or changes arrives as a ``candidate`` lesson:
   it is delivered once the user accepts it (``lessons enable``).

Each step records its progress in the local store (scan state ``lessons:team-sync``) when it
is done, and every step is idempotent, so a sync cut off by the network (or a machine that was
offline for a week) simply does the rest next time. Two syncs of the same machine at once are
serialized by a session-level advisory lock on the team server.

The hook is not involved: it reads the local manifest, which is rebuilt after a sync that
changed local lessons.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs

from lessons_core.api import (
    Candidate,
    Config,
    Evidence,
    Lesson,
    LessonsError,
    Status,
    Store,
    SyncReport,
    add_sightings,
    get_logger,
    mask_url,
    shared,
)
from lessons_core.api import rows as row_map
from lessons_postgres import settings
from lessons_postgres.store import (
    _LESSON_SELECT,
    UNREADABLE_KEY,
    PostgresStore,
    TeamUnreachable,
)

log = get_logger()

STATE_KEY = "lessons:team-sync"
CONFLICTS_NAME = "team-conflicts.jsonl"
#: Team rows this machine could not use: their id, revision and why (``lessons doctor`` reads
#: it under the same name).
QUARANTINE_NAME = "team-quarantine.jsonl"
#: Team rows read per round trip while pulling.
PAGE = 2000
#: Key prefix of the advisory lock that keeps one machine's syncs from overlapping.
_MACHINE_LOCK = "lessons:sync:"
#: The fourth element of a state entry for a lesson this machine sent first: the user's own.
_OWN = "own"


def edit_digest(lesson: Lesson) -> str:
    """What an edit changes: text, triggers, type, status, priority… (not ids, slugs, counts
    or timestamps, which differ between stores holding the same lesson)."""
    t = lesson.triggers
    payload = [
        lesson.summary,
        lesson.mistake,
        lesson.remediation,
        str(lesson.type),
        [list(getattr(t, f.name)) for f in attrs.fields(type(t))],
        str(lesson.command_match_target),
        lesson.priority,
        round(lesson.confidence, 6),
        list(lesson.tags),
        lesson.scope,
        lesson.injection,
        str(lesson.status),
        list(lesson.error_lines),
    ]
    blob = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    return hashlib.sha256(blob).hexdigest()[:32]


@attrs.define
class _State:
    """This machine's bookkeeping for one team database (kept in the local store)."""

    site: str = ""
    cursor: int = 0
    #: local lesson id -> [team lesson id, team revision, edit digest when last in step, and
    #: "own" for a lesson this machine sent first (the user's own: the team only suggests)]
    lessons: dict[str, list[Any]] = attrs.Factory(dict)
    #: local candidate id -> pieces of evidence pushed
    candidates: dict[str, int] = attrs.Factory(dict)
    #: delivery records pushed (the local log is append-only)
    deliveries: int = 0

    @classmethod
    def load(cls, local: Any, site: str) -> _State:
        raw = local.get_scan_state(STATE_KEY) or {}
        if raw.get("site") != site:  # first sync, or another team database: start over
            return cls(site=site)
        return cls(
            site=site,
            cursor=int(raw.get("cursor") or 0),
            lessons=dict(raw.get("lessons") or {}),
            candidates={k: int(v) for k, v in (raw.get("candidates") or {}).items()},
            deliveries=int(raw.get("deliveries") or 0),
        )

    def save(self, local: Any) -> None:
        local.set_scan_state(
            STATE_KEY,
            {
                "site": self.site,
                "cursor": self.cursor,
                "lessons": self.lessons,
                "candidates": self.candidates,
                "deliveries": self.deliveries,
            },
        )


@attrs.define
class _Tally:
    pulled: int = 0
    updated: int = 0
    removed: int = 0
    pushed_lessons: int = 0
    pushed_candidates: int = 0
    pushed_deliveries: int = 0
    conflicts: list[str] = attrs.Factory(list)
    quarantined: list[str] = attrs.Factory(list)
    waiting: list[str] = attrs.Factory(list)
    suggestions: list[str] = attrs.Factory(list)


def sync(
    local: Store, *, config: Config, home: Path, environ: Mapping[str, str] | None = None
) -> SyncReport:
    """Exchange lessons between ``local`` and the team store; an unreachable team is reported
    as ``offline`` (nothing lost: the next sync catches up)."""
    started = time.perf_counter()
    url = settings.database_url(config, environ)
    where = mask_url(url)
    tally = _Tally()
    try:
        with PostgresStore(
            url, author=settings.author(config), machine=settings.machine(config, home)
        ) as team:
            where = team.where
            with _machine_lock(team):
                _exchange(local, team, home, tally)
    except TeamUnreachable as exc:
        log.info("team.offline", where=where, error=str(exc))
        return _report(where, tally, started, offline=str(exc))
    return _report(where, tally, started)


def _report(where: str, tally: _Tally, started: float, offline: str = "") -> SyncReport:
    return SyncReport(
        store="postgres",
        where=where,
        offline=offline,
        pulled=tally.pulled,
        updated=tally.updated,
        removed=tally.removed,
        pushed_lessons=tally.pushed_lessons,
        pushed_candidates=tally.pushed_candidates,
        pushed_deliveries=tally.pushed_deliveries,
        conflicts=tuple(tally.conflicts),
        quarantined=tuple(tally.quarantined),
        waiting=tuple(tally.waiting),
        suggestions=tuple(tally.suggestions),
        seconds=time.perf_counter() - started,
    )


@contextmanager
def _machine_lock(team: PostgresStore) -> Iterator[None]:
    """Hold a session-level advisory lock named after this machine for the whole sync."""
    with team._pool.connection() as conn:
        key = _MACHINE_LOCK + team.machine
        conn.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", (key,))
        try:
            yield
        finally:
            conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (key,))


def _exchange(local: Any, team: PostgresStore, home: Path, tally: _Tally) -> None:
    state = _State.load(local, team.site())
    _push_lessons(local, team, home, state, tally)
    state.save(local)
    _push_candidates(local, team, state, tally)
    state.save(local)
    _push_deliveries(local, team, state, tally)
    state.save(local)
    _pull(local, team, home, state, tally)


# -- 1. lessons out ---------------------------------------------------------------------------


def _push_lessons(
    local: Any, team: PostgresStore, home: Path, state: _State, tally: _Tally
) -> None:
    new: list[Lesson] = []
    edited: list[tuple[Lesson, str, list[Any]]] = []
    for lesson in local.list_lessons():
        digest = edit_digest(lesson)
        entry = state.lessons.get(lesson.id)
        if entry is None:
            new.append(lesson)
        elif digest != entry[2]:
            edited.append((lesson, digest, entry))
    if edited:
        with team.transaction():  # one round of commits for all of them
            for lesson, digest, entry in edited:
                _push_edit(local, team, home, lesson, digest, entry, state, tally)
    if not new:
        return
    try:
        _push_new(team, new, state, tally)
    except LessonsError:
        # One lesson the team refuses (an id it holds with other content) must not hold
        # back the rest: one at a time, each refusal reported.
        for lesson in new:
            try:
                _push_new(team, [lesson], state, tally)
            except TeamUnreachable:
                raise
            except LessonsError as exc:
                tally.conflicts.append(f"{lesson.slug}: not pushed ({exc})")


def _push_new(team: PostgresStore, new: list[Lesson], state: _State, tally: _Tally) -> None:
    """Add lessons the team has not seen from this machine, in one team transaction."""
    with team.transaction():
        known = {
            r["content_hash"]: r
            for r in team._rows(
                "SELECT id, content_hash, sessions FROM lessons WHERE content_hash = ANY(%s)",
                ([lesson.content_hash for lesson in new],),
            )
        }
        send: list[Lesson] = []
        team_ids: dict[str, str] = {}
        for lesson in new:
            row = known.get(lesson.content_hash)
            if row is not None and set(lesson.provenance.sessions) <= set(row["sessions"]):
                team_ids[lesson.id] = row["id"]  # pushed already (a sync cut short)
            else:
                send.append(lesson)
        for lesson, stored in zip(send, team.add_lessons(map(_leaving, send)), strict=True):
            team_ids[lesson.id] = stored.id
        revisions = {
            r["id"]: int(r["revision"])
            for r in team._rows(
                "SELECT id, revision FROM lessons WHERE id = ANY(%s)",
                (sorted(set(team_ids.values())),),
            )
        }
    tally.pushed_lessons += len(send)
    # The digest is the local one: the pull below brings the team's merged row back (its
    # revision is above the cursor) and finds no local edit to protect.
    for lesson in new:
        team_id = team_ids[lesson.id]
        state.lessons[lesson.id] = [
            team_id,
            revisions.get(team_id, 0),
            edit_digest(lesson),
            _OWN,
        ]


def _push_edit(
    local: Any,
    team: PostgresStore,
    home: Path,
    lesson: Lesson,
    digest: str,
    entry: list[Any],
    state: _State,
    tally: _Tally,
) -> None:
    team_id, base = entry[0], entry[1]
    own = _owned(entry)
    with team.transaction():
        rows = team._rows(f"{_LESSON_SELECT} WHERE id = %s FOR UPDATE", (team_id,))
        try:
            current = team_lesson(rows[0]) if rows else None
        except shared.Refused as exc:
            _quarantine(home, rows[0], str(exc), tally)
            return
        revision = int(rows[0]["revision"]) if rows else 0
        if current is not None and (revision == int(base) or edit_digest(current) == digest):
            edited = attrs.evolve(
                lesson,
                id=team_id,
                slug=current.slug,
                provenance=current.provenance,
                created_at=current.created_at,
            )
            try:
                _, revision = team.update_lesson_at(edited)
            except LessonsError as exc:
                tally.conflicts.append(f"{lesson.slug}: edit not pushed ({exc})")
                return
            state.lessons[lesson.id] = _entry(team_id, revision, digest, own)
            tally.pushed_lessons += 1
            return
        # Edited here and on the team since the last sync: the team's revision is the higher
        # one and wins (unless the lesson is this user's own); the version that does not win
        # is kept, whole, on both sides.
        loser = current if own and current is not None else lesson
        saved = team._rows(
            "INSERT INTO lesson_conflicts (lesson_id, base_revision, team_revision, author, "
            "machine, lesson) VALUES (%s, %s, %s, %s, %s, %s) RETURNING id",
            (team_id, int(base), revision, team.author, team.machine, _jsonb(loser)),
        )
    conflict_id = saved[0]["id"]
    _keep_locally(home, loser, team_id, int(base), revision, int(conflict_id))
    if current is None:
        tally.conflicts.append(
            f"{lesson.slug}: edited here but removed from the team store; your version is "
            f"saved as team conflict {conflict_id} and in {CONFLICTS_NAME}"
        )
        state.lessons[lesson.id] = _entry(team_id, int(base), digest, own)
        return
    if own:
        # The user's own lesson: theirs stays here, and is pushed again on the team's current
        # revision at the next sync; the team's version was only a suggestion.
        state.lessons[lesson.id] = _entry(team_id, revision, "", own)
        tally.suggestions.append(
            f"{lesson.slug}: your lesson was also edited on the team (revision {revision}); "
            f"yours is kept and goes to the team at the next sync, the team's version is saved "
            f"as team conflict {conflict_id} and in {CONFLICTS_NAME}"
        )
        return
    winner = attrs.evolve(
        _staying(current, lesson), id=lesson.id, slug=lesson.slug, created_at=lesson.created_at
    )
    try:
        local.update_lesson(winner)
    except LessonsError as exc:
        tally.conflicts.append(f"{lesson.slug}: the team's version could not be applied ({exc})")
        return
    state.lessons[lesson.id] = _entry(team_id, revision, edit_digest(winner), own)
    tally.updated += 1
    tally.conflicts.append(
        f"{lesson.slug}: edited here and on the team; the team's revision {revision} (above "
        f"your base {base}) is kept, your version is saved as team conflict {conflict_id} and "
        f"in {CONFLICTS_NAME}"
    )


def _leaving(lesson: Lesson) -> Lesson:
    """The lesson as it leaves the machine: without the places it was seen (transcript paths,
    project directories), which stay in the local store like the transcripts themselves."""
    if not lesson.provenance.evidence:
        return lesson
    return attrs.evolve(lesson, provenance=attrs.evolve(lesson.provenance, evidence=()))


def _staying(theirs: Lesson, mine: Lesson) -> Lesson:
    """The team's version of a local lesson, keeping the places it was seen here."""
    seen = add_sightings(mine.provenance.evidence, theirs.provenance.evidence)
    return attrs.evolve(theirs, provenance=attrs.evolve(theirs.provenance, evidence=seen))


def _jsonb(lesson: Lesson) -> Any:
    from psycopg.types.json import Jsonb

    from lessons_core.api import lesson_to_json

    return Jsonb(lesson_to_json(_leaving(lesson)))


def _keep_locally(
    home: Path, lesson: Lesson, team_id: str, base: int, revision: int, conflict_id: int
) -> None:
    from lessons_core.api import lesson_to_json

    record = {
        "conflict": conflict_id,
        "teamLessonId": team_id,
        "baseRevision": base,
        "teamRevision": revision,
        "lesson": lesson_to_json(lesson),
    }
    with (home / CONFLICTS_NAME).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")


# -- 2. candidates out ------------------------------------------------------------------------


def _travelling(candidate: Candidate) -> Candidate:
    """The candidate as it leaves the machine: evidence by file name and line only."""
    evidence = tuple(
        Evidence(file=Path(e.file).name, line=e.line, call_id=e.call_id, session_id=e.session_id)
        for e in candidate.evidence
    )
    return attrs.evolve(candidate, evidence=evidence)


def _push_candidates(local: Any, team: PostgresStore, state: _State, tally: _Tally) -> None:
    pending = [
        c
        for c in local.list_candidates(status="pending")
        if state.candidates.get(c.id) != len(c.evidence)
    ]
    if not pending:
        return
    with team.transaction():
        for candidate in pending:
            team.add_candidate(attrs.evolve(_travelling(candidate), id=""))
    for candidate in pending:
        state.candidates[candidate.id] = len(candidate.evidence)
    tally.pushed_candidates += len(pending)


# -- 3. deliveries out ------------------------------------------------------------------------


def _push_deliveries(local: Any, team: PostgresStore, state: _State, tally: _Tally) -> None:
    rows = local.list_deliveries()
    fresh = rows[state.deliveries :] if len(rows) >= state.deliveries else rows
    to_team = {local_id: entry[0] for local_id, entry in state.lessons.items()}
    params = [
        (
            to_team[r["lesson_id"]],
            r["session_id"],
            r["agent"],
            r["event"],
            r["delivered_at"],
            r["outcome"],
            team.machine,
            to_team[r["lesson_id"]],
        )
        for r in fresh
        if r["lesson_id"] in to_team
    ]
    if params:
        with team.transaction(), team._cursor() as cur:
            cur.executemany(
                "INSERT INTO deliveries (lesson_id, session_id, agent, event, delivered_at, "
                "outcome, machine) SELECT %s, %s, %s, %s, %s, %s, %s "
                "WHERE EXISTS (SELECT 1 FROM lessons WHERE id = %s) ON CONFLICT DO NOTHING",
                params,
            )
    tally.pushed_deliveries += len(params)
    state.deliveries = len(rows)


# -- 4. lessons in ----------------------------------------------------------------------------


def team_lesson(row: dict[str, Any]) -> Lesson:
    """The lesson of a team row, checked as ``lessons add`` checks its input (plus the rules for
    a shared source); :class:`lessons_core.shared.Refused` when it cannot be used."""
    where = f"team lesson {_short_id(row.get('id'))}"
    for column in ("triggers", "tags", "error_lines", "sessions", "projects"):
        value = row.get(column)
        if isinstance(value, dict) and UNREADABLE_KEY in value:
            raise shared.Refused(
                f"from the {shared.TEAM}: {value[UNREADABLE_KEY]}", where=where, field=column
            )
    try:
        data = row_map.lesson_json_from_row(row, lambda value: value)
    except (KeyError, TypeError) as exc:  # pragma: no cover - the columns are ours
        raise shared.Refused(f"team row {row.get('id')!r}: missing {exc}") from None
    return shared.from_json(data, shared.TEAM, where=where)


def _short_id(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 70 else text[:69] + "\u2026"


def _quarantine(home: Path, row: dict[str, Any], problem: str, tally: _Tally) -> None:
    """Name a team row this machine cannot use; it stays on the team, its neighbours go on."""
    team_id = _short_id(row.get("id"))
    revision = row.get("revision")
    tally.quarantined.append(f"{team_id} (revision {revision}): {problem}")
    log.warning("team.row_quarantined", lesson=team_id, revision=revision, error=problem)
    record = {"teamLessonId": team_id, "revision": revision, "problem": problem}
    with (home / QUARANTINE_NAME).open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")


def _pull(local: Any, team: PostgresStore, home: Path, state: _State, tally: _Tally) -> None:
    while True:
        rows = team._rows(
            f"{_LESSON_SELECT} WHERE revision > %s ORDER BY revision LIMIT %s",
            (state.cursor, PAGE),
        )
        gone = team._rows(
            "SELECT id, revision FROM lesson_tombstones WHERE revision > %s "
            "ORDER BY revision LIMIT %s",
            (state.cursor, PAGE),
        )
        if not rows and not gone:
            return
        # Apply everything up to the lower of the two pages' last revisions, in order.
        ends = [int(page[-1]["revision"]) for page in (rows, gone) if len(page) == PAGE]
        upto = min(ends) if ends else max(int(p[-1]["revision"]) for p in (rows, gone) if p)
        changes = sorted(
            [(int(r["revision"]), "row", r) for r in rows if int(r["revision"]) <= upto]
            + [(int(g["revision"]), "gone", g) for g in gone if int(g["revision"]) <= upto],
            key=lambda item: item[0],
        )
        with local.transaction():
            _apply(local, changes, home, state, tally)
            state.cursor = upto
            state.save(local)


def _apply(
    local: Any,
    changes: list[tuple[int, str, dict[str, Any]]],
    home: Path,
    state: _State,
    tally: _Tally,
) -> None:
    to_local = {entry[0]: local_id for local_id, entry in state.lessons.items()}
    for revision, kind, row in changes:
        theirs: Lesson | None = None
        if kind == "row":
            try:
                theirs = team_lesson(row)
            except shared.Refused as exc:
                _quarantine(home, row, str(exc), tally)
                continue
        team_id = row["id"]
        local_id = to_local.get(team_id, team_id)
        entry = state.lessons.get(local_id)
        mine = local.get_lesson(local_id) if entry is not None or local_id == team_id else None
        if mine is not None and mine.id != local_id:
            mine = None  # a prefix match on another lesson, not this one
        if mine is not None and entry is not None and edit_digest(mine) != entry[2]:
            continue  # edited here since: the next sync pushes it and settles any conflict
        own = entry is not None and _owned(entry)
        if kind == "gone":
            if mine is not None and own:
                # The user's own lesson: removed on the team, kept here.
                assert entry is not None
                state.lessons[local_id] = _entry(team_id, revision, entry[2], own)
                tally.suggestions.append(
                    f"{mine.slug}: removed from the team store; your lesson is kept here "
                    f"('lessons remove {mine.slug}' if you agree)"
                )
                continue
            if mine is not None and entry is not None:
                local.remove_lesson(mine.id)
                tally.removed += 1
            state.lessons.pop(local_id, None)
            to_local.pop(team_id, None)
            continue
        assert theirs is not None
        if mine is None:
            if theirs.status != Status.ACTIVE:
                continue
            theirs = _held_back(theirs, None, tally)
            try:
                (stored,) = local.add_lessons([theirs])
            except LessonsError as exc:
                log.warning("team.pull_refused", lesson=team_id, error=str(exc))
                continue
            state.lessons[stored.id] = _entry(team_id, revision, edit_digest(stored), False)
            to_local[team_id] = stored.id
            tally.pulled += 1
            continue

        if own and edit_digest(mine) != edit_digest(theirs):
            # The user's own lesson: what the team changed is a suggestion, never applied.
            state.lessons[mine.id] = _entry(team_id, revision, edit_digest(mine), own)
            to_local[team_id] = mine.id
            tally.suggestions.append(
                f"{mine.slug}: the team {_change(mine, theirs)} your lesson (revision "
                f"{revision}); yours is kept as it is ('lessons edit {mine.slug}' if you agree)"
            )
            continue
        applied = theirs = _staying(theirs, mine)
        if edit_digest(mine) != edit_digest(theirs) or mine.provenance != theirs.provenance:
            updated = attrs.evolve(theirs, id=mine.id, slug=mine.slug, created_at=mine.created_at)
            updated = applied = _held_back(updated, mine, tally)
            try:
                local.update_lesson(updated)
            except LessonsError as exc:
                log.warning("team.pull_refused", lesson=team_id, error=str(exc))
                continue
            tally.updated += 1
        state.lessons[mine.id] = _entry(team_id, revision, edit_digest(applied), own)
        to_local[team_id] = mine.id


def _held_back(theirs: Lesson, mine: Lesson | None, tally: _Tally) -> Lesson:
    """``theirs`` as this machine stores it: a lesson that acts on its own (a guard, a nudge, a
    directive, a protocol) the team adds, or changes from what this user accepted, waits as a
    ``candidate`` until the user enables it."""
    if theirs.status is not Status.ACTIVE or not shared.waits_for_acceptance(theirs):
        return theirs
    if (
        mine is not None
        and mine.status is Status.ACTIVE
        and mine.content_hash == theirs.content_hash
        and mine.type == theirs.type
    ):
        return theirs  # accepted already, and the team changed nothing it says
    tally.waiting.append(
        f"{theirs.slug} ({theirs.type}): {' '.join(theirs.summary.split())[:80]}; it waits for "
        f"you: 'lessons show {theirs.slug}', then 'lessons enable {theirs.slug}'"
    )
    return attrs.evolve(theirs, status=Status.CANDIDATE)


def _owned(entry: list[Any]) -> bool:
    """Whether a state entry is of a lesson this machine sent first (the user's own)."""
    return len(entry) > 3 and entry[3] == _OWN


def _entry(team_id: str, revision: int, digest: str, own: bool) -> list[Any]:
    return [team_id, revision, digest, _OWN] if own else [team_id, revision, digest]


def _change(mine: Lesson, theirs: Lesson) -> str:
    """What the team's version does to the user's lesson, in words."""
    if theirs.status != mine.status:
        return f"set to {theirs.status}"
    return "rewrote"
