"""Where Codex CLI keeps its transcripts.

Apart from the reader so that finding the files to scan does not import the reader (and the
failure patterns it compiles): a scan in which nothing changed never needs it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def transcript_roots(environ: Mapping[str, str]) -> list[Path]:
    """``$CODEX_HOME`` (default ``~/.codex``): ``sessions/`` and ``archived_sessions/``."""
    explicit = environ.get("CODEX_HOME", "").strip()
    if explicit:
        base = Path(explicit).expanduser()
    else:
        base = Path(environ.get("HOME") or str(Path.home())) / ".codex"
    return [base / "sessions", base / "archived_sessions"]
