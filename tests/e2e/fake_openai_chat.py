"""A scripted OpenAI Chat Completions API (``POST /v1/chat/completions``, SSE) for OpenCode.

OpenCode talks to a custom provider through its OpenAI-compatible SDK: one streamed request
per model turn with the whole conversation in ``messages`` (``system``, ``user``, ``assistant``
with ``tool_calls``, ``tool`` with ``tool_call_id``). It also asks for a session title, with
a request that declares no tools. The fake decides by content, never by call count:

* a request without tools (the title) gets the text ``Fake title``;
* a turn with no ``tool`` message yet gets the scripted tool call;
* a turn whose last tool message carries ``retry_marker`` gets the same call again, once (how
  a model honours a nudge it judged irrelevant);
* a turn after the n-th tool message gets the n-th call of ``then``, while there are any (a
  model that corrects its call after a failure);
* any other turn gets ``final`` (``done`` unless told otherwise).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Sequence
from typing import Any

from agent_harness import FakeModelServer, Recorded, Reply

#: What our plugin's nudge adds to the denial (lessons_core.hot.runner.RETRY_NOTE).
RETRY_NOTE = "If this does not apply here, run the same call again."


class FakeChatCompletions(FakeModelServer):
    """Answers OpenCode's chat completion calls with one scripted tool call, then ``final``."""

    def __init__(
        self,
        tool: str,
        arguments: dict[str, Any],
        *,
        final: str = "done",
        retry_marker: str | None = None,
        then: Sequence[tuple[str, dict[str, Any]]] = (),
    ) -> None:
        super().__init__()
        self.tool = tool
        self.arguments = arguments
        self.final = final
        self.retry_marker = retry_marker
        self.then = list(then)
        self._ids = itertools.count(1)

    # -- what the agent sent ------------------------------------------------------------------

    def turns(self) -> list[dict[str, Any]]:
        """Bodies of the main-loop requests (those that declare tools), in order."""
        return [
            r.body
            for r in self.requests
            if r.path.endswith("/chat/completions")
            and isinstance(r.body, dict)
            and r.body.get("tools")
        ]

    @staticmethod
    def contents(body: dict[str, Any], role: str) -> list[str]:
        """The texts of the ``role`` messages of a request, in order."""
        found = []
        for message in body.get("messages", []):
            if message.get("role") != role:
                continue
            content = message.get("content")
            if isinstance(content, str):
                found.append(content)
            elif isinstance(content, list):
                found.append("\n".join(p.get("text", "") for p in content if isinstance(p, dict)))
        return found

    # -- answers ------------------------------------------------------------------------------

    def answer(self, request: Recorded) -> Reply:
        if request.method != "POST" or not request.path.endswith("/chat/completions"):
            return Reply.json({"error": {"message": "not found"}}, 404)
        body = request.body if isinstance(request.body, dict) else {}
        if not body.get("tools"):
            return self._text("Fake title")
        results = self.contents(body, "tool")
        calls = sum(len(m.get("tool_calls") or []) for m in body.get("messages", []))
        if not results:
            return self._call()
        if self.retry_marker and self.retry_marker in results[-1] and calls < 2:
            return self._call()
        if len(results) <= len(self.then):
            return self._call(*self.then[len(results) - 1])
        return self._text(self.final)

    def _chunk(self, delta: dict[str, Any] | None, finish: str | None = None) -> dict[str, Any]:
        choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
        chunk: dict[str, Any] = {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "fake-model",
            "choices": choices,
        }
        if delta is None:
            chunk["usage"] = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        return chunk

    def _stream(self, chunks: list[dict[str, Any]]) -> Reply:
        body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        return Reply(200, body.encode(), "text/event-stream")

    def _text(self, text: str) -> Reply:
        return self._stream(
            [
                self._chunk({"role": "assistant", "content": text}),
                self._chunk({}, "stop"),
                self._chunk(None),
            ]
        )

    def _call(self, tool: str | None = None, arguments: dict[str, Any] | None = None) -> Reply:
        arguments = self.arguments if arguments is None else arguments
        call = {
            "index": 0,
            "id": f"call_{next(self._ids)}",
            "type": "function",
            "function": {"name": tool or self.tool, "arguments": json.dumps(arguments)},
        }
        return self._stream(
            [
                self._chunk({"role": "assistant", "content": None, "tool_calls": [call]}),
                self._chunk({}, "tool_calls"),
                self._chunk(None),
            ]
        )
