"""JSON for the hook process without importing ``json`` (standard library only).

``import json`` pulls in ``re``, and ``re`` pulls in ``enum``, ``functools`` and the regex
compiler: a few milliseconds, a noticeable share of a hook call that should cost little more
than the interpreter's start-up. The C accelerator ``_json`` that ``json`` itself uses can scan
and encode on its own, so the hook uses it directly and imports ``re`` only when a lesson's
pattern actually has to run. Without ``_json`` (other Python implementations) this falls back to
the ``json`` module; the results are the same.

Output is ASCII-only JSON (``ensure_ascii``), so it is valid whatever encoding stdout has.
"""

try:
    import _json
except ImportError:  # pragma: no cover - CPython always has it
    _json = None  # type: ignore[assignment]

_WHITESPACE = " \t\n\r"
_CONSTANTS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


class JSONError(ValueError):
    """The input is not one JSON document."""


class _Context:
    """The attributes the C scanner reads from a decoder."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__
    memo = None


class _LenientContext(_Context):
    """Control characters (a raw NUL, a raw tab) taken inside strings, as ``strict=False``."""

    strict = False


_scanner = None
_lenient_scanner = None
_encoder = None


def loads(data, lenient=False):
    """Parse one JSON document from ``str`` or UTF-8 ``bytes``; raise ``ValueError`` if invalid.

    ``lenient=True`` takes raw control characters inside strings (the hook's payloads: a NUL an
    agent passed through unescaped must not cost the call its lessons).
    """
    global _scanner, _lenient_scanner
    if isinstance(data, (bytes, bytearray)):
        if data[:3] == b"\xef\xbb\xbf":
            data = data[3:]
        data = bytes(data).decode("utf-8")  # "utf-8-sig" would import another codec module
    if _json is None:
        import json  # type: ignore[unreachable]

        return json.loads(data, strict=not lenient)
    if lenient:
        if _lenient_scanner is None:
            _lenient_scanner = _json.make_scanner(_LenientContext())  # type: ignore[arg-type]
        scanner = _lenient_scanner
    else:
        if _scanner is None:
            _scanner = _json.make_scanner(_Context())  # type: ignore[arg-type]
        scanner = _scanner
    text = data.strip(_WHITESPACE)
    if not text:
        raise JSONError("empty input")
    try:
        value, end = scanner(text, 0)
    except StopIteration as exc:
        raise JSONError(f"invalid JSON at {exc.value}") from None
    if end != len(text):
        raise JSONError(f"extra data at {end}")
    return value


def _unsupported(value):
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def dumps(value):
    """Serialize ``value`` (dicts, lists, strings, numbers, booleans, None) as ASCII JSON."""
    global _encoder
    if _json is None:
        import json  # type: ignore[unreachable]

        return json.dumps(value)
    if _encoder is None:
        _encoder = _json.make_encoder(
            {}, _unsupported, _json.encode_basestring_ascii, None, ": ", ", ", False, False, True
        )
    return "".join(_encoder(value, 0))
