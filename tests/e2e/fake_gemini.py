"""A scripted Gemini API (``streamGenerateContent?alt=sse``) for driving the real Gemini CLI.

Gemini sends one request per model turn with the whole conversation in ``contents``. The fake
decides by content, never by call count:

* a turn with no ``functionResponse`` yet gets the scripted function call;
* a turn whose last function response says a hook blocked the call gets the same call again,
  once, when ``retry_blocked`` is set (how a model honours a nudge it judged irrelevant);
* a turn after the n-th function response gets the n-th call of ``then``, while there are
  any (a model that corrects its call after a failure);
* any other turn gets the final text, ``final`` (``done`` unless told otherwise).

``countTokens`` gets a fixed count and a non-streaming ``generateContent`` (the model router,
used only without ``-m``) a schema-valid routing answer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agent_harness import FakeModelServer, Recorded, Reply

BLOCKED = "Tool execution blocked"


class FakeGemini(FakeModelServer):
    """Answers Gemini CLI's model calls with one scripted function call, then ``done``."""

    def __init__(
        self,
        tool: str,
        args: dict[str, Any],
        *,
        retry_blocked: bool = False,
        then: Sequence[tuple[str, dict[str, Any]]] = (),
        final: str = "done",
    ) -> None:
        super().__init__()
        self.tool = tool
        self.args = args
        self.retry_blocked = retry_blocked
        self.then = list(then)
        self.final = final

    # -- what the agent sent ------------------------------------------------------------------

    def turns(self) -> list[dict[str, Any]]:
        """Bodies of the streamed model-turn requests, in order."""
        return [
            r.body
            for r in self.requests
            if ":streamGenerateContent" in r.path and isinstance(r.body, dict)
        ]

    @staticmethod
    def responses(body: dict[str, Any]) -> list[dict[str, Any]]:
        """The ``functionResponse.response`` objects in a request, in order."""
        found = []
        for content in body.get("contents", []):
            for part in content.get("parts", []):
                response = part.get("functionResponse", {}).get("response")
                if isinstance(response, dict):
                    found.append(response)
        return found

    @staticmethod
    def texts(content: dict[str, Any]) -> str:
        return "\n".join(part.get("text", "") for part in content.get("parts", []))

    # -- answers ------------------------------------------------------------------------------

    def answer(self, request: Recorded) -> Reply:
        path = request.path
        body = request.body if isinstance(request.body, dict) else {}
        if ":countTokens" in path:
            return Reply.json({"totalTokens": 42})
        if ":generateContent" in path:
            routing = {"complexity_reasoning": "simple", "complexity_score": 1}
            return Reply.json(self._candidate([{"text": json.dumps(routing)}]))
        if ":streamGenerateContent" not in path:
            return Reply.json({"error": {"message": "not found"}}, 404)
        responses = self.responses(body)
        calls = sum(
            1
            for content in body.get("contents", [])
            for part in content.get("parts", [])
            if "functionCall" in part
        )
        if not responses:
            return self._sse([{"functionCall": {"name": self.tool, "args": self.args}}])
        if self.retry_blocked and BLOCKED in json.dumps(responses[-1]) and calls < 2:
            return self._sse([{"functionCall": {"name": self.tool, "args": self.args}}])
        if len(responses) <= len(self.then):
            tool, args = self.then[len(responses) - 1]
            return self._sse([{"functionCall": {"name": tool, "args": args}}])
        return self._sse([{"text": self.final}])

    def _candidate(self, parts: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 5,
                "totalTokenCount": 15,
            },
            "modelVersion": "gemini-2.5-pro",
            "responseId": "fake-response",
        }

    def _sse(self, parts: list[dict[str, Any]]) -> Reply:
        return Reply.sse([(None, self._candidate(parts))])
