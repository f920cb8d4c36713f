"""Lesson and candidate builders shared by the store tests (imported by name, not a fixture,
because the concurrency test's worker processes need them too)."""

from __future__ import annotations

from typing import Any

from lessons_core.models import Candidate, Evidence, Lesson, Provenance, Triggers


def make_lesson(n: int = 0, **overrides: Any) -> Lesson:
    """A lesson whose text differs with ``n`` (so its content hash does too)."""
    fields: dict[str, Any] = {
        "id": "",
        "slug": "",
        "summary": f"pytest hangs without a TTY, variant {n}",
        "mistake": f"Running bare pytest in a pipe stalls on the prompt (case {n})",
        "remediation": "Use python -m pytest -p no:cacheprovider",
        "triggers": Triggers(tool_names=["Bash"], command_patterns=[r"\bpytest\b"]),
        "tags": ["tool:pytest"],
        "error_lines": [f"Timeout after 120s waiting for tty {n}"],
        "provenance": Provenance(sessions=[f"s{n}"], projects=["p1"]),
    }
    fields.update(overrides)
    return Lesson(**fields)


def make_candidate(n: int = 0, **overrides: Any) -> Candidate:
    fields: dict[str, Any] = {
        "id": "",
        "tier": 2,
        "agent": "claude",
        "tool": "Bash",
        "trigger": "npm test",
        "mistake": f"npm test fails without install (case {n})",
        "fix": "run npm ci first",
        "evidence": (Evidence(file=f"/t/{n}.jsonl", line=n + 1, call_id=f"c{n}"),),
    }
    fields.update(overrides)
    return Candidate(**fields)
