"""What the model is asked, and what is made of its answer.

The answer is untrusted input. It must parse as the JSON object of :data:`SCHEMA`; its texts
are cut to a sane length; its trigger pattern is kept only if it is a valid, safe regular
expression (the manifest compiler's own check) that matches the failing call it was written
for and not every call (:func:`lessons_core.shared.matches_everything`), and its executable
only if the failing call runs it — otherwise the heuristic trigger stands. The engine's
intake then checks the candidate like any other, and it waits for review.
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs

from lessons_core.api import (
    Candidate,
    Config,
    Finding,
    pattern_problem,
    redact_head,
    shared,
    triggers,
)

TEXT_CHARS = 500
PATTERN_CHARS = 200

INSTRUCTIONS = """\
You review one mistake an AI coding agent made during a session and the call that fixed it.
Decide whether it is a reusable lesson: something another session, in another task, could get
wrong the same way (a tool's flag, a command that hangs without a terminal, a project
convention the user insisted on). A typo, a file that did not exist yet, a flaky network
error or a one-off task detail is not reusable.

Answer with one JSON object and nothing else:
{"reusable": true or false,
 "mistake": "what went wrong and why, in one or two sentences",
 "fix": "what to do instead next time, written as advice to the agent",
 "trigger": {"executable": "the program the lesson is about, e.g. pytest",
             "pattern": "optional Python regex matching the mistaken command line"},
 "confidence": a number from 0 to 1: how sure you are that the lesson is right and reusable}
When it is not reusable, answer {"reusable": false} with empty strings for the rest.
Never copy secrets, tokens or personal paths into the answer."""

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "reusable": {"type": "boolean"},
        "mistake": {"type": "string"},
        "fix": {"type": "string"},
        "trigger": {
            "type": "object",
            "properties": {
                "executable": {"type": "string"},
                "pattern": {"type": "string"},
            },
            "required": ["executable"],
        },
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    },
    "required": ["reusable", "mistake", "fix", "trigger", "confidence"],
}

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)
_EXECUTABLE = re.compile(r"^[\w.+-]{1,64}$")
#: How the plugin tags what it proposes.
TAG = "source:llm"


def parse(text: str) -> dict[str, Any] | None:
    """The JSON object in a model's answer (bare, fenced, or with prose around it), or None."""
    text = _FENCE.sub("", text.strip())
    try:
        data = json.loads(text)
    except ValueError:
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end <= start:
            return None
        try:
            data = json.loads(text[start : end + 1])
        except ValueError:
            return None
    return data if isinstance(data, dict) else None


def reusable(answer: dict[str, Any]) -> bool:
    return answer.get("reusable") is True


def _text(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    text = " ".join(redact_head(value, TEXT_CHARS).split())  # redact, then cut
    return text[:TEXT_CHARS] if text else None


def _trigger(answer: dict[str, Any], finding: Finding, heuristic: Candidate) -> str | None:
    """The model's pattern when it is safe and fits the failing call, else the heuristic's."""
    command = finding.call.command
    given = answer.get("trigger")
    if not command or not isinstance(given, dict):
        return heuristic.trigger  # file tools keep the heuristic's (a glob, or none: recalled)
    exe = given.get("executable")
    runs = {shape.exe for shape in triggers.shapes(command)}
    if not isinstance(exe, str) or not _EXECUTABLE.match(exe) or exe not in runs:
        return heuristic.trigger
    pattern = given.get("pattern")
    if not isinstance(pattern, str) or not pattern.strip() or len(pattern) > PATTERN_CHARS:
        return heuristic.trigger
    try:
        compiled = re.compile(pattern)
    except re.error:
        return heuristic.trigger
    if pattern_problem(pattern) or not compiled.search(command) or exe not in pattern:
        return heuristic.trigger
    if shared.matches_everything(pattern):  # 'pytest|' fits the call, and every other one
        return heuristic.trigger
    return pattern


def candidate(
    answer: dict[str, Any], finding: Finding, heuristic: Candidate, config: Config
) -> Candidate | None:
    """The Tier 4 candidate an answer makes, or None when the answer is unusable."""
    mistake, fix = _text(answer.get("mistake")), _text(answer.get("fix"))
    confidence = answer.get("confidence")
    if mistake is None or fix is None:
        return None
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        return None
    if not 0 <= confidence <= 1:
        return None
    return attrs.evolve(
        heuristic,
        tier=4,
        detector="llm",
        trigger=_trigger(answer, finding, heuristic),
        mistake=mistake,
        fix=fix,
        tags=(*heuristic.tags, TAG),
        confidence=round(min(float(confidence), config.scoring.max_confidence), 3),
        status="pending",
    )
