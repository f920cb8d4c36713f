"""Putting parsed lessons into a store: the rules every import format shares.

Import must be safe to repeat (people re-run it after a failed sync, or import the same
teammate's export twice), so the content hash decides:

* same id, same content → unchanged;
* same content under another id → merged into the stored lesson (sessions, projects, tags and
  error lines are unioned, the larger occurrence count and confidence kept — unions and maxima,
  so importing twice changes nothing);
* same id, different content → the incoming version is stored as a ``candidate`` under a new id
  and slug, for review: silently overwriting a lesson someone edited would lose their edit, and
  silently dropping the import would lose the teammate's;
* otherwise → added.

Everything happens in one store transaction: an import either lands completely or not at all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import attrs

from lessons_core import ids
from lessons_core.errors import ValidationError
from lessons_core.models import Lesson, Status
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
    #: (the incoming id, the candidate it was stored as)
    conflicts: list[tuple[str, Lesson]] = attrs.Factory(list)
    #: Lines or lessons skipped in ``--partial`` mode, with why.
    rejected: list[str] = attrs.Factory(list)
    #: Things imported but not represented exactly (with why), e.g. regex dialect issues.
    notes: list[str] = attrs.Factory(list)
    warnings: list[str] = attrs.Factory(list)

    @property
    def total(self) -> int:
        return len(self.added) + len(self.merged) + len(self.unchanged) + len(self.conflicts)

    def per_type(self) -> dict[str, int]:
        """Counts per lesson type over everything the import brought in (any outcome)."""
        counts: Counter[str] = Counter()
        for lesson in [*self.added, *self.merged, *self.unchanged]:
            counts[str(lesson.type)] += 1
        for _, lesson in self.conflicts:
            counts[str(lesson.type)] += 1
        return dict(sorted(counts.items()))

    def changed(self) -> bool:
        return bool(self.added or self.merged or self.conflicts)

    def lines(self) -> list[str]:
        """The human-readable report."""
        head = f"Imported {self.total} lesson(s)"
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
        for incoming, candidate in self.conflicts:
            out.append(
                f"  conflict: {incoming} is stored with different content; the imported version "
                f"is candidate {candidate.slug} ({candidate.id}) for review"
            )
        out.extend(f"  rejected: {why}" for why in self.rejected)
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
        ),
    )


def _same_id(store: Store, lesson_id: str) -> Lesson | None:
    if not lesson_id:
        return None
    found = store.get_lesson(lesson_id)
    return found if found is not None and found.id == lesson_id else None


def import_lessons(store: Store, lessons: Iterable[Lesson], report: ImportReport) -> ImportReport:
    """Apply the rules above to every lesson, in one transaction; fills and returns ``report``."""
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
            if _same_id(store, lesson.id) is not None:
                candidate = attrs.evolve(
                    lesson,
                    id=ids.new_id(),
                    slug=ids.make_slug(lesson.summary),
                    status=Status.CANDIDATE,
                )
                (stored,) = store.add_lessons([candidate])
                report.conflicts.append((lesson.id, stored))
                continue
            (stored,) = store.add_lessons([lesson])
            report.added.append(stored)
    return report
