"""Rank matching lessons and fit them into a byte budget (standard library only).

Order: priority (highest first), then confidence, with a half-point priority boost for a lesson
whose ``lang`` tags name the project's stack. The stack is guessed from marker files in the
working directory, and only when some candidate has a ``lang`` tag (a few ``stat`` calls).

Budget: at most ``limit`` lessons. The first one is always delivered, even over the budget — a
lesson that never fits would otherwise never be seen. Each later one is delivered in full if it
fits, else as its short summary if that fits, else dropped. Every drop is reported with its
reason (``limit``, ``budget``), so ``explain`` and the log can say why a lesson stayed silent.
"""

# os.path, not pathlib: importing pathlib costs the hook process more than these calls.
# ruff: noqa: PTH110, PTH118

import os

SEPARATOR = "\n\n"

#: marker file -> languages it reveals
STACK_MARKERS = (
    ("pyproject.toml", ("python",)),
    ("setup.py", ("python",)),
    ("package.json", ("javascript", "typescript")),
    ("go.mod", ("go",)),
    ("Cargo.toml", ("rust",)),
)


def detect_stack(cwd):
    """Languages whose marker files sit in ``cwd`` (an empty set when unknown)."""
    found: set[str] = set()
    if not cwd:
        return found
    for marker, langs in STACK_MARKERS:
        if os.path.exists(os.path.join(cwd, marker)):
            found.update(langs)
    return found


def rank(manifest, ids, cwd=None):
    """``ids`` sorted best first."""
    lessons = manifest.get("lessons", {})
    stack = None
    if any(lessons.get(i, {}).get("lang") for i in ids):
        stack = detect_stack(cwd)

    def key(item):
        position, lesson_id = item
        lesson = lessons.get(lesson_id, {})
        priority = lesson.get("priority", 0)
        if stack and stack.intersection(lesson.get("lang") or ()):
            priority += 0.5
        return (-priority, -lesson.get("confidence", 0), position)

    return [lesson_id for _, lesson_id in sorted(enumerate(ids), key=key)]


def fit(items, budget, limit):
    """Choose from ranked ``items`` (``(id, full_text, short_text)``) within the budget.

    Returns ``(chosen, dropped)``: ``chosen`` is a list of ``(id, text, shortened)`` and
    ``dropped`` a list of ``{"id", "why"}`` dicts.
    """
    return _fit(items, budget, limit, 0, True)


def fit_after(items, budget, used, limit, with_ids=False):
    """Like :func:`fit`, after ``used`` bytes are taken, and with no first-lesson exception.

    The session-start block uses it: the protocol text comes first and the hard cap holds.
    ``with_ids``: each chosen lesson also costs its id and a comma (the trailer's list).
    """
    return _fit(items, budget, limit, used, False, with_ids)


def _fit(items, budget, limit, used, first_always, with_ids=False):
    chosen: list[tuple[str, str, bool]] = []
    dropped: list[dict[str, str]] = []
    separate = used > 0
    for lesson_id, full, short in items:
        if len(chosen) >= limit:
            dropped.append({"id": lesson_id, "why": "limit"})
            continue
        sep = len(SEPARATOR) if (chosen or separate) else 0
        if with_ids:
            sep += len(lesson_id.encode("utf-8")) + 1
        size = len(full.encode("utf-8"))
        if (first_always and not chosen) or used + sep + size <= budget:
            chosen.append((lesson_id, full, False))
            used += sep + size
            continue
        if short:
            short_size = len(short.encode("utf-8"))
            if used + sep + short_size <= budget:
                chosen.append((lesson_id, short, True))
                used += sep + short_size
                continue
        dropped.append({"id": lesson_id, "why": "budget"})
    return chosen, dropped


def used_bytes(chosen):
    """Bytes the chosen texts take once joined (what ``explain`` reports)."""
    return len(SEPARATOR.join(text for _, text, _ in chosen).encode("utf-8"))
