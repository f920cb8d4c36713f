"""The scripts of ``benchmarks/`` (no package) as modules, for the tests that check them.

Imported as a plain module (``from benchmark_scripts import load``): ``tests/`` is on
``sys.path`` because the suite's root ``conftest.py`` lives there. The scripts import their
shared loader, ``benchmarks/siblings.py``, by name, as they do when run: the folder is put on
``sys.path`` here, once, for them.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = REPO / "benchmarks"

if str(BENCHMARKS) not in sys.path:
    sys.path.append(str(BENCHMARKS))

from siblings import load  # noqa: E402  (the folder goes on the path first)

__all__ = ["BENCHMARKS", "REPO", "load"]
