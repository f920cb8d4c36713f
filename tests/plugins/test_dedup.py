"""The built-in dedup backend: equal content hash, or token Jaccard >= 0.5."""

from __future__ import annotations

import attrs

from lessons_core.builtin import dedup
from lessons_core.models import Candidate, Lesson, Triggers


def _lesson(summary: str, mistake: str, remediation: str, **kw: object) -> Lesson:
    return Lesson(
        id=str(kw.pop("id", "L1")),
        slug="s",
        summary=summary,
        mistake=mistake,
        remediation=remediation,
        **kw,  # type: ignore[arg-type]
    )


PYTEST = _lesson(
    "pytest hangs without a TTY",
    "Running bare pytest in a pipe stalls waiting for input",
    "Run python -m pytest -p no:cacheprovider",
)
DOCKER = _lesson(
    "docker build ignores the cache",
    "COPY . before pip install invalidates the layer cache",
    "Copy requirements.txt first, install, then copy the rest",
    id="L2",
)


def test_tokens_drop_case_punctuation_and_stop_words() -> None:
    """Normalization lowercases, strips punctuation and removes stop-words."""
    assert dedup.tokens("The pytest, it HANGS!  (without a TTY)") == {"pytest", "hangs", "tty"}


def test_reworded_lesson_is_a_duplicate() -> None:
    """A paraphrase sharing most content words is found; the unrelated lesson is not."""
    reworded = _lesson(
        "Pytest hangs when there is no TTY",
        "bare pytest in a pipe stalls waiting on input",
        "use python -m pytest -p no:cacheprovider",
        id="new",
    )
    assert dedup.similarity(reworded, PYTEST) >= dedup.THRESHOLD
    assert dedup.find_duplicate(reworded, [DOCKER, PYTEST]) is PYTEST


def test_unrelated_lesson_is_not_a_duplicate() -> None:
    """Below the threshold nothing is returned."""
    other = _lesson("git push rejected", "pushed to a protected branch", "open a pull request")
    assert dedup.similarity(other, PYTEST) < dedup.THRESHOLD
    assert dedup.find_duplicate(other, [PYTEST, DOCKER]) is None


def test_equal_content_hash_is_a_duplicate() -> None:
    """Same content hash means duplicate, whatever the token score."""
    twin = attrs.evolve(PYTEST, id="other", slug="other", confidence=0.1)
    assert dedup.find_duplicate(twin, [DOCKER, PYTEST]) is PYTEST


def test_same_words_different_trigger_still_counts_as_duplicate_text() -> None:
    """Jaccard looks at the words only; triggers are for the hash, not for similarity."""
    moved = attrs.evolve(PYTEST, id="x", triggers=Triggers(tool_names=["Bash"]))
    assert moved.content_hash != PYTEST.content_hash
    assert dedup.find_duplicate(moved, [PYTEST]) is PYTEST


def test_candidate_is_compared_by_summary_mistake_and_fix() -> None:
    """Candidates use 'fix' where lessons use 'remediation'."""
    candidate = Candidate(
        id="c",
        tier=2,
        agent="claude",
        tool="Bash",
        trigger="pytest",
        summary="pytest hangs without a TTY",
        mistake="bare pytest in a pipe stalls waiting for input",
        fix="python -m pytest -p no:cacheprovider",
    )
    assert dedup.find_duplicate(candidate, [DOCKER, PYTEST]) is PYTEST


def test_most_similar_lesson_is_returned() -> None:
    """With several lessons above the threshold, the closest one wins."""
    near = attrs.evolve(PYTEST, id="near", remediation="Run python -m pytest")
    probe = attrs.evolve(PYTEST, id="probe", triggers=Triggers(tool_names=["Bash"]))
    assert dedup.find_duplicate(probe, [near, PYTEST]) is PYTEST
    assert dedup.jaccard(frozenset(), frozenset()) == 1.0


def test_lessons_in_other_scripts_are_told_apart() -> None:
    """Two different lessons written without ASCII words are no duplicates of each other; the
    same text is."""
    stash = _lesson(
        "git stash 不会保存未跟踪的文件", "用了 git stash 以后新文件丢了", "用 git stash -u"
    )
    greek = _lesson(
        "Οι δοκιμές κολλάνε χωρίς τερματικό", "περιμένει είσοδο", "τρέξε τες αλλιώς", id="L2"
    )
    chinese = _lesson("数据库迁移不能修改", "修改了已经执行的迁移", "写一个新的迁移", id="L3")
    assert dedup.find_duplicate(chinese, [greek]) is None
    assert dedup.find_duplicate(greek, [chinese]) is None
    assert dedup.find_duplicate(chinese, [stash]) is None
    same = attrs.evolve(chinese, id="L4")
    assert dedup.find_duplicate(same, [greek, chinese]) is chinese


def test_a_text_of_stop_words_only_is_alike_to_nothing() -> None:
    """A lesson whose words are all stop-words matches no other on words alone."""
    empty = _lesson("use it", "it was not", "do this", id="L5")
    other = _lesson("do it", "this is it", "use that", id="L6")
    assert dedup.tokens(f"{empty.summary} {empty.mistake} {empty.remediation}") == frozenset()
    assert dedup.find_duplicate(empty, [other]) is None
