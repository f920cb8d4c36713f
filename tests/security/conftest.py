"""Fixtures the shared-source tests borrow: the real PostgreSQL server of ``tests/team`` and
the fake model server of the deep-scan tests."""

from tests.plugins.test_llm_distiller import fixture_model, fixture_setup
from tests.team.conftest import postgres_server, team_url

__all__ = ["fixture_model", "fixture_setup", "postgres_server", "team_url"]
