"""The team-store security tests start the same real PostgreSQL server as ``tests/team``."""

from tests.team.conftest import postgres_server, team_url

__all__ = ["postgres_server", "team_url"]
