"""Built-in plugin: the default duplicate finder.

Two texts are the same lesson when their content hashes are equal, or when the token Jaccard
similarity of summary + mistake + remediation reaches :data:`THRESHOLD` after lowercasing,
dropping punctuation and stop-words. Cheap, deterministic and explainable; a plugin can register
an embedding-based backend instead.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable

from lessons_core.models import Candidate, Lesson, content_hash
from lessons_core.patterns import kept_programs
from lessons_core.plugin import hookimpl
from lessons_core.plugins.specs import DedupSpec
from lessons_core.similarity import jaccard as jaccard

NAME = "jaccard"
THRESHOLD = 0.5

STOP_WORDS = frozenset(
    """
    a an and are as at be been but by can do does did for from has have how if in into is it
    its just may must no not of on or should so than that the their then there these this
    those to too use used using was we were what when where which while will with without
    you your instead always never don t s
    """.split()  # noqa: SIM905 (a word list reads better as prose)
)

#: Words in any script: a lesson written in Chinese or Greek has words too, and with an ASCII-only
#: pattern it had none, so any two such lessons met as two empty sets and were merged.
_WORD = kept_programs.compile(r"\w+")


@functools.lru_cache(maxsize=8192)
def tokens(text: str) -> frozenset[str]:
    """Lowercased words without punctuation or stop-words.

    Remembered per text: a scan compares every finding with every stored lesson, so without it
    each lesson's text was split again for each finding (143 lessons and 500 findings: 70,000
    splits of the same 143 texts).
    """
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS)


def _text(item: Lesson | Candidate) -> str:
    if isinstance(item, Lesson):
        return f"{item.summary} {item.mistake} {item.remediation}"
    return f"{item.summary} {item.mistake} {item.fix}"


def similarity(a: Lesson | Candidate, b: Lesson | Candidate) -> float:
    return jaccard(tokens(_text(a)), tokens(_text(b)))


def find_duplicate(
    item: Lesson | Candidate, lessons: Iterable[Lesson], *, threshold: float = THRESHOLD
) -> Lesson | None:
    """The stored lesson ``item`` duplicates (the most similar one), or ``None``."""
    digest = content_hash(item) if isinstance(item, Lesson) else None
    mine = tokens(_text(item))
    if not mine:
        # Nothing but stop-words and punctuation says nothing about what the lesson is, so it
        # is alike to nothing; only an equal content hash makes it a duplicate.
        threshold = float("inf")
    best: Lesson | None = None
    best_score = threshold
    for lesson in lessons:
        if digest is not None and content_hash(lesson) == digest:
            return lesson
        score = jaccard(mine, tokens(_text(lesson)))
        if score >= best_score and (best is None or score > best_score):
            best, best_score = lesson, score
    return best


@hookimpl
def lessons_register_dedup(register: Callable[[DedupSpec], None]) -> None:
    register(
        DedupSpec(
            name=NAME,
            find=find_duplicate,
            description=f"equal content hash, or token Jaccard similarity >= {THRESHOLD}",
        )
    )
