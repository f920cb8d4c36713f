"""Remember the installed ``lessons`` entry points between commands.

Finding entry points means importing ``importlib.metadata`` and reading the metadata of every
installed distribution: a noticeable slice of a short command's start-up, repeated although the
answer only changes when something is installed or removed. So the list is kept in
``LESSONS_HOME`` next to a fingerprint of the import path: every ``sys.path`` entry with its
modification time. Installing, upgrading or removing a distribution adds or removes a
``*.dist-info`` directory (or a ``.pth`` path entry), which changes the directory's mtime or the
path itself, and the next command rescans. Any doubt (no file, unreadable, other fingerprint)
means a rescan, never a guess.

The cache never decides on its own which module a command imports: each entry names the
metadata directory it was read from, and reading the cache checks that this directory is still
on the import path and still declares that very entry point (one small ``entry_points.txt`` per
plugin distribution). A cache that names anything else (written by hand, planted, or left from
another installation) is not used, and the installed metadata is read again. Where the
metadata is not in such a directory (a zip file, an egg), entries cannot be checked so and the
list is read afresh each time.

The rescan itself (:func:`scan`) reads the ``*.dist-info`` and ``*.egg-info`` directories of the
import path directly, in the order and with the rules ``importlib.metadata`` follows: importing
that module (which brings in the ``email`` package to parse each distribution's metadata) and
asking it cost some 35 ms, while the few files that matter read in about a millisecond. Only the
shapes this reading knows are read so; an import path entry that is a zip file or an egg, or a
finder on ``sys.meta_path`` that finds distributions of its own, hands the rescan to
``importlib.metadata`` itself.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import re

#: The cache file in LESSONS_HOME.
CACHE_NAME = "plugin-entry-points.json"
_FORMAT = 2

#: (entry-point name, module, attribute path or "", distribution name).
Entry = tuple[str, str, str, str]
#: An entry and the metadata directory that declares it ("" when unknown).
Sourced = tuple[Entry, str]


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
    out: list[Sourced] = []
    for item in found:
        if not (
            isinstance(item, list) and len(item) == 5 and all(isinstance(x, str) for x in item)
        ):
            return None
        out.append(((item[0], item[1], item[2], item[3]), item[4]))
    return [entry for entry, _ in out] if _installed(out, group) else None


def _installed(entries: list[Sourced], group: str) -> bool:
    """Whether every entry is declared, as cached, by the metadata directory it names, and
    that directory is a distribution's on the import path (so the cache names no module an
    installed entry point does not)."""
    import re

    on_path = {str(Path(entry or ".")) for entry in sys.path}
    declared: dict[str, set[tuple[str, str, str]]] = {}
    for (name, module, attr, _dist), source in entries:
        if source not in declared:
            where = Path(source)
            if not (
                source
                and where.name.lower().endswith((".dist-info", ".egg-info"))
                and str(where.parent) in on_path
            ):
                return False
            points = _entry_points_of(where, group, re.compile(_VALUE))
            declared[source] = set(points or ())
        if (name, module, attr) not in declared[source]:
            return False
    return True


def scan(group: str) -> list[Entry]:
    """Read the entry points of ``group`` from the installed distributions' metadata."""
    return [entry for entry, _ in scan_sourced(group)]


def scan_sourced(group: str) -> list[Sourced]:
    """:func:`scan`, each entry with the metadata directory declaring it (for :func:`write`)."""
    sources: list[str] = []
    found = _read_metadata_dirs(group, sources)
    if found is not None:
        return list(zip(found, sources, strict=True))
    return [(entry, "") for entry in _scan_with_importlib(group)]


def _scan_with_importlib(group: str) -> list[Entry]:
    from importlib.metadata import distributions

    found: list[Entry] = []
    for dist in distributions():
        for ep in dist.entry_points:
            if ep.group == group:
                found.append((ep.name, ep.module, ep.attr or "", dist.metadata["name"] or ""))
    return found


#: ``importlib.metadata``'s syntax of an entry point's value: ``module[:attr] [extras]``.
_VALUE = r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$"


def _read_metadata_dirs(group: str, sources: list[str] | None = None) -> list[Entry] | None:
    """The entry points of ``group`` as ``importlib.metadata.distributions()`` lists them, read
    straight from the metadata directories; ``None`` when the path holds something only
    ``importlib.metadata`` reads (a zip file, an egg, another distribution finder). The
    directory of each entry is appended to ``sources`` when given."""
    import importlib.machinery
    import re

    for finder in sys.meta_path:
        if finder is not importlib.machinery.PathFinder and hasattr(finder, "find_distributions"):
            return None
    value_syntax = re.compile(_VALUE)
    found: list[Entry] = []
    for entry in sys.path:
        root = entry or "."
        if root.lower().endswith(".egg"):
            return None
        try:
            children = [child.name for child in Path(root).iterdir()]
        except NotADirectoryError:
            return None  # a zip file on the path
        except OSError:
            continue  # missing or unreadable: importlib.metadata finds nothing there either
        # Grouped by normalised distribution name, in the order each name first appears.
        by_name: dict[str, list[Path]] = {}
        for child in children:
            low = child.lower()
            if low.endswith((".dist-info", ".egg-info")):
                name = low.rpartition(".")[0].partition("-")[0]
                normalized = re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")
                by_name.setdefault(normalized, []).append(Path(entry, child))
        for paths in by_name.values():
            for path in paths:
                points = _entry_points_of(path, group, value_syntax)
                if points is None:
                    return None
                if points:
                    dist = _distribution_name(path)
                    found.extend((name, module, attr, dist) for name, module, attr in points)
                    if sources is not None:
                        sources.extend(str(path) for _ in points)
    return found


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
        return None


def _entry_points_of(
    path: Path, group: str, syntax: re.Pattern[str]
) -> list[tuple[str, str, str]] | None:
    """(name, module, attr) of each entry point of ``group`` in the distribution at ``path``;
    ``None`` for a value ``importlib.metadata`` could not take apart either."""
    text = _read_text(path / "entry_points.txt")
    out: list[tuple[str, str, str]] = []
    section: str | None = None
    for line in map(str.strip, (text or "").splitlines()):
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
            continue
        if section != group:
            continue
        name, sep, value = line.partition("=")
        match = syntax.match(value.strip()) if sep else None
        if match is None:
            return None
        out.append((name.strip(), match.group("module"), match.group("attr") or ""))
    return out


def _distribution_name(path: Path) -> str:
    """The ``Name`` header of the distribution's metadata (the first, as the email parser
    gives it), or "" without one."""
    text = _read_text(path / "METADATA") or _read_text(path / "PKG-INFO") or _read_text(path) or ""
    for line in text.splitlines():
        if not line.strip():
            break  # the end of the headers
        key, sep, value = line.partition(":")
        if sep and key[:1] not in (" ", "\t") and key.strip().lower() == "name":
            return value.strip()
    return ""


def write(path: Path, group: str, entries: list[Sourced]) -> None:
    """Store ``entries`` atomically; a failure to write only costs the next command a rescan."""
    document = {
        "group": group,
        "fingerprint": fingerprint(),
        "entryPoints": [[*entry, source] for entry, source in entries],
    }
    from lessons_core.hot import safefile

    with contextlib.suppress(OSError):  # the C encoder: ``dump`` is pure Python
        safefile.replace(path, json.dumps(document).encode("utf-8"), durable=False)


def load_object(module: str, attr: str) -> object:
    """What an entry point names: a module, or an attribute path inside one."""
    target: object = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        target = getattr(target, part)
    return target
