"""A hook decision and its trailer (standard library only).

Every handler answers with the same small dict; it lives apart from :mod:`runner` so that a
handler module (recall, for one) can build decisions without importing the runner that
dispatches to it, and the compiler can use recall's helpers without loading the hook runner.
"""


def new_decision():
    """An empty decision: no denial, no context."""
    return {"deny": None, "context": None, "delivered": [], "dropped": [], "trailer": None}


def trailer(delivered, dropped):
    """An HTML comment recording what was injected and what was dropped (and why)."""
    parts = ["injected=" + ",".join(delivered)]
    if dropped:
        parts.append("dropped=" + ",".join(f"{d['id']}({d['why']})" for d in dropped))
    return "<!-- lessons: " + " ".join(parts) + " -->"
