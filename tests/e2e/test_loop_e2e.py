"""The whole loop on every agent CLI we support: a mistake made once meets its lesson next time.

Session one: the agent runs a command with an option its program does not have, then the
command corrected. ``lessons scan`` reads the session the CLI wrote, the candidate is promoted
as a user accepting it in review would, and the manifest is built. Session two, in the same
project: the agent makes the same mistake. The lesson must reach the model in that session,
with the failing call (a hint found before the call, or recall after it failed, whichever the
agent's hooks allow) — from the lesson the first session taught, with no hand-written lesson
anywhere.
"""

from __future__ import annotations

import json

import pytest
from agent_harness import Scratch, run_lessons
from test_capture_e2e import AGENTS, RIGHT, WRONG, _run_script, _shell, scanned

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("agent", AGENTS)
def test_a_mistake_made_once_meets_its_lesson_the_next_time(scratch: Scratch, agent: str) -> None:
    (scratch.project / "data.json").write_text('{"b": 1}\n', encoding="utf-8")
    _run_script(agent, scratch, [_shell(agent, WRONG), _shell(agent, RIGHT)], install=True)
    (candidate,) = [c for c in scanned(scratch, agent) if c.get("tier") == 2]
    promoted = json.loads(run_lessons(scratch, "promote", candidate["id"], "--json").stdout)
    assert promoted["slug"], promoted

    server = _run_script(agent, scratch, [_shell(agent, WRONG)], install=True)
    # The second session never runs the corrected command: only the lesson can name it.
    sent = json.dumps([r.body for r in server.requests])
    assert RIGHT in sent, sent[-4000:]
    delivered = [
        json.loads(line)
        for line in (scratch.lessons_home / "deliveries.jsonl").read_text().splitlines()
    ]
    assert any(d["id"] == promoted["id"] for d in delivered), delivered
