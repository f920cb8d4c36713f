"""The Codex CLI adapter passes the contract kit every agent adapter uses."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapter_payloads import HERE, CapturedPayloads
from lessons_codex import plugin
from lessons_core.testing import AdapterContract

FIXTURES = HERE.parent / "fixtures" / "transcripts" / "codex"


class TestCodexAdapterContract(AdapterContract):
    @pytest.fixture
    def agent_spec(self):
        return plugin.agent_spec()

    @pytest.fixture
    def payloads(self) -> CapturedPayloads:
        return CapturedPayloads.from_files(
            HERE / "codex" / "payloads" / "pre_tool_use_bash.json",
            HERE / "codex" / "payloads" / "session_start.json",
        )

    @pytest.fixture
    def sample_transcript(self) -> Path:
        return next(FIXTURES.glob("sessions/**/rollout-2026-01-02T18-*.jsonl"))
