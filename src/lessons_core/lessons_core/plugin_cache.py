"""Remember the installed ``lessons`` entry points between commands.

Finding entry points means importing ``importlib.metadata`` and reading the metadata of every
installed distribution: a noticeable slice of a short command's start-up, repeated although the
answer only changes when something is installed or removed. So the list is kept in
``LESSONS_HOME`` next to a fingerprint of the import path: every ``sys.path`` entry with its
modification time. Installing, upgrading or removing a distribution adds or removes a
``*.dist-info`` directory (or a ``.pth`` path entry), which changes the directory's mtime or the
path itself, and the next command rescans. Any doubt (no file, unreadable, other fingerprint)
means a rescan, never a guess.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any

#: The cache file in LESSONS_HOME.
CACHE_NAME = "plugin-entry-points.json"
_FORMAT = 1

#: (entry-point name, module, attribute path or "", distribution name).
Entry = tuple[str, str, str, str]


def fingerprint() -> list[Any]:
    """What the cached list depends on: the Python version and each import path entry's mtime."""
    entries: list[Any] = [_FORMAT, sys.version]
    # The first entry is where the command was started from (the script's directory, or the
    # working directory under ``-m``/``-c``), not an install location: leaving it out keeps one
    # cache valid whichever directory ``lessons`` runs in.
    for entry in sys.path[1:] if _is_start_dir(sys.path[:1]) else sys.path:
        try:
            mtime = Path(entry or ".").stat().st_mtime_ns
        except OSError:
            mtime = None
        entries.append([entry, mtime])
    return entries


def _is_start_dir(first: list[str]) -> bool:
    if not first:
        return False
    entry = first[0]
    if entry in ("", os.curdir):
        return True
    with contextlib.suppress(OSError, IndexError):
        script_dir = Path(sys.argv[0]).absolute().parent
        return Path(entry).absolute() in (Path.cwd(), script_dir)
    return False


def read(path: Path, group: str) -> list[Entry] | None:
    """The cached entry points of ``group``, or ``None`` when the cache is missing or stale."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("group") != group:
        return None
    if data.get("fingerprint") != fingerprint():
        return None
    found = data.get("entryPoints")
    if not isinstance(found, list):
        return None
    out: list[Entry] = []
    for item in found:
        if not (
            isinstance(item, list) and len(item) == 4 and all(isinstance(x, str) for x in item)
        ):
            return None
        out.append((item[0], item[1], item[2], item[3]))
    return out


def scan(group: str) -> list[Entry]:
    """Read the entry points of ``group`` from the installed distributions' metadata."""
    from importlib.metadata import distributions

    found: list[Entry] = []
    for dist in distributions():
        for ep in dist.entry_points:
            if ep.group == group:
                found.append((ep.name, ep.module, ep.attr or "", dist.metadata["name"] or ""))
    return found


def write(path: Path, group: str, entries: list[Entry]) -> None:
    """Store ``entries`` atomically; a failure to write only costs the next command a rescan."""
    document = {
        "group": group,
        "fingerprint": fingerprint(),
        "entryPoints": [list(entry) for entry in entries],
    }
    import tempfile  # only when writing: a read-only command skips its import

    with contextlib.suppress(OSError):
        fd, tmp = tempfile.mkstemp(prefix=".plugin-cache-", suffix=".json", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(document, handle)
            Path(tmp).replace(path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def load_object(module: str, attr: str) -> object:
    """What an entry point names: a module, or an attribute path inside one."""
    target: object = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        target = getattr(target, part)
    return target
