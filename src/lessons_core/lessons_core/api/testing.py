"""The contract kits a plugin's own tests subclass (this module imports pytest).

:class:`StoreContract` for a store, :class:`AdapterContract` for an agent adapter,
:class:`DetectorContract` for a detector; :func:`contract_lesson` and :func:`contract_candidate`
make valid values to feed them, and :func:`lessons_isolated_homes` is the fixture that points
every home at a temporary folder.
"""

from __future__ import annotations

from lessons_core.testing import (
    AdapterContract,
    DetectorContract,
    HookPayloads,
    StoreContract,
    contract_candidate,
    contract_lesson,
    lessons_isolated_homes,
)

__all__ = [
    "AdapterContract",
    "DetectorContract",
    "HookPayloads",
    "StoreContract",
    "contract_candidate",
    "contract_lesson",
    "lessons_isolated_homes",
]
