"""The Kilo CLI adapter passes the contract kit every agent adapter uses.

Its payloads are those our plugin file sent from inside Kilo CLI 7.7 (``payloads/``); its sample
transcript is a database rebuilt from the rows of real sessions (``session_rows.json``: the
tables and rows Kilo CLI 7.7 wrote, paths rewritten).
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from lessons_core.testing import AdapterContract
from lessons_kilo import plugin

HERE = Path(__file__).resolve().parent


def load_database(target: Path) -> Path:
    """``session_rows.json`` as the SQLite file Kilo CLI would have left."""
    dump = json.loads((HERE / "session_rows.json").read_text(encoding="utf-8"))
    with closing(sqlite3.connect(target)) as db, db:
        for statement in dump["schema"]:
            db.execute(statement)
        for table in ("project", "session", "message", "part"):
            columns = dump[table]["columns"]
            marks = ", ".join("?" for _ in columns)
            db.executemany(f'INSERT INTO "{table}" VALUES ({marks})', dump[table]["rows"])
    return target


class KiloPayloads:
    """The plugin's payloads, with the session, directory and command of a contract check."""

    def __init__(self) -> None:
        self._before = json.loads((HERE / "payloads" / "before_bash.json").read_text())
        self._start = json.loads((HERE / "payloads" / "session_start.json").read_text())

    def pre_tool(self, session: str, cwd: Path, command: str) -> dict[str, Any]:
        args = dict(self._before["args"], command=command)
        return dict(self._before, session_id=session, cwd=str(cwd), args=args)

    def session_start(self, session: str, cwd: Path) -> dict[str, Any]:
        return dict(self._start, session_id=session, cwd=str(cwd))


class TestKiloAdapterContract(AdapterContract):
    @pytest.fixture
    def agent_spec(self):
        return plugin.agent_spec()

    @pytest.fixture
    def payloads(self) -> KiloPayloads:
        return KiloPayloads()

    @pytest.fixture
    def sample_transcript(self, tmp_path: Path) -> Path:
        return load_database(tmp_path / "kilo.db")
