"""The manifest build and the outcome loop do not import each other, even lazily.

The build acts on the outcome figures (``verdicts.stats``, below both); the outcome loop
compiles a lesson's entry to probe for its recurrence (``compiler.entries``). The build may not
reach the loop at all, nor may the loop or the verdicts reach the build: every import in the
source counts, at module level or inside a function, because a lazy import is still a cycle the
moment both run in one process.
"""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "src" / "lessons_core"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(CORE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph() -> dict[str, set[str]]:
    """Module -> the ``lessons_core`` modules its source imports (anywhere in it)."""
    modules = {_module_name(p): p for p in (CORE / "lessons_core").rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target.startswith("lessons_core") and target != name:
                    found.add(target)
                    # Importing a submodule runs its package's __init__ first.
                    package = target.rpartition(".")[0]
                    if package in modules and package != name:
                        found.add(package)
        graph[name] = found
    return graph


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_the_outcome_loop_does_not_reach_the_build():
    graph = import_graph()
    below = [m for m in graph if m.startswith(("lessons_core.outcomes", "lessons_core.verdicts"))]
    assert any(m.startswith("lessons_core.outcomes") for m in below)
    assert any(m.startswith("lessons_core.verdicts") for m in below)
    for module in below:
        assert "lessons_core.compiler.build" not in reachable(graph, module), module


def test_the_build_does_not_reach_the_outcome_loop():
    """The build reads the verdicts from below; nothing it imports leads into the loop."""
    reached = reachable(import_graph(), "lessons_core.compiler.build")
    assert not [m for m in reached if m.startswith("lessons_core.outcomes")]


def test_the_build_reaches_the_figures_it_acts_on():
    """The check looks at the right graph: the build does use the outcome figures."""
    assert "lessons_core.verdicts.stats" in reachable(import_graph(), "lessons_core.compiler.build")
