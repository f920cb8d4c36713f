"""A model's answer is another party's input: the deep scan's model is shown transcript text
anyone may have written (a web page, a file, a tool's output), so its trigger is checked like
any shared source's. Runs the real ``lessons scan --deep`` against a fake chat server."""

from __future__ import annotations

import json

import pytest
from tests.plugins.test_llm_distiller import (
    NOT_REUSABLE,
    PYTEST_LESSON,
    candidates,
    configure,
    lessons,
)

pytest.importorskip("lessons_llm")

#: The heuristic's trigger for the planted pytest finding (what stands when the model's is not
#: used).
HEURISTIC = r"\bpytest\b(?=[^|;&\n]*?\s--timeout(?:[\s=]|$))"


@pytest.mark.parametrize("pattern", ["pytest|", "(?:pytest)?", "pytest|.*"])
def test_a_model_trigger_that_matches_every_call_is_not_used(setup, model, pattern) -> None:
    def answer(user: str) -> str:
        if "--timeout" not in user:
            return json.dumps(NOT_REUSABLE)
        lesson = dict(PYTEST_LESSON, trigger={"executable": "pytest", "pattern": pattern})
        return json.dumps(lesson)

    model.script = answer
    configure(setup, model="fake-distiller")
    assert lessons(setup, "scan", "--deep").returncode == 0
    (made,) = candidates(setup)
    assert made["tier"] == 4 and made["status"] == "pending"  # it waits for review
    assert made["trigger"] == HEURISTIC
