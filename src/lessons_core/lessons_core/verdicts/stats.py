"""Per-lesson figures from the recorded verdicts, and what the manifest compiler makes of them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from lessons_core.logs import get_logger
from lessons_core.models import Lesson, LessonType, Status
from lessons_core.verdicts.records import (
    NEEDLESS,
    OUTCOMES,
    PREVENTED,
    QUIET,
    RECURRED,
    UNKNOWN,
    WRONG,
    pending_deliveries,
)

log = get_logger()

#: Figures that make a lesson "failing to prevent" or "noisy".
FAILING_MIN_RECURRED = 2
FAILING_SHARE = 0.5
NOISY_MIN_JUDGED = 3
#: ... and relevant in fewer than this share of them (the seed catalogue, replayed on real
#: sessions, is relevant in about one delivery in five).
NOISY_RELEVANT_SHARE = 0.25
#: Needless denials that turn a guard into a nudge, and a nudge into a hint.
GUARD_DEMOTION_NEEDLESS = 1
NUDGE_DEMOTION_NEEDLESS = 2
#: Confidence a lesson loses at manifest build per ``wrong`` verdict (within MAX_ADJUSTMENT).
WRONG_PENALTY = 0.05
#: Largest confidence change outcomes may cause at manifest build.
MAX_ADJUSTMENT = 0.1
#: Priority a noisy lesson loses in the manifest (never below 1).
NOISY_PRIORITY_PENALTY = 2


@attrs.frozen
class LessonFigures:
    """Outcome counts of one lesson."""

    lesson_id: str
    fired: int = 0
    prevented: int = 0
    recurred: int = 0
    quiet: int = 0
    needless: int = 0
    unknown: int = 0
    wrong: int = 0
    waiting: int = 0
    sessions: int = 0
    #: Judged deliveries made before the call's outcome was known (not at a failure), and how
    #: many of those were relevant: what says whether a lesson is worth its place before calls.
    ahead_judged: int = 0
    ahead_relevant: int = 0

    @property
    def judged(self) -> int:
        """Deliveries whose outcome was seen (not unknown, not still waiting)."""
        return self.prevented + self.recurred + self.quiet + self.needless + self.wrong

    @property
    def failing(self) -> bool:
        """Keeps failing to prevent its mistake: it recurred (or was called wrong) often, and in
        most of the judged cases where it was relevant."""
        against = self.recurred + self.wrong
        relevant = self.prevented + against
        return against >= FAILING_MIN_RECURRED and against >= FAILING_SHARE * relevant

    @property
    def noisy(self) -> bool:
        """Judged often, and relevant (prevented or recurred) in few of those judgements.

        Only outcomes that were seen count: an ``unknown`` delivery says nothing either way.
        Deliveries made at a failure are left out: those come with a call that failed by
        definition, and counting them would wake a resting hint (:func:`failure_only`) only for
        it to be noisy again.
        """
        judged, relevant = self.ahead_judged, self.ahead_relevant
        return judged >= NOISY_MIN_JUDGED and relevant < NOISY_RELEVANT_SHARE * judged

    @property
    def needlessly_denying(self) -> bool:
        """Its denials stopped working calls more often than they stopped a mistake."""
        return self.needless > self.prevented

    def as_json(self) -> dict[str, Any]:
        return {
            "fired": self.fired,
            "prevented": self.prevented,
            "recurred": self.recurred,
            "quiet": self.quiet,
            "needless": self.needless,
            "unknown": self.unknown,
            "wrong": self.wrong,
            "waiting": self.waiting,
            "sessions": self.sessions,
        }


def figures(store: Any) -> dict[str, LessonFigures]:
    """Per-lesson outcome counts from the recorded rows plus the deliveries still waiting."""
    counts: dict[str, dict[str, int]] = {}
    sessions: dict[str, set[str]] = {}
    for row in store.list_deliveries():
        c = counts.setdefault(row["lesson_id"], {})
        c["fired"] = c.get("fired", 0) + 1
        outcome = row.get("outcome") or UNKNOWN
        if outcome not in OUTCOMES:
            outcome = UNKNOWN
        c[outcome] = c.get(outcome, 0) + 1
        if outcome != UNKNOWN and not str(row.get("event") or "").startswith("post_failure"):
            c["ahead_judged"] = c.get("ahead_judged", 0) + 1
            if outcome in (PREVENTED, RECURRED):
                c["ahead_relevant"] = c.get("ahead_relevant", 0) + 1
        sessions.setdefault(row["lesson_id"], set()).add(row["session_id"])
    for item in pending_deliveries(store):
        c = counts.setdefault(item.lesson_id, {})
        c["fired"] = c.get("fired", 0) + 1
        c["waiting"] = c.get("waiting", 0) + 1
        sessions.setdefault(item.lesson_id, set()).add(item.session_id)
    return {
        lesson_id: LessonFigures(
            lesson_id=lesson_id,
            fired=c.get("fired", 0),
            prevented=c.get(PREVENTED, 0),
            recurred=c.get(RECURRED, 0),
            quiet=c.get(QUIET, 0),
            needless=c.get(NEEDLESS, 0),
            unknown=c.get(UNKNOWN, 0),
            wrong=c.get(WRONG, 0),
            waiting=c.get("waiting", 0),
            sessions=len(sessions.get(lesson_id, ())),
            ahead_judged=c.get("ahead_judged", 0),
            ahead_relevant=c.get("ahead_relevant", 0),
        )
        for lesson_id, c in counts.items()
    }


#: Lesson types delivered at session start: nothing afterwards can show them relevant or not,
#: so they are never called noisy, never-fired or failing.
_SESSION_TYPES = (LessonType.PROTOCOL, LessonType.DIRECTIVE)


def summary(store: Any) -> dict[str, Any]:
    """What ``lessons stats`` prints: totals, and the never-fired, failing and noisy lessons."""
    per = figures(store)
    active = store.list_lessons(status=Status.ACTIVE)
    judgeable = {lesson.id: lesson for lesson in active if lesson.type not in _SESSION_TYPES}
    names = {lesson.id: lesson.slug or lesson.id for lesson in judgeable.values()}
    keys = ("fired", "prevented", "recurred", "quiet", "needless", "unknown", "wrong", "waiting")
    totals = dict.fromkeys(keys, 0)
    for fig in per.values():
        for key in totals:
            totals[key] += getattr(fig, key)
    never = sorted(i for i in names if i not in per or per[i].fired == 0)
    failing = sorted(i for i, fig in per.items() if i in judgeable and fig.failing)
    noisy = sorted(i for i, fig in per.items() if i in judgeable and fig.noisy)
    demoted = {
        i: change
        for i, lesson in sorted(judgeable.items())
        if (change := demotion(lesson, per.get(i))) is not None
    }
    shown = set(never) | set(failing) | set(noisy) | set(demoted)
    return {
        "totals": totals,
        "lessons": {i: fig.as_json() for i, fig in sorted(per.items())},
        "neverFired": never,
        "failingToPrevent": failing,
        "noisy": noisy,
        "demoted": demoted,
        "slugs": {i: names[i] for i in sorted(shown) if i in names},
    }


def confidence_delta(fig: LessonFigures) -> float:
    """A small confidence change from outcomes: up when it prevents, down when it fails, nags or
    is called wrong."""
    delta = 0.02 * min(fig.prevented, 5) - 0.03 * min(fig.recurred, 5)
    delta -= WRONG_PENALTY * min(fig.wrong, 5)
    if fig.noisy:
        delta -= 0.05
    return max(-MAX_ADJUSTMENT, min(MAX_ADJUSTMENT, delta))


def demotion(lesson: Lesson, fig: LessonFigures | None) -> str | None:
    """The type a denying lesson is compiled as after needless denials (``None``: unchanged).

    A guard that stopped a call which then ran fine as it was gets one step softer: it becomes a
    nudge, which still stops the first such call of a session but lets the retry through. A
    nudge (born one, or a demoted guard) whose denials keep being needless becomes a hint: it
    still says what it knows, with the result, and stops nothing.
    """
    if fig is None or not fig.needlessly_denying:
        return None
    if lesson.type is LessonType.GUARD:
        if fig.needless >= GUARD_DEMOTION_NEEDLESS + NUDGE_DEMOTION_NEEDLESS:
            return LessonType.HINT.value
        if fig.needless >= GUARD_DEMOTION_NEEDLESS:
            return LessonType.NUDGE.value
    if lesson.type is LessonType.NUDGE and fig.needless >= NUDGE_DEMOTION_NEEDLESS:
        return LessonType.HINT.value
    return None


def verdicts(per: Mapping[str, LessonFigures]) -> int:
    """How many deliveries have a recorded outcome (``unknown`` included, waiting ones not):
    a build names the count it acted on, so a verdict recorded since shows the manifest
    behind (``lessons doctor``)."""
    return sum(fig.fired - fig.waiting for fig in per.values())


def figures_or_none(store: Any) -> dict[str, LessonFigures] | None:
    """:func:`figures`, or ``None`` when they cannot be read (they must never stop a build)."""
    try:
        return figures(store)
    except Exception as exc:
        log.warning("outcomes.figures_failed", error=str(exc))
        return None


def adjust(
    lessons: Iterable[Lesson],
    store: Any,
    per: Mapping[str, LessonFigures] | None = None,
    *,
    floor: float = 0.0,
) -> list[Lesson]:
    """``lessons`` as the manifest should carry them after what their deliveries achieved.

    Confidence moves a little with prevented and recurred mistakes (for ranking); a noisy lesson
    loses :data:`NOISY_PRIORITY_PENALTY` priority; a denying lesson whose denials were needless
    is compiled one type softer (:func:`demotion`). The stored lesson is left alone: this only
    changes what the manifest says, so the adjustment follows the figures instead of
    compounding build after build, and stops as soon as the figures change. ``per`` are the
    figures when the caller has read them already.

    Outcomes never push a lesson below the confidence ``floor`` of the manifest: one whose
    mistake keeps recurring is about a live mistake, and dropping it would deliver nothing;
    ``stats`` and ``doctor`` name it (failing to prevent) so that its text can be sharpened.
    """
    items = list(lessons)
    per = figures_or_none(store) if per is None else per
    if per is None:
        return items
    out: list[Lesson] = []
    for lesson in items:
        fig = per.get(lesson.id)
        if fig is None:
            out.append(lesson)
            continue
        changes: dict[str, Any] = {}
        value = round(min(1.0, max(0.0, lesson.confidence + confidence_delta(fig))), 4)
        if lesson.confidence >= floor:
            value = max(value, floor)
        if value != lesson.confidence:
            changes["confidence"] = value
        if fig.noisy and lesson.type not in _SESSION_TYPES:
            lowered = max(1, lesson.priority - NOISY_PRIORITY_PENALTY)
            if lowered != lesson.priority:
                changes["priority"] = lowered
        softer = demotion(lesson, fig)
        if softer is not None:
            changes["type"] = LessonType(softer)
        out.append(attrs.evolve(lesson, **changes) if changes else lesson)
    return out


def failure_only(
    lessons: Iterable[Lesson], per: Mapping[str, LessonFigures] | None
) -> frozenset[str]:
    """Ids of the hints to compile for failing calls only: the noisy ones.

    A hint that keeps arriving with calls that worked costs the agent context and teaches it to
    skim lessons. Pre-tool context reaches the model with the call's result anyway (Claude Code,
    Codex), so a hint that waits for its call to fail loses little: it still arrives with the
    result of the very call it is about, when that call goes wrong.
    """
    if not per:
        return frozenset()
    return frozenset(
        lesson.id
        for lesson in lessons
        if lesson.type is LessonType.HINT and (fig := per.get(lesson.id)) is not None and fig.noisy
    )


def stats_lines(figures: Mapping[str, Any], limit: int = 10) -> list[str]:
    """The human lines ``lessons stats`` prints for :func:`summary`'s result."""
    totals = figures["totals"]
    slugs = figures.get("slugs", {})
    lines = [
        f"deliveries: {totals['fired']} (prevented {totals['prevented']}, "
        f"recurred {totals['recurred']}, quiet {totals['quiet']}, "
        f"needless {totals.get('needless', 0)}, unknown {totals['unknown']}, "
        f"waiting {totals['waiting']})"
    ]
    if totals.get("wrong"):
        lines[0] = lines[0][:-1] + f", called wrong {totals['wrong']})"

    def named(ids: Sequence[str]) -> str:
        shown = ", ".join(slugs.get(i, i) for i in ids[:limit])
        return shown + (f" … and {len(ids) - limit} more" if len(ids) > limit else "")

    for key, label in (
        ("failingToPrevent", "keep failing to prevent their mistake"),
        ("noisy", "noisy (judged often, mistake never seen; priority lowered)"),
        ("neverFired", "never fired"),
    ):
        ids = figures.get(key) or []
        if ids:
            lines.append(f"{label}: {len(ids)}: {named(ids)}")
    demoted = figures.get("demoted") or {}
    for softer in sorted(set(demoted.values())):
        ids = sorted(i for i, t in demoted.items() if t == softer)
        lines.append(
            f"compiled as {softer}s (their denials stopped calls that then ran fine): "
            f"{len(ids)}: {named(ids)}"
        )
    return lines


def doctor_line(store: Any) -> str | None:
    """One line for ``lessons doctor`` when some lessons are noisy or keep failing, else None."""
    found = summary(store)
    parts = []
    if found["failingToPrevent"]:
        parts.append(f"{len(found['failingToPrevent'])} keep failing to prevent their mistake")
    if found["noisy"]:
        parts.append(f"{len(found['noisy'])} noisy")
    if found["demoted"]:
        parts.append(
            f"{len(found['demoted'])} denied calls that then ran fine (compiled one type softer)"
        )
    if found["totals"]["fired"] and found["neverFired"]:
        parts.append(f"{len(found['neverFired'])} never fired")
    if not parts:
        return None
    return "lessons outcomes: " + ", ".join(parts) + " (see `lessons stats`)"
