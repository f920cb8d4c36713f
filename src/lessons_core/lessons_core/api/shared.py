"""The rules for lessons that come from outside the user's own store (a repository, a team
store, an agent's call through the MCP server, a model's answer).

Used as a namespace (``from lessons_core.api import shared``): ``check`` says what such a lesson
may not do, ``waits_for_acceptance`` whether it needs the user's yes first.
"""

from __future__ import annotations

from lessons_core.shared import (
    ACTING_TYPES,
    MCP,
    REPO,
    TEAM,
    Refused,
    check,
    everything_in,
    from_json,
    matches_everything,
    waits_for_acceptance,
)

__all__ = [
    "ACTING_TYPES",
    "MCP",
    "REPO",
    "TEAM",
    "Refused",
    "check",
    "everything_in",
    "from_json",
    "matches_everything",
    "waits_for_acceptance",
]
