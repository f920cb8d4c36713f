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

Both files (and the stamp) are opened through :mod:`lessons_core.hot.safefile`: a link, a FIFO,
a file of another user or one writable by others under those names is not read, and the hook
runs with no lessons (``EMPTY``) rather than with lessons somebody else could have written.
"""

# os.path, not pathlib: importing pathlib costs the hook process more than these calls.
# ruff: noqa: PTH118, SIM105

import _sre
import marshal
import os
import sys

from lessons_core.hot import paths, safefile

STAMP_NAME = "manifest.stamp"
CACHE_SUFFIX = ".marshal"
CACHE_MAGIC = b"lessons-manifest-cache 2"
#: A manifest file larger than this is not one of ours (10,000 lessons are a few megabytes).
MAX_MANIFEST_BYTES = 256 * 1024 * 1024
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

_cache: dict[str, dict[str, object]] = {}


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
    """Forget loaded manifests and close their cache files (tests, ``explain`` after a build)."""
    _cache.clear()
    while _readers:
        _readers.pop().close()


def _read(path):
    data = _read_cache(path)
    if data is None:
        try:
            raw = safefile.read(path, MAX_MANIFEST_BYTES)
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
        # Regex programs are opcodes of the C engine: bind them to its version, not only Python's.
        f"sre{_sre.MAGIC}",
        str(st.st_size),
        str(st.st_mtime_ns),
        str(st.st_ino),
    )
    return (" ".join(fields) + "\n").encode()


def pack_cache(header, head, lessons, programs):
    """The cache file's bytes (the compiler writes them; kept here beside the reader).

    Layout: the header line; 8 bytes (little-endian) giving the size of the index; the index,
    ``marshal((head, lesson_at, program_at))``; then the marshalled lessons and regex programs
    back to back. ``lesson_at`` and ``program_at`` map an id or a source to ``offset << 24 |
    size`` within that tail, so a hook reads the small index and seeks to the few entries it
    needs instead of reading a large catalogue. An entry of ``1 << 24`` bytes or more cannot be
    addressed so: ``ValueError`` (the compiler refuses such lessons long before).
    """
    tail = []
    position = 0
    maps = []
    for blobs in (lessons, programs):
        at = {}
        for key, value in blobs.items():
            data = marshal.dumps(value)
            if len(data) > _MAX_ENTRY:
                raise ValueError(f"manifest entry {key!r} is too large for the cache index")
            at[key] = position << 24 | len(data)
            tail.append(data)
            position += len(data)
        maps.append(at)
    index = marshal.dumps((head, maps[0], maps[1]))
    return b"".join([header, len(index).to_bytes(8, "little"), index, *tail])


#: The largest entry ``offset << 24 | size`` can address.
_MAX_ENTRY = (1 << 24) - 1


def _read_cache(path):
    try:
        st = os.lstat(path)
        safefile.check(st, path)  # the JSON itself: a regular file of ours, like its copy
        fd, own = safefile.open_read(cache_path(path))
    except OSError:
        return None
    try:
        header = cache_header(st)
        if _read_at(fd, 0, len(header)) != header:
            raise ValueError("cache of another manifest")
        size = int.from_bytes(_read_at(fd, len(header), 8), "little")
        if size > own.st_size:
            raise ValueError("truncated cache")
        # Our own file, owner-only, bound to the JSON it was written from (see above).
        head, lesson_at, program_at = marshal.loads(_read_at(fd, len(header) + 8, size))  # noqa: S302
        if not isinstance(head, dict):
            raise ValueError("bad cache")
    except (OSError, ValueError, EOFError, TypeError):
        os.close(fd)
        return None
    reader = _BlobReader(fd, len(header) + 8 + size, cache_path(path), own)
    head["lessons"] = LazyLessons(lesson_at, reader)
    head["programs"] = LazyLessons(program_at, reader)
    return head


def _read_at(fd, offset, size):
    os.lseek(fd, offset, 0)
    data = os.read(fd, size)
    while len(data) < size:
        more = os.read(fd, size - len(data))
        if not more:
            raise EOFError("short cache file")
        data += more
    return data


class _BlobReader:
    """Reads entries from the open cache file (the descriptor pins the version that was read).

    Once closed (``clear_cache``) it reopens the file, but only if it is still the same file.
    """

    __slots__ = ("base", "fd", "identity", "path")

    def __init__(self, fd, base, path, st):
        self.fd = fd
        self.base = base
        self.path = path
        self.identity = (st.st_ino, st.st_size, st.st_mtime_ns)

    def read(self, packed):
        if self.fd is None:
            fd, st = safefile.open_read(self.path)
            if (st.st_ino, st.st_size, st.st_mtime_ns) != self.identity:
                os.close(fd)
                raise LookupError("the manifest cache was rebuilt; load the manifest again")
            self.fd = fd
            _readers.append(self)
        data = _read_at(self.fd, self.base + (packed >> 24), packed & 0xFFFFFF)
        return marshal.loads(data)  # noqa: S302 - see _read_cache

    def close(self):
        if self.fd is not None:
            try:
                os.close(self.fd)
            except OSError:
                pass
            self.fd = None


_readers: list[_BlobReader] = []


class LazyLessons(dict[str, object]):
    """A mapping read from the cache whose entries are decoded on first access.

    A hook call looks at a handful of lessons (those whose prefilter substrings occur in the
    call), so reading and decoding a large catalogue up front would be wasted. Reads through
    ``[]``, ``get``, ``items`` and ``values`` return decoded entries; ``in``, ``len`` and
    iteration over keys need no decoding. Entries still stored as marshal ``bytes`` (as the
    per-tool prefilter index is) are decoded the same way.
    """

    __slots__ = ("_reader",)

    def __init__(self, data=(), reader=None):
        dict.__init__(self, data)
        self._reader = reader
        if reader is not None:
            _readers.append(reader)

    def __getitem__(self, key):
        value = dict.__getitem__(self, key)
        if value.__class__ is int and self._reader is not None:
            value = self._reader.read(value)
            dict.__setitem__(self, key, value)
        elif value.__class__ is bytes:
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
        stamp = safefile.read(os.path.join(home, STAMP_NAME), 64).strip()
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
