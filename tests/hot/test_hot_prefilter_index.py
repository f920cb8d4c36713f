"""The prefilter index never changes what fires, only how many lessons are looked at."""

from __future__ import annotations

from hot_support import make_lesson, manifest_for, pre_tool
from hypothesis import given, settings
from hypothesis import strategies as st

from lessons_core.hot import match
from lessons_core.hot.manifest import LazyLessons
from lessons_core.models import MatchTarget

CATALOGUE = [
    make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": [r"\bgit\s+push\b"]}),
    make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": [r"\b(npm|pnpm)\s+i\b"]}),
    make_lesson(
        triggers={"tool_names": ["Bash"], "command_patterns": [r"\brm\s+-rf\b"]},
        command_match_target=MatchTarget.EXECUTABLE,
    ),
    make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": [r"\b\d+\.\d+\b"]}),
    make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": ["(?i)DROP TABLE"]}),
    make_lesson(triggers={"tool_names": ["Edit", "Write"], "path_patterns": ["**/*.sql"]}),
    make_lesson(
        triggers={
            "tool_names": ["Bash", "Edit"],
            "command_patterns": ["psql"],
            "path_patterns": ["migrations/*.py"],
        }
    ),
    make_lesson(triggers={"content_patterns": ["password\\s*="]}),
    make_lesson(triggers={"tool_names": ["WebFetch"]}),
]
MANIFEST = manifest_for(*CATALOGUE)
WITHOUT_INDEX = {k: v for k, v in MANIFEST.items() if k != "prefilter"}

WORDS = [
    "git",
    "push",
    "npm",
    "pnpm",
    " i ",
    "rm",
    "-rf",
    "'",
    '"',
    "&&",
    "drop",
    "TABLE",
    "psql",
    "password =",
    "x",
    " ",
    "\u212a",
    "é",
]


@settings(max_examples=400, deadline=None)
@given(
    tool=st.sampled_from(["Bash", "Edit", "Write", "WebFetch", "Read"]),
    command=st.none() | st.lists(st.sampled_from(WORDS), max_size=8).map("".join),
    path=st.sampled_from(
        [None, "/p/db/x.sql", "/p/migrations/0001.py", "/p/a.txt", "C:\\p\\q.SQL"]
    ),
    content=st.none() | st.lists(st.sampled_from(WORDS), max_size=6).map("".join),
)
def test_index_agrees_with_a_full_scan(tool, command, path, content):
    """Same lessons fire with and without the prefilter index."""
    event = pre_tool(tool=tool, command=command, paths=[path] if path else [], content=content)
    assert match.matching(MANIFEST, event) == match.matching(WITHOUT_INDEX, event)


def test_index_skips_lessons_whose_substrings_are_absent():
    """For a call that mentions none of them, only the open lessons are left to check."""
    event = pre_tool(tool="Bash", command="ls -la")
    ids = match.candidates(MANIFEST, "Bash")
    kept = match.prefiltered(MANIFEST, "Bash", ids, match.Subject(event))
    assert kept == [CATALOGUE[3].id]  # the only Bash lesson without a certain substring


def test_lazy_lessons_decode_on_access():
    """Entries stored as marshal blobs come back as dicts through every read path."""
    import marshal

    lazy = LazyLessons({"a": marshal.dumps({"type": "hint"}), "b": marshal.dumps({"x": 1})})
    assert "a" in lazy
    assert len(lazy) == 2
    assert lazy.get("a") == {"type": "hint"}
    assert lazy["b"] == {"x": 1}
    assert lazy.get("zzz") is None
    assert dict(lazy.items()) == {"a": {"type": "hint"}, "b": {"x": 1}}
    assert lazy.values() == [{"type": "hint"}, {"x": 1}]
