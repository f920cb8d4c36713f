"""The scripts of ``benchmarks/`` (no package) as modules, for the tests that check them.

Imported as a plain module (``from benchmark_scripts import load``): ``tests/`` is on
``sys.path`` because the suite's root ``conftest.py`` lives there.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = REPO / "benchmarks"


def load(name: str, path: Path) -> ModuleType:
    """The script at ``path`` as the module ``name``, loaded once per process.

    Once, and under the name the scripts give each other (``noise_benchmark``, ``capture_eval``,
    ...): ``value.py`` loads ``noise.py`` by that name too, and two copies would be two sets of
    classes. It is in ``sys.modules`` before it runs: dataclasses look their module up while
    the class is built.
    """
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]
