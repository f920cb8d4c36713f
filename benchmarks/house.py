"""The shape of the core package: rooms, floors, imports that run back up, circles.

A *room* is a unit of the core a reader meets at the top: a module in the package root or a
top-level subpackage (with everything below it). Imports between rooms make a graph; its
strongly connected components are *circles* (two or more rooms that import one another,
directly or round about), and an import between two rooms of one circle *runs back up*. With
each circle taken as one node the graph is layered; the *floors* are the longest chain of
imports. Imports inside functions count (they tie two rooms together all the same);
``if TYPE_CHECKING:`` blocks do not.

    python benchmarks/house.py [ROOT]
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

PACKAGE = "lessons_core"


def _modules(core: Path) -> dict[str, Path]:
    """Every module of the package by its dotted name."""
    out = {}
    for path in sorted(core.rglob("*.py")):
        parts = list(path.relative_to(core.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _room(module: str) -> str:
    """The room a module is in: itself in the package root, else its top-level subpackage."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else parts[0]


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(path: Path, module: str, known: set[str]) -> set[str]:
    """The modules of the package that ``module`` imports, anywhere but under TYPE_CHECKING."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _type_checking(node):
            skip.update(id(n) for b in node.body for n in ast.walk(b))
    is_package = path.name == "__init__.py"
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            names = [f"{base}.{a.name}" for a in node.names] + [base]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name in known:
                found.add(name)
    return found


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every room ``start`` imports, directly or round about."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for other in graph[todo.pop()]:
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return seen


def _components(graph: dict[str, set[str]]) -> list[set[str]]:
    """The rooms grouped by mutual reach: a group of two or more is a circle. (Forty rooms:
    a walk from each is cheaper to read than a linear-time algorithm.)"""
    reach = {room: _reach(graph, room) for room in graph}
    groups: list[set[str]] = []
    placed: set[str] = set()
    for room in sorted(graph):
        if room not in placed:
            group = {room} | {other for other in reach[room] if room in reach[other]}
            placed |= group
            groups.append(group)
    return groups


def survey(root: Path) -> dict[str, Any]:
    """The figures of the core under ``root`` (a checkout, or any tree of the same layout)."""
    core = root / "src" / "lessons_core" / PACKAGE
    modules = _modules(core)
    known = set(modules)
    graph: dict[str, set[str]] = defaultdict(set)
    for module, path in modules.items():
        room = _room(module)
        graph[room]  # a room that imports no other room is a room all the same
        for target in _imports(path, module, known):
            other = _room(target)
            if other not in (room, PACKAGE):
                graph[room].add(other)
    graph.pop(PACKAGE, None)
    comps = _components(graph)
    circle_of = {v: i for i, c in enumerate(comps) for v in c}
    dag: dict[int, set[int]] = defaultdict(set)
    for v, targets in graph.items():
        for w in targets:
            if circle_of[v] != circle_of[w]:
                dag[circle_of[v]].add(circle_of[w])
    depth: dict[int, int] = {}

    def floor(c: int) -> int:
        if c not in depth:
            depth[c] = 1 + max((floor(d) for d in dag[c]), default=0)
        return depth[c]

    source = [*root.glob("src/*/*/**/*.py"), *root.glob("plugins/*/src/**/*.py")]
    lines = {p: len(p.read_text(encoding="utf-8").splitlines()) for p in source}
    return {
        "rooms": len(graph),
        "root_modules": sorted(
            m for m in modules if m.count(".") == 1 and modules[m].name != "__init__.py"
        ),
        "packages": sum(1 for p in modules.values() if p.name == "__init__.py"),
        "floors": max((floor(c) for c in range(len(comps))), default=0),
        "circles": sorted(sorted(c) for c in comps if len(c) > 1),
        "back_up": sum(
            1 for v, targets in graph.items() for w in targets if circle_of[v] == circle_of[w]
        ),
        "big_files": sorted(
            ((n, str(p.relative_to(root))) for p, n in lines.items() if n > 500), reverse=True
        ),
        "lines": sum(lines.values()),
    }


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1]
    house = survey(root)
    print(f"rooms (root modules and top-level subpackages of the core): {house['rooms']}")
    print(f"  modules in the package root: {len(house['root_modules'])}")
    print(f"  packages of the core (any depth): {house['packages']}")
    print(f"floors (longest chain of imports between rooms): {house['floors']}")
    print(f"circles: {len(house['circles'])}")
    for circle in house["circles"]:
        print(f"  {', '.join(circle)}")
    print(f"imports between rooms of one circle (run back up): {house['back_up']}")
    print(f"files over 500 lines: {len(house['big_files'])}")
    for n, path in house["big_files"]:
        print(f"  {n:5d} {path}")
    print(f"lines of source (core, adapters, plugins; tests excluded): {house['lines']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
