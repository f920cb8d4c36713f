"""A hook decision and its trailer (standard library only).

Every handler answers with the same small dict; it lives apart from :mod:`runner` so that a
handler module (recall, for one) can build decisions without importing the runner that
dispatches to it, and the compiler can use recall's helpers without loading the hook runner.
"""


def new_decision():
    """An empty decision: no denial, no context."""
    return {"deny": None, "context": None, "delivered": [], "dropped": [], "trailer": None}


def trailer(delivered, dropped):
    """An HTML comment recording what was injected and how many were dropped, by reason.

    It rides in the model's context, inside the byte budget, so the dropped lessons are
    counted (``dropped=budget:24``), not listed: thirty ids cost more than a lesson. Which ones
    were dropped is in the decision, ``LESSONS_HOOK_LOG`` and ``lessons explain``.
    """
    parts = ["injected=" + ",".join(delivered)]
    if dropped:
        counts: dict[str, int] = {}
        for item in dropped:
            counts[item["why"]] = counts.get(item["why"], 0) + 1
        parts.append("dropped=" + ",".join(f"{why}:{n}" for why, n in counts.items()))
    return TRAILER_OPEN + " ".join(parts) + TRAILER_CLOSE


TRAILER_OPEN = "<!-- lessons: "
TRAILER_CLOSE = " -->"


def trailer_reserve(count):
    """Bytes a trailer takes, besides one id and a comma per injected lesson, for ``count``
    ranked lessons at most: its frame, the newline that joins it to the context and the
    longest drop counts it can carry."""
    frame = len("\n" + TRAILER_OPEN + "injected=" + TRAILER_CLOSE)
    return frame + len(f" dropped=budget:{count},limit:{count}")
