"""services: open_store() and rebuild_manifest(), the preamble every command shares."""

from __future__ import annotations

import json
import stat
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from store_factories import make_lesson

from lessons_core import services
from lessons_core.errors import LessonsError, StoreError
from lessons_core.models import Config
from lessons_core.plugins.manager import Plugins
from lessons_core.store.sqlite import SQLiteStore


def test_open_store_creates_a_private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing LESSONS_HOME is created 0700 and the SQLite store opened inside it."""
    home = tmp_path / "deep" / "lessons-home"
    monkeypatch.setenv("LESSONS_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path))
    with services.open_store() as store:
        assert isinstance(store, SQLiteStore)
        assert store.path == home / "lessons.db"
        store.add_lessons([make_lesson()])
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    with pytest.raises(StoreError, match="closed"):
        store.list_lessons()  # closed on leaving the block
    with services.open_store() as again:
        assert len(again.list_lessons()) == 1


def test_open_store_honours_an_explicit_environ(tmp_path: Path, home: Path) -> None:
    """An environ mapping passed in wins over the process environment."""
    other = tmp_path / "other-home"
    with services.open_store({"LESSONS_HOME": str(other)}) as store:
        assert isinstance(store, SQLiteStore)
        assert store.path == other / "lessons.db"
    assert not (home / "lessons.db").exists()


def test_open_store_reports_a_broken_config(home: Path) -> None:
    """A config.json that does not parse stops with a LessonsError before the store opens."""
    (home / "config.json").write_text("{not json")
    with pytest.raises(LessonsError), services.open_store():
        pass


def test_open_store_hands_the_config_to_plugins(home: Path) -> None:
    """config.json is loaded and lessons_configure sees it."""
    (home / "config.json").write_text(json.dumps({"maxLessonsPerInjection": 2}))
    config = services.load_config(home)
    assert config.max_lessons_per_injection == 2


def test_open_store_fails_clearly_on_a_file_in_the_way(tmp_path: Path) -> None:
    """LESSONS_HOME pointing at a regular file is a LessonsError naming it."""
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    with (
        pytest.raises(LessonsError, match="not-a-dir"),
        services.open_store({"LESSONS_HOME": str(blocker / "sub")}),
    ):
        pass


def test_rebuild_manifest_calls_the_compiler(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """rebuild_manifest hands store, config, home and plugins to compiler.build.build_manifest."""
    calls: list[tuple[Any, ...]] = []

    def build_manifest(store: Any, config: Config, home_dir: Path, plugins: Plugins) -> Path:
        calls.append((store, config, home_dir, plugins))
        return home_dir / "lesson-manifest.json"

    fake = types.ModuleType("lessons_core.compiler.build")
    fake.build_manifest = build_manifest  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "lessons_core.compiler.build", fake)
    with services.open_store() as store:
        path = services.rebuild_manifest(store)
    assert path == home / "lesson-manifest.json"
    ((got_store, config, got_home, plugins),) = calls
    assert got_store is store
    assert isinstance(config, Config)
    assert got_home == home
    assert isinstance(plugins, Plugins)


def test_rebuild_manifest_without_a_compiler_returns_none(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While no compiler is installed, rebuilding is a logged no-op, not a crash."""
    monkeypatch.setitem(sys.modules, "lessons_core.compiler.build", None)
    with services.open_store() as store:
        assert services.rebuild_manifest(store) is None


def test_session_bundles_store_config_and_plugins(home: Path) -> None:
    """session() gives a command everything it needs in one object."""
    with services.session() as s:
        assert isinstance(s.store, SQLiteStore)
        assert isinstance(s.config, Config)
        assert "sqlite" in s.plugins.stores()
        assert s.home == home


def test_rebuild_manifest_with_the_real_compiler(home: Path) -> None:
    """With the compiler installed, the manifest is written to LESSONS_HOME and lists the lesson."""
    pytest.importorskip("lessons_core.compiler.build")
    with services.open_store() as store:
        (stored,) = store.add_lessons([make_lesson()])
        path = services.rebuild_manifest(store)
    assert path is not None
    assert path.parent == home
    assert stored.id in path.read_text()
