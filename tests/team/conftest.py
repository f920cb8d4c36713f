"""A real PostgreSQL server for the team-store tests, started once per test session.

The server binaries come from Debian's ``postgresql`` package (``.ci/run`` installs it). Without
them the tests skip, saying why, unless ``LESSONS_REQUIRE_POSTGRES=1`` (set by CI): then they
fail, so a CI run cannot pass without having tested the team store.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

_TRUE = {"1", "true", "yes", "on"}


def _required() -> bool:
    return os.environ.get("LESSONS_REQUIRE_POSTGRES", "").strip().lower() in _TRUE


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[object]:
    """The session's server (stopped, and its folder removed, when the session ends)."""
    pytest.importorskip("psycopg", reason="lessons-postgres is not installed")
    from lessons_postgres.testing import TempServer, find_bindir

    bindir = find_bindir()
    if bindir is None:
        reason = (
            "no PostgreSQL server binaries (initdb, pg_ctl) found: install Debian's "
            "postgresql package or set PG_BINDIR"
        )
        if _required():
            pytest.fail(f"LESSONS_REQUIRE_POSTGRES=1 but {reason}")
        pytest.skip(reason)
    server = TempServer(bindir)
    try:
        server.start()
    except Exception:
        server.stop()
        raise
    yield server
    server.stop()


@pytest.fixture
def team_url(postgres_server: object) -> str:
    """A URL (password included) of a new empty database on the session's server."""
    url: str = postgres_server.create_database()  # type: ignore[attr-defined]
    return url
