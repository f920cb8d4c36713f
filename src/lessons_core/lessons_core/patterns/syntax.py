"""The standard library's regex parser, and one parse of each pattern however many ask.

A trigger's pattern is judged (:mod:`.regex_safety`), probed (:mod:`.probe`), rewritten
(:mod:`.linearize`), searched for a literal (:mod:`.prefilter`) and, when refused, searched for
the part at fault (:mod:`.culprit`): each walks the parse tree, and each used to parse the
source again, about ten parses a pattern. A build of ten thousand lessons spent seconds there.
The tree is only read, never changed, so one parse of a source serves them all.

``re._parser`` is private, but stable in shape for two decades and the only exact parser of
the engine's own syntax; ``sre_parse`` is its deprecated public alias.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

sre_parse: Any = importlib.import_module("re._parser")
sre_constants: Any = importlib.import_module("re._constants")

#: Sources kept parsed: every question about one pattern is asked while it is compiled, so a
#: few hundred cover a build's working set with room to spare.
_PARSED = 512


@functools.lru_cache(maxsize=_PARSED)
def parse(source: str, flags: int = 0) -> Any:
    """The parse tree of ``source`` (a ``re._parser.SubPattern``), shared: never change it.

    Raises as ``re.compile`` would (``re.error``, ``RecursionError``, ``OverflowError``); a
    failure is not kept, so asking again raises again."""
    return sre_parse.parse(source, flags)
