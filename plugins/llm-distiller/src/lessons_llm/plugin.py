"""The plugin module named by the ``lessons`` entry point: it registers the deep detector."""

from __future__ import annotations

from collections.abc import Callable

from lessons_core.api import DetectorSpec, hookimpl


@hookimpl
def lessons_register_detectors(register: Callable[[DetectorSpec], None]) -> None:
    # Imported here so that listing plugins does not import the detector (llm itself is only
    # imported when a deep scan prepares it).
    from lessons_llm.distiller import NAME, TIER, Distiller

    distiller = Distiller()  # one per collection: a scan's budget and cache are its own
    register(
        DetectorSpec(
            name=NAME,
            detect=distiller.detect,
            tier=TIER,
            description="deep scans only: a language model writes the lesson of each "
            "heuristic finding",
            deep=True,
            replaces=("tier2",),
            prepare=distiller.prepare,
            summary=distiller.summary,
        )
    )
