"""Every accepted pattern runs in bounded time in the hook; what build refuses, nothing stores."""

from __future__ import annotations

import json
import re
import time

import pytest
from click.testing import CliRunner

from lessons_core.cli.main import cli as lessons_cli
from lessons_core.compiler.globs import glob_to_regex
from lessons_core.compiler.probe import SUBJECT_LIMIT
from lessons_core.compiler.regex_safety import check_pattern, hot_source

BUDGET_MS = 5.0

SHAPES = {
    "overlapping alternation, repeated by hand": r"(?:[a-z]|[a-z])" * 30 + "!",
    "nested bounded repeats": r"(?:(?:a|a){9}){9}!",
    "optional repeated then required": r"(?:a?){28}a{28}",
    "adjacent overlapping classes": r"\s*\s*\s*\s*x",
    "chain of .*": r"git.*push.*--force.*main",
    "long chain of .*": r".*a.*a.*a.*a.*b",
    "seed: jq else empty": r"\bjq\b.*\belse\s+empty\b",
    "quadratic email": r"[\w.-]+@[\w.-]+",
}


def _worst_ms(source: str, subjects: list[str]) -> float:
    rx = re.compile(source)
    worst = 0.0
    for subject in subjects:
        start = time.thread_time()
        rx.search(subject)
        worst = max(worst, (time.thread_time() - start) * 1000)
    return worst


def _adversarial(source: str) -> list[str]:
    words = re.findall(r"[A-Za-z-]+", source) or ["a"]
    units = [*words, " ", "a", "".join(words), " ".join(words)]
    return [(u * (SUBJECT_LIMIT // len(u) + 1))[: SUBJECT_LIMIT - 1] + "\x01" for u in units]


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_each_shape_is_refused_or_runs_in_bounded_time(name):
    """Every shape of the report is refused, or what the hook runs is fast on 64 KB."""
    source = SHAPES[name]
    if check_pattern(source) is not None:
        return
    assert _worst_ms(hot_source(source), _adversarial(source)) <= BUDGET_MS * 4  # busy machine


@pytest.mark.parametrize(
    "source",
    [
        SHAPES[k]
        for k in (
            "overlapping alternation, repeated by hand",
            "nested bounded repeats",
            "optional repeated then required",
            "adjacent overlapping classes",
            "quadratic email",
        )
    ],
)
def test_exponential_and_polynomial_shapes_are_refused(source):
    assert check_pattern(source) is not None


def test_dot_star_chains_are_rewritten_and_find_the_same():
    """A chain of .* runs as atomic steps, and answers exactly as the pattern as written."""
    source = SHAPES["chain of .*"]
    hot = hot_source(source)
    assert hot != source and "(?>" in hot
    for text, expected in [
        ("git push --force origin main", True),
        ("git push origin main --force", False),
        ("echo main; git push --force\nmain", False),
        ("x\ngit -C a push x --force y main", True),
    ]:
        assert bool(re.search(hot, text)) is expected
        assert bool(re.search(source, text)) is expected


def test_glob_chain_is_linear():
    regex = glob_to_regex("**/**/**/**/**/z")
    assert check_pattern(regex) is None
    assert _worst_ms(regex, ["a/" * (SUBJECT_LIMIT // 2)]) <= BUDGET_MS * 4
    middle = glob_to_regex("src/**/test/**/*.py")
    assert check_pattern(middle) is None
    assert re.search(middle, "/r/src/a/test/b/c/x.py")
    assert not re.search(middle, "/r/src/a/b/c/x.py")
    assert _worst_ms(middle, [("/src" * SUBJECT_LIMIT)[:SUBJECT_LIMIT]]) <= BUDGET_MS * 4


def test_accepted_seed_patterns_run_in_bounded_time(shared_dir):
    seed = shared_dir / "corpus" / "seed-lessons" / "lesson-manifest.json"
    if not seed.exists():
        pytest.skip("seed catalogue absent")
    data = json.loads(seed.read_text("utf-8"))
    sources = {
        e["source"]
        for lesson in data["lessons"].values()
        for key in ("commandRegexSources", "pathRegexSources")
        for e in lesson[key]
    }
    accepted = [s for s in sources if check_pattern(s) is None]
    assert len(accepted) >= len(sources) * 3 // 4
    assert check_pattern(r"\bjq\b.*\belse\s+empty\b") is None  # rewritten, not refused
    slow = {s: _worst_ms(hot_source(s), _adversarial(s)) for s in accepted}
    assert max(slow.values()) <= BUDGET_MS * 4, max(slow.items(), key=lambda kv: kv[1])


def _lesson_json(pattern):
    return json.dumps(
        {
            "type": "hint",
            "summary": "a lesson with a pattern that can stall the hook",
            "problem": "the hook backtracks for seconds on a long command",
            "solution": "write the pattern without nested repeats",
            "triggers": {"toolNames": ["Bash"], "commandPatterns": [pattern]},
        }
    )


@pytest.fixture(name="cli")
def fixture_cli(home):
    def run(*args):
        return CliRunner().invoke(lessons_cli, list(args), catch_exceptions=False)

    return run


def test_add_refuses_what_build_refuses(cli, tmp_path):
    src = tmp_path / "bad.json"
    src.write_text(_lesson_json("(a+)+$"), encoding="utf-8")
    result = cli("add", str(src))
    assert result.exit_code == 1
    assert "Error:" in result.output
    assert "(a+)+$" in result.output
    assert "added" not in result.output
    listed = cli("list", "--json")
    assert "stall" not in listed.output


def test_import_refuses_what_build_refuses(cli, tmp_path):
    src = tmp_path / "bad.json"
    src.write_text(_lesson_json(r"\s*\s*\s*\s*x"), encoding="utf-8")
    result = cli("import", str(src))
    assert result.exit_code == 1
    assert "Error:" in result.output
    assert "stall" not in cli("list", "--json").output
