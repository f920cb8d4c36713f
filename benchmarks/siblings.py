"""The scripts of this folder as modules of one another: ``benchmarks/`` is no package.

``value.py`` builds on ``noise.py``, which builds on ``capture_eval.py`` and the split of
``labels/split.py``. A script run as ``python benchmarks/value.py`` has this folder first on
``sys.path`` and imports this module by name; the tests that load a script put the folder there
too (``tests/benchmark_scripts.py``).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent


def load(name: str, path: Path) -> ModuleType:
    """The script at ``path`` as the module ``name``, loaded once per process.

    Once, and under the one name every script gives it (``noise_benchmark``,
    ``capture_eval``, ``labels_split``): two copies would be two sets of classes, and an
    instance of one would fail the other's checks. The module is in ``sys.modules`` before it
    runs because dataclasses look their module up while a class is built.
    """
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]  # a script that failed to load is not kept half-built
            raise
    return sys.modules[name]


def capture_eval() -> ModuleType:
    return load("capture_eval", HERE / "capture_eval.py")


def noise() -> ModuleType:
    return load("noise_benchmark", HERE / "noise.py")


def labels_split() -> ModuleType:
    return load("labels_split", HERE / "labels" / "split.py")
