"""How sure a heuristic detection is, and how much it matters.

Confidence (Tier 2)::

    confidence = min(max_confidence,
                     base
                     + error_then_success * [a failing call, then a similar one that worked]
                     + user_correction    * [the user corrected the agent in between]
                     + retry_loop         * [the same failing call was repeated three times or more]
                     + hang_or_timeout    * [the failing call hung or timed out]
                     + self_diagnosis     * [the agent said what went wrong: "I see the issue" …]
                     + known_mistake      * [the failure is of a kind a person recognises as the
                                             agent's mistake: see ``failures.MISTAKE_CLASSES``]
                     + multi_session_bonus * [seen in two or more sessions]
                     + multi_project_bonus * [seen in two or more projects])

Every weight comes from ``Config.scoring`` (``config.json``), so a team that finds user
corrections more telling than retries can say so. A Tier 1 block (the agent wrote the lesson
itself) starts at :data:`TIER1_CONFIDENCE` and only gains the recurrence bonuses.

Priority (1–10) = 4 + severity + recurrence, capped at 10: severity is 2 for a hang or a retry
loop (expensive mistakes), 1 for a plain failure or a user correction, 0 otherwise; recurrence is
1 per extra session the mistake was seen in, at most 3.
"""

from __future__ import annotations

from collections.abc import Collection

from lessons_core.models import ScoringWeights

TIER1_CONFIDENCE = 0.85

ERROR_THEN_SUCCESS = "error_then_success"
USER_CORRECTION = "user_correction"
RETRY_LOOP = "retry_loop"
HANG_OR_TIMEOUT = "hang_or_timeout"
SELF_DIAGNOSIS = "self_diagnosis"
KNOWN_MISTAKE = "known_mistake"

SIGNALS = (
    ERROR_THEN_SUCCESS,
    USER_CORRECTION,
    RETRY_LOOP,
    HANG_OR_TIMEOUT,
    SELF_DIAGNOSIS,
    KNOWN_MISTAKE,
)


def confidence(
    signals: Collection[str],
    weights: ScoringWeights,
    *,
    sessions: int = 1,
    projects: int = 1,
    base: float | None = None,
) -> float:
    """Apply the formula above; ``base`` overrides the configured base (Tier 1 uses 0.85)."""
    value = weights.base if base is None else base
    for signal in signals:
        value += float(getattr(weights, signal, 0.0))
    if sessions >= 2:
        value += weights.multi_session_bonus
    if projects >= 2:
        value += weights.multi_project_bonus
    return round(min(value, weights.max_confidence), 3)


def priority(signals: Collection[str], *, sessions: int = 1) -> int:
    """Severity plus recurrence on top of 4, within 1–10."""
    if HANG_OR_TIMEOUT in signals or RETRY_LOOP in signals:
        severity = 2
    elif ERROR_THEN_SUCCESS in signals or USER_CORRECTION in signals:
        severity = 1
    else:
        severity = 0
    recurrence = min(max(sessions - 1, 0), 3)
    return max(1, min(10, 4 + severity + recurrence))
