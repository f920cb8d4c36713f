"""The example detector: what it flags, what it leaves alone, and that lessons loads it."""

from __future__ import annotations

import pytest
from lessons_example_detector import detector, plugin

from lessons_core.api import DetectorSpec
from lessons_core.api import events as ev
from lessons_core.api.testing import DetectorContract


def _call(command: str, session: str = "s1", line: int = 1) -> ev.Event:
    return ev.Event(
        ev.TOOL_CALL,
        "claude",
        session_id=session,
        project="/p",
        file="/t/s.jsonl",
        line=line,
        tool="Bash",
        command=command,
        call_id=f"c{line}",
    )


@pytest.mark.parametrize(
    "command",
    [
        "git push --force origin main",
        "git push -f origin master",
        "cd repo && git push origin main --force",
        "sudo pip install requests",
        "sudo -H python3 -m pip install requests",
    ],
)
def test_risky_commands_are_flagged(command):
    """Each risky form yields one tier-3 candidate citing the call."""
    (candidate,) = detector.detect([_call(command)])
    assert candidate.tier == 3
    assert candidate.evidence[0].call_id == "c1"
    assert len(candidate.mistake) >= 20 and len(candidate.fix) >= 20


@pytest.mark.parametrize(
    "command",
    [
        "git push origin main",
        "git push --force origin feature/x",
        "pip install --user requests",
        "echo 'sudo pip install x' >> notes.md",
    ],
)
def test_safe_commands_are_not_flagged(command):
    """Ordinary pushes, feature-branch force pushes and plain pip are left alone."""
    assert list(detector.detect([_call(command)])) == []


def test_once_per_session_and_rule():
    """Repeating the command in a session does not repeat the candidate."""
    events = [_call("git push -f origin main", line=n) for n in (1, 2, 3)]
    events.append(_call("git push -f origin main", session="s2", line=4))
    assert len(list(detector.detect(events))) == 2


def test_triggers_match_what_was_flagged():
    """The proposed trigger matches the command that produced it."""
    import re

    for command in ("git push --force origin main", "sudo pip install requests"):
        (candidate,) = detector.detect([_call(command)])
        assert re.search(candidate.trigger, command)


def test_lessons_loads_it_through_the_entry_point():
    """Installed, it shows up among the detectors of a fresh plugin manager."""
    from lessons_core.api import Plugins

    detectors = Plugins.load({}).detectors()
    assert "risky-commands" in detectors
    assert {"tier1", "tier2"} <= set(detectors)


class TestExampleDetectorContract(DetectorContract):
    """The detector keeps the contract every detector plugin keeps (lessons_core.testing)."""

    @pytest.fixture
    def detector_spec(self) -> DetectorSpec:
        found: list[DetectorSpec] = []
        plugin.lessons_register_detectors(found.append)
        (spec,) = found
        return spec

    @pytest.fixture
    def sample_events(self) -> list[ev.Event]:
        return [_call("ls", line=1), _call("sudo pip install requests", line=2)]
