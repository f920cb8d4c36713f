"""The GitHub Copilot CLI adapter passes the contract kit every agent adapter uses.

The kit starts the hook as ``python -m lessons_copilot.hook`` with no argument, so its payloads
are those of Copilot's dialect that names its event (``payloads/pascal/``, captured from
Copilot CLI 1.0.102); the camelCase dialect, whose event is on the command line, is covered by
test_copilot_hook_contract.py. The sample transcript is our hand-made session in the shape
Copilot CLI 1.0 writes (``tests/fixtures/transcripts/copilot``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adapter_payloads import HERE, CapturedPayloads
from lessons_copilot import plugin
from lessons_core.testing import AdapterContract

FIXTURES = HERE.parent / "fixtures" / "transcripts" / "copilot"


class TestCopilotAdapterContract(AdapterContract):
    @pytest.fixture
    def agent_spec(self):
        return plugin.agent_spec()

    @pytest.fixture
    def payloads(self) -> CapturedPayloads:
        return CapturedPayloads.from_files(
            HERE / "copilot" / "payloads" / "pascal" / "PreToolUse-bash.json",
            HERE / "copilot" / "payloads" / "pascal" / "SessionStart.json",
        )

    @pytest.fixture
    def sample_transcript(self) -> Path:
        return next(FIXTURES.glob("session-state/*/events.jsonl"))
