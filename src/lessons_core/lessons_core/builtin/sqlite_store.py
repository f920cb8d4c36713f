"""Built-in plugin: the SQLite store, and the last-resort store selection.

``lessons_select_store`` is ``trylast``: a plugin that wants to pick the store itself answers
first; otherwise this implementation opens the store that ``config.json`` names (``"store"``), or
SQLite when it names none.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lessons_core.errors import LessonsError
from lessons_core.plugin import hookimpl
from lessons_core.plugins.specs import StoreSpec

if TYPE_CHECKING:
    from lessons_core.models import Config
    from lessons_core.store.base import Store

NAME = "sqlite"


def _factory(config: Config, home: Path) -> Any:
    from lessons_core.store.sqlite import open_sqlite_store

    return open_sqlite_store(home)


@hookimpl
def lessons_register_stores(register: Callable[[StoreSpec], None]) -> None:
    register(StoreSpec(name=NAME, factory=_factory, description="one SQLite file in LESSONS_HOME"))


@hookimpl(trylast=True)
def lessons_select_store(config: Config, available: dict[str, StoreSpec], home: Path) -> Store:
    wanted = getattr(config, "store", None) or NAME
    spec = available.get(wanted)
    if spec is None:
        known = ", ".join(sorted(available)) or "none"
        raise LessonsError(
            f"config.json asks for the store {wanted!r}, which no installed plugin provides "
            f"(available: {known}); install its plugin or remove the 'store' setting"
        )
    store: Store = spec.factory(config, home)
    return store
