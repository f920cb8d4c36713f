"""The Qwen Code adapter passes the contract kit every agent adapter uses.

Its payloads are those Qwen Code 0.24 sent our hook (``payloads/``); its sample transcript is
our hand-made session in the shape Qwen Code 0.24 writes (``tests/fixtures/transcripts/qwen``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adapter_payloads import HERE, CapturedPayloads
from lessons_core.testing import AdapterContract
from lessons_qwen import plugin

FIXTURES = HERE.parent / "fixtures" / "transcripts" / "qwen"


class TestQwenAdapterContract(AdapterContract):
    @pytest.fixture
    def agent_spec(self):
        return plugin.agent_spec()

    @pytest.fixture
    def payloads(self) -> CapturedPayloads:
        return CapturedPayloads.from_files(
            HERE / "qwen" / "payloads" / "pre_tool_shell.json",
            HERE / "qwen" / "payloads" / "session_start.json",
        )

    @pytest.fixture
    def sample_transcript(self) -> Path:
        return next(FIXTURES.glob("projects/*/chats/*.jsonl"))
