"""The patterns people write are accepted, and their cost is bounded instead of refused.

A pattern whose search grows with the square of the subject's length (``\\bgit\\s+push\\b.*--force``
retries the rest of the line at every ``git push``) is matched against the first few kilobytes of
a subject only; what cannot be bounded (exponential shapes, and patterns that match every call in
a guard or a nudge) is refused with the part at fault, a rewrite, and what to run next.
"""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from lesson_factory import lesson_factory
from lessons_core.cli.main import cli as lessons_cli
from lessons_core.compiler import entries
from lessons_core.hot import match
from lessons_core.models import LessonType
from lessons_core.patterns import probe
from lessons_core.patterns.probe import SUBJECT_LIMIT
from lessons_core.patterns.regex_safety import judge, matches_everything

make_lesson = lesson_factory("01PATTERNLIMIT", "limit")

#: The shapes people write that used to be refused, each with real subjects: (text, matches).
SHAPES = {
    r"\bgit\s+push\b.*--force\b": [
        ("git push --force origin main", True),
        ("git push origin main --force", True),
        ("git push --force-with-lease origin main", True),  # \b stands before the -
        ("git push origin main", False),
        ("git commit -m 'push --force later' && git status", False),
        ("cd repo && git push -u origin feat --force", True),
    ],
    r"\bdocker\s+build\b(?!.*--platform)": [
        ("docker build -t app .", True),
        ("docker build --platform linux/amd64 -t app .", False),
        ("docker buildx build -t app .", False),
        ("docker build -t app . && docker push app --platform x", False),
    ],
    r"\bpython[0-9]*\s+-m\s+pytest\b(?!.*--timeout)": [
        ("python -m pytest tests/ -q", True),
        ("python3.12 -m pytest -x", False),  # the class takes digits, not the dot
        ("python3 -m pytest -x", True),
        ("python3 -m pytest -x --timeout 60", False),
        ("python -m pip install pytest", False),
    ],
    r"\bset\s+-[a-zA-Z]*e[a-zA-Z]*\b": [
        ("set -e", True),
        ("set -euo pipefail", True),
        ("set -x", False),
        ("set -o errexit", False),
    ],
    r"execFile\w*\(['\"]claude": [
        ("execFileSync('claude', ['-p'])", True),
        ('execFile("claude")', True),
        ("execFileSync('node', ['x'])", False),
    ],
    r"(?i)^.*/[^/]*cache[^/]*$": [
        ("/repo/src/answerCache.ts", True),
        ("/repo/src/CACHE_KEYS.py", True),
        ("/repo/src/cache/keys.py", False),
        ("/repo/src/store.py", False),
    ],
}


def _entry(source: str, kind: LessonType = LessonType.HINT) -> dict:
    path = source.startswith("(?i)^")
    triggers = (
        {"tool_names": ["Edit"], "path_regexes": ["(?i)" + source[5:-1]]}
        if path
        else {"tool_names": ["Bash"], "command_patterns": [source]}
    )
    return entries.compile_lesson(make_lesson(type=kind, triggers=triggers))


@pytest.mark.parametrize("source", sorted(SHAPES))
def test_each_shape_is_accepted_with_a_bounded_subject(source):
    verdict = judge(source)
    assert verdict.reason is None
    assert verdict.degree == 2
    assert 256 <= verdict.limit <= 4096


@pytest.mark.parametrize(
    ("source", "text", "expected"), [(s, t, e) for s, c in SHAPES.items() for t, e in c]
)
def test_each_shape_matches_real_subjects_as_written(source, text, expected):
    """On real commands and paths the hook answers exactly as the pattern as written does."""
    assert bool(re.search(source, text)) is expected
    entry = _entry(source)
    if "paths" in entry:
        event = {"tool": "Edit", "paths": [text], "content": "x"}
    else:
        event = {"tool": "Bash", "command": text}
    assert (match.check(entry, match.Subject(event)) is None) is expected


#: Text each shape's search retries on at every copy (what makes it quadratic).
HOSTILE = {
    r"\bgit\s+push\b.*--force\b": "git push ",
    r"\bdocker\s+build\b(?!.*--platform)": "docker build ",
    r"\bpython[0-9]*\s+-m\s+pytest\b(?!.*--timeout)": "python -m pytest ",
    r"\bset\s+-[a-zA-Z]*e[a-zA-Z]*\b": "set -eeee",
    r"execFile\w*\(['\"]claude": "execFile",
    r"(?i)^.*/[^/]*cache[^/]*$": "/cache",
}


class _Recording:
    """A compiled pattern that records the length of every subject it is asked to search."""

    def __init__(self, rx: re.Pattern[str], seen: list[int]):
        self.rx = rx
        self.seen = seen

    def search(self, text: str) -> re.Match[str] | None:
        self.seen.append(len(text))
        return self.rx.search(text)


@pytest.mark.parametrize("source", sorted(SHAPES))
def test_the_hook_searches_a_polynomial_pattern_on_its_limit_only(source, monkeypatch):
    """A hostile subject as long as the hook takes (32 KB, the pattern's own text repeated) is
    searched on the pattern's limit only, so its worst case is the one the build measured."""
    entry = _entry(source)
    patterns = entry.get("commands") or entry["paths"]
    (pattern,) = patterns
    limit = pattern["limit"]
    assert limit <= 4096 < SUBJECT_LIMIT
    seen: list[int] = []
    monkeypatch.setitem(
        match._compiled, pattern["source"], _Recording(re.compile(pattern["source"]), seen)
    )
    unit = HOSTILE[source]
    hostile = (unit * (SUBJECT_LIMIT // len(unit) + 1))[: SUBJECT_LIMIT - 40]
    last = SHAPES[source][0][0]  # a match, past the limit: it lets the literal test pass
    if "paths" in entry:
        event = {"tool": "Edit", "paths": [hostile + last], "content": "x"}
    else:
        event = {"tool": "Bash", "command": f"{hostile} {last}"}
    match.check(entry, match.Subject(event))
    assert seen and max(seen) <= limit


def test_a_linear_pattern_still_sees_the_whole_subject(monkeypatch):
    entry = _entry(r"\brm\s+-rf\b")
    (pattern,) = entry["commands"]
    assert "limit" not in pattern
    seen: list[int] = []
    monkeypatch.setitem(
        match._compiled, pattern["source"], _Recording(re.compile(pattern["source"]), seen)
    )
    match.check(entry, match.Subject({"tool": "Bash", "command": "rm -rfx " + "x" * 40000}))
    assert seen == [SUBJECT_LIMIT]


def test_the_probe_feeds_a_repeat_a_run_that_a_word_boundary_then_refuses():
    """``set -eeee…e_`` is the quadratic subject of the common ``set -e`` check (each start of
    the first ``[a-zA-Z]*`` tries every split before the ``\\b`` fails at ``_``); the probe
    makes it, so the pattern is given a subject shorter than its degree's 4 KB."""
    source = r"\bset\s+-[a-zA-Z]*e[a-zA-Z]*\b"
    made = list(probe.runs(list(probe._units(source)), 4096))
    assert any(s.startswith("set") and s.endswith("e_") and s.count("e") > 4000 for s in made)
    verdict = judge(source)
    assert verdict.reason is None
    assert verdict.limit is not None and verdict.limit < 4096


@pytest.mark.parametrize(
    ("source", "part"),
    [(r"(a+)+$", "(a+)+"), (r"(\w+\s?)+$", r"(\w+\s?)+"), (r"^(\w|\d)+!", r"(\w|\d)+")],
)
def test_exponential_shapes_are_still_refused_clearly(source, part):
    verdict = judge(source)
    assert verdict.reason is not None
    assert "nested quantifiers" in verdict.reason or "alternation" in verdict.reason
    assert verdict.part == part
    assert verdict.rewrite is not None and judge(verdict.rewrite).reason is None


EVERYTHING = ["", ".*", "(?s)", "^", "$", "x?", "(?s).*", "(?:)", "|foo", r"(?!.*--platform)"]


@pytest.mark.parametrize("source", EVERYTHING)
@pytest.mark.parametrize("kind", [LessonType.GUARD, LessonType.NUDGE])
def test_a_guard_or_nudge_matching_every_call_is_refused(source, kind):
    assert matches_everything(source)
    with pytest.raises(entries.Refused) as info:
        entries.compile_lesson(
            make_lesson(type=kind, triggers={"tool_names": ["Bash"], "command_patterns": [source]})
        )
    assert "matches every command" in info.value.refusal.reason


@pytest.mark.parametrize("source", EVERYTHING)
def test_a_hint_matching_every_call_is_accepted(source):
    lesson = make_lesson(
        type=LessonType.HINT, triggers={"tool_names": ["Bash"], "command_patterns": [source]}
    )
    assert entries.compile_lesson(lesson)["commands"]


@pytest.mark.parametrize("source", [r"\b", r"^(?!ls\b)", r"^$", r"\bgit\b", r"(?!x)y?z"])
def test_patterns_that_miss_some_call_are_not_match_everything(source):
    assert not matches_everything(source)


# -- what the user sees ---------------------------------------------------------------------------


def _lesson_json(pattern: str, summary: str = "a lesson with a pattern that stalls") -> str:
    return json.dumps(
        {
            "type": "hint",
            "summary": summary,
            "problem": "the command ran without the flag it needs",
            "solution": "pass the flag",
            "triggers": {"toolNames": ["Bash"], "commandPatterns": [pattern]},
        }
    )


@pytest.fixture(name="cli")
def fixture_cli(home):
    def run(*args):
        return CliRunner().invoke(lessons_cli, list(args), catch_exceptions=False)

    return run


def test_add_accepts_the_canonical_force_push_guard(cli, tmp_path):
    src = tmp_path / "guard.json"
    lesson = json.loads(_lesson_json(r"\bgit\s+push\b.*--force\b", "never force-push"))
    lesson["type"] = "guard"
    src.write_text(json.dumps(lesson), encoding="utf-8")
    result = cli("add", str(src))
    assert result.exit_code == 0, result.output
    assert "added" in result.output


def test_a_refusal_in_add_speaks_the_users_notation_and_says_what_next(cli, tmp_path):
    src = tmp_path / "bad.json"
    src.write_text(_lesson_json(r"^(\w+\s?)+$"), encoding="utf-8")
    result = cli("add", str(src))
    assert result.exit_code == 1
    text = result.stderr
    assert "nothing was stored" in text
    assert r"`^(\w+\s?)+$`" in text  # single backslashes, as written
    assert "\\\\" not in text
    assert r"the problem is `(\w+\s?)+`" in text
    assert r"accepted instead: `^\w+(?:\s\w+)*\s?$`" in text
    assert "lessons add --partial" in text
    assert "would be left out" not in text
    assert "stall" not in cli("list", "--json").output


def test_a_refusal_in_import_is_listed_and_strict_stores_nothing(cli, tmp_path):
    """Import takes what can work and names the refused lesson in the user's notation;
    ``--strict`` stores nothing and says how to get the valid ones."""
    src = tmp_path / "bad.jsonl"
    good = _lesson_json(r"\bnpm\s+test\b", "run the tests with npm")
    src.write_text(_lesson_json(r"(a+)+$") + "\n" + good + "\n", encoding="utf-8")
    strict = cli("import", str(src), "--strict")
    assert strict.exit_code == 1
    assert "nothing was stored (leave out --strict" in strict.stderr
    assert "`(a+)+$`" in strict.stderr
    assert "npm" not in cli("list", "--json").output
    result = cli("import", str(src))
    assert result.exit_code == 0, result.output
    assert "`(a+)+$`" in result.output
    listed = cli("list", "--json").output
    assert "npm" in listed and "stall" not in listed


def test_a_refusal_in_edit_says_the_lesson_is_unchanged(cli, tmp_path):
    src = tmp_path / "ok.json"
    src.write_text(_lesson_json(r"\bnpm\s+test\b", "run the tests with npm"), encoding="utf-8")
    (added,) = [json.loads(line) for line in cli("add", str(src), "--json").stdout.splitlines()]
    result = cli("edit", added["slug"], "--command", r"(\d+)*x")
    assert result.exit_code == 1
    assert "not saved, the stored lesson is unchanged" in result.stderr
    assert r"`(\d+)*x`" in result.stderr
    assert r"accepted instead: `\d*x`" in result.stderr
    assert "lessons edit" in result.stderr
