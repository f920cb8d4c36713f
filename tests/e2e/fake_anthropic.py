"""A scripted Anthropic Messages API for driving the real Claude Code offline.

Wire format as Claude Code 2.1.197 uses it: ``POST /v1/messages?beta=true`` with
``stream: true``, answered by one SSE body (message_start, content blocks, message_delta,
message_stop). The script decides by request content, never by call count:

* a request that does not offer the ``Bash`` tool (title generation and other side requests)
  gets the text "ok";
* a main-loop request with no tool_result yet gets one ``Bash`` call running ``command``;
* after a tool_result: if it is an error (a hook's deny), ``retries`` is not used up and
  ``retry_after_deny`` is set, the same call is made again; otherwise the answer is "done".

Every answer carries a message id of its own, as the real API's do: Claude Code groups the
conversation by assistant message id when it compacts, and one id for every answer would make
the whole conversation a single group it refuses to compact ("Not enough messages to compact").
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from agent_harness import FakeModelServer, Recorded, Reply


def _tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for message in body.get("messages", []):
        content = message.get("content")
        if message.get("role") == "user" and isinstance(content, list):
            found.extend(
                b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"
            )
    return found


def _tool_uses(body: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for message in body.get("messages", []):
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, list):
            found.extend(b for b in content if isinstance(b, dict) and b.get("type") == "tool_use")
    return found


def result_text(block: dict[str, Any]) -> str:
    """The text of a tool_result block (content is a string or a list of text blocks)."""
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
    return ""


class FakeAnthropic(FakeModelServer):
    def __init__(self, command: str, *, retry_after_deny: bool = False, retries: int = 1) -> None:
        super().__init__()
        self._ids = itertools.count(1)
        self.command = command
        self.retry_after_deny = retry_after_deny
        self.retries = retries

    # -- what the agent sent -----------------------------------------------------------------

    def main_requests(self) -> list[dict[str, Any]]:
        """Bodies of the main-loop requests (those offering the Bash tool), in order."""
        return [r.body for r in self.requests if r.method == "POST" and self._is_main(r.body)]

    @staticmethod
    def _is_main(body: Any) -> bool:
        if not isinstance(body, dict):
            return False
        return any(t.get("name") == "Bash" for t in body.get("tools") or [] if isinstance(t, dict))

    # -- what to answer ----------------------------------------------------------------------

    def answer(self, request: Recorded) -> Reply:
        if request.method != "POST" or not request.path.startswith("/v1/messages"):
            return Reply.json({"type": "error", "error": {"type": "not_found_error"}}, 404)
        if request.path.startswith("/v1/messages/count_tokens"):
            return Reply.json({"input_tokens": 42})
        body = request.body if isinstance(request.body, dict) else {}
        model = str(body.get("model") or "claude-fake")
        if not self._is_main(body):
            return self._text(model, "ok")
        results = _tool_results(body)
        if not results:
            return self._bash(model, 1)
        uses = len(_tool_uses(body))
        if self.retry_after_deny and results[-1].get("is_error") and uses <= self.retries:
            return self._bash(model, uses + 1)
        return self._text(model, "done")

    def _bash(self, model: str, n: int) -> Reply:
        block = {"type": "tool_use", "id": f"toolu_fake_{n:02d}", "name": "Bash", "input": {}}
        partial = json.dumps({"command": self.command, "description": "Run the tests"})
        return self._stream(
            model,
            block,
            {"type": "input_json_delta", "partial_json": partial},
            "tool_use",
        )

    def _tool(self, model: str, call_id: str, name: str, tool_input: dict[str, Any]) -> Reply:
        """One ``name`` tool call with ``tool_input`` (streamed as Claude Code expects it)."""
        block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(tool_input)}
        return self._stream(model, block, delta, "tool_use")

    def _text(self, model: str, text: str) -> Reply:
        return self._stream(
            model,
            {"type": "text", "text": ""},
            {"type": "text_delta", "text": text},
            "end_turn",
        )

    def _stream(self, model: str, block: dict[str, Any], delta: dict[str, Any], stop: str) -> Reply:
        usage = {
            "input_tokens": 10,
            "output_tokens": 1,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        }
        message = {
            "id": f"msg_fake_{next(self._ids):03d}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage,
        }
        return Reply.sse(
            [
                ("message_start", {"type": "message_start", "message": message}),
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": 0, "content_block": block},
                ),
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": 0, "delta": delta},
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                (
                    "message_delta",
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": stop, "stop_sequence": None},
                        "usage": {"output_tokens": 5},
                    },
                ),
                ("message_stop", {"type": "message_stop"}),
            ]
        )


class ScriptedCalls(FakeAnthropic):
    """Answers the n-th main-loop request with the n-th scripted call ``(call id, tool, input)``,
    then ``final`` ("done" unless told otherwise); the n-th is the one after n tool results,
    so a refused call counts as well.

    ``pauses`` waits that many seconds before answering the n-th: Claude Code appends to its
    transcript a moment after a result, and a real model takes longer than that to answer.
    """

    def __init__(
        self,
        script: Sequence[tuple[str, str, dict[str, Any]]],
        pauses: Mapping[int, float] | None = None,
        final: str = "done",
    ) -> None:
        super().__init__("true")
        self.script = list(script)
        self.pauses = dict(pauses or {})
        self.final = final

    @classmethod
    def bash(cls, commands: Sequence[str]) -> ScriptedCalls:
        """A script of Bash calls, one command each."""
        return cls(
            [
                (f"toolu_fake_{n:02d}", "Bash", {"command": command, "description": "Run it"})
                for n, command in enumerate(commands, 1)
            ]
        )

    def answer(self, request: Recorded) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        if request.method != "POST" or not self._is_main(body):
            return super().answer(request)
        model = str(body.get("model") or "claude-fake")
        done = len(_tool_results(body))
        if done >= len(self.script):
            return self._text(model, self.final)
        time.sleep(self.pauses.get(done, 0))
        call_id, name, tool_input = self.script[done]
        return self._tool(model, call_id, name, tool_input)
