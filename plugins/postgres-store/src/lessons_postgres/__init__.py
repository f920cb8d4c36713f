"""A team store for lessons on PostgreSQL (distribution ``lessons-postgres``)."""
