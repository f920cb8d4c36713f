"""Intake: what a detection must satisfy to enter the store, and what happens to repeats.

A detector proposes; intake decides. It rejects the junk detectors inevitably produce (too short
to be useful, still holding a template placeholder, cut off with "...", a trigger that is a
prose gerund like "running tests" rather than a pattern), scrubs secrets and home paths, and
folds a repeat of something already known into the known item — bumping its occurrence,
session and project counts, and with them the recurrence bonuses — instead of queuing it twice.

Tier 1 candidates that pass are promoted to active lessons at once (the agent wrote them on
purpose); everything else waits for ``lessons review``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import attrs

from lessons_core import ids, scope_offers
from lessons_core.errors import LessonsError, ValidationError
from lessons_core.hot.project import project_id
from lessons_core.logs import get_logger
from lessons_core.models import (
    Candidate,
    Config,
    Evidence,
    Lesson,
    LessonType,
    Provenance,
    Sighting,
    Status,
    Triggers,
    add_sightings,
)
from lessons_core.patterns import kept_programs
from lessons_core.privacy import normalize_home, redact_candidate, redact_head
from lessons_core.scan import scoring, trigger_checks
from lessons_core.similarity import jaccard
from lessons_core.store.base import Store

log = get_logger()

MIN_TEXT = 20
#: The tag prefix that carries a detected lesson's scope (a project id) into the lesson.
SCOPE_TAG = "scope:"
#: The tag of a finding that is a lesson only once it comes back in another session of the
#: same project (a path the agent guessed where the project keeps the file elsewhere): it waits
#: in the store, out of review, and becomes pending when a repeat from another session merges.
RECURS_TAG = "until:recurs"
#: The status of such a candidate while it waits.
WAITING = "waiting"
SIMILARITY = 0.5

NEW = "new"
DUPLICATE = "duplicate"
REJECTED = "rejected"
PROMOTED = "promoted"

#: Angle-bracket words that tools print themselves, never a template's blank: Claude Code's
#: ``<tool_use_error>`` wrapper, Python's ``<string>`` and ``<module>`` in tracebacks.
_TOOL_MARKUP = r"/?(?:tool_use_error|string|module|stdin|lambda|genexpr|listcomp|frozen [\w.]+)>"
_PLACEHOLDER = kept_programs.compile(
    rf"<(?!{_TOOL_MARKUP})[A-Za-z][A-Za-z0-9 _/|-]{{0,40}}>|\bTODO\b|\bTBD\b|\bFIXME\b|"
    r"\{\{.*?\}\}|\[placeholder\]",
    re.IGNORECASE,
)
_GERUND = kept_programs.compile(r"^[A-Za-z]+ing(?:\s+[A-Za-z]+){0,4}$")
_WORD = kept_programs.compile(r"\w+")  # words in any script, as the dedup backend reads them
_FILE_TOOLS = frozenset({"Read", "Edit", "Write", "MultiEdit", "NotebookEdit"})


@functools.lru_cache(maxsize=4096)
def _holds_placeholder(text: str) -> bool:
    """Remembered per text: a scan meets the same mistake and fix in repeat after repeat, and
    the search walks the whole text (its alternatives share no literal to skip ahead by)."""
    return _PLACEHOLDER.search(text) is not None


def _ends_with_ellipsis(text: str) -> bool:
    """Whether ``text`` ends, but for whitespace, with ``...`` or ``…`` not after a slash (Go's
    ``./...`` is a package pattern, not a cut-off sentence)."""
    end = text.rstrip()
    for mark in ("...", "…"):
        if end.endswith(mark):
            return not end[: -len(mark)].endswith("/")
    return False


def rejection(candidate: Candidate) -> str | None:
    """Why ``candidate`` may not enter the store, or ``None``."""
    from lessons_core.validate import candidate_text_bytes, size_problem

    too_big = size_problem(candidate_text_bytes(candidate))
    if too_big:
        return too_big
    for name in ("mistake", "fix"):
        text: str = getattr(candidate, name).strip()
        if len(text) < MIN_TEXT:
            return f"{name} shorter than {MIN_TEXT} characters"
        if candidate.tier != 1 and _holds_placeholder(text):
            # (Tier 1 checks its own: only a value that is nothing but a placeholder is one.)
            return f"{name} holds a template placeholder"
        if _ends_with_ellipsis(text):
            return f"{name} ends with an ellipsis"
    trigger = (candidate.trigger or "").strip()
    if trigger and prose_trigger(trigger):
        return "trigger is prose, not a pattern"
    if trigger and candidate.tool not in _FILE_TOOLS:
        try:
            re.compile(trigger)
        except re.error as exc:
            return f"trigger is not a valid regular expression ({exc})"
        unsafe = pattern_problem(trigger, measure=candidate.tier not in UNTIMED_TIERS)
        if unsafe and candidate.tier != 1:
            return f"trigger would be refused by the manifest compiler: {unsafe}"
    return None


def prose_trigger(trigger: str) -> bool:
    """Whether a trigger is a prose gerund ("running tests") rather than a command or pattern.
    A short word is left alone: ``ping localhost`` is a command."""
    trigger = trigger.strip()
    return bool(_GERUND.match(trigger)) and len(trigger.split(None, 1)[0]) >= 5


def unsafe_trigger(candidate: Candidate) -> str | None:
    """Why the compiler would refuse ``candidate``'s trigger; such a Tier 1 block waits for
    review instead of going live (its text may have been copied from a file, unreviewed)."""
    trigger = (candidate.trigger or "").strip()
    if not trigger:
        return None
    if candidate.tool in _FILE_TOOLS:
        try:
            from lessons_core.patterns.globs import GlobError, glob_to_regex
        except ImportError:  # pragma: no cover - the compiler ships with the core
            return None
        try:
            trigger = glob_to_regex(trigger)
        except GlobError as exc:
            return str(exc)
    return pattern_problem(trigger)


#: Tiers whose triggers intake judges by the structural rules alone, leaving the timing probe
#: to the build that takes them into a manifest (the one place a pattern runs): Tier 2's, which
#: the scanner builds from its own shapes and which wait for review. The probe costs tens of
#: milliseconds a pattern, and most candidates are never promoted. Every other tier is timed
#: here too: a Tier 1 block can go live at once, and a plugin's or a model's triggers are not
#: built by the scanner.
UNTIMED_TIERS = frozenset({2})


def pattern_problem(pattern: str, *, measure: bool = True) -> str | None:
    """The compiler's regex-safety verdict (nested repeats and the like), when it is installed;
    without ``measure``, the structural rules only (see :data:`UNTIMED_TIERS`).

    An accepted pattern is remembered (:mod:`lessons_core.scan.trigger_checks`): the check
    times the pattern, and the same triggers recur in every scan.
    """
    if not measure:
        return trigger_checks.structural_problem(pattern)
    if trigger_checks.accepted(pattern):
        return None
    try:
        from lessons_core.patterns.regex_safety import check_pattern
    except ImportError:  # pragma: no cover - the compiler ships with the core
        return None
    reason = check_pattern(pattern)
    if reason is None:
        trigger_checks.accept(pattern)
    return reason


def note_accepted(prepared: Candidate) -> None:
    """Remember the trigger of a candidate :func:`prepare` passed, as its check accepted it.

    For the scanner's commit: a candidate read in a forked helper was checked there, and what
    the helper's memory learnt ends with it. (A Tier 1 trigger may pass unchecked-for-safety,
    and a path glob is not a pattern: neither is noted. An untimed tier's is noted as accepted
    by the structural rules.)
    """
    trigger = prepared.trigger
    if trigger and prepared.tier != 1 and prepared.tool not in _FILE_TOOLS:
        trigger_checks.accept(trigger, timed=prepared.tier not in UNTIMED_TIERS)


def prepare(candidate: Candidate, home: str | None = None) -> Candidate | str:
    """The checks and scrubbing of intake that need no store: the candidate ready for
    :meth:`Intake.admit` (with ``prepared=True``), or why it is rejected."""
    return rejection(candidate) or scrubbed_or_refused(candidate, home)


def scrubbed_or_refused(candidate: Candidate, home: str | None = None) -> Candidate | str:
    """:func:`scrub`, or why the scrubbed candidate may not enter the store: its trigger held a
    secret, and the pattern left once the secret is redacted no longer compiles or is unsafe."""
    try:
        clean = scrub(candidate, home)
    except ValidationError as exc:
        return f"trigger held a secret: {exc}"
    if clean.trigger != candidate.trigger and clean.trigger and clean.tool not in _FILE_TOOLS:
        unsafe = pattern_problem(clean.trigger, measure=candidate.tier not in UNTIMED_TIERS)
        if unsafe:
            return f"trigger held a secret, and once redacted would be refused: {unsafe}"
    return clean


def scrub(candidate: Candidate, home: str | None = None) -> Candidate:
    """Redact secrets (in every field, the trigger too) and replace home directories in
    everything taken from a transcript. Raises :class:`ValidationError` when the trigger held a
    secret and is no longer a valid regular expression once it is redacted."""
    candidate = redact_candidate(candidate)

    def clean(text: str) -> str:
        return normalize_home(text, home)

    evidence = tuple(  # (an evidence whose file holds no home is kept, not copied)
        e if (file := clean(e.file)) == e.file else attrs.evolve(e, file=file)
        for e in candidate.evidence
    )
    return attrs.evolve(
        candidate,
        mistake=clean(candidate.mistake),
        fix=clean(candidate.fix),
        summary=clean(candidate.summary),
        trigger=clean(candidate.trigger) if candidate.trigger else candidate.trigger,
        error_lines=tuple(clean(line) for line in candidate.error_lines),
        project=clean(candidate.project) if candidate.project else candidate.project,
        evidence=evidence,
    )


def _tokens(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


def scope_tag(project: str | None) -> str | None:
    """The ``scope:<project id>`` tag of the project a detector saw a finding in, when that
    project's folder is here to give its id (a scan of another machine's transcripts has
    none: such a finding stays global)."""
    if not project or not Path(project).is_absolute() or not Path(project).is_dir():
        return None
    scope = project_id(project)
    return SCOPE_TAG + scope if scope else None


def _waits(candidate: Candidate) -> bool:
    """Whether a candidate is a lesson only once it comes back (:data:`RECURS_TAG`)."""
    return RECURS_TAG in candidate.tags


def _same_finding(a: Candidate, b: Candidate) -> bool:
    """Two findings of one lesson: the same tool, the same trigger and the same summary."""
    return bool(a.trigger) and (a.tool, a.trigger, a.summary) == (b.tool, b.trigger, b.summary)


def _candidate_text(c: Candidate) -> str:
    return f"{c.summary} {c.mistake} {c.fix}"


def _lesson_text(lesson: Lesson) -> str:
    return f"{lesson.summary} {lesson.mistake} {lesson.remediation}"


#: The first command word of a trigger pattern (``\bnpm\b[^|;&\n]*?\btest\b`` → ``npm``).
_EXECUTABLE = kept_programs.compile(r"(?:\\b|\^|\(\?:\^\|[^)]*\)\s*)*([A-Za-z0-9][\w.+-]*)")


def _executable(pattern: str) -> str | None:
    m = _EXECUTABLE.match(pattern.strip())
    return m.group(1).replace("\\", "").lower() if m else None


def _other_command(candidate: Candidate, lesson: Lesson) -> bool:
    """Whether a candidate is about another executable than a lesson that reads alike: ``npm
    test`` and ``yarn test`` lessons share most words but are not one lesson."""
    if not candidate.trigger or candidate.tool in _FILE_TOOLS:
        return False
    patterns = lesson.triggers.command_patterns
    if not patterns:
        return False
    mine = _executable(candidate.trigger)
    theirs = {_executable(p) for p in patterns}
    return mine is not None and None not in theirs and mine not in theirs


def sessions_of(evidence: Iterable[Evidence]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(e.session_id for e in evidence if e.session_id))


def sightings_of(candidate: Candidate) -> tuple[Sighting, ...]:
    """Where ``candidate`` was seen, as a lesson keeps it: its evidence with its project."""
    return tuple(
        Sighting(e.file, e.line, e.call_id, e.session_id, candidate.project)
        for e in candidate.evidence
    )


#: Tiers whose lessons the agent wrote itself (``#lesson`` blocks, the MCP server's ``record``):
#: their tool gate is the author's choice.
_AUTHORED_TIERS = frozenset({1, 5})


#: ``to_lesson``'s scope when none is chosen: the project a detector's ``scope:`` tag names, or
#: every project without one. (No project id is empty, so it cannot be a choice.)
FROM_TAGS = ""


def to_lesson(
    candidate: Candidate,
    *,
    now: str = "",
    lesson_type: LessonType = LessonType.HINT,
    scope: str | None = FROM_TAGS,
) -> Lesson:
    """The active lesson a candidate becomes when promoted (a ``lesson_type`` and ``scope``
    chosen in ``lessons review``, ``None`` for every project; a hint scoped as its detector
    tagged it otherwise).

    A detected candidate (heuristics, plugins, a model) with no trigger and with error lines is
    a failure-time lesson: nothing in the call showed its mistake, so it gets no tool gate either
    (alone, that would fire on every call of the tool) and failure-time recall brings it back by
    its error lines.
    """
    tool = candidate.tool
    command_patterns: tuple[str, ...] = ()
    path_patterns: tuple[str, ...] = ()
    if candidate.trigger:
        if tool in _FILE_TOOLS:
            path_patterns = (candidate.trigger,)
        else:
            command_patterns = (candidate.trigger,)
    gated = bool(
        candidate.trigger or candidate.tier in _AUTHORED_TIERS or not candidate.error_lines
    )
    summary = candidate.summary or redact_head(candidate.mistake, 100)[:100]
    # A detector scopes a lesson to one project with a ``scope:<project id>`` tag.
    scopes = [tag for tag in candidate.tags if tag.startswith(SCOPE_TAG)]
    source = f"scan:tier{candidate.tier}" if candidate.tier <= 2 else f"plugin:{candidate.detector}"
    return Lesson(
        id=ids.new_id(),
        slug=ids.make_slug(summary),
        summary=summary,
        mistake=candidate.mistake,
        remediation=candidate.fix,
        type=lesson_type,
        triggers=Triggers(
            tool_names=(tool,) if tool and gated else (),
            command_patterns=command_patterns,
            path_patterns=path_patterns,
        ),
        priority=candidate.priority,
        confidence=candidate.confidence,
        tags=tuple(tag for tag in candidate.tags if tag not in scopes and tag != RECURS_TAG),
        scope=(scopes[0][len(SCOPE_TAG) :] if scopes else None) if scope == FROM_TAGS else scope,
        error_lines=candidate.error_lines,
        status=Status.ACTIVE,
        provenance=Provenance(
            source=source,
            sessions=sessions_of(candidate.evidence),
            projects=(candidate.project,) if candidate.project else (),
            occurrences=max(1, len(candidate.evidence)),
            evidence=add_sightings((), sightings_of(candidate)),
        ),
        created_at=now,
        updated_at=now,
    )


@attrs.frozen
class Outcome:
    """What intake did with one candidate."""

    status: str  # new | duplicate | rejected | promoted
    candidate: Candidate
    reason: str = ""
    lesson: Lesson | None = None
    #: A repeat from another project made the lesson, scoped to one project, one seen in two
    #: or more: it is offered for every project (see :mod:`lessons_core.scope_offers`).
    offer: bool = False


class Intake:
    """Admits candidates into a store, keeping the known lessons and candidates in memory for
    the duplicate checks of one scan."""

    def __init__(
        self,
        store: Store,
        config: Config,
        *,
        dedup: Callable[[Candidate, list[Lesson]], Lesson | None] | None = None,
        home: str | None = None,
        defer_merges: bool = False,
    ) -> None:
        self.store = store
        self.config = config
        self.dedup = dedup
        self.home = home
        #: Whether a repeat merged into a pending candidate is written by :meth:`flush` rather
        #: than at once. A scan meets the same mistake in session after session: written at
        #: each repeat, a candidate's growing evidence was serialised again every time.
        self.defer_merges = defer_merges
        self._dirty: set[int] = set()
        #: Per pending candidate: the evidence tuple, its (file, line, call) keys and sessions.
        self._evidence: dict[int, tuple[tuple[Evidence, ...], set[tuple[Any, ...]], set[str]]] = {}
        self._loaded = False
        self.lessons: list[Lesson] = []
        self.pending: list[Candidate] = []
        self._lesson_tokens: list[frozenset[str]] = []
        self._pending_tokens: list[frozenset[str]] = []

    def _load(self) -> None:
        """Read the known lessons and pending candidates once, when the first candidate comes
        (a scan that finds nothing new never pays for it)."""
        if self._loaded:
            return
        self._loaded = True
        self.lessons = self.store.list_lessons()
        # Held back by maxCandidatesPerScan, a candidate still takes its repeats' evidence.
        self.pending = [
            *self.store.list_candidates(status="pending"),
            *self.store.list_candidates(status="held"),
            *self.store.list_candidates(status=WAITING),
        ]
        self._lesson_tokens = [_tokens(_lesson_text(lesson)) for lesson in self.lessons]
        self._pending_tokens = [_tokens(_candidate_text(c)) for c in self.pending]

    # -- duplicates ---------------------------------------------------------------------------

    def _duplicate_lesson(self, candidate: Candidate) -> int | None:
        same = self._same_trigger_same_session(candidate)
        if same is not None:
            return same
        if self.dedup is not None:
            found = self.dedup(candidate, self.lessons)
            if found is None:
                return None
            for i, lesson in enumerate(self.lessons):
                if lesson.id == found.id:
                    return None if _other_command(candidate, lesson) else i
            return None
        mine = _tokens(_candidate_text(candidate))
        if not mine:  # a text without words is alike to nothing: it gives no evidence
            return None
        best, best_score = None, SIMILARITY
        for i, theirs in enumerate(self._lesson_tokens):
            if _other_command(candidate, self.lessons[i]):
                continue
            score = jaccard(mine, theirs)
            if score >= best_score:
                best, best_score = i, score
        return best

    def _same_trigger_same_session(self, candidate: Candidate) -> int | None:
        """A heuristic finding of what the agent already wrote a ``#lesson`` about in the same
        session: same tool, same trigger. The wording differs too much for text similarity."""
        if not candidate.trigger:
            return None
        sessions = set(sessions_of(candidate.evidence))
        # A heuristic trigger may be anchored to the start of the command line (``^\s*pip``):
        # the same words as the agent's own unanchored one.
        wanted = {candidate.trigger, candidate.trigger.removeprefix(r"^\s*")}
        for i, lesson in enumerate(self.lessons):
            t = lesson.triggers
            if not wanted & {*t.command_patterns, *t.path_patterns}:
                continue
            if candidate.tool and t.tool_names and candidate.tool not in t.tool_names:
                continue
            if sessions & set(lesson.provenance.sessions):
                return i
        return None

    def _duplicate_candidate(self, candidate: Candidate) -> int | None:
        if _waits(candidate):
            # Only the same finding in the same project counts as the guess coming back.
            for i, other in enumerate(self.pending):
                same_place = _waits(other) and other.project == candidate.project
                if same_place and _same_finding(other, candidate):
                    return i
            return None
        if candidate.trigger:
            # The same tool, trigger and summary are the same lesson, however much the texts
            # differ: a fix that failed next carries the error it met, which alone drew two
            # findings of one mistake below the text similarity.
            for i, other in enumerate(self.pending):
                if _same_finding(other, candidate) and not _waits(other):
                    return i
        mine = _tokens(_candidate_text(candidate))
        if not mine:  # a text without words is alike to nothing: it gives no evidence
            return None
        best, best_score = None, SIMILARITY
        for i, other in enumerate(self.pending):
            if (
                _waits(other)
                or other.tool != candidate.tool
                or (other.trigger and candidate.trigger and other.trigger != candidate.trigger)
            ):
                continue
            score = jaccard(mine, self._pending_tokens[i])
            if score >= best_score:
                best, best_score = i, score
        return best

    def _bump_lesson(self, index: int, candidate: Candidate) -> Lesson:
        """Fold a repeat into a known lesson: its counts, bonuses and where it was seen."""
        lesson = self.lessons[index]
        prov = lesson.provenance
        new_sessions = set(sessions_of(candidate.evidence)) - set(prov.sessions)
        if candidate.tier == 1 and not new_sessions:
            # The same block again in the same session: a sub-agent transcript replaying its
            # parent's messages, not the mistake happening again.
            return lesson
        sessions = tuple(dict.fromkeys((*prov.sessions, *sessions_of(candidate.evidence))))
        projects = prov.projects
        if candidate.project and candidate.project not in projects:
            projects = (*projects, candidate.project)
        weights = self.config.scoring
        confidence = lesson.confidence
        if len(sessions) >= 2 and len(prov.sessions) < 2:
            confidence += weights.multi_session_bonus
        if len(projects) >= 2 and len(prov.projects) < 2:
            confidence += weights.multi_project_bonus
        updated = attrs.evolve(
            lesson,
            confidence=round(min(max(confidence, lesson.confidence), weights.max_confidence), 3),
            provenance=attrs.evolve(
                prov,
                sessions=sessions,
                projects=projects,
                occurrences=prov.occurrences + 1,
                evidence=add_sightings(prov.evidence, sightings_of(candidate)),
            ),
        )
        stored = self.store.update_lesson(updated)
        self.lessons[index] = stored
        return stored

    def _evidence_of(self, index: int) -> tuple[set[tuple[Any, ...]], set[str]]:
        """Where a pending candidate was seen, and in which sessions: kept between its merges
        (a scan merges hundreds of repeats into one candidate, and walking its whole evidence
        at each repeat made the merges quadratic), and made again when its evidence is another
        tuple than the one they were made from (the store gave back a candidate of its own)."""
        old = self.pending[index]
        kept = self._evidence.get(index)
        if kept is not None and kept[0] is old.evidence:
            return kept[1], kept[2]
        seen = {(e.file, e.line, e.call_id) for e in old.evidence}
        sessions = {e.session_id for e in old.evidence if e.session_id}
        self._evidence[index] = (old.evidence, seen, sessions)
        return seen, sessions

    def _merge_candidate(self, index: int, candidate: Candidate) -> Candidate:
        old = self.pending[index]
        seen, known = self._evidence_of(index)
        extra = tuple(e for e in candidate.evidence if (e.file, e.line, e.call_id) not in seen)
        evidence = old.evidence + extra
        before = len(known)  # sessions of the old evidence
        seen.update((e.file, e.line, e.call_id) for e in extra)
        known.update(e.session_id for e in extra if e.session_id)
        self._evidence[index] = (evidence, seen, known)  # for the next repeat
        sessions = len(known)
        projects = len({p for p in (old.project, candidate.project) if p})
        weights = self.config.scoring
        bonus = 0.0
        if sessions >= 2:
            bonus += weights.multi_session_bonus
        if projects >= 2:
            bonus += weights.multi_project_bonus
        base = max(old.confidence, candidate.confidence)
        if bonus and before == 1:
            base += bonus
        if _same_finding(old, candidate) and candidate.confidence > old.confidence:
            # The surer finding of the same lesson tells it better (a fix that worked over one
            # that got past the error and then failed).
            old = attrs.evolve(old, mistake=candidate.mistake, fix=candidate.fix)
            self._pending_tokens[index] = _tokens(_candidate_text(old))
        merged = attrs.evolve(
            old,
            evidence=evidence,
            confidence=round(min(base, weights.max_confidence), 3),
            priority=max(old.priority, scoring.priority((), sessions=sessions), candidate.priority),
            tags=tuple(dict.fromkeys((*old.tags, *candidate.tags))),
            error_lines=tuple(dict.fromkeys((*old.error_lines, *candidate.error_lines))),
        )
        if merged.status == WAITING and sessions >= 2:
            merged = attrs.evolve(merged, status="pending")  # the guess came back
        if self.defer_merges:
            self.pending[index] = merged
            self._dirty.add(index)
            return merged
        stored = self.store.update_candidate(merged)
        self.pending[index] = stored
        return stored

    def flush(self) -> None:
        """Write the candidates repeats were merged into since the last flush (with
        ``defer_merges``), in the caller's transaction: the scanner calls it before a group's
        offsets are stored, so what was read and what was found move together."""
        for index in sorted(self._dirty):
            self.pending[index] = self.store.update_candidate(self.pending[index])
        self._dirty.clear()

    # -- admission ----------------------------------------------------------------------------

    def admit(self, candidate: Candidate, *, prepared: bool = False) -> Outcome:
        """Check, scrub, deduplicate and store one candidate (promoting Tier 1 at once).

        ``prepared`` says the store-free part (:func:`prepare`) was done already, as the scanner
        does while reading, in parallel, to keep its serial commit short.
        """
        if not prepared:
            prepared_or_reason = prepare(candidate, self.home)
            if isinstance(prepared_or_reason, str):
                return Outcome(REJECTED, candidate, prepared_or_reason)
            candidate = prepared_or_reason
        self._load()
        hit = self._duplicate_lesson(candidate)
        if hit is not None:
            before = self.lessons[hit].provenance.projects
            lesson = self._bump_lesson(hit, candidate)
            offer = lesson.provenance.projects != before and scope_offers.offered(lesson)
            reason = f"repeats lesson {lesson.slug}"
            return Outcome(DUPLICATE, candidate, reason, lesson, offer=offer)
        hit = self._duplicate_candidate(candidate)
        if hit is not None:
            waited = self.pending[hit].status == WAITING
            merged = self._merge_candidate(hit, candidate)
            if waited and merged.status != WAITING:
                return Outcome(NEW, merged, "came back in another session")
            return Outcome(DUPLICATE, merged, f"repeats candidate {merged.id}")
        if _waits(candidate):
            candidate = attrs.evolve(candidate, status=WAITING)
        stored = self.store.add_candidate(candidate)
        if stored.evidence != candidate.evidence and len(stored.evidence) > 1:
            return Outcome(DUPLICATE, stored, "merged into an equal candidate")
        if stored.tier == 1 and unsafe_trigger(stored) is None:
            try:
                lesson = self.promote(stored)
            except LessonsError as exc:
                log.warning("intake.promote_failed", candidate=stored.id, error=str(exc))
            else:
                return Outcome(PROMOTED, attrs.evolve(stored, status="promoted"), "", lesson)
        self.pending.append(stored)
        self._pending_tokens.append(_tokens(_candidate_text(stored)))
        return Outcome(WAITING if stored.status == WAITING else NEW, stored)

    def promote(
        self,
        candidate: Candidate,
        *,
        lesson_type: LessonType = LessonType.HINT,
        scope: str | None = FROM_TAGS,
    ) -> Lesson:
        """Turn a candidate into an active lesson and mark it promoted (see :func:`to_lesson`
        for ``scope``)."""
        self._load()
        made = to_lesson(candidate, lesson_type=lesson_type, scope=scope)
        lesson = self.store.add_lessons([made])[0]
        self.store.update_candidate(attrs.evolve(candidate, status="promoted"))
        self.lessons.append(lesson)
        self._lesson_tokens.append(_tokens(_lesson_text(lesson)))
        return lesson


def dedup_backend(plugins: Any) -> Callable[[Candidate, list[Lesson]], Lesson | None] | None:
    """The first registered dedup backend's ``find``, if the plugin manager has one."""
    try:
        backends = plugins.dedup()
    except Exception:  # a broken plugin must not stop the scan; Jaccard is the fallback
        log.warning("intake.dedup_unavailable", exc_info=True)
        return None
    for spec in backends.values():
        find: Callable[[Candidate, list[Lesson]], Lesson | None] = spec.find
        return find
    return None
