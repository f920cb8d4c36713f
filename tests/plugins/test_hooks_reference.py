"""The hooks reference documents every hook spec, and every hook spec is exercised by a test.

Like datasette's own meta-tests: a spec added without its page entry, or without a test
plugin implementing it, fails here rather than going unnoticed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pluggy
import pytest

from lessons_core.models import Candidate, Lesson
from lessons_core.plugin import PROJECT, hookimpl
from lessons_core.plugins import hookspecs
from lessons_core.plugins.manager import Plugins, get_plugin_manager
from lessons_core.plugins.specs import DedupSpec
from lessons_core.scan.intake import dedup_backend

REPO = Path(__file__).resolve().parents[2]
REFERENCE = REPO / "docs" / "plugins" / "hooks.md"
TESTS = [REPO / "tests", *sorted((REPO / "plugins").glob("*/tests"))]


def _specs() -> dict[str, dict[str, object]]:
    marker = f"{PROJECT}_spec"
    found = {}
    for name in dir(hookspecs):
        options = getattr(getattr(hookspecs, name), marker, None)
        if name.startswith("lessons_") and options is not None:
            found[name] = options
    return found


def _sections() -> dict[str, str]:
    text = REFERENCE.read_text(encoding="utf-8")
    parts = re.split(r"^## `([a-z_]+)`\n", text, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_the_specs_are_found():
    assert len(_specs()) >= 8
    assert isinstance(hookspecs.hookspec, pluggy.HookspecMarker)


@pytest.mark.parametrize("name", sorted(_specs()))
def test_every_spec_is_documented(name):
    sections = _sections()
    assert name in sections, f"{name} has no section in {REFERENCE.name}"
    body = sections[name]
    for heading in ("**Arguments:**", "**Returns:**", "**`firstresult`:**", "**Called:**"):
        assert heading in body, f"{name}: the section says nothing under {heading}"
    first = bool(_specs()[name].get("firstresult"))
    assert re.search(r"\*\*`firstresult`:\*\* " + ("yes" if first else "no"), body), name
    if _specs()[name].get("historic"):
        assert "Historic" in body, name


def test_no_section_documents_a_spec_that_does_not_exist():
    assert set(_sections()) <= set(_specs())


@pytest.mark.parametrize("name", sorted(_specs()))
def test_every_spec_is_exercised_by_a_test(name):
    """Some test module implements the hook (a test plugin), so its call is exercised."""
    pattern = re.compile(rf"^\s*def {name}\(", re.MULTILINE)
    users = [
        path
        for root in TESTS
        for path in root.rglob("*.py")
        if pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert users, f"no test implements {name}"


def test_a_registered_dedup_backend_is_the_one_intake_uses(home: Path) -> None:
    """``lessons_register_dedup``: an installed backend is asked before the built-in one."""
    asked: list[str] = []

    def find(item: Candidate | Lesson, lessons: list[Lesson]) -> Lesson | None:
        asked.append(item.summary)
        return lessons[0] if lessons else None

    class Backend:
        @hookimpl
        def lessons_register_dedup(self, register: Callable[[DedupSpec], None]) -> None:
            register(DedupSpec(name="always-the-first", find=find))

    pm = get_plugin_manager({})
    pm.register(Backend(), name="backend")
    chosen = dedup_backend(Plugins(pm))
    assert chosen is find
    assert "jaccard" in Plugins(pm).dedup()
