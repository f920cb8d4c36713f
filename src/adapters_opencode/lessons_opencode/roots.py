"""Where OpenCode keeps its sessions.

Apart from the reader so that finding the files to scan does not import it. OpenCode (1.x)
keeps every session of every project in one SQLite database in its data directory,
``$XDG_DATA_HOME/opencode`` (``~/.local/share/opencode`` by default): ``opencode.db`` for the
released channels, ``opencode-<channel>.db`` for the others. ``$OPENCODE_DB`` names another file
(an absolute path, or a name inside the data directory).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def data_dir(environ: Mapping[str, str]) -> Path:
    """OpenCode's data directory for this environment."""
    xdg = environ.get("XDG_DATA_HOME", "").strip()
    if xdg:
        return Path(xdg).expanduser() / "opencode"
    home = environ.get("HOME") or "~"
    return Path(home).expanduser() / ".local" / "share" / "opencode"


def transcript_roots(environ: Mapping[str, str]) -> list[Path]:
    """The data directory, and the folder of an ``$OPENCODE_DB`` kept elsewhere."""
    roots = [data_dir(environ)]
    named = environ.get("OPENCODE_DB", "").strip()
    if named and named != ":memory:" and Path(named).expanduser().is_absolute():
        parent = Path(named).expanduser().parent
        if parent not in roots:
            roots.append(parent)
    return roots
