"""Compression through the real Gemini CLI: a handoff only when Gemini really compressed.

Gemini CLI 0.61 fires ``PreCompress`` (``trigger: auto``) before every model turn and only then
decides whether to compress; it compresses when the last prompt's token count passes
``model.compressionThreshold`` of the model's window and the history has an earlier user turn to
summarise. So:

* a plain multi-turn run fires ``PreCompress`` every turn and must carry nothing over, nor give
  an important hint twice;
* with a tiny threshold, a resumed session is compressed at its first turn (the fake answers
  the summariser with a ``<state_snapshot>``), and the handoff rides with the next tool result.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from agent_harness import (
    Recorded,
    Reply,
    Scratch,
    add_lessons,
    agent_binary,
    hook_log,
    run_agent,
    run_lessons,
)
from fake_gemini import FakeGemini
from test_gemini_e2e import MODEL, USER_SETTINGS, gemini_env

pytestmark = pytest.mark.e2e

HANDOFF = "Carried over from before this session's context was compacted"
SNAPSHOT = "<state_snapshot>SNAPSHOT-OF-EARLIER-WORK-9D1</state_snapshot>"
HINT = {
    "summary": "listing a directory that is not there",
    "mistake": "ls on a directory that does not exist yet",
    "remediation": "Check with test -d first (HINT-LS-GEMINI).",
    "type": "hint",
    "priority": 8,
    "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"^ls\b"]},
}


class CompressingGemini(FakeGemini):
    """The n-th turn of a run runs the n-th command, then ``done``; summaries on request."""

    def __init__(self, commands: list[str]) -> None:
        super().__init__("run_shell_command", {})
        self.commands = commands
        self.summarised = 0

    def answer(self, request: Recorded) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        if ":generateContent" in request.path and "state_snapshot" in json.dumps(
            body.get("systemInstruction")
        ):
            self.summarised += 1
            return Reply.json(self._candidate([{"text": SNAPSHOT}]))
        if ":streamGenerateContent" not in request.path:
            return super().answer(request)
        prompt = _last_prompt(body)
        done = sum(
            1 for c in _after(body, prompt) for p in c.get("parts", []) if "functionCall" in p
        )
        if done < len(self.commands):
            args: dict[str, Any] = {"command": self.commands[done], "description": "run it"}
            return self._sse([{"functionCall": {"name": "run_shell_command", "args": args}}])
        return self._sse([{"text": "done"}])


def _last_prompt(body: dict[str, Any]) -> int:
    """Index of the last user content that is a prompt (not function responses)."""
    contents = body.get("contents", [])
    for i in range(len(contents) - 1, -1, -1):
        parts = contents[i].get("parts", [])
        responses = any("functionResponse" in p for p in parts)
        if (
            contents[i].get("role") == "user"
            and not responses
            and any(p.get("text") for p in parts)
        ):
            return i
    return 0


def _after(body: dict[str, Any], index: int) -> list[dict[str, Any]]:
    return list(body.get("contents", [])[index + 1 :])


def gemini(
    scratch: Scratch, server: CompressingGemini, prompt: str, *extra: str
) -> list[dict[str, Any]]:
    argv = [str(agent_binary("gemini")), "-p", prompt, "-m", MODEL]
    argv += ["--output-format", "stream-json", "--approval-mode", "yolo", *extra]
    proc = run_agent(
        argv,
        scratch,
        gemini_env(scratch, server),
    )
    server.dump(scratch.root / "requests.jsonl")
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    return server.turns()


def install(scratch: Scratch, model: dict[str, Any] | None = None) -> None:
    settings = scratch.home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({**USER_SETTINGS, **({"model": model} if model else {})}))
    run_lessons(scratch, "install", "gemini")
    add_lessons(scratch, HINT)


def test_precompress_every_turn_carries_nothing_without_a_compression(scratch: Scratch) -> None:
    install(scratch)
    with CompressingGemini(["ls .", "echo two", "ls ./.", "echo four"]) as server:
        turns = gemini(scratch, server, "look around")
    assert server.summarised == 0
    fired = [e.get("hook_event") for e in hook_log(scratch)]
    assert fired.count("PreCompress") >= 4, fired  # once per model turn
    text = json.dumps(turns[-1])
    assert HANDOFF not in text, text[-3000:]
    # The hint came with the first ls only; the second ls (and every turn's PreCompress) did
    # not bring it again.
    assert text.count("HINT-LS-GEMINI") == 1


def test_real_compression_brings_the_handoff_with_the_next_result(scratch: Scratch) -> None:
    install(scratch, {"compressionThreshold": 0.00001})
    with CompressingGemini(["ls .", "cat no-such-file-gemini"]) as server:
        first = gemini(scratch, server, "look around")
    assert server.summarised == 0  # one prompt: nothing before it to summarise
    assert all(HANDOFF not in json.dumps(t) for t in first)

    with CompressingGemini(["echo next"]) as server:
        turns = gemini(scratch, server, "carry on with the next step", "--resume", "latest")
    assert server.summarised >= 1, "Gemini did not compress the resumed session"
    head, last = turns[0], turns[-1]
    assert "SNAPSHOT-OF-EARLIER-WORK-9D1" in json.dumps(head)
    assert HANDOFF not in json.dumps(head)
    text = json.dumps(FakeGemini.responses(last))
    assert text.count(HANDOFF) == 1, json.dumps(last)[-3000:]
    carried = text[text.index(HANDOFF) :][:1500]
    assert "still failing: `cat no-such-file-gemini`" in carried
    assert "HINT-LS-GEMINI" in carried
