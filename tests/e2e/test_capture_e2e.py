"""Tier 2 capture from the transcript each real agent writes: a command that failed, then its fix.

The heuristics were tuned on transcripts that agents wrote in the past. The sessions they will
be asked to read next come from the releases installed now, and a release that logs an exit
code, a tool name or a failed result another way would leave the pairing with nothing to pair,
quietly. So every agent CLI we support, driven by a scripted model, makes the same mistake and
the same correction: a command given an option its program does not have, then the command
with the right option. ``lessons scan`` must make one candidate of them from that agent's own
log, pointing at the failing call, with a trigger on the wrong option alone and the working
command as the fix. The mistake is the same for every agent, so the lesson must be too: this is
the parity the capture promises, checked on the formats as they are today.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from agent_harness import Scratch, run_lessons
from fake_anthropic import ScriptedCalls
from fake_gemini import FakeGemini
from fake_openai import FakeOpenAI
from fake_openai_chat import FakeChatCompletions
from test_claude_e2e import run_claude
from test_codex_e2e import exec_call, run_codex
from test_copilot_e2e import FakeCopilotModel, run_copilot
from test_copilot_e2e import bash as copilot_bash
from test_gemini_e2e import run_gemini
from test_gemini_e2e import shell as gemini_shell
from test_kilo_e2e import bash as kilo_bash
from test_kilo_e2e import run_kilo
from test_opencode_e2e import bash as opencode_bash
from test_opencode_e2e import run_opencode
from test_qwen_e2e import run_qwen
from test_qwen_e2e import shell as qwen_shell

from lessons_core import installing

pytestmark = pytest.mark.e2e

#: ``json.tool`` has ``--indent N``; ``--pretty`` is what one might guess. The standard
#: library's argparse refuses it ("unrecognized arguments") with exit 2 wherever the suite runs.
WRONG = "python3 -m json.tool --pretty data.json"
RIGHT = "python3 -m json.tool --indent 2 data.json"
PROMPT = "pretty-print data.json"


def _claude(scratch: Scratch) -> None:
    with ScriptedCalls.bash([WRONG, RIGHT]) as server:
        run_claude(scratch, server, PROMPT)


def _codex(scratch: Scratch) -> None:
    with FakeOpenAI(*exec_call(WRONG), then=[exec_call(RIGHT)]) as server:
        run_codex(scratch, server, PROMPT)


def _gemini(scratch: Scratch) -> None:
    with FakeGemini(*gemini_shell(WRONG), then=[gemini_shell(RIGHT)]) as server:
        run_gemini(scratch, server, PROMPT)


def _opencode(scratch: Scratch) -> None:
    with FakeChatCompletions(*opencode_bash(WRONG), then=[opencode_bash(RIGHT)]) as server:
        run_opencode(scratch, server, PROMPT, install=False)


def _kilo(scratch: Scratch) -> None:
    with FakeChatCompletions(*kilo_bash(WRONG), then=[kilo_bash(RIGHT)]) as server:
        run_kilo(scratch, server, PROMPT, install=False)


def _qwen(scratch: Scratch) -> None:
    with FakeChatCompletions(*qwen_shell(WRONG), then=[qwen_shell(RIGHT)]) as server:
        run_qwen(scratch, server, PROMPT, install=False)


def _copilot(scratch: Scratch) -> None:
    with FakeCopilotModel(*copilot_bash(WRONG), then=[copilot_bash(RIGHT)]) as server:
        run_copilot(scratch, server, PROMPT, install=False)


AGENTS: dict[str, Callable[[Scratch], None]] = {
    "claude": _claude,
    "codex": _codex,
    "gemini": _gemini,
    "opencode": _opencode,
    "kilo": _kilo,
    "qwen": _qwen,
    "copilot": _copilot,
}


def scanned(scratch: Scratch, agent: str) -> list[dict[str, Any]]:
    out = run_lessons(scratch, "scan", "--json", "--agent", agent, timeout=120)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_a_failed_command_and_its_fix_become_one_lesson(scratch: Scratch, agent: str) -> None:
    (scratch.project / "data.json").write_text('{"b": 1, "a": [1, 2]}\n', encoding="utf-8")
    AGENTS[agent](scratch)

    found = scanned(scratch, agent)
    heuristic = [c for c in found if c.get("tier") == 2]
    assert len(heuristic) == 1, json.dumps(found, indent=1)[:4000]
    (candidate,) = heuristic
    assert candidate["agent"] == agent, candidate
    assert candidate["project"] == str(scratch.project), candidate
    # the failing call, read back from the agent's own log, is the evidence
    (evidence,) = candidate["evidence"]
    assert evidence["call_id"] and evidence["file"] and evidence["line"] > 0, evidence
    assert "--pretty" in candidate["mistake"]
    assert any("unrecognized arguments: --pretty" in line for line in candidate["errorLines"])
    assert "--indent 2" in candidate["fix"] and "--pretty" not in candidate["fix"]
    # the trigger fires on the wrong form, never on the fix nor the plain command
    trigger = re.compile(candidate["trigger"])
    assert trigger.search(WRONG)
    assert not trigger.search(RIGHT)
    assert not trigger.search("python3 -m json.tool data.json")
    # read once: a second scan of the same log adds nothing
    assert [c for c in scanned(scratch, agent) if c.get("tier") == 2] == []


def test_every_supported_agent_is_driven() -> None:
    """An adapter added without a run here would go unchecked: the list is every adapter's."""
    assert set(installing.agents()) == set(AGENTS)
