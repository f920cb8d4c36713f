"""The Claude Code adapter passes the contract kit every agent adapter uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapter_payloads import HERE, CapturedPayloads
from lessons_claude import plugin
from lessons_core.testing import AdapterContract

FIXTURES = HERE.parent / "fixtures" / "transcripts" / "claude"


class TestClaudeAdapterContract(AdapterContract):
    @pytest.fixture
    def agent_spec(self):
        return plugin.agent_spec()

    @pytest.fixture
    def payloads(self) -> CapturedPayloads:
        return CapturedPayloads.from_lines(
            HERE / "claude" / "captured_payloads.jsonl", "PreToolUse", "Bash"
        )

    @pytest.fixture
    def sample_transcript(self) -> Path:
        return FIXTURES / "projects/-home-dev-app/5f0c2a8e-1111-4c3b-9d7e-000000000001.jsonl"
