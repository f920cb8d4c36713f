"""The plugin module named by the ``lessons`` entry point: it registers the detector."""

from __future__ import annotations

from collections.abc import Callable

from lessons_core.api import DetectorSpec, hookimpl


@hookimpl
def lessons_register_detectors(register: Callable[[DetectorSpec], None]) -> None:
    # Imported here so that listing plugins does not import the detector's regexes.
    from lessons_example_detector import detector

    register(
        DetectorSpec(
            name=detector.NAME,
            detect=detector.detect,
            tier=detector.TIER,
            description="force-push to main/master and sudo pip install, even when they work",
        )
    )
