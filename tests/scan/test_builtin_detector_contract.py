"""The built-in detectors keep the contract every detector plugin is held to."""

from __future__ import annotations

from pathlib import Path

import pytest

from lessons_core.builtin import detectors as builtin
from lessons_core.plugins.specs import DetectorSpec
from lessons_core.scan import events as ev
from lessons_core.testing import DetectorContract

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


def _builtin(name: str) -> DetectorSpec:
    found: list[DetectorSpec] = []
    builtin.lessons_register_detectors(found.append)
    return next(spec for spec in found if spec.name == name)


def _claude_events(path: Path) -> list[ev.Event]:
    from lessons_claude import reader

    return list(reader.read(path, 0, progress=ev.Progress(0, 0)))


class TestTier1Contract(DetectorContract):
    @pytest.fixture
    def detector_spec(self) -> DetectorSpec:
        from lessons_core.scan.detectors import tier1

        return _builtin(tier1.NAME)

    @pytest.fixture
    def sample_events(self) -> list[ev.Event]:
        block = (
            "#lesson\n"
            "mistake: ran pytest before installing the project, so the imports failed\n"
            "fix: install the project first with pip install -e . and then run pytest\n"
            "trigger: \\bpytest\\b\n"
            "tool: Bash\n"
            "#/lesson"
        )
        return [
            ev.Event(
                ev.ASSISTANT_TEXT,
                "example",
                session_id="s1",
                project="/p",
                file="/t/s.jsonl",
                line=1,
                text=block,
            )
        ]


class TestTier2Contract(DetectorContract):
    @pytest.fixture
    def detector_spec(self) -> DetectorSpec:
        from lessons_core.scan.detectors import tier2

        return _builtin(tier2.NAME)

    @pytest.fixture
    def sample_events(self) -> list[ev.Event]:
        path = FIXTURES / "claude" / "projects" / "-home-dev-app"
        return _claude_events(path / "5f0c2a8e-1111-4c3b-9d7e-000000000001.jsonl")
