"""Where Claude Code keeps its transcripts.

Apart from the reader so that finding the files to scan does not import the reader (and the
failure patterns it compiles): a scan in which nothing changed never needs it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def transcript_roots(environ: Mapping[str, str]) -> list[Path]:
    """Where Claude Code keeps transcripts: ``$CLAUDE_CONFIG_DIR`` (comma-separated) or the
    defaults ``~/.claude`` and ``$XDG_CONFIG_HOME/claude``, each with ``projects/`` below."""
    explicit = environ.get("CLAUDE_CONFIG_DIR", "")
    home = Path(environ.get("HOME") or str(Path.home()))
    if explicit.strip():
        bases = [Path(p.strip()).expanduser() for p in explicit.split(",") if p.strip()]
    else:
        xdg = environ.get("XDG_CONFIG_HOME") or str(home / ".config")
        bases = [home / ".claude", Path(xdg) / "claude"]
    roots: list[Path] = []
    for base in bases:
        root = base / "projects"
        if root not in roots:
            roots.append(root)
    return roots
