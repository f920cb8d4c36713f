"""The import contract: the adapters and plugins use the declared API, the core never imports
them, and the core's modules import one another without circles.

Checked statically on every ``import`` statement, those inside functions too (an import hidden
in a function still ties the two modules together; it only runs later). ``if TYPE_CHECKING:``
imports count for the API rule (a plugin types against the API as well) but not for circles,
since they never run.

(a) A module of an adapter or plugin distribution (its tests included) imports from the core
    only :mod:`lessons_core.api` (and its submodules) and :mod:`lessons_core.hot` (the
    standard-library side a hook process runs). Everything else in the core is private and free
    to move; :data:`OUTSIDE_EXCEPTIONS` names what still reaches past the API, and why.
(b) The core never imports an adapter or plugin distribution: it finds them through entry
    points. :data:`CORE_EXCEPTIONS` lists the imports that break this today.
(c) No circle among the core's modules; :data:`CIRCLE_EXCEPTIONS` names the one left, and why.
    Nothing in the core but the command modules (and ``python -m lessons_core``) imports the CLI.

An exception that no longer occurs fails the test too, so the lists only shrink.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "src" / "lessons_core"
CORE_PACKAGE = CORE / "lessons_core"

#: Why the MCP server's tools still reach past the API.
_MCP_TOOLS = (
    "the MCP server's tools record and look up lessons the way the CLI does (services, intake, "
    "Tier 1 helpers, the CLI's describe); their bodies are rewritten when the plugin's commands "
    "move out of the core, and these imports go to the API then"
)

#: (file relative to the repository, imported core module) -> why it is allowed for now.
OUTSIDE_EXCEPTIONS: dict[tuple[str, str], str] = {
    ("plugins/mcp-server/src/lessons_mcp/tools.py", f"lessons_core.{module}"): _MCP_TOOLS
    for module in (
        "services",
        "serde",
        "patterns.regex_safety",
        "compiler.entries",
        "scan.intake",
        "scan.scoring",
        "scan.detectors.tier1",
        "cli.lesson_cmds",
    )
}

#: (core file relative to the repository, imported distribution module) -> why.
CORE_EXCEPTIONS: dict[tuple[str, str], str] = {}

#: Core modules that may stand in one circle -> why.
CIRCLE_EXCEPTIONS: dict[frozenset[str], str] = {
    frozenset({"lessons_core.patterns.regex_safety", "lessons_core.patterns.culprit"}): (
        "the judge asks the culprit finder which part of a refused pattern is at fault, and the "
        "finder judges each rewrite it tries with that same judge: one recursion, two modules"
    ),
}


def _module_name(path: Path, base: Path) -> str:
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _core_modules() -> dict[str, Path]:
    return {_module_name(p, CORE): p for p in sorted(CORE_PACKAGE.rglob("*.py"))}


def _outside_packages() -> dict[str, Path]:
    """Each adapter and plugin distribution's top-level package, by name."""
    found = {}
    for folder in [*ROOT.glob("src/adapters_*"), *ROOT.glob("plugins/*/src")]:
        for package in folder.iterdir():
            if (package / "__init__.py").exists():
                found[package.name] = package
    return found


def _outside_files() -> list[Path]:
    files = []
    for folder in [*ROOT.glob("src/adapters_*"), *ROOT.glob("plugins/*")]:
        files += sorted(p for p in folder.rglob("*.py") if ".venv" not in p.parts)
    return files


def _is_type_checking(test: ast.expr) -> bool:
    name = test.attr if isinstance(test, ast.Attribute) else getattr(test, "id", "")
    return name == "TYPE_CHECKING"


def _imports(path: Path, package: str, known: set[str]) -> Iterator[tuple[str, bool]]:
    """Each module ``path`` imports (absolute), and whether only for type checking.

    ``from a import b`` imports ``a.b`` when that is a module in ``known``, else ``a``.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))

    def walk(node: ast.AST, typing_only: bool) -> Iterator[tuple[str, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.body:
                    yield from walk_one(stmt, True)
                for stmt in child.orelse:
                    yield from walk_one(stmt, typing_only)
                continue
            yield from walk_one(child, typing_only)

    def walk_one(node: ast.AST, typing_only: bool) -> Iterator[tuple[str, bool]]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, typing_only
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            submodules = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in known]
            if len(submodules) < len(node.names):
                yield base, typing_only  # a name defined in ``base`` itself
            for submodule in submodules:
                yield submodule, typing_only
        yield from walk(node, typing_only)

    yield from walk(tree, False)


def _package_of(path: Path, name: str) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _is_api(module: str) -> bool:
    return any(
        module == allowed or module.startswith(allowed + ".")
        for allowed in ("lessons_core.api", "lessons_core.hot")
    )


def test_adapters_and_plugins_import_only_the_api() -> None:
    known = set(_core_modules())
    found: set[tuple[str, str]] = set()
    for path in _outside_files():
        for module, _typing_only in _imports(path, "", known):
            if module.split(".")[0] == "lessons_core" and not _is_api(module):
                found.add((path.relative_to(ROOT).as_posix(), module))
    new = sorted(found - set(OUTSIDE_EXCEPTIONS))
    assert not new, (
        "these import private core modules; import the name from lessons_core.api instead "
        "(add it to the API, with docs/plugins/api.md, if it is missing): "
        + ", ".join(f"{file}: {module}" for file, module in new)
    )
    stale = sorted(set(OUTSIDE_EXCEPTIONS) - found)
    assert not stale, f"no longer imported; remove from OUTSIDE_EXCEPTIONS: {stale}"


def test_the_core_never_imports_an_adapter_or_plugin() -> None:
    modules = _core_modules()
    outside = set(_outside_packages())
    assert {"lessons_claude", "lessons_mcp", "lessons_llm", "lessons_postgres"} <= outside
    found: set[tuple[str, str]] = set()
    for name, path in modules.items():
        for module, _typing_only in _imports(path, _package_of(path, name), set(modules)):
            if module.split(".")[0] in outside:
                found.add((path.relative_to(ROOT).as_posix(), module))
    new = sorted(found - set(CORE_EXCEPTIONS))
    assert not new, (
        "the core finds adapters and plugins through entry points, never by import: "
        + ", ".join(f"{file}: {module}" for file, module in new)
    )
    stale = sorted(set(CORE_EXCEPTIONS) - found)
    assert not stale, f"no longer imported; remove from CORE_EXCEPTIONS: {stale}"


def core_graph() -> dict[str, set[str]]:
    """Which core module imports which, counting imports inside functions, not type-only ones.

    An import of a name from a package counts as an import of the package (its
    ``__init__``), the nearest existing module.
    """
    modules = _core_modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for module, typing_only in _imports(path, _package_of(path, name), set(modules)):
            while module and module not in modules:
                module = module.rpartition(".")[0]
            if module and module != name and not typing_only:
                graph[name].add(module)
    return graph


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def test_no_circles_among_core_modules() -> None:
    found = set(circles(core_graph()))
    new = sorted(sorted(circle) for circle in found - set(CIRCLE_EXCEPTIONS))
    assert not new, (
        "these core modules import one another (inside functions too); move what they share "
        f"into a module below them: {new}"
    )
    stale = sorted(sorted(circle) for circle in set(CIRCLE_EXCEPTIONS) - found)
    assert not stale, f"no longer a circle; remove from CIRCLE_EXCEPTIONS: {stale}"


def test_only_the_entry_point_imports_the_cli() -> None:
    """The CLI sits on top: the report, the scanner or the store never import a command module
    (what a command and another module share lives below both)."""
    graph = core_graph()
    above = {"lessons_core.__main__"}
    found = sorted(
        (name, module)
        for name, imported in graph.items()
        if name not in above and not name.startswith("lessons_core.cli")
        for module in imported
        if module == "lessons_core.cli" or module.startswith("lessons_core.cli.")
    )
    assert not found, f"these import the CLI: {found}"


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}, "c": {"a"}}, [frozenset({"a", "b"})]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"d"}}, [frozenset({"a", "b", "c"})]),
    ],
)
def test_circles_finds_each_circle_once(
    graph: dict[str, set[str]], expected: list[frozenset[str]]
) -> None:
    assert circles(graph) == expected


def test_an_import_inside_a_function_counts(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from lessons_core import models\n"
        "def f():\n    from lessons_core.scan import events\n",
        encoding="utf-8",
    )
    known = {"lessons_core.models", "lessons_core.scan.events"}
    assert set(_imports(source, "", known)) >= {
        ("lessons_core.models", True),
        ("lessons_core.scan.events", False),
    }


def test_the_api_declares_what_it_exports() -> None:
    """Every name in ``__all__`` resolves, and each submodule declares its own ``__all__``."""
    import importlib

    import lessons_core.api as api

    assert sorted(api.__all__) == sorted(api._WHERE)
    for name in api.__all__:
        assert getattr(api, name) is not None, name
    for path in sorted((CORE_PACKAGE / "api").glob("*.py")):
        if path.name == "__init__.py":
            continue
        module = importlib.import_module(f"lessons_core.api.{path.stem}")
        assert module.__all__, path.name
        for name in module.__all__:
            getattr(module, name)


def test_importing_the_api_imports_nothing_it_names() -> None:
    """The re-exports are lazy: a plugin module pays for the names it uses, not for all."""
    code = (
        "import sys, lessons_core.api; "
        "print(sorted(m for m in sys.modules if m.startswith('lessons_core.') "
        "or m in ('attrs', 'cattrs', 'pluggy', 'structlog', 'typing')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "['lessons_core.api']"
