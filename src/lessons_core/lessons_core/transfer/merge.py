"""Putting parsed lessons into a store: the rules every import format shares.

Import must be safe to repeat (people re-run it after a failed sync, or import the same
teammate's export twice), so the content hash decides:

* same id, same content → unchanged;
* same content under another id → merged into the stored lesson (sessions, projects, tags and
  error lines are unioned, the larger occurrence count and confidence kept — unions and maxima,
  so importing twice changes nothing);
* same id, different content → a **conflict**, which the caller resolves (:data:`RESOLUTIONS`):
  ``keep`` the stored lesson (the default: silently overwriting a lesson someone edited would
  lose their edit), take ``theirs`` (the incoming content replaces the stored one, under the
  same id, with the counts unioned), or keep ``both`` (the incoming version is added as a lesson
  of its own, under a new id and slug). The report lists every conflict and what became of it,
  so the user can import again with another choice;
* otherwise → added.

Everything happens in one store transaction: an import either lands completely or not at all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

import attrs

from lessons_core import ids
from lessons_core.errors import ValidationError
from lessons_core.models import Lesson, add_sightings
from lessons_core.privacy import redact, redact_lesson
from lessons_core.store.base import Store


@attrs.define
class ImportReport:
    """What an import did, for the CLI's report and for tests."""

    source: str = ""
    format: str = ""
    added: list[Lesson] = attrs.Factory(list)
    merged: list[Lesson] = attrs.Factory(list)
    unchanged: list[Lesson] = attrs.Factory(list)
    #: (the lesson as it is stored now, the resolution, the incoming version)
    conflicts: list[tuple[Lesson, str, Lesson]] = attrs.Factory(list)
    #: Lines or lessons skipped in ``--partial`` mode, with why.
    rejected: list[str] = attrs.Factory(list)
    #: Things imported but not represented exactly (with why), e.g. regex dialect issues.
    notes: list[str] = attrs.Factory(list)
    warnings: list[str] = attrs.Factory(list)
    #: Notes many lessons share, by what they say: each lesson's name and its own detail. The
    #: report counts them under one heading instead of repeating the sentence per lesson.
    groups: dict[str, list[tuple[str, str]]] = attrs.Factory(dict)
    #: Whether nothing was written (``lessons import --dry-run``).
    dry_run: bool = False

    def note(self, heading: str, name: str, detail: str = "") -> None:
        """Count lesson ``name`` under ``heading`` (``detail``: what it means for this one).

        ``heading`` follows the count: "scoped to projects not on this machine" reads "19
        lessons scoped to projects not on this machine: …".
        """
        self.groups.setdefault(heading, []).append((name, detail))

    def grouped_notes(self) -> list[str]:
        """One line per group: its count, its heading, and the lessons it names."""
        out = []
        for heading, members in self.groups.items():
            names = ", ".join(f"{n} ({d})" if d else n for n, d in members)
            count = f"{len(members)} lesson" if len(members) == 1 else f"{len(members)} lessons"
            out.append(f"{count} {heading}: {names}")
        return out

    @property
    def total(self) -> int:
        return len(self.added) + len(self.merged) + len(self.unchanged) + len(self.conflicts)

    def per_type(self) -> dict[str, int]:
        """Counts per lesson type over everything the import brought in (any outcome)."""
        counts: Counter[str] = Counter()
        for lesson in [*self.added, *self.merged, *self.unchanged]:
            counts[str(lesson.type)] += 1
        for lesson, _, _ in self.conflicts:
            counts[str(lesson.type)] += 1
        return dict(sorted(counts.items()))

    def changed(self) -> bool:
        return bool(self.added or self.merged or any(how != KEEP for _, how, _ in self.conflicts))

    def lines(self) -> list[str]:
        """The human-readable report."""
        head = f"{'Would import' if self.dry_run else 'Imported'} {self.total} lesson(s)"
        if self.source:
            head += f" from {self.source}"
        if self.format:
            head += f" ({self.format})"
        out = [
            head + ":",
            f"  added {len(self.added)}, merged {len(self.merged)}, "
            f"unchanged {len(self.unchanged)}, conflicts {len(self.conflicts)}, "
            f"rejected {len(self.rejected)}",
        ]
        types = self.per_type()
        if types:
            out.append("  by type: " + ", ".join(f"{k} {v}" for k, v in types.items()))
        for stored, how, incoming in self.conflicts:
            name = f"{incoming.slug or incoming.id} ({incoming.id})"
            if how == KEEP:
                out.append(
                    f"  conflict: {name} is stored with other content; kept the stored version "
                    "(import again with --on-conflict theirs or both to change that)"
                )
            elif how == THEIRS:
                out.append(f"  conflict: {name}: the imported version replaced the stored one")
            else:
                out.append(
                    f"  conflict: {name}: both kept; the imported version is "
                    f"{stored.slug} ({stored.id})"
                )
            out.extend(f"    {line}" for line in differences(incoming, stored, how))
        if self.rejected:
            out.append(
                f"  {len(self.rejected)} lesson(s) {'would be' if self.dry_run else 'were'} "
                "left out (fix them in the file and import again, or add them one by one):"
            )
        out.extend(f"    rejected: {why}" for why in self.rejected)
        out.extend(f"  note: {line}" for line in self.grouped_notes())
        out.extend(f"  note: {why}" for why in self.notes)
        if self.warnings:
            out.append(f"  {len(self.warnings)} warning(s), logged on stderr")
        return out


def _union(first: Iterable[str], second: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys([*first, *second]))


def merge_into(existing: Lesson, incoming: Lesson) -> Lesson:
    """``existing`` with ``incoming``'s counts folded in (idempotent: merging twice = once)."""
    return attrs.evolve(
        existing,
        confidence=max(existing.confidence, incoming.confidence),
        tags=_union(existing.tags, incoming.tags),
        error_lines=_union(existing.error_lines, incoming.error_lines),
        provenance=attrs.evolve(
            existing.provenance,
            sessions=_union(existing.provenance.sessions, incoming.provenance.sessions),
            projects=_union(existing.provenance.projects, incoming.provenance.projects),
            occurrences=max(existing.provenance.occurrences, incoming.provenance.occurrences),
            evidence=add_sightings(existing.provenance.evidence, incoming.provenance.evidence),
        ),
    )


def _same_id(store: Store, lesson_id: str) -> Lesson | None:
    if not lesson_id:
        return None
    found = store.get_lesson(lesson_id)
    return found if found is not None and found.id == lesson_id else None


KEEP, THEIRS, BOTH = "keep", "theirs", "both"
RESOLUTIONS = (KEEP, THEIRS, BOTH)

#: Chooses what to do with a conflict: ``(stored, incoming) -> keep | theirs | both``.
Resolver = Callable[[Lesson, Lesson], str]

_COMPARED = ("summary", "mistake", "remediation", "injection", "type", "priority", "scope")


def differences(incoming: Lesson, other: Lesson, how: str = KEEP) -> list[str]:
    """The fields two versions of a lesson disagree on, one short line each."""
    out = []
    for field in _COMPARED:
        mine, theirs = getattr(other, field), getattr(incoming, field)
        if mine != theirs and how != BOTH:
            out.append(f"{field}: stored {_short(mine)} / imported {_short(theirs)}")
    if other.triggers != incoming.triggers and how != BOTH:
        out.append("triggers differ")
    return out


def _short(value: object, limit: int = 60) -> str:
    text = repr(str(value)) if value is not None else "none"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def import_lessons(
    store: Store,
    lessons: Iterable[Lesson],
    report: ImportReport,
    resolve: Resolver | str = KEEP,
) -> ImportReport:
    """Apply the rules above to every lesson, in one transaction; fills and returns ``report``.

    ``resolve`` is one of :data:`RESOLUTIONS` for every conflict, or a function asked for each.
    """
    with store.transaction():
        for incoming in lessons:
            # Redacted first, so the hash compared is the one the store keeps.
            try:
                lesson = redact_lesson(incoming)
            except ValidationError as exc:
                where = f"lesson {redact(incoming.slug) or incoming.id or 'without an id'}"
                raise ValidationError(str(exc), where=where) from None
            digest = lesson.content_hash
            by_hash = store.find_by_hash(digest)
            if by_hash is not None:
                merged = merge_into(by_hash, lesson)
                if merged == by_hash:
                    report.unchanged.append(by_hash)
                else:
                    report.merged.append(store.update_lesson(merged))
                continue
            existing = _same_id(store, lesson.id)
            if existing is not None:
                how = resolve if isinstance(resolve, str) else resolve(existing, lesson)
                if how not in RESOLUTIONS:
                    raise ValueError(f"unknown conflict resolution {how!r}")
                if how == THEIRS:
                    replaced = attrs.evolve(
                        merge_into(lesson, existing), slug=existing.slug, status=existing.status
                    )
                    report.conflicts.append((store.update_lesson(replaced), how, lesson))
                elif how == BOTH:
                    copy = attrs.evolve(lesson, id=ids.new_id(), slug=ids.make_slug(lesson.summary))
                    (stored,) = store.add_lessons([copy])
                    report.conflicts.append((stored, how, lesson))
                else:
                    report.conflicts.append((existing, how, lesson))
                continue
            (stored,) = store.add_lessons([lesson])
            report.added.append(stored)
    return report
