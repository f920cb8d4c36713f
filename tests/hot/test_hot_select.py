"""Ranking and the byte budget: first always fits, summary fallback, every drop reported."""

from __future__ import annotations

from hot_support import make_lesson, manifest_for

from lessons_core.hot import select


def _items(manifest, ids):
    lessons = manifest["lessons"]
    return [(i, lessons[i]["text"], lessons[i]["short"]) for i in ids]


def test_rank_priority_then_confidence():
    """Higher priority first, then higher confidence."""
    low = make_lesson(priority=3, confidence=0.99)
    high = make_lesson(priority=9, confidence=0.6)
    mid_sure = make_lesson(priority=5, confidence=0.9)
    mid_unsure = make_lesson(priority=5, confidence=0.7)
    manifest = manifest_for(low, high, mid_sure, mid_unsure)
    ids = [low.id, mid_unsure.id, high.id, mid_sure.id]
    assert select.rank(manifest, ids) == [high.id, mid_sure.id, mid_unsure.id, low.id]


def test_lang_tags_matching_the_stack_win_ties(tmp_path):
    """A lesson tagged with the project's language outranks an equal one."""
    (tmp_path / "pyproject.toml").write_text("[project]\n")
    generic = make_lesson(priority=5)
    python = make_lesson(priority=5, tags=["lang:python"])
    rusty = make_lesson(priority=5, tags=["lang:rust"])
    better = make_lesson(priority=6)
    manifest = manifest_for(generic, python, rusty, better)
    ranked = select.rank(manifest, [generic.id, rusty.id, python.id, better.id], str(tmp_path))
    assert ranked == [better.id, python.id, generic.id, rusty.id]


def test_detect_stack(tmp_path):
    """Marker files name the languages."""
    assert select.detect_stack(str(tmp_path)) == set()
    (tmp_path / "go.mod").write_text("module x\n")
    (tmp_path / "package.json").write_text("{}")
    assert select.detect_stack(str(tmp_path)) == {"go", "javascript", "typescript"}


def test_first_lesson_always_fits_even_over_budget():
    """A lesson larger than the budget is still delivered when it is the best one."""
    big = make_lesson(mistake="x" * 5000)
    manifest = manifest_for(big)
    chosen, dropped = select.fit(_items(manifest, [big.id]), 100, 3)
    assert [c[0] for c in chosen] == [big.id]
    assert chosen[0][2] is False
    assert dropped == []


def test_summary_fallback_then_drop():
    """Later lessons shrink to their summary when the full text does not fit, else are dropped."""
    first = make_lesson(mistake="a" * 300)
    second = make_lesson(mistake="b" * 300, summary="second one")
    third = make_lesson(mistake="c" * 300, summary="third " + "z" * 150)
    manifest = manifest_for(first, second, third)
    full_first = len(manifest["lessons"][first.id]["text"].encode())
    short_second = len(manifest["lessons"][second.id]["short"].encode())
    budget = full_first + 2 + short_second + 10
    chosen, dropped = select.fit(_items(manifest, [first.id, second.id, third.id]), budget, 3)
    assert [(c[0], c[2]) for c in chosen] == [(first.id, False), (second.id, True)]
    assert dropped == [{"id": third.id, "why": "budget"}]
    assert select.used_bytes(chosen) <= budget


def test_limit_drops_are_reported():
    """More matches than maxLessonsPerInjection: the extra ones are dropped as `limit`."""
    lessons = [make_lesson() for _ in range(5)]
    manifest = manifest_for(*lessons)
    chosen, dropped = select.fit(_items(manifest, [x.id for x in lessons]), 100000, 3)
    assert len(chosen) == 3
    assert dropped == [{"id": lessons[3].id, "why": "limit"}, {"id": lessons[4].id, "why": "limit"}]


def test_fit_after_has_no_first_exception():
    """The session-start variant keeps the hard cap: nothing over the remaining budget."""
    big = make_lesson(mistake="x" * 5000)
    manifest = manifest_for(big)
    chosen, dropped = select.fit_after(_items(manifest, [big.id]), 4096, 1000, 5)
    assert [(c[0], c[2]) for c in chosen] == [(big.id, True)]
    assert dropped == []
    chosen, dropped = select.fit_after(_items(manifest, [big.id]), 4096, 4080, 5)
    assert chosen == []
    assert dropped == [{"id": big.id, "why": "budget"}]


def test_budget_is_inclusive_to_the_byte():
    """Texts whose bytes and separators equal the budget fit; one byte less and the last one
    shrinks to its summary, and without room for that it is dropped."""
    first = make_lesson(mistake="a" * 200)
    second = make_lesson(mistake="b" * 200, summary="the short one")
    manifest = manifest_for(first, second)
    items = _items(manifest, [first.id, second.id])
    full_first = len(items[0][1].encode())
    full_second = len(items[1][1].encode())
    short_second = len(items[1][2].encode())
    exact = full_first + 2 + full_second
    assert [c[2] for c in select.fit(items, exact, 3)[0]] == [False, False]
    assert [c[2] for c in select.fit(items, exact - 1, 3)[0]] == [False, True]
    short_exact = full_first + 2 + short_second
    assert [c[2] for c in select.fit(items, short_exact, 3)[0]] == [False, True]
    chosen, dropped = select.fit(items, short_exact - 1, 3)
    assert [c[0] for c in chosen] == [first.id]
    assert dropped == [{"id": second.id, "why": "budget"}]


def test_a_summary_counts_its_bytes_against_the_next():
    """A lesson delivered as its summary takes that summary's bytes from what the next gets."""
    first = make_lesson(mistake="a" * 200)
    second = make_lesson(mistake="b" * 200, summary="second, short")
    third = make_lesson(mistake="c" * 200, summary="third, short")
    manifest = manifest_for(first, second, third)
    items = _items(manifest, [first.id, second.id, third.id])
    sizes = [len(items[0][1].encode()), len(items[1][2].encode()), len(items[2][2].encode())]
    exact = sizes[0] + 2 + sizes[1] + 2 + sizes[2]
    assert [c[2] for c in select.fit(items, exact, 3)[0]] == [False, True, True]
    chosen, dropped = select.fit(items, exact - 1, 3)
    assert [c[0] for c in chosen] == [first.id, second.id]
    assert dropped == [{"id": third.id, "why": "budget"}]


def test_fit_after_counts_the_separator_and_the_id_from_the_first_lesson():
    """After text already taken (even one byte), the first lesson pays its separator too, and
    for the trailer's list its id and a comma; with nothing taken it pays its text alone."""
    lesson = make_lesson(mistake="a" * 200)
    manifest = manifest_for(lesson)
    items = _items(manifest, [lesson.id])
    full = (lesson.id, items[0][1], False)
    size = len(items[0][1].encode())
    assert select.fit_after(items, size, 0, 5)[0] == [full]
    assert full not in select.fit_after(items, size - 1, 0, 5)[0]
    assert select.fit_after(items, 1 + 2 + size, 1, 5)[0] == [full]
    assert full not in select.fit_after(items, 1 + 1 + size, 1, 5)[0]
    with_id = 1 + 2 + len(lesson.id.encode()) + 1 + size
    assert select.fit_after(items, with_id, 1, 5, with_ids=True)[0] == [full]
    assert full not in select.fit_after(items, with_id - 1, 1, 5, with_ids=True)[0]
