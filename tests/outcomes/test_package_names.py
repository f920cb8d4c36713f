"""The outcomes package offers its names and the verdicts' lazily: the two lists of them agree."""

from __future__ import annotations

import ast
import inspect

from lessons_core import outcomes


def _typed_names() -> dict[str, str]:
    """The names the ``TYPE_CHECKING`` block imports for type checkers, with their module."""
    tree = ast.parse(inspect.getsource(outcomes))
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or not node.module:
            continue
        if node.module.startswith("lessons_core."):
            for alias in node.names:
                found[alias.asname or alias.name] = node.module
    return found


def test_the_typed_names_are_the_lazy_names():
    """A name added to one list and not the other would type-check and fail at run time (or
    the reverse): both say the same names, from the same modules."""
    assert _typed_names() == outcomes._WHERE


def test_every_lazy_name_resolves_to_its_modules_object():
    """Each name, asked for, is the object its module defines."""
    import importlib

    for name, module in outcomes._WHERE.items():
        defined = getattr(importlib.import_module(module), name)
        assert getattr(outcomes, name) is defined
