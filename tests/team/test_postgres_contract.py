"""The PostgreSQL store passes the whole store contract, against a real server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from lessons_core.testing import StoreContract


class TestPostgresStore(StoreContract):
    @pytest.fixture
    def store(self, team_url: str) -> Iterator[object]:
        from lessons_postgres.store import PostgresStore

        with PostgresStore(team_url, author="tester", machine="m1") as s:
            yield s
