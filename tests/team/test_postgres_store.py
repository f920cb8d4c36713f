"""What the team store does beyond the contract: migrations under concurrency, ownership, search."""

from __future__ import annotations

import threading

import pytest

from lessons_core.errors import LessonsError
from lessons_core.testing import contract_candidate, contract_lesson

pytest.importorskip("psycopg")


def test_machines_opening_a_new_database_at_once_migrate_it_once(team_url: str):
    from lessons_postgres.store import PostgresStore

    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def open_it() -> None:
        start.wait()
        try:
            PostgresStore(team_url, pool_size=1).close()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_same_content_from_many_threads_is_one_row(team_url: str):
    from lessons_postgres.store import PostgresStore

    with PostgresStore(team_url, pool_size=8, machine="m") as store:
        start = threading.Barrier(8)

        def add() -> None:
            start.wait()
            store.add_lessons([contract_lesson(1)])
            store.add_candidate(contract_candidate(1))

        threads = [threading.Thread(target=add) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        (lesson,) = store.list_lessons()
        assert lesson.provenance.occurrences == 8
        assert len(store.list_candidates()) == 1


def test_recall_uses_text_search_with_stemming(team_url: str):
    from lessons_postgres.store import PostgresStore

    with PostgresStore(team_url) as store:
        (a,) = store.add_lessons(
            [contract_lesson(1, mistake="the migration failed on a locked table")]
        )
        store.add_lessons([contract_lesson(2)])
        # "failing" and "tables" stem to the lesson's words; punctuation is no operator.
        assert [x.id for x in store.search_lessons("migrations: failing (tables) & !")] == [a.id]
        assert store.search_lessons("!!! ::") == []


def test_scan_offsets_are_kept_per_machine(team_url: str):
    from lessons_postgres.store import PostgresStore

    with (
        PostgresStore(team_url, machine="one") as one,
        PostgresStore(team_url, machine="two") as two,
    ):
        one.set_scan_state("/t/a.jsonl", {"offset": 5})
        assert two.get_scan_state("/t/a.jsonl") is None
        assert one.get_scan_state("/t/a.jsonl")["offset"] == 5


def test_a_malformed_url_is_a_clear_error():
    from lessons_postgres.store import PostgresStore

    with pytest.raises(LessonsError, match="not a PostgreSQL connection string") as caught:
        PostgresStore("host=db password=hunter2 port")
    assert "hunter2" not in str(caught.value)
