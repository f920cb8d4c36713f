"""The real Claude Code, our real hooks, a fake Anthropic API: a correcting prompt.

When the user's prompt corrects the agent, the ``UserPromptSubmit`` hook adds one line asking
for a ``#lesson`` block; an ordinary prompt gets no such line. What reaches the model is read
from the first request Claude Code sent.
"""

from __future__ import annotations

import json

import pytest
from fake_anthropic import FakeAnthropic
from test_claude_e2e import PYTEST, _main, run_claude, setup

pytestmark = pytest.mark.e2e

LINE = "The user is correcting you."


def test_a_correcting_prompt_carries_the_lesson_request(scratch):
    setup(scratch)
    with FakeAnthropic(PYTEST) as server:
        run_claude(scratch, server, prompt="no, don't use npm here, use pnpm to run the tests")
    first = json.dumps(_main(server)[0])
    assert "UserPromptSubmit hook additional context" in first
    assert LINE in first
    assert "#lesson block" in first


def test_an_ordinary_prompt_carries_no_lesson_request(scratch):
    setup(scratch)
    with FakeAnthropic(PYTEST) as server:
        run_claude(scratch, server, prompt="run the tests and tell me what fails")
    requests = _main(server)
    assert all(LINE not in json.dumps(body) for body in requests)
