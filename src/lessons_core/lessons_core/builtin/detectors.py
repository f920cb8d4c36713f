"""Built-in plugin: the Tier 1 (``#lesson`` blocks) and Tier 2 (heuristics) detectors.

They register through the same hook as any third-party detector, so a user can switch either
off with ``LESSONS_DISABLED_PLUGINS`` or replace it, and the engine treats all detectors alike.
"""

from __future__ import annotations

from collections.abc import Callable

from lessons_core.plugin import hookimpl
from lessons_core.plugins.specs import DetectorSpec


@hookimpl
def lessons_register_detectors(register: Callable[[DetectorSpec], None]) -> None:
    from lessons_core.scan.detectors import corrections, tier1, tier2

    register(
        DetectorSpec(
            name=tier1.NAME,
            detect=tier1.detect,
            tier=1,
            description="#lesson … #/lesson blocks the agent wrote in its replies",
        )
    )
    register(
        DetectorSpec(
            name=tier2.NAME,
            detect=tier2.detect,
            tier=2,
            description="failures followed by a corrected call, user corrections, retry loops",
        )
    )
    register(
        DetectorSpec(
            name=corrections.NAME,
            detect=corrections.detect,
            tier=2,
            description="user messages and rejection reasons that correct the agent",
        )
    )
