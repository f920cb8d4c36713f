"""An adapter names the file endings of its transcripts; the scanner's walk honours them."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from lessons_core.plugins.specs import AgentSpec
from lessons_core.scan import discovery


def _no_events(*_args: Any, **_kwargs: Any) -> Iterator[Any]:
    return iter(())


def _spec(root: Path, suffixes: tuple[str, ...]) -> AgentSpec:
    def roots(_environ: Mapping[str, str]) -> list[Path]:
        return [root]

    return AgentSpec(
        name="dbagent",
        hook_command="dbagent-hook",
        hook_module="dbagent.hook",
        transcript_roots=roots,
        reader=_no_events,
        transcript_extensions=suffixes,
    )


def _tree(root: Path) -> None:
    (root / "nested").mkdir(parents=True)
    for name in ("agent.db", "nested/agent-beta.db", "notes.jsonl", "other.json", "agent.db-wal"):
        (root / name).write_text("x", encoding="utf-8")


def test_declared_suffixes_are_what_the_walk_finds(tmp_path: Path) -> None:
    _tree(tmp_path)
    found = discovery.discover({"dbagent": _spec(tmp_path, (".db",))}, {})
    names = sorted(Path(p).name for _, p in found)
    assert names == ["agent-beta.db", "agent.db"]
    assert {agent for agent, _ in found} == {"dbagent"}


def test_json_endings_find_json_files_only(tmp_path: Path) -> None:
    _tree(tmp_path)
    found = discovery.discover({"dbagent": _spec(tmp_path, (".jsonl", ".json"))}, {})
    assert sorted(Path(p).name for _, p in found) == ["notes.jsonl", "other.json"]


def test_scan_names_an_unknown_agent_in_its_error() -> None:
    """``--agent`` is checked against the installed adapters, not a list kept in the core."""
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "lessons"), "scan", "--agent", "nosuchagent"],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1
    assert "no agent plugin named 'nosuchagent' is installed" in proc.stderr
    assert "Traceback" not in proc.stderr
