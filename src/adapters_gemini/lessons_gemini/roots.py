"""Where Gemini CLI keeps its transcripts.

Apart from the reader so that finding the files to scan does not import the reader (and the
failure patterns it compiles): a scan in which nothing changed never needs it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def transcript_roots(environ: Mapping[str, str]) -> list[Path]:
    """``$GEMINI_CLI_HOME`` (replaces the home directory) or ``~``, then ``.gemini/tmp``."""
    home = environ.get("GEMINI_CLI_HOME", "").strip() or environ.get("HOME") or "~"
    return [Path(home).expanduser() / ".gemini" / "tmp"]
