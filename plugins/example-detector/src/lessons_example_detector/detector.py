"""Flag shell commands that are risky whether or not they worked.

Tier 1 and Tier 2 learn from failures; some mistakes succeed. A force-push to the main branch
rewrites history other people have pulled, and ``sudo pip install`` writes into the system
Python the operating system relies on. Both "work", so no heuristic sees a failure. This
detector looks at the commands themselves and proposes a lesson the first time it sees one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from lessons_core.api import Candidate, Config, Evidence
from lessons_core.api import events as ev

NAME = "risky-commands"
TIER = 3


class Rule:
    """One risky command: how to spot it, the trigger a lesson should use, and the advice."""

    def __init__(
        self,
        key: str,
        spot: str,
        trigger: str,
        mistake: str,
        fix: str,
        tags: tuple[str, ...],
    ) -> None:
        self.key = key
        self.spot = re.compile(spot)
        self.trigger = trigger
        self.mistake = mistake
        self.fix = fix
        self.tags = tags


RULES = (
    Rule(
        "force-push-main",
        r"\bgit\b(?:\s+-C\s+\S+)?\s+push\b(?=.*\s(?:--force|-f|--force-with-lease)\b)"
        r"(?=.*\b(?:main|master)\b)",
        r"\bgit\s+push\b(?=.*\s(?:--force|-f)\b)(?=.*\b(?:main|master)\b)",
        "A force-push to main/master rewrites shared history that others have already pulled.",
        "Push the fix as a new commit, or force-push a feature branch and open a pull request.",
        ("tool:git", "risk:history"),
    ),
    Rule(
        "sudo-pip",
        r"\bsudo\s+(?:-\S+\s+)*(?:python\d?(?:\.\d+)?\s+-m\s+)?pip\d?\s+install\b",
        r"\bsudo\b[^|;&\n]*?\bpip\d?\s+install\b",
        "sudo pip install writes into the system Python that the operating system depends on.",
        "Install into a virtualenv (python -m venv .venv && .venv/bin/pip install ...) or use "
        "pipx for tools.",
        ("tool:pip", "lang:python", "risk:system"),
    ),
)


_QUOTED = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"")


def _unquoted(command: str) -> str:
    """The command with quoted strings blanked: ``echo 'sudo pip install'`` runs no pip."""
    return _QUOTED.sub("''", command)


def _matches(events: Sequence[ev.Event]) -> Iterator[tuple[Rule, ev.Event]]:
    seen: set[tuple[str, str | None]] = set()
    for event in events:
        if event.kind != ev.TOOL_CALL or not event.command:
            continue
        if "push" not in event.command and "pip" not in event.command:
            continue  # the cheap test first: most calls are neither
        command = _unquoted(event.command)
        for rule in RULES:
            if rule.spot.search(command) and (rule.key, event.session_id) not in seen:
                seen.add((rule.key, event.session_id))
                yield rule, event


def detect(
    events: Sequence[ev.Event], *, config: Config | None = None, **_: Any
) -> Iterable[Candidate]:
    """One candidate per rule and session in which a risky command was run."""
    for rule, event in _matches(events):
        yield Candidate(
            id="",
            tier=TIER,
            agent=event.agent,
            tool=event.tool or "Bash",
            trigger=rule.trigger,
            mistake=f"{rule.mistake} (ran: {event.command[:160]})",
            fix=rule.fix,
            summary=rule.mistake.split(" rewrites ")[0].split(" writes ")[0],
            tags=rule.tags,
            confidence=0.7,
            priority=8,
            evidence=(Evidence(event.file, event.line, event.call_id, event.session_id),),
            project=event.project,
            detector=NAME,
        )
