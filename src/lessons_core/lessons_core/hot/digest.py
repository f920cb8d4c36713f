"""Hash functions without OpenSSL: the interpreter's builtin hash modules, for every path.

``hashlib`` loads OpenSSL before anything else (a few milliseconds, more than some whole hook
runs spend elsewhere), while the builtin modules (``_sha2``, ``_sha256`` before Python 3.12, and
``_blake2``) give the same digests at once. Every content hash, id hash and dedup key in the
project comes from here, so the hot and the cold path can never disagree about one.
"""


def _builtin(name, *modules):
    for module in modules:
        try:
            return getattr(__import__(module), name)
        except (ImportError, AttributeError):
            continue
    import hashlib  # pragma: no cover - a build without the builtin hash modules

    return getattr(hashlib, name)  # pragma: no cover


sha256 = _builtin("sha256", "_sha2", "_sha256")


def blake2b(data, **options):
    """BLAKE2b, its module imported on first use: only the cold path hashes with it."""
    return _builtin("blake2b", "_blake2")(data, **options)


def hex_sha256(data: bytes) -> str:
    """The hex SHA-256 of ``data`` (for typed callers: ``sha256`` itself is untyped here)."""
    return str(sha256(data).hexdigest())


def hex_blake2b(data: bytes, size: int) -> str:
    """The hex BLAKE2b digest of ``data``, ``size`` bytes long."""
    return str(blake2b(data, digest_size=size).hexdigest())
