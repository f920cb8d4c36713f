"""Check a written manifest the way the hook will read it (``lessons doctor``).

The hook trusts what it loads and fails open: a manifest whose index points at the wrong bytes
does not raise there, it just stops delivering. So the doctor reads both files in full and
compares: the JSON parses, has the documented shape, its fingerprint matches its body and every
id its indexes name is one of its lessons; the marshal copy, when it is bound to this JSON (the
one the hook would load), has an index whose every entry lies inside the file and decodes, the
same lessons as the JSON, entry by entry, and the same tables.
"""

from __future__ import annotations

import json
import marshal
from pathlib import Path
from typing import Any

from lessons_core.hot import manifest as hot_manifest

#: The ``offset << 24 | size`` packing of the cache index.
_SIZE_BITS = 24


class Problem(Exception):
    """What is wrong with the manifest, in one line."""


def check_json(path: Path, manifest: dict[str, Any]) -> None:
    """Raise :class:`Problem` unless the parsed JSON manifest is one the hook can use whole."""
    if not hot_manifest._well_formed(manifest):
        raise Problem(f"{path} lacks the tables the hooks read (byTool, anyTool, session)")
    from lessons_core.compiler.build import fingerprint

    if manifest.get("fingerprint") and manifest["fingerprint"] != fingerprint(manifest):
        raise Problem(f"{path}: the fingerprint does not match the content (edited or damaged)")
    lessons = manifest["lessons"]
    named = [*manifest["anyTool"], *manifest["session"]]
    named.extend(i for key in ("reinject", "recurring") for i in manifest.get(key, ()))
    for ids in manifest["byTool"].values():
        named.extend(ids if isinstance(ids, list) else [ids])
    for index in manifest.get("prefilter", {}).values():
        named.extend(pair[1] for pair in index.get("pairs", ()) if len(pair) == 2)
        named.extend(index.get("open", ()))
    missing = sorted({str(i) for i in named if i not in lessons})
    if missing:
        raise Problem(f"{path}: its indexes name lessons it lacks: {', '.join(missing[:5])}")


def check_cache(path: Path, manifest: dict[str, Any]) -> str | None:
    """Why the marshal copy beside ``path`` cannot be trusted (``Problem``), or a note when the
    hook would not use it (absent, or bound to another JSON): ``None`` when it agrees."""
    cache = Path(hot_manifest.cache_path(str(path)))
    try:
        data = cache.read_bytes()
        st = path.stat()
    except FileNotFoundError:
        return f"{cache.name} absent: the hooks read the JSON (slower)"
    except OSError as exc:
        raise Problem(f"{cache} is unreadable: {exc.strerror or exc}") from exc
    header = hot_manifest.cache_header(st)
    if not data.startswith(header):
        magic = hot_manifest.CACHE_MAGIC
        if data.startswith(magic) and data[len(magic) : len(magic) + 1] == b" ":
            fields = data[: data.find(b"\n")].split()
            mine = header.split()
            if fields[1:4] == mine[1:4]:  # this interpreter's copy, of another JSON
                return f"{cache.name} was written for another version of the JSON: not used"
        return f"{cache.name} is for another interpreter: not used"
    start = len(header) + 8
    size = int.from_bytes(data[len(header) : start], "little")
    if start + size > len(data):
        raise Problem(f"{cache}: the index runs past the end of the file")
    try:
        head, lesson_at, program_at = marshal.loads(data[start : start + size])  # noqa: S302
    except (ValueError, EOFError, TypeError) as exc:
        raise Problem(f"{cache}: the index does not decode ({exc})") from exc
    if not all(isinstance(part, dict) for part in (head, lesson_at, program_at)):
        raise Problem(f"{cache}: the index has the wrong shape")
    tail = start + size
    blobs: dict[str, dict[str, Any]] = {}
    for name, at in (("lesson", lesson_at), ("program", program_at)):
        decoded: dict[str, Any] = {}
        for key, packed in at.items():
            if not isinstance(packed, int) or packed < 0:
                raise Problem(f"{cache}: {name} {key!r} has no position")
            offset, length = packed >> _SIZE_BITS, packed & ((1 << _SIZE_BITS) - 1)
            if tail + offset + length > len(data):
                raise Problem(f"{cache}: {name} {key!r} points past the end of the file")
            try:
                decoded[key] = marshal.loads(data[tail + offset : tail + offset + length])  # noqa: S302
            except (ValueError, EOFError, TypeError) as exc:
                raise Problem(f"{cache}: {name} {key!r} does not decode ({exc})") from exc
        blobs[name] = decoded
    if blobs["lesson"] != manifest["lessons"]:
        differ = sorted(
            set(manifest["lessons"]).symmetric_difference(blobs["lesson"])
            or {k for k in manifest["lessons"] if manifest["lessons"][k] != blobs["lesson"][k]}
        )
        raise Problem(
            f"{cache} disagrees with the JSON on lesson(s) {', '.join(differ[:5])}"
            " (the hooks would deliver the wrong text)"
        )
    prefilter = {
        key: marshal.loads(part) if isinstance(part, bytes) else part  # noqa: S302
        for key, part in head.get("prefilter", {}).items()
    }
    json_head = {k: v for k, v in manifest.items() if k != "lessons"}
    cache_head = {**head, "prefilter": prefilter}
    if json.dumps(json_head, sort_keys=True) != json.dumps(cache_head, sort_keys=True):
        raise Problem(f"{cache} disagrees with the JSON on its tables")
    return None
