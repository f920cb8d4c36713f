"""The outcomes package offers its submodules' names lazily: the two lists of them agree."""

from __future__ import annotations

import ast
import inspect

from lessons_core import outcomes


def _typed_names() -> dict[str, str]:
    """The names the ``TYPE_CHECKING`` block imports for type checkers, with their module."""
    tree = ast.parse(inspect.getsource(outcomes))
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and ".outcomes." in node.module:
            for alias in node.names:
                found[alias.asname or alias.name] = node.module.rsplit(".", 1)[1]
    return found


def test_the_typed_names_are_the_lazy_names():
    """A name added to one list and not the other would type-check and fail at run time (or
    the reverse): both say the same names, from the same modules."""
    assert _typed_names() == outcomes._WHERE


def test_every_lazy_name_resolves_to_its_modules_object():
    """Each name, asked for, is the object its module defines."""
    import importlib

    for name, module in outcomes._WHERE.items():
        defined = getattr(importlib.import_module(f"lessons_core.outcomes.{module}"), name)
        assert getattr(outcomes, name) is defined
