"""Directive lessons again once the session's context has grown (standard library only).

A directive delivered at session start drifts out of the model's attention as the conversation
grows. The Node original re-sent its directives at 30, 52 and 70 % of the context window, from
a ``PostToolUse`` hook that printed plain text (which Claude Code does not show the model). Here
the measure is the size in bytes of the session's transcript (``transcript_path``, which every
agent sends), compared with ``directiveReinjectThresholds`` from the manifest's config: when the
transcript has grown past a threshold since the session began (or since its last compaction,
``base:<bytes>`` in the seen file), the directives ride along with the next call's result as
``additionalContext``, once per threshold per session (claims ``reinject@<bytes>``).

Cost on a call below the smallest threshold: one ``os.stat`` of the transcript. It runs inside
the pre-tool (or Gemini's after-tool) hook that already runs on every call, so no hook process
is added for it.
"""

# os.path, not pathlib: importing pathlib costs the hook process more than these calls.
# ruff: noqa: PTH116

import os

HEADER = "Standing directives for this session (repeated because the conversation has grown):"


def thresholds(manifest):
    """The configured thresholds in bytes, ascending (empty when re-injection is off)."""
    value = manifest.get("config", {}).get("directiveReinjectThresholds")
    if not isinstance(value, list):
        return []
    return sorted(v for v in value if isinstance(v, int) and not isinstance(v, bool) and v > 0)


def transcript_size(event):
    path = event.get("transcript_path")
    if not isinstance(path, str) or not path:
        return None
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return None


def base(session):
    """The transcript size at the session's last compaction (0 before any)."""
    best = 0
    for name in session.seen():
        if name.startswith("base:"):
            try:
                best = max(best, int(name[5:]))
            except ValueError:
                continue
    return best


def directive_ids(manifest, event, environ):
    """Directive lessons of the session list that apply in this project, best first."""
    lessons = manifest.get("lessons", {})
    ids = [i for i in manifest.get("session", ()) if lessons.get(i, {}).get("type") == "directive"]
    if any(lessons[i].get("scope") for i in ids):
        from lessons_core.hot import match

        project = match.Subject(event).project(environ)
        ids = [i for i in ids if not lessons[i].get("scope") or lessons[i]["scope"] == project]
    return ids


def due(event, manifest, state, environ, stats):
    """``(chosen, dropped)`` directives to deliver with this call, or ``None``."""
    steps = thresholds(manifest)
    if not steps or event.get("agent_id"):
        return None  # a sub-agent got its directives at its own start
    size = transcript_size(event)
    if size is None or size < steps[0]:
        return None
    session = state.get() if state is not None else None
    if session is None:
        return None
    grown = size - base(session)
    passed = [t for t in steps if grown >= t]
    fresh = [t for t in passed if not session.has(f"reinject@{t}")]
    if not fresh:
        return None
    ids = directive_ids(manifest, event, environ)
    if not ids:
        return None
    if not session.claim(f"reinject@{fresh[-1]}"):
        return None  # a parallel call took this threshold
    for t in fresh[:-1]:  # thresholds passed at once count as reached
        session.claim(f"reinject@{t}")
    stats["reinject"] = fresh[-1]
    from lessons_core.hot import manifest as manifest_mod
    from lessons_core.hot import select

    lessons = manifest["lessons"]
    ranked = select.rank(manifest, ids, event.get("cwd"))
    budget = manifest_mod.config_value(manifest, "sessionStartBudgetBytes", 4096)
    items = [(i, lessons[i].get("text", ""), lessons[i].get("short", "")) for i in ranked]
    return select.fit_after(items, budget, len(HEADER.encode("utf-8")), len(items))


def after_compaction(session, event, manifest):
    """Measure growth from here on, and let every threshold fire again."""
    size = transcript_size(event)
    steps = thresholds(manifest)
    if steps:
        session.release([f"reinject@{t}" for t in steps])
    if size:
        session.claim(f"base:{size}")
