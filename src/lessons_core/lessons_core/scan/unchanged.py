"""Answer a re-scan that has nothing to read without starting the scanner.

Most scans find nothing new: the auto-scan runs every hour, and a user runs ``lessons scan`` to
check. Building the store, the plugin layer and the model classes to learn that costs more than
the check itself, so a plain scan that had nothing left over (no held candidates, no deliveries
waiting to be judged, no file it could not read) leaves an *index* in ``LESSONS_HOME``: the
transcript roots it walked, every file it found with the size, mtime and inode the store keeps
for it, and the conditions the answer depends on (the environment variables that move the
roots, ``config.json``, the store's files, the hook's delivery log, and the folders Python
imports from, which change when a plugin is installed). The next plain scan walks the same
roots with the standard library alone; when every condition and every file is as recorded, the
answer is the one the full scan would give, "nothing new", and nothing else is imported. Any
difference, or no index, and the scan runs as usual.

The index is a cache of what the store says, never a source of truth: it is only written from
the store's own stamps after a scan, and anything that writes to the store changes its files
and so retires the index.
"""

# ruff: noqa: PTH108, PTH116, PTH118 - strings and ``os``: ``pathlib`` is not imported here, for start-up

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterable, Mapping, Sequence

from lessons_core.hot import safefile
from lessons_core.scan.walk import Root, walk_roots

INDEX_NAME = "scan-index.json"
#: The most of an index that is read (about 300 bytes a transcript): a longer one does not
#: parse, and the scan runs in full.
MAX_INDEX_BYTES = 32 << 20
FORMAT = 2
#: Variables that can move the store or a root; each agent's own (``<NAME>_``) are added.
_ENV_PREFIXES = ("LESSONS_", "XDG_")
_STORE_FILES = ("lessons.db", "lessons.db-wal", "config.json", "deliveries.jsonl")


def _stat(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _prefixes(roots: Iterable[Sequence[object]]) -> tuple[str, ...]:
    """The variable prefixes the answer depends on: ours, and each walked agent's name."""
    agents = sorted({str(r[0]).upper() for r in roots})
    return (*_ENV_PREFIXES, *(f"{name}_" for name in agents))


def _conditions(
    home: str, environ: Mapping[str, str], prefixes: tuple[str, ...]
) -> dict[str, object]:
    env = {k: environ[k] for k in sorted(environ) if k == "HOME" or k.startswith(prefixes)}
    code = [(entry, _stat(entry)) for entry in sys.path if entry]
    files = {name: _stat(os.path.join(home, name)) for name in _STORE_FILES}
    return {"format": FORMAT, "env": env, "files": files, "code": code}


def record(
    home: str,
    environ: Mapping[str, str],
    roots: Sequence[Root],
    files: Iterable[tuple[str, str]],
    stamps: Mapping[str, tuple[int, int, int]],
) -> bool:
    """Write the index after a scan (``roots``: ``(agent, root)`` as walked; ``files``: what the
    walk found; ``stamps``: the store's size, mtime and inode per file). Nothing is written, and
    an old index is removed, when a file has no stamp (it could not be read) or the store is not
    the SQLite file. Returns whether an index was written."""
    path = os.path.join(home, INDEX_NAME)
    found = sorted(set(files))
    if any(p not in stamps for _, p in found) or _stat(os.path.join(home, "lessons.db")) is None:
        forget(home)
        return False
    # Files under the roots that the adapters said are not transcripts: the check must know
    # them, or it would take each for a new transcript.
    wanted = set(found)
    ignored = sorted(item for item in walk_roots(roots) if item not in wanted)
    index = {
        "conditions": _conditions(home, environ, _prefixes(roots)),
        "roots": [[agent, root, list(exts)] for agent, root, exts in roots],
        "files": [[agent, p, *stamps[p]] for agent, p in found],
        "ignored": [list(item) for item in ignored],
    }
    try:
        # Private like the rest of LESSONS_HOME (the index names every transcript), and the
        # scratch file never one planted there. ``dumps``, not ``dump``: only the one-shot
        # encoder is the C one (about 2 ms less for the index of 150 transcripts).
        data = json.dumps(index, separators=(",", ":")).encode("utf-8")
        safefile.replace(path, data, durable=False)
    except OSError:
        forget(home)
        return False
    return True


def forget(home: str) -> None:
    """Remove the index (the next scan runs in full)."""
    with contextlib.suppress(OSError):
        os.unlink(os.path.join(home, INDEX_NAME))


def unchanged(home: str, environ: Mapping[str, str]) -> int | None:
    """The number of transcripts when nothing changed since the scan that wrote the index, or
    ``None`` when the scan must run (no index, a condition or a file differs)."""
    try:
        # Read as the index is written: only ours, never through a link, and bounded.
        index = json.loads(safefile.read(os.path.join(home, INDEX_NAME), MAX_INDEX_BYTES))
        roots: list[Root] = [
            (str(agent), str(root), tuple(str(e) for e in exts))
            for agent, root, exts in index["roots"]
        ]
        conditions = _conditions(home, environ, _prefixes(roots))
        if json.loads(json.dumps(conditions)) != index["conditions"]:
            return None
        recorded = {
            (str(f[0]), str(f[1])): [int(f[2]), int(f[3]), int(f[4])] for f in index["files"]
        }
        ignored = {(str(f[0]), str(f[1])) for f in index["ignored"]}
    except (OSError, ValueError, KeyError, TypeError, IndexError, RecursionError):
        return None
    seen: set[tuple[str, str]] = set()
    for item in walk_roots(roots):
        if item in ignored:
            continue
        stamp = recorded.get(item)
        if stamp is None or _stat(item[1]) != stamp:
            return None
        seen.add(item)
    return len(seen) if len(seen) == len(recorded) else None
