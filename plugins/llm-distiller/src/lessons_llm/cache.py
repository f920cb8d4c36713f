"""Answers kept by the digest of what was asked, in ``LESSONS_HOME/llm-cache``.

A transcript is read again whenever it grows (a little context before the new lines), and a
store rebuilt from scratch reads everything again: the same excerpt, asked of the same model
with the same instructions, gets its stored answer and costs nothing. One small JSON file per
answer, written atomically, so the scan's helper processes can write side by side.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from lessons_core.hot import safefile

DIRECTORY = "llm-cache"


def key(model_id: str, instructions: str, excerpt: str) -> str:
    """The digest an answer is kept under: the model, the instructions and the excerpt."""
    text = json.dumps([model_id, instructions, excerpt], ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Cache:
    def __init__(self, home: Path) -> None:
        self.root = home / DIRECTORY

    def _path(self, digest: str) -> Path:
        return self.root / digest[:2] / f"{digest}.json"

    def get(self, digest: str) -> dict[str, Any] | None:
        try:
            data = json.loads(self._path(digest).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def put(self, digest: str, answer: dict[str, Any]) -> None:
        path = self._path(digest)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            data = json.dumps(answer, ensure_ascii=False).encode("utf-8")
            safefile.replace(path, data, durable=False)
        except OSError:  # a cache that cannot be written costs the next scan a call, no more
            pass
