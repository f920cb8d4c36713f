"""The SQLite store passes the contract kit that third-party store backends use."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lessons_core.store.sqlite import SQLiteStore, open_sqlite_store
from lessons_core.testing import StoreContract


class TestSQLiteStoreContract(StoreContract):
    """Runs every StoreContract check against a fresh SQLite store."""

    @pytest.fixture
    def store(self, home: Path) -> Iterator[SQLiteStore]:
        with open_sqlite_store(home) as store:
            yield store
