"""The hook process may import only the standard library: checked statically on every hot module.

ruff's TID253 bans the best-known heavy modules at module level; this test is stricter: every
import anywhere in a hot module (even inside a function) must name a standard-library module
or another hot module, and package ``__init__`` files on the hook's import chain must be empty.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"

#: Standard-library modules that are still too heavy for the hot path (measured with
#: ``python -X importtime``): typing alone costs more than a whole manifest match.
TOO_HEAVY = {"typing", "dataclasses", "logging", "enum", "importlib.metadata", "asyncio"}


def _hot_files() -> list[Path]:
    files = sorted((SRC / "lessons_core" / "lessons_core" / "hot").glob("*.py"))
    for adapter in sorted(SRC.glob("adapters_*/lessons_*")):
        files += [adapter / "hook.py", *sorted(adapter.glob("hot_*.py"))]
    return [f for f in files if f.exists()]


def _is_hot_module(name: str) -> bool:
    if name.startswith("lessons_core.hot"):
        return True
    head, _, tail = name.partition(".")
    return (
        head.startswith("lessons_")
        and head != "lessons_core"
        and (tail == "" or tail == "hook" or tail.startswith("hot_"))
    )


def _imports(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            base = node.module
            found.append((node.lineno, base))
            # "from lessons_core.hot import runner" imports lessons_core.hot.runner
            found += [
                (node.lineno, f"{base}.{alias.name}")
                for alias in node.names
                if base.startswith("lessons_")
            ]
    return found


@pytest.mark.parametrize("path", _hot_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_hot_module_imports_only_the_standard_library(path: Path) -> None:
    """Each import is stdlib (and not a heavy one) or another hot module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    bad = []
    for lineno, name in _imports(tree):
        top = name.split(".")[0]
        if _is_hot_module(name):
            continue
        if top.startswith("lessons_"):
            bad.append(f"{path.name}:{lineno}: {name} is a cold module")
        elif top not in sys.stdlib_module_names:
            bad.append(f"{path.name}:{lineno}: {name} is not in the standard library")
        elif name in TOO_HEAVY or top in TOO_HEAVY:
            bad.append(f"{path.name}:{lineno}: {name} is too slow to import on the hot path")
    assert not bad, "\n".join(bad)


def test_hot_package_inits_are_empty() -> None:
    """Importing a hot submodule runs its packages' __init__: they must do nothing."""
    inits = [
        SRC / "lessons_core" / "lessons_core" / "__init__.py",
        SRC / "lessons_core" / "lessons_core" / "hot" / "__init__.py",
        *sorted(SRC.glob("adapters_*/lessons_*/__init__.py")),
    ]
    for init in inits:
        code = [
            line
            for line in init.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.lstrip().startswith("#")
        ]
        assert all(line.lstrip().startswith(('"', "'")) for line in code), f"{init} has code"


def test_there_are_hot_modules_to_check() -> None:
    """Guard against the glob silently matching nothing after a move."""
    names = {p.name for p in _hot_files()}
    assert {"hook.py", "paths.py"} <= names
