"""What each tool does, as plain functions over the store: no MCP types here.

The server (:mod:`lessons_mcp.server`) checks the arguments against the schemas, runs one of
these in a worker thread and turns the :class:`Answer` into the protocol's result. Each call
opens the store itself (a SQLite connection belongs to one thread, and WAL lets the hooks, the
scanner and several calls at once read and write side by side).

* ``search`` is failure-time recall's search (:mod:`lessons_core.hot.recall`): a failure's
  output is matched by its error fingerprints, then by FTS5/BM25 on its distinctive words with
  the same acceptance rule the hook uses; a text query is ranked the same way with the prompt
  weights, and a one-word query falls back to the store's own full-text search.
* ``record`` builds a candidate the way a ``#lesson`` block becomes one, and admits it through
  intake: the length and placeholder checks, redaction of secrets and home paths, the
  pattern-safety check of the manifest compiler, and deduplication against known lessons and
  candidates. It stays pending unless ``mcp.recordActive`` is set in ``config.json``; even
  then it is a hint scoped to the project it was recorded in, and only with a trigger that
  passes the checks for a shared source (:mod:`lessons_core.shared`): the calling agent may
  have read a prompt injection, so what it records never becomes a global or standing lesson
  on its own, and a trigger that matches every call is refused outright.
* ``feedback`` writes a row into the store's ``deliveries`` table with an outcome, which the
  outcome loop's figures (and so the next manifest build) count: only for a session that was
  really given the lesson (the hooks' delivery records, or this server's own ``search``), and
  once per lesson and session.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs

from lessons_core.api import Candidate, Lesson, LessonsError, Status

#: The ``deliveries.event`` value of a feedback row, and its ``agent`` column.
FEEDBACK_EVENT = "mcp:feedback"
AGENT = "mcp"
#: The tier of candidates recorded through the server (1 and 2 are the scanner's own, 3 the
#: example detector's, 4 deep scans').
TIER = 5
DETECTOR = "mcp"
#: verdict -> outcome of the outcome loop.
OUTCOME_OF = {"helped": "prevented", "not_helpful": "quiet", "wrong": "wrong"}
_FILE_TOOLS = frozenset({"Read", "Edit", "Write", "MultiEdit", "NotebookEdit"})


class ToolError(LessonsError):
    """A call that cannot be done as asked; the message goes back to the model."""


@attrs.frozen
class Answer:
    """A tool's result: the text the model reads, and the same facts as data."""

    text: str
    data: dict[str, Any]


class Tools:
    """The five tools over the store of ``environ`` (``LESSONS_HOME`` and friends)."""

    def __init__(self, environ: Mapping[str, str] | None = None, cwd: str | None = None):
        self.environ = dict(os.environ if environ is None else environ)
        self.cwd = cwd or str(Path.cwd())
        self.session_id = f"mcp-{os.getpid()}-{_now_stamp()}"
        #: Lessons this server's own ``search`` returned: what its own session was given.
        self._shown: set[str] = set()
        # Intake reads the known lessons and candidates, then writes: two records at once
        # could each miss the other's candidate and store the same lesson twice.
        self._admitting = threading.Lock()

    def handlers(self) -> dict[str, Callable[[dict[str, Any]], Answer]]:
        return {
            "search": self.search,
            "record": self.record,
            "feedback": self.feedback,
            "show": self.show,
            "list": self.list,
        }

    @contextmanager
    def _session(self) -> Iterator[Any]:
        from lessons_core import services

        with services.session(self.environ) as sess:
            yield sess

    # -- search ---------------------------------------------------------------------------------

    def search(self, args: dict[str, Any]) -> Answer:
        from lessons_core.hot import errnorm, recall
        from lessons_core.hot import manifest as manifest_mod
        from lessons_core.hot.project import project_id

        with self._session() as sess:
            manifest_mod.clear_cache()  # a long-lived process: read what the last build wrote
            manifest = recall.load_index(self.environ)
            stats: dict[str, Any] = {}
            found: list[tuple[str, str]] = []  # (lesson id, how it matched)
            error = (args.get("error") or "").strip()
            if error:
                lines = errnorm.key_lines(error)
                fps = errnorm.fingerprints(lines)
                index = manifest.get("errorFingerprints") or {}
                exact: list[str] = []
                for fp in fps:
                    for lesson_id in index.get(fp, ()):
                        if lesson_id not in exact:
                            exact.append(lesson_id)
                joined = " ".join(lines)
                stems = {errnorm.stem(w) for w in errnorm.words(joined, limit=400)}
                rows = recall.search(
                    self.environ,
                    manifest,
                    errnorm.words(joined),
                    exact,
                    recall._FAILURE_WEIGHTS,
                    lambda shared, row: recall.failure_accepts(stems, row),
                    stats,
                )
                found += [(r[0], "fingerprint" if r[0] in exact else "error text") for r in rows]
            text = (args.get("text") or "").strip()
            if text:
                words = errnorm.words(errnorm.normalize_line(errnorm.prepare(text[:4000])), 32)
                if len(words) >= 2:
                    need = 2

                    def accepts(shared: set[str], row: Any) -> bool:
                        return len(shared) >= need

                    rows = recall.search(
                        self.environ, manifest, words, [], recall._PROMPT_WEIGHTS, accepts, stats
                    )
                    found += [(r[0], "text") for r in rows]
                else:
                    hits = sess.store.search_lessons(text, limit=int(args["limit"]))
                    found += [(lesson.id, "text") for lesson in hits]
            if "recall_error" in stats and not found:
                raise ToolError(f"the store could not be searched: {stats['recall_error']}")
            wanted = None if args["scope"] == "all" else project_id(args.get("cwd") or self.cwd)
            lessons: list[tuple[Lesson, str]] = []
            seen: set[str] = set()
            for lesson_id, how in found:
                lesson = sess.store.get_lesson(lesson_id) if lesson_id not in seen else None
                seen.add(lesson_id)
                if lesson is None or lesson.status is not Status.ACTIVE:
                    continue
                if args["scope"] != "all" and lesson.scope and lesson.scope != wanted:
                    continue
                lessons.append((lesson, how))
                if len(lessons) >= int(args["limit"]):
                    break
        self._shown.update(lesson.id for lesson, _ in lessons)
        data = {
            "results": [
                {**_brief(lesson), "remediation": lesson.remediation, "match": how}
                for lesson, how in lessons
            ],
            "project": wanted,
        }
        if not lessons:
            return Answer("No lesson matches.", data)
        out = ["Lessons from earlier sessions (best first):"]
        for lesson, how in lessons:
            out.append(f"- [{lesson.slug}] {' '.join(lesson.summary.split())} ({how})")
            out.append(f"  Fix: {lesson.remediation.strip()}")
        out.append("Tell `feedback` whether one helped, did not apply, or is wrong.")
        return Answer("\n".join(out), data)

    # -- record ---------------------------------------------------------------------------------

    def record(self, args: dict[str, Any]) -> Answer:
        from lessons_core.api import check_glob, check_lesson, error_lines
        from lessons_core.compiler.entries import compile_lesson
        from lessons_core.hot.project import project_id
        from lessons_core.patterns import regex_safety
        from lessons_core.scan import intake, scoring
        from lessons_core.scan.detectors import tier1

        tool = tier1.canonical_tool(args.get("tool"))
        raw = (args.get("trigger") or "").strip() or None
        if raw is not None:
            if tool in _FILE_TOOLS:
                problem = check_glob(raw)
                if problem:
                    raise ToolError(f"record: trigger {raw!r} is not a usable path glob: {problem}")
            else:
                problem = regex_safety.check_pattern(raw)
                if problem and not problem.startswith("does not compile"):
                    raise ToolError(
                        f"record: trigger {raw!r} would be refused by the manifest compiler: "
                        f"{problem}; give a simpler pattern, or the literal command"
                    )
        fields = {"mistake": args["mistake"], "fix": args["fix"]}
        if args.get("summary"):
            fields["summary"] = args["summary"]
        candidate = Candidate(
            id="",
            tier=TIER,
            agent=AGENT,
            tool=tool,
            trigger=tier1.trigger_for(tool, raw),
            mistake=args["mistake"].strip(),
            fix=args["fix"].strip(),
            summary=tier1._summary(fields),
            tags=tuple(args.get("tags") or ()) or tier1._tags({}, tool, raw),
            confidence=scoring.TIER1_CONFIDENCE,
            priority=int(args["priority"]),
            error_lines=error_lines(args["error"]) if args.get("error") else (),
            project=project_id(args.get("cwd") or self.cwd),
            detector=DETECTOR,
        )
        prepared = intake.prepare(candidate, self.environ.get("HOME"))
        if isinstance(prepared, str):
            raise ToolError(f"record: not stored: {prepared}")
        preview = intake.to_lesson(prepared)
        try:
            check_lesson(preview)
            compile_lesson(preview)
        except Exception as exc:  # the compiler's refusal names the field and the rule
            raise ToolError(f"record: not stored: {exc}") from exc
        everything = _matches_everything(preview)
        if everything:
            raise ToolError(
                f"record: not stored: trigger {everything[:80]!r} matches every call; give a "
                "pattern for the calls the lesson is about"
            )
        # What may become active at once: a hint of this project, with a trigger a shared
        # source may carry. Anything else waits for the user, whatever mcp.recordActive says.
        held = _why_held(preview, prepared.project)
        with self._admitting, self._session() as sess:
            gate = intake.Intake(sess.store, sess.config, home=self.environ.get("HOME"))
            outcome = gate.admit(prepared, prepared=True)
            active = sess.config.mcp.record_active and held is None
            lesson = outcome.lesson
            if outcome.status == intake.NEW and active:
                lesson = gate.promote(outcome.candidate, scope=prepared.project)
            if lesson is not None:
                sess.rebuild_manifest()
        stored = outcome.candidate
        data: dict[str, Any] = {"status": outcome.status, "candidate": stored.id or None}
        if outcome.status == intake.DUPLICATE:
            data["reason"] = outcome.reason
            if lesson is not None:
                data["lesson"] = _brief(lesson)
            return Answer(f"Already known: {outcome.reason}. Nothing new was stored.", data)
        if lesson is not None:
            data["status"] = "active"
            data["lesson"] = _brief(lesson)
            return Answer(
                f"Recorded as active lesson {lesson.slug} ({lesson.id}) for this project; the "
                "hooks deliver it from the next matching call.",
                data,
            )
        if held is not None:
            data["held"] = held
            return Answer(
                f"Recorded as candidate {stored.id}; it waits for `lessons review` ({held}).", data
            )
        return Answer(
            f"Recorded as candidate {stored.id}; it waits for `lessons review` "
            "(set mcp.recordActive in config.json to make recorded lessons active at once).",
            data,
        )

    # -- feedback -------------------------------------------------------------------------------

    def feedback(self, args: dict[str, Any]) -> Answer:
        outcome = OUTCOME_OF[args["verdict"]]
        session = args.get("session_id") or self.session_id
        with self._session() as sess:
            lesson = _find(sess.store, args["lesson"])
            rows = sess.store.list_deliveries(lesson_id=lesson.id)
            if any(r["session_id"] == session and r["event"] == FEEDBACK_EVENT for r in rows):
                raise ToolError(
                    f"feedback: {lesson.slug} was already judged for this session; one verdict "
                    "per lesson and session counts"
                )
            if not self._received(lesson.id, session, rows):
                raise ToolError(
                    f"feedback: no record shows session {session[:80]!r} was given "
                    f"{lesson.slug}; give the session_id of the session that received it (or "
                    "judge a lesson this server's search returned)"
                )
            sess.store.record_delivery(lesson.id, session, AGENT, FEEDBACK_EVENT, outcome=outcome)
            sess.rebuild_manifest()  # the figures move confidence and rank at build
        data = {"lesson": _brief(lesson), "verdict": args["verdict"], "outcome": outcome}
        return Answer(f"Noted: {lesson.slug} {args['verdict'].replace('_', ' ')}.", data)

    # -- show / list ----------------------------------------------------------------------------

    def show(self, args: dict[str, Any]) -> Answer:
        from lessons_core import serde
        from lessons_core.cli.lesson_cmds import describe

        with self._session() as sess:
            lesson = _find(sess.store, args["lesson"])
        return Answer("\n".join(describe(lesson)), {"lesson": serde.lesson_to_json(lesson)})

    def list(self, args: dict[str, Any]) -> Answer:
        limit = int(args["limit"])
        with self._session() as sess:
            if args["kind"] == "candidates":
                pending = sess.store.list_candidates(status="pending")
                items = [
                    {"id": c.id, "summary": c.summary, "tool": c.tool, "trigger": c.trigger}
                    for c in pending[-limit:]
                ]
                lines = [f"- {c['id']}  {c['summary']}" for c in items]
                head = f"{len(pending)} candidate(s) waiting for review"
                return Answer(
                    "\n".join([head, *lines]), {"candidates": items, "total": len(pending)}
                )
            types = [args["type"]] if args.get("type") else None
            lessons = sess.store.list_lessons(status=Status(args["status"]), types=types)
        lessons.sort(key=lambda x: (-x.priority, -x.confidence, x.id))
        shown = lessons[:limit]
        lines = [
            f"- [{x.slug}] ({x.type}, p{x.priority}) {' '.join(x.summary.split())}" for x in shown
        ]
        head = f"{len(lessons)} {args['status']} lesson(s)" + (
            f", the first {len(shown)}" if len(shown) < len(lessons) else ""
        )
        data = {"lessons": [_brief(x) for x in shown], "total": len(lessons)}
        return Answer("\n".join([head, *lines]), data)

    def _received(self, lesson_id: str, session: str, rows: Sequence[dict[str, Any]]) -> bool:
        """Whether ``session`` was given ``lesson_id``: by this server's ``search`` (its own
        session), or by a hook (the store's delivery rows, or the hooks' delivery log not yet
        read into the store)."""
        if session == self.session_id:
            return lesson_id in self._shown
        if any(r["session_id"] == session and r["event"] != FEEDBACK_EVENT for r in rows):
            return True
        return _in_delivery_log(self.environ, lesson_id, session)


def _in_delivery_log(environ: Mapping[str, str], lesson_id: str, session: str) -> bool:
    """Whether the hooks' delivery log (``deliveries.jsonl``) names ``lesson_id`` delivered to
    ``session``; read line by line, a damaged line skipped."""
    import json

    from lessons_core.hot import deliveries

    try:
        with Path(deliveries.log_path(environ)).open(encoding="utf-8", errors="replace") as log:
            lines = [line for line in log if lesson_id in line and session in line]
    except OSError:
        return False
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and [entry.get("id"), entry.get("session")] == [
            lesson_id,
            session,
        ]:
            return True
    return False


def _matches_everything(lesson: Lesson) -> str | None:
    """The first trigger of ``lesson`` that matches every call, if any."""
    from lessons_core.api import shared

    found = shared.everything_in(lesson)
    return None if found is None else found[1]


def _why_held(lesson: Lesson, project: str | None) -> str | None:
    """Why a recorded lesson may not be active at once, or ``None``: it must be a hint with a
    trigger, of a known project (it is scoped there), passing the shared-source checks."""
    from lessons_core.api import shared

    if project is None:
        return "no project id here, and a recorded lesson is never global"
    try:
        shared.check(attrs.evolve(lesson, scope=project), shared.MCP)
    except shared.Refused as exc:
        return str(exc)
    if shared.waits_for_acceptance(lesson):
        return f"a {lesson.type} acts on its own and waits for the user"
    return None


def _find(store: Any, key: str) -> Lesson:
    lesson: Lesson | None = store.get_lesson(key.strip())
    if lesson is None:
        raise ToolError(f"no lesson with id or slug {key!r} (search or list shows them)")
    return lesson


def _brief(lesson: Lesson) -> dict[str, Any]:
    return {
        "id": lesson.id,
        "slug": lesson.slug,
        "summary": lesson.summary,
        "type": str(lesson.type),
        "scope": lesson.scope,
        "priority": lesson.priority,
        "confidence": lesson.confidence,
        "status": str(lesson.status),
    }


def _now_stamp() -> str:
    import time

    return time.strftime("%Y%m%dT%H%M%S", time.gmtime())
