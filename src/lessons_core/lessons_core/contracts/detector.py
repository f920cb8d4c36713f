"""The contract every transcript detector keeps, as a test class to subclass.

A detector plugin gets the checks the built-in detectors pass by subclassing
:class:`DetectorContract` and providing two fixtures::

    from lessons_core.testing import DetectorContract

    class TestMyDetector(DetectorContract):
        @pytest.fixture
        def detector_spec(self):
            return my_plugin.SPEC

        @pytest.fixture
        def sample_events(self):
            return [...]  # events (lessons_core.scan.events.Event) it finds something in
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lessons_core.models import Candidate, Config
from lessons_core.plugins.specs import DetectorSpec

if TYPE_CHECKING:
    from lessons_core.scan import events as ev


def _found(spec: DetectorSpec, events: Sequence[ev.Event]) -> list[Candidate]:
    return list(spec.detect(list(events), config=Config()))


class DetectorContract:
    """Behaviour every detector must show. Subclass it in a test; see the module."""

    def test_spec_describes_the_detector(self, detector_spec: DetectorSpec) -> None:
        """A named spec with a callable ``detect``; plugins use tiers 3 and up."""
        assert isinstance(detector_spec, DetectorSpec)
        assert detector_spec.name and callable(detector_spec.detect)
        assert detector_spec.tier >= 1

    def test_silent_on_an_empty_batch(self, detector_spec: DetectorSpec) -> None:
        """No events, no candidates (and no error)."""
        assert _found(detector_spec, []) == []

    def test_finds_something_in_the_sample(
        self, detector_spec: DetectorSpec, sample_events: Sequence[ev.Event]
    ) -> None:
        """The sample holds what the detector looks for; it yields only Candidates."""
        found = _found(detector_spec, sample_events)
        assert found, "the sample should hold something this detector finds"
        assert all(isinstance(c, Candidate) for c in found)

    def test_candidates_pass_intake(
        self, detector_spec: DetectorSpec, sample_events: Sequence[ev.Event]
    ) -> None:
        """What it proposes is a lesson the intake accepts (lengths, trigger, no secret)."""
        from lessons_core.scan.intake import prepare

        for candidate in _found(detector_spec, sample_events):
            ready = prepare(candidate)
            assert not isinstance(ready, str), f"intake refuses {candidate.summary!r}: {ready}"

    def test_evidence_points_into_the_batch(
        self, detector_spec: DetectorSpec, sample_events: Sequence[ev.Event]
    ) -> None:
        """Every piece of evidence names a file and line the batch came from."""
        seen = {(e.file, e.line) for e in sample_events}
        for candidate in _found(detector_spec, sample_events):
            assert candidate.evidence
            assert {(x.file, x.line) for x in candidate.evidence} <= seen

    def test_deterministic(
        self, detector_spec: DetectorSpec, sample_events: Sequence[ev.Event]
    ) -> None:
        """The same batch gives the same candidates: a rescan must not invent new ones."""
        assert _found(detector_spec, sample_events) == _found(detector_spec, sample_events)

    def test_takes_keyword_arguments_it_does_not_know(
        self, detector_spec: DetectorSpec, sample_events: Sequence[ev.Event]
    ) -> None:
        """The engine may pass more keyword arguments in later versions."""
        found = list(detector_spec.detect(list(sample_events), config=Config(), later=True))
        assert found == _found(detector_spec, sample_events)
