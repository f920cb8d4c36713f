"""A minimal adapter for the runner tests: the payload already is the neutral event.

``normalize`` accepts a dict with an ``event`` key; ``render`` answers with the decision itself
when it says something, so tests can read exactly what the core decided.
"""

AGENT = "echo"


def normalize(payload):
    if isinstance(payload, dict) and isinstance(payload.get("event"), str):
        event = dict(payload)
        event.setdefault("agent", AGENT)
        return event
    return None


def render(event, decision):
    if decision.get("deny") or decision.get("context"):
        return {"decision": decision}
    return None
