"""A memory a command keeps in ``LESSONS_HOME`` between runs: strings listed under a key.

The build remembers the patterns its timing probe measured fast
(:mod:`lessons_core.patterns.probe`), the scanner the digests of the triggers the safety check
accepted (:mod:`lessons_core.scan.trigger_checks`). Either may be lost or stale at any time
and costs only a measurement again, so a file that is not ours, is reached through a link, is
larger than :data:`LIMIT`, does not parse, or was written under another ``key`` (other rules,
another Python) reads as empty. It is replaced at once, private to the user.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from lessons_core.hot import safefile

#: The most a memory file is read of (a longer one is cut, so it does not parse: empty).
LIMIT = 16 << 20


def load(path: Path, key: str, field: str) -> list[str]:
    """The strings under ``field`` of the memory at ``path``, when it was written under ``key``."""
    try:
        data = json.loads(safefile.read(path, LIMIT))
    except (OSError, ValueError):  # safefile.UnsafeFile is an OSError
        return []
    if not isinstance(data, dict) or data.get("key") != key:
        return []
    items = data.get(field)
    return [item for item in items if isinstance(item, str)] if isinstance(items, list) else []


def save(path: Path, key: str, field: str, items: Iterable[str]) -> bool:
    """Replace the memory at ``path``; False when it could not be written (nothing is lost)."""
    body = json.dumps({"key": key, field: list(items)}, separators=(",", ":"))
    try:
        safefile.replace(path, body.encode("utf-8"), durable=False)
    except OSError:
        return False
    return True
