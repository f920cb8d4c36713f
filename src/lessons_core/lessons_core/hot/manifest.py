"""Load the compiled manifest in the hook process (standard library only).

The manifest is read once per process and kept in a module-level cache. Loading fails open: a
missing, unreadable, corrupt or wrongly shaped file yields ``EMPTY`` (no lessons), never an
exception, because a hook must not break the agent.

Staleness is a separate, cheap question: the compiler records the store revision it compiled
(``storeRevision``) and also writes it to ``manifest.stamp`` beside the manifest; anything that
changes lessons without rebuilding may bump that stamp. One small read tells whether the two
still agree. A stale manifest is still used (its lessons were valid when it was built and the next
``lessons build`` refreshes it); the runner records the staleness in its log line.

Speed: next to the JSON the compiler writes ``lesson-manifest.marshal``, the same data in the
interpreter's ``marshal`` format, which loads several times faster than JSON and needs no import
at all; each lesson in it is a separate blob decoded only when a call looks at it
(:class:`LazyLessons`). Its header records the Python version and the JSON file's size,
modification time and inode; on any mismatch, or if the cache is not owned by this user or is
writable by others, the JSON is read instead. The JSON file stays the one documented format.
"""

# os.path, not pathlib: importing pathlib costs the hook process more than these calls.
# ruff: noqa: PTH116, PTH118

import marshal
import os
import sys

from lessons_core.hot import paths

STAMP_NAME = "manifest.stamp"
CACHE_SUFFIX = ".marshal"
CACHE_MAGIC = b"lessons-manifest-cache 1"
SUPPORTED_VERSION = 1

EMPTY = {
    "type": "lessons-manifest",
    "version": SUPPORTED_VERSION,
    "config": {},
    "protocol": "",
    "lessons": {},
    "byTool": {},
    "anyTool": [],
    "session": [],
}

_cache = {}


def load(path=None, environ=None):
    """Return the manifest dict at ``path`` (default: the one in ``LESSONS_HOME``), or ``EMPTY``."""
    if path is None:
        path = paths.manifest_path(environ)
    cached = _cache.get(path)
    if cached is not None:
        return cached
    manifest = _read(path)
    _cache[path] = manifest
    return manifest


def clear_cache():
    """Forget loaded manifests (tests, and ``explain`` after a rebuild)."""
    _cache.clear()


def _read(path):
    data = _read_cache(path)
    if data is None:
        try:
            with open(path, "rb") as fh:
                raw = fh.read()
            from lessons_core.hot import fastjson

            data = fastjson.loads(raw)
        except (OSError, ValueError):
            return EMPTY
    if not _well_formed(data):
        return EMPTY
    return data


def cache_path(path):
    """Where the marshal copy of the manifest at ``path`` lives."""
    base = path[:-5] if path.endswith(".json") else path
    return base + CACHE_SUFFIX


def cache_header(st):
    """The header line binding a cache to this interpreter and to one version of the JSON file."""
    fields = (
        CACHE_MAGIC.decode(),
        f"py{sys.version_info[0]}.{sys.version_info[1]}",
        f"m{marshal.version}",
        str(st.st_size),
        str(st.st_mtime_ns),
        str(st.st_ino),
    )
    return (" ".join(fields) + "\n").encode()


def _read_cache(path):
    try:
        st = os.stat(path)
        with open(cache_path(path), "rb") as fh:
            own = os.fstat(fh.fileno())
            if hasattr(os, "getuid") and own.st_uid != os.getuid():
                return None
            if own.st_mode & 0o022:
                return None
            blob = fh.read()
    except OSError:
        return None
    header = cache_header(st)
    if not blob.startswith(header):
        return None
    try:
        # Our own file, owner-only, bound to the JSON it was written from (see above).
        head, blobs = marshal.loads(memoryview(blob)[len(header) :])  # noqa: S302
    except (ValueError, EOFError, TypeError):
        return None
    if not isinstance(head, dict) or not isinstance(blobs, dict):
        return None
    head["lessons"] = LazyLessons(blobs)
    return head


class LazyLessons(dict):
    """The manifest's ``lessons`` from the cache: each entry is decoded on first access.

    A hook call looks at a handful of lessons (those whose prefilter substrings occur in the
    call), so decoding all of a large catalogue up front would be wasted. Reads through
    ``[]``, ``get``, ``items`` and ``values`` return decoded entries; ``in``, ``len`` and
    iteration over ids need no decoding.
    """

    __slots__ = ()

    def __getitem__(self, key):
        value = dict.__getitem__(self, key)
        if value.__class__ is bytes:
            value = marshal.loads(value)  # noqa: S302 - see _read_cache
            dict.__setitem__(self, key, value)
        return value

    def get(self, key, default=None):
        if key in self:
            return self[key]
        return default

    def values(self):
        return [self[key] for key in self]

    def items(self):
        return [(key, self[key]) for key in self]


def _well_formed(data):
    if not isinstance(data, dict) or data.get("type") != "lessons-manifest":
        return False
    if data.get("version") != SUPPORTED_VERSION:
        return False
    return (
        isinstance(data.get("lessons"), dict)
        and isinstance(data.get("byTool"), dict)
        and isinstance(data.get("anyTool"), list)
        and isinstance(data.get("session"), list)
        and isinstance(data.get("config", {}), dict)
    )


def is_stale(manifest, environ=None, home=None):
    """True when ``manifest.stamp`` names a store revision other than the manifest's."""
    if manifest is EMPTY:
        return False
    if home is None:
        home = paths.lessons_home(environ)
    try:
        with open(os.path.join(home, STAMP_NAME), "rb") as fh:
            stamp = fh.read(64).strip()
    except OSError:
        return False
    try:
        return int(stamp) != manifest.get("storeRevision")
    except ValueError:
        return True


def config_value(manifest, key, default):
    """A budget or threshold from the manifest's ``config``, falling back to the default."""
    value = manifest.get("config", {}).get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return default
    return value
