"""Compile the store's active lessons into ``lesson-manifest.json``, the hook's only input.

Everything costly is done here, once, so that the hook process does nothing but look things up:
lessons are filtered by the configured floors, indexed by canonical tool name, their path globs
turned into regexes, a literal prefilter extracted from every pattern, every pattern checked for
catastrophic backtracking, and their texts rendered (full and short). The result is plain JSON
that the standard-library hot path reads without any third-party import.

The file is replaced atomically (temporary file in the same directory, ``fsync``, ``os.replace``),
so a hook never reads half a manifest and a failed build leaves the previous manifest in place.
``fingerprint`` is the SHA-256 of the manifest body and ``storeRevision`` the store revision it
was compiled from; the revision also goes to ``manifest.stamp`` for the cheap staleness check
the hook makes.

Builds are serialised by a lock file (``build.lock`` in ``LESSONS_HOME``, ``fcntl.flock``): a
build started while another runs waits for it, so two builds cannot interleave their writes of
the JSON, the stamp and the marshal copy. The revision is read before the lessons, so a lesson
added meanwhile can only make the manifest look older than it is (and be rebuilt), never newer.
The marshal copy is bound to the JSON this build wrote (its size, mtime and inode taken from the
written file, not looked up again afterwards).

A lesson holding more text than :data:`lessons_core.validate.MAX_LESSON_TEXT_BYTES` (which
intake refuses; a store written otherwise may still hold one) is refused like a lesson with an
unsafe pattern, and :func:`lessons_core.hot.manifest.pack_cache` refuses an entry its index
cannot address: the compiler leaves out, it never writes an index that points at wrong bytes.
"""

from __future__ import annotations

import contextlib
import json
import marshal
import os
import sys
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import Any

import attrs

from lessons_core import validate
from lessons_core.compiler.entries import LANG_PREFIXES as LANG_PREFIXES
from lessons_core.compiler.entries import Refusal as Refusal
from lessons_core.compiler.entries import Refused as Refused
from lessons_core.compiler.entries import compile_lesson as compile_lesson
from lessons_core.compiler.entries import refusal_error as refusal_error
from lessons_core.compiler.entries import refusals as refusals
from lessons_core.compiler.entries import trigger_warning
from lessons_core.compiler.sources import merge, read_sources
from lessons_core.errors import LessonsError
from lessons_core.hot import manifest as hot_manifest
from lessons_core.hot import recall, safefile
from lessons_core.hot.digest import hex_sha256
from lessons_core.hot.manifest import STAMP_NAME
from lessons_core.hot.paths import MANIFEST_NAME
from lessons_core.logs import get_logger
from lessons_core.models import SESSION_TYPES, Config, Lesson, LessonType, Status
from lessons_core.patterns import probe, programs
from lessons_core.protocol import protocol_text
from lessons_core.store.base import Store

log = get_logger()

SCHEMA_ID = "urn:lessons:schema:manifest:1"
#: The most of one source notice (what waits for the user) the session-start block carries.
NOTICE_CHARS = 300
GENERATOR = "lessons 0.1.0"


@attrs.frozen
class BuildResult:
    """What a build produced; ``lessons build`` reports it."""

    path: Path | None
    manifest: dict[str, Any]
    refused: tuple[Refusal, ...] = ()
    warnings: tuple[str, ...] = ()
    skipped_floor: int = 0
    #: What lesson sources left out, and why (``lessons_register_lesson_sources``).
    source_problems: tuple[str, ...] = ()
    #: What lesson sources hold that waits for the user, and what they asked of the user's
    #: own lessons (told, not failed: see ``compiler.sources.merge``).
    source_notices: tuple[str, ...] = ()


def build_manifest(store: Store, config: Config, home: Path | str, plugins: Any = None) -> Path:
    """Compile and write the manifest; return its path.

    Refused lessons are logged and left out (``lessons build`` reports them and fails); an error
    writing the file raises :class:`LessonsError` and leaves the previous manifest untouched.
    """
    result = build(store, config, home, plugins)
    for refusal in result.refused:
        log.warning("manifest.lesson_refused", lesson=refusal.lesson_id, detail=refusal.message())
    for problem in result.source_problems:
        log.warning("manifest.source_problem", detail=problem)
    for notice in result.source_notices:
        log.warning("manifest.source_notice", detail=notice)
    if result.path is None:  # pragma: no cover - build() writes unless told not to
        raise LessonsError("the manifest was not written")
    return result.path


def build(
    store: Store, config: Config, home: Path | str, plugins: Any = None, *, write: bool = True
) -> BuildResult:
    """Compile the active lessons of ``store``; write the manifest unless ``write`` is false."""
    with build_lock(Path(home)) if write else contextlib.nullcontext():
        # The revision first: whatever is committed up to it is in the lessons read next.
        revision = store.revision()
        sourced = read_sources(plugins, config, Path(home))
        # Every lesson the user owns, whatever its status: a source may not re-arm one the
        # user disabled any more than it may disable one the user keeps.
        merged = merge(
            store.list_lessons() if sourced.lessons else store.list_lessons(status=Status.ACTIVE),
            sourced.lessons,
        )
        lessons = merged.lessons
        # What deliveries achieved: ranking, priority, type (the figures alone, not the loop).
        from lessons_core.verdicts import stats

        per = stats.figures_or_none(store)
        lessons = stats.adjust(lessons, store, per, floor=config.min_confidence)
        resting = stats.failure_only(lessons, per)
        with probe.remembered(Path(home), save=write):
            manifest, refused, warnings, skipped = compile_manifest(
                lessons, config, revision, failure_only=resting
            )
        if per is not None:
            # The outcome verdicts acted on: one recorded since leaves the manifest behind.
            manifest["verdicts"] = stats.verdicts(per)
            manifest["fingerprint"] = fingerprint(manifest)
        if sourced.revisions:
            manifest["sources"] = dict(sorted(sourced.revisions.items()))
            manifest["fingerprint"] = fingerprint(manifest)
        if sourced.waiting:
            # Told at the next session start too, not only at the next command (hot.runner).
            manifest["notices"] = [notice[:NOTICE_CHARS] for notice in sourced.waiting[:3]]
            manifest["fingerprint"] = fingerprint(manifest)
        if plugins is not None:
            pm = getattr(plugins, "pm", plugins)
            pm.hook.lessons_manifest_compiled(manifest=manifest, config=config)
            manifest["fingerprint"] = fingerprint(manifest)
        path = write_manifest(manifest, Path(home)) if write else None
        if write:
            _publish_recall_index(store, manifest, Path(home))
            from lessons_core import skills  # only once the user asked for skills; cheap otherwise

            agents = plugins.agents() if hasattr(plugins, "agents") else None
            skills.after_build(lessons, Path(home), agents)
    return BuildResult(
        path,
        manifest,
        tuple(refused),
        tuple(warnings),
        skipped,
        sourced.problems,
        (*sourced.waiting, *merged.suggestions),
    )


BUILD_LOCK_NAME = "build.lock"


@contextlib.contextmanager
def build_lock(home: Path) -> Iterator[None]:
    """Hold ``LESSONS_HOME/build.lock`` (an exclusive ``flock``, waited for) for a block."""
    try:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(home / BUILD_LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise LessonsError(f"cannot lock {home / BUILD_LOCK_NAME}: {exc.strerror or exc}") from exc
    try:
        if sys.platform != "win32":
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


# -- compiling -----------------------------------------------------------------------------------


def compile_manifest(
    lessons: Iterable[Lesson],
    config: Config,
    revision: int,
    *,
    failure_only: Collection[str] = (),
) -> tuple[dict[str, Any], list[Refusal], list[str], int]:
    """The manifest dict for ``lessons`` plus refusals, warnings and the count below the floors.

    Hints named in ``failure_only`` are compiled to ride only with a failing call's result
    (``"when": "failure"``): the outcome loop found them noisy on calls that worked.
    """
    entries: dict[str, dict[str, Any]] = {}
    ranked: list[Lesson] = []
    refused: list[Refusal] = []
    warnings: list[str] = []
    skipped = 0
    for lesson in lessons:
        if lesson.status != Status.ACTIVE:
            continue
        if lesson.confidence < config.min_confidence or lesson.priority < config.min_priority:
            skipped += 1
            continue
        try:
            too_big = validate.size_problem(validate.lesson_text_bytes(lesson))
            if too_big:
                raise Refused(Refusal(lesson.id, lesson.slug, "text", "", too_big))
            entry = compile_lesson(lesson)
        except Refused as exc:
            refused.append(exc.refusal)
            continue
        warning = trigger_warning(lesson)
        if warning:
            warnings.append(warning)
        if lesson.id in failure_only and entry.get("type", "hint") == "hint":
            entry["when"] = "failure"
        entries[lesson.id] = entry
        ranked.append(lesson)

    ranked.sort(key=_rank_key)
    by_tool: dict[str, list[str]] = {}
    any_tool: list[str] = []
    session: list[str] = []
    for lesson in ranked:
        entry = entries[lesson.id]
        if lesson.type in SESSION_TYPES:
            session.append(lesson.id)
            continue
        if entry.get("tools"):
            for tool in entry["tools"]:
                by_tool.setdefault(tool, []).append(lesson.id)
        elif any(entry.get(k) for k in ("commands", "paths", "content")):
            any_tool.append(lesson.id)

    prefilter: dict[str, dict[str, list[Any]]] = {}
    for tool, ids in [*by_tool.items(), ("*", any_tool)]:
        if ids:
            prefilter[tool] = _prefilter_index(entries, ids)

    manifest: dict[str, Any] = {
        "$schema": SCHEMA_ID,
        "type": "lessons-manifest",
        "version": 1,
        "generator": GENERATOR,
        "fingerprint": "",
        "storeRevision": revision,
        "config": config_section(config),
        "protocol": protocol_text(),
        "lessons": {lesson.id: entries[lesson.id] for lesson in ranked},
        "byTool": dict(sorted(by_tool.items())),
        "anyTool": any_tool,
        "session": session,
        "recurring": recurring(ranked, entries),
        "prefilter": dict(sorted(prefilter.items())),
        # Claims to release after compaction, so the hook need not read every lesson then.
        "reinject": [
            lesson.id
            for lesson in ranked
            if lesson.priority >= config.compaction_reinjection_threshold
        ],
    }
    resting = sum(1 for entry in entries.values() if entry.get("when") == "failure")
    if resting:
        manifest["failureHints"] = resting  # failure-time hooks then also match triggers
    fingerprints = error_fingerprints(ranked)
    if fingerprints:
        manifest["errorFingerprints"] = fingerprints
    manifest["fingerprint"] = fingerprint(manifest)
    return manifest, refused, warnings, skipped


def error_fingerprints(lessons: Iterable[Lesson]) -> dict[str, list[str]]:
    """Normalized error-line fingerprint -> ids of the lessons whose stored error lines give it.

    Failure-time recall hashes a failure's lines with the same normalizer
    (:mod:`lessons_core.hot.errnorm`) and looks them up here before it touches the store.
    """
    from lessons_core.hot import errnorm

    index: dict[str, list[str]] = {}
    for lesson in lessons:
        for fp in errnorm.line_fingerprints(lesson.error_lines):
            ids = index.setdefault(fp, [])
            if lesson.id not in ids:
                ids.append(lesson.id)
    return dict(sorted(index.items()))


def lesson_needs(entry: dict[str, Any]) -> list[str] | None:
    """Substrings of which the call's text must contain one for ``entry`` to possibly fire.

    A lesson fires only if one of its command or path patterns matches (or, having neither,
    one of its content patterns), and no pattern matches without its literal. So the union of
    those literals is a necessary condition; ``None`` when some pattern has no literal or the
    lesson has no pattern at all (a tool gate alone).
    """
    patterns = [*entry.get("commands", ()), *entry.get("paths", ())] or list(
        entry.get("content", ())
    )
    if not patterns:
        return None
    needs: set[str] = set()
    for pattern in patterns:
        literal = pattern.get("literal")
        if not literal:
            return None
        needs.update([literal] if isinstance(literal, str) else literal)
    return sorted(needs)


def _prefilter_index(entries: dict[str, dict[str, Any]], ids: list[str]) -> dict[str, list[Any]]:
    """``pairs`` of (substring, lesson id) to test against the call's text, and the ``open``
    ids that have to be checked whatever the text (no certain substring)."""
    pairs: list[list[str]] = []
    open_ids: list[str] = []
    for lesson_id in ids:
        needs = lesson_needs(entries[lesson_id])
        if needs is None:
            open_ids.append(lesson_id)
        else:
            pairs.extend([need, lesson_id] for need in needs)
    return {"pairs": pairs, "open": open_ids}


#: Distinct sessions a scanned lesson's mistake must have been seen in to be told at the start
#: of a session (:func:`recurring`).
RECURRING_SESSIONS = 2
#: The most lessons the manifest lists as recurring; the hook tells a few of them.
RECURRING_LISTED = 20


def recurring(ranked: Iterable[Lesson], entries: dict[str, dict[str, Any]]) -> list[str]:
    """Ids of the hints told at a session start too: mistakes of a command that the user's own
    sessions made in :data:`RECURRING_SESSIONS` or more sessions, most sessions first.

    A mistake made in two sessions is likely made in the third, and often as its first call,
    before any trigger could deliver its lesson after something failed. Only a scan of the
    user's own transcripts counts as having seen it: a lesson of a repository, a teammate, an
    import or an agent names sightings no one here made, and must not put itself in front of
    every session. A hint about an editing tool is left to its trigger (it has nothing to say
    before the file is open), and one the outcome loop rests until a failure stays resting.
    """
    seen = {
        lesson.id: (len(set(lesson.provenance.sessions)), lesson.provenance.occurrences)
        for lesson in ranked
        if lesson.type == LessonType.HINT
        and lesson.provenance.source.startswith("scan:")
        and lesson.triggers.command_patterns
        and entries[lesson.id].get("when") != "failure"
    }
    chosen = [i for i, (sessions, _) in seen.items() if sessions >= RECURRING_SESSIONS]
    chosen.sort(key=lambda i: (-seen[i][0], -seen[i][1]))
    return chosen[:RECURRING_LISTED]


def _rank_key(lesson: Lesson) -> tuple[int, float, str]:
    return (-lesson.priority, -lesson.confidence, lesson.id)


def config_section(config: Config) -> dict[str, Any]:
    """The configuration as the manifest spells it (camelCase)."""
    scoring = {_camel(k): v for k, v in attrs.asdict(config.scoring).items()}
    return {
        "injectionBudgetBytes": config.injection_budget_bytes,
        "maxLessonsPerInjection": config.max_lessons_per_injection,
        "minConfidence": config.min_confidence,
        "minPriority": config.min_priority,
        "compactionReinjectionThreshold": config.compaction_reinjection_threshold,
        "sessionStartBudgetBytes": config.session_start_budget_bytes,
        "recallBudgetBytes": config.recall_budget_bytes,
        "directiveReinjectThresholds": sorted(config.directive_reinject_thresholds),
        "stopReminderBytes": config.stop_reminder_bytes,
        "mcpInstalled": config.mcp_installed,
        "scoring": scoring,
    }


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def fingerprint(manifest: dict[str, Any]) -> str:
    """SHA-256 over the manifest without its own ``fingerprint`` field."""
    body = {k: v for k, v in manifest.items() if k != "fingerprint"}
    blob = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hex_sha256(blob.encode("utf-8"))


# -- writing -------------------------------------------------------------------------------------


def write_manifest(manifest: dict[str, Any], home: Path) -> Path:
    """Write ``manifest`` atomically to ``home/lesson-manifest.json`` and update the stamp."""
    target = home / MANIFEST_NAME
    data = json.dumps(manifest, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    try:
        home.mkdir(mode=0o700, parents=True, exist_ok=True)
        written = safefile.replace(target, data)
        safefile.replace(home / STAMP_NAME, f"{manifest.get('storeRevision', 0)}\n".encode())
        safefile.replace(home / recall.PROGRAMS_NAME, recall_programs())
        _write_cache(target, manifest, written)
    except OSError as exc:
        raise LessonsError(
            f"cannot write the manifest {target}: {exc.strerror or exc}; "
            "the previous manifest is left in place"
        ) from exc
    return target


def _publish_recall_index(store: Store, manifest: dict[str, Any], home: Path) -> None:
    """The store publishes its recall index for this manifest (after the stamp: until it is
    written, the hook finds the old index stale and does not read it)."""
    from lessons_core.store import recall_index

    try:
        recall_index.publish(store, manifest, home)
    except OSError as exc:
        raise LessonsError(
            f"cannot write the recall index in {home}: {exc.strerror or exc}; "
            "recall stays silent until the next build"
        ) from exc


def recall_programs() -> bytes:
    """The error normalizer's regexes as ``_sre`` programs, bound to this interpreter."""
    from lessons_core.hot import errnorm

    compiled = programs.programs(errnorm.SOURCES.values())
    return marshal.dumps({"python": recall.programs_key(), "programs": compiled})


def _write_cache(target: Path, manifest: dict[str, Any], written: os.stat_result) -> None:
    """The marshal copy the hook loads faster; a failure only costs speed, never correctness.

    ``written`` is the status of the JSON file as this build wrote it: the copy is bound to that
    file, even if another writer has replaced it since (the hook then reads the JSON)."""
    cache = Path(hot_manifest.cache_path(str(target)))
    head = {k: v for k, v in manifest.items() if k != "lessons"}
    # Lessons and regex programs are stored apart, each tool's prefilter index as its own blob:
    # the hook reads and decodes only what a call looks at (see hot.manifest.pack_cache).
    compiled = programs.programs(programs.manifest_sources(manifest))
    head["prefilter"] = {
        key: marshal.dumps(part) for key, part in manifest.get("prefilter", {}).items()
    }
    try:
        header = hot_manifest.cache_header(written)
        data = hot_manifest.pack_cache(header, head, manifest["lessons"], compiled)
        safefile.replace(cache, data)
    except (OSError, ValueError) as exc:
        log.warning("manifest.cache_not_written", path=str(cache), error=str(exc))
        with contextlib.suppress(OSError):
            cache.unlink()
