"""Regexes compiled at build time, so the hook never has to import ``re``.

Importing ``re`` costs the hook process a few milliseconds (``enum``, ``functools``, the regex
parser and compiler), and compiling each pattern costs more. Both are avoidable: the parser and
compiler that ``re.compile`` runs are ordinary Python producing a list of integers, which the C
engine ``_sre`` (built into the interpreter) turns into a pattern object. The compiler runs those
steps once per pattern and stores the result in the manifest's marshal copy, which is already
bound to this exact Python version; the hook hands it to ``_sre.compile`` and gets the very
object ``re.compile`` would have returned.

The JSON manifest does not carry these programs (they are version-specific); a hook reading the
JSON, or finding no program for a pattern, falls back to ``re.compile``.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import Any

_parser: Any = importlib.import_module("re._parser")
_compiler: Any = importlib.import_module("re._compiler")


def program(source: str, flags: int = 0) -> tuple[Any, ...] | None:
    """The arguments after ``source`` that ``_sre.compile`` needs, as ``re.compile(source,
    flags)`` builds them."""
    try:
        parsed = _parser.parse(source, flags)
        code = _compiler._code(parsed, flags)
    except Exception:  # no program simply means re.compile at run time
        return None
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    # Opcodes and flags are int subclasses; marshal stores plain ints only.
    return (
        int(flags) | int(parsed.state.flags),
        [int(op) for op in code],
        int(parsed.state.groups) - 1,
        {str(name): int(index) for name, index in groupindex.items()},
        tuple(indexgroup),
    )


def programs(sources: Iterable[str]) -> dict[str, tuple[Any, ...]]:
    """Programs for every distinct source that compiles."""
    out: dict[str, tuple[Any, ...]] = {}
    for source in sources:
        if source not in out:
            compiled = program(source)
            if compiled is not None:
                out[source] = compiled
    return out


def manifest_sources(manifest: dict[str, Any]) -> list[str]:
    """Every regex source the hook may run for ``manifest``."""
    found: list[str] = []
    for entry in manifest.get("lessons", {}).values():
        for key in ("commands", "paths", "content", "models"):
            found.extend(pattern["source"] for pattern in entry.get(key, ()))
    return found
