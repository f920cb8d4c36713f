"""Real-looking Claude Code sessions under a test's home, for tests that run a whole scan.

Imported as a plain module (``from transcript_support import …``): ``tests/`` is on
``sys.path`` because the suite's root ``conftest.py`` lives there.
"""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "transcripts" / "claude"


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
