"""Real-looking Claude Code sessions under a test's home, for tests that run a whole scan, and
the tables OpenCode (and Kilo) keep sessions in, for tests that write such a database.

Imported as a plain module (``from transcript_support import …``): ``tests/`` is on
``sys.path`` because the suite's root ``conftest.py`` lives there.
"""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "transcripts" / "claude"

#: The three tables of OpenCode's ``opencode.db`` (Kilo's ``kilo.db`` alike) a reader reads,
#: with the columns their releases create.
OPENCODE_SCHEMA = """
CREATE TABLE session (
  id text PRIMARY KEY, project_id text NOT NULL, workspace_id text, parent_id text,
  slug text NOT NULL, directory text NOT NULL, path text, title text NOT NULL,
  version text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE TABLE message (
  id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL,
  time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (
  id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
"""


def claude_sessions(home: Path, count: int = 4) -> list[tuple[Path, Path]]:
    """Copy the first ``count`` fixture transcripts into one project under ``home``'s Claude
    Code folder; ``(fixture, copy)`` for each, so a test can append a fixture's lines again."""
    project = home / ".claude" / "projects" / "-home-dev-app"
    project.mkdir(parents=True)
    sources = sorted(FIXTURES.rglob("*.jsonl"))[:count]
    assert sources
    pairs = []
    for source in sources:
        copy = project / source.name
        copy.write_bytes(source.read_bytes())
        pairs.append((source, copy))
    return pairs
