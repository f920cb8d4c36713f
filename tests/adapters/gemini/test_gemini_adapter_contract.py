"""The Gemini CLI adapter passes the contract kit every agent adapter uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapter_payloads import HERE, CapturedPayloads
from lessons_core.testing import AdapterContract
from lessons_gemini import plugin

FIXTURES = HERE.parent / "fixtures" / "transcripts" / "gemini"


class TestGeminiAdapterContract(AdapterContract):
    @pytest.fixture
    def agent_spec(self):
        return plugin.agent_spec()

    @pytest.fixture
    def payloads(self) -> CapturedPayloads:
        return CapturedPayloads.from_files(
            HERE / "gemini" / "payloads" / "before_tool_shell.json",
            HERE / "gemini" / "payloads" / "session_start.json",
        )

    @pytest.fixture
    def sample_transcript(self) -> Path:
        return next(FIXTURES.glob("tmp/*/chats/session-2026-04-29T21-39-*.jsonl"))
