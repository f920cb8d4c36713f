"""A prompt that corrects the agent asks it for a ``#lesson``: every agent CLI we support.

When the user's prompt corrects the agent ("no, don't use npm here, use pnpm"), the hook that
sees the prompt (``UserPromptSubmit``, Gemini's ``BeforeAgent``, Copilot's
``userPromptSubmitted``, the OpenCode and Kilo plugins' message hook) adds one line asking for
a ``#lesson`` block, so the agent distils the correction while it still knows what it was
about. An ordinary prompt gets no such line. Each real CLI runs once with our hooks installed,
against its scripted model; what reached the model is read from the requests it sent.
"""

from __future__ import annotations

import json

import pytest
from agent_harness import Scratch
from test_capture_e2e import AGENTS, _run_script, _shell

pytestmark = pytest.mark.e2e

LINE = "The user is correcting you."
CORRECTING = "no, don't use npm here, use pnpm to run the tests"
ORDINARY = "run the tests and tell me what fails"


def _sent(scratch: Scratch, agent: str, prompt: str) -> str:
    server = _run_script(agent, scratch, [_shell(agent, "echo ok")], prompt=prompt, install=True)
    return json.dumps([r.body for r in server.requests])


@pytest.mark.parametrize("agent", AGENTS)
def test_a_correcting_prompt_carries_the_lesson_request(scratch: Scratch, agent: str) -> None:
    sent = _sent(scratch, agent, CORRECTING)
    assert LINE in sent and "#lesson" in sent, sent[-3000:]


@pytest.mark.parametrize("agent", AGENTS)
def test_an_ordinary_prompt_carries_no_lesson_request(scratch: Scratch, agent: str) -> None:
    sent = _sent(scratch, agent, ORDINARY)
    assert ORDINARY in sent and LINE not in sent
