"""The plugin module named by the ``lessons`` entry point: it registers the ``postgres`` store.

The store is registered with a ``sync``: set ``team.store`` to ``postgres`` and ``lessons sync``
(and every background scan) exchanges lessons with it while the local SQLite store stays what
the hooks read. The store itself is a full :class:`~lessons_core.api.Store` (it passes
the contract kit), so a tool or a plugin that selects it by name through
``lessons_select_store`` can work on the team's lessons directly.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from lessons_core.api import StoreSpec, hookimpl

if TYPE_CHECKING:  # the store and its sync are imported on use, not at registration
    from lessons_core.api import Config, Store, SyncReport

NAME = "postgres"


def _factory(config: Config, home: Path) -> Store:
    from lessons_postgres import settings
    from lessons_postgres.store import PostgresStore

    return PostgresStore(
        settings.database_url(config, os.environ),
        author=settings.author(config),
        machine=settings.machine(config, home),
    )


def _sync(
    local: Store, *, config: Config, home: Path, environ: Mapping[str, str] | None = None
) -> SyncReport:
    from lessons_postgres.sync import sync

    return sync(local, config=config, home=home, environ=environ)


@hookimpl
def lessons_register_stores(register: Callable[[StoreSpec], None]) -> None:
    register(
        StoreSpec(
            name=NAME,
            factory=_factory,
            description="a team store on PostgreSQL (LESSONS_DATABASE_URL or team.url)",
            sync=_sync,
        )
    )
