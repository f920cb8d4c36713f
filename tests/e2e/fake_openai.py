"""A scripted OpenAI Responses API (``POST /v1/responses``, SSE) for driving the real Codex CLI.

Codex sends one request per model turn with the whole conversation in ``input``. The fake
decides by content, never by call count:

* a request without tools (none seen so far, but kept harmless) gets a short text answer;
* a turn with no tool output in ``input`` yet gets the scripted tool call;
* a turn whose last tool output says a hook blocked the call gets the same call again, once,
  when ``retry_blocked`` is set (how a model honours a nudge it judged irrelevant);
* a turn after the n-th tool output gets the n-th call of ``then``, while there are any (a
  model that corrects its call after a failure);
* any other turn gets the final text, ``final`` (``done`` unless told otherwise).

The scripted call is ``(tool name, arguments)``; for ``exec_command`` pass ``login: False`` so
Codex does not start a login shell (which loses the virtualenv's ``PATH`` in a scratch HOME).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from typing import Any

from agent_harness import FakeModelServer, Recorded, Reply

BLOCKED = "blocked by PreToolUse hook"


class FakeOpenAI(FakeModelServer):
    """Answers Codex's Responses API calls with one scripted tool call, then ``done``."""

    def __init__(
        self,
        tool: str,
        arguments: dict[str, Any],
        *,
        retry_blocked: bool = False,
        then: Sequence[tuple[str, dict[str, Any]]] = (),
        final: str = "done",
    ) -> None:
        super().__init__()
        self.tool = tool
        self.arguments = arguments
        self.retry_blocked = retry_blocked
        self.then = list(then)
        self.final = final
        self._ids = itertools.count(1)

    # -- what the agent sent ------------------------------------------------------------------

    def turns(self) -> list[dict[str, Any]]:
        """Bodies of the model-turn requests, in order."""
        return [
            r.body
            for r in self.requests
            if r.path.startswith("/v1/responses") and isinstance(r.body, dict)
        ]

    @staticmethod
    def messages(body: dict[str, Any], role: str) -> list[str]:
        """Texts of the ``role`` messages in a request's ``input``."""
        texts = []
        for item in body.get("input", []):
            if item.get("type") == "message" and item.get("role") == role:
                texts.extend(
                    part.get("text", "")
                    for part in item.get("content", [])
                    if isinstance(part, dict)
                )
        return texts

    @staticmethod
    def outputs(body: dict[str, Any]) -> list[str]:
        """The tool outputs (``function_call_output`` / ``custom_tool_call_output``) in order."""
        found = []
        for item in body.get("input", []):
            if item.get("type") in ("function_call_output", "custom_tool_call_output"):
                output = item.get("output")
                found.append(output if isinstance(output, str) else json.dumps(output))
        return found

    # -- answers ------------------------------------------------------------------------------

    def answer(self, request: Recorded) -> Reply:
        if request.method != "POST" or not request.path.startswith("/v1/responses"):
            return Reply.json({"error": {"message": "not found"}}, 404)
        body = request.body if isinstance(request.body, dict) else {}
        if not body.get("tools"):
            return self._final("ok")
        outputs = self.outputs(body)
        if not outputs:
            return self._call(body)
        calls = sum(
            1
            for item in body.get("input", [])
            if item.get("type") in ("function_call", "custom_tool_call")
        )
        if self.retry_blocked and BLOCKED in outputs[-1] and calls < 2:
            return self._call(body)
        if len(outputs) <= len(self.then):
            return self._call(body, *self.then[len(outputs) - 1])
        return self._final(self.final)

    def _call(
        self, body: dict[str, Any], tool: str | None = None, arguments: dict[str, Any] | None = None
    ) -> Reply:
        n = next(self._ids)
        tool = tool or self.tool
        arguments = self.arguments if arguments is None else arguments
        custom = any(
            t.get("type") == "custom" and t.get("name") == tool for t in body.get("tools", [])
        )
        if custom:
            # A freeform tool (apply_patch in some releases) takes its input as plain text.
            item = {
                "type": "custom_tool_call",
                "id": f"ctc_{n}",
                "call_id": f"call_{n}",
                "name": tool,
                "input": arguments.get("input", ""),
                "status": "completed",
            }
        else:
            item = {
                "type": "function_call",
                "id": f"fc_{n}",
                "call_id": f"call_{n}",
                "name": tool,
                "arguments": json.dumps(arguments),
                "status": "completed",
            }
        return self._stream(item)

    def _final(self, text: str) -> Reply:
        n = next(self._ids)
        item = {
            "type": "message",
            "role": "assistant",
            "id": f"msg_{n}",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        return self._stream(item)

    def _stream(self, item: dict[str, Any]) -> Reply:
        rid = f"resp_{next(self._ids)}"
        usage = {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        }
        return Reply.sse(
            [
                (
                    "response.created",
                    {"type": "response.created", "response": {"id": rid, "status": "in_progress"}},
                ),
                (
                    "response.output_item.added",
                    {"type": "response.output_item.added", "output_index": 0, "item": item},
                ),
                (
                    "response.output_item.done",
                    {"type": "response.output_item.done", "output_index": 0, "item": item},
                ),
                (
                    "response.completed",
                    {
                        "type": "response.completed",
                        "response": {
                            "id": rid,
                            "status": "completed",
                            "output": [item],
                            "usage": usage,
                        },
                    },
                ),
            ]
        )
