"""Every accepted pattern runs in bounded time in the hook; what build refuses, nothing stores."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from lessons_core.cli.main import cli as lessons_cli
from lessons_core.patterns.globs import glob_to_regex
from lessons_core.patterns.probe import SUBJECT_LIMIT
from lessons_core.patterns.regex_safety import check_pattern, hot_source, judge
from search_timing import worst_ms

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


def _adversarial(source: str) -> list[str]:
    words = re.findall(r"[A-Za-z-]+", source) or ["a"]
    units = [*words, " ", "a", "".join(words), " ".join(words)]
    return [(u * (SUBJECT_LIMIT // len(u) + 1))[: SUBJECT_LIMIT - 1] + "\x01" for u in units]


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_each_shape_is_refused_or_runs_in_bounded_time(name):
    """Every shape of the report is refused, or what the hook runs is fast on the subject it
    sees (the whole 32 KB, or the shorter limit of a polynomial pattern)."""
    source = SHAPES[name]
    verdict = judge(source)
    if verdict.reason is not None:
        return
    subjects = [s[: verdict.limit] for s in _adversarial(source)]
    assert worst_ms(hot_source(source), subjects) <= BUDGET_MS * 4  # busy machine


@pytest.mark.parametrize(
    "source",
    [
        SHAPES[k]
        for k in (
            "overlapping alternation, repeated by hand",
            "nested bounded repeats",
            "optional repeated then required",
            "adjacent overlapping classes",
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
    assert worst_ms(regex, ["a/" * (SUBJECT_LIMIT // 2)]) <= BUDGET_MS * 4
    middle = glob_to_regex("src/**/test/**/*.py")
    assert check_pattern(middle) is None
    assert re.search(middle, "/r/src/a/test/b/c/x.py")
    assert not re.search(middle, "/r/src/a/b/c/x.py")
    assert worst_ms(middle, [("/src" * SUBJECT_LIMIT)[:SUBJECT_LIMIT]]) <= BUDGET_MS * 4


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
    limits = {s: judge(s).limit for s in accepted}
    slow = {s: worst_ms(hot_source(s), [t[: limits[s]] for t in _adversarial(s)]) for s in accepted}
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


def test_doctor_names_lessons_the_manifest_leaves_out(cli, home, store):
    """A lesson stored before the rules (or by a plugin) that build refuses is reported."""
    from lesson_factory import lesson_factory

    bad = lesson_factory("01SECURITYTEST", "polynomial")(
        triggers={"tool_names": ["Bash"], "command_patterns": [r"\s*\s*\s*\s*x"]}
    )
    store.add_lessons([bad])
    result = cli("doctor", "--json")
    findings = {f["check"]: f for f in json.loads(result.output)["findings"]}
    assert findings["patterns"]["status"] == "fail"
    assert bad.slug in findings["patterns"]["detail"]
    assert "`\\s*\\s*\\s*\\s*x`" in findings["patterns"]["detail"]


@pytest.mark.parametrize(
    "trigger",
    [r".*a.*a.*a.*a.*b(?:a|a)+", r"\s*\s*\s*\s*x", r"(?:a?){28}a{28}", r"\bnpm\s+(\w+\s*)+test\b"],
)
def test_an_unsafe_tier1_trigger_waits_for_review(store, trigger):
    """A #lesson block whose trigger build would refuse is kept as a pending candidate."""
    from lessons_core.models import Candidate, Config, Evidence
    from lessons_core.scan.intake import NEW, Intake

    block = Candidate(
        id="",
        tier=1,
        agent="claude",
        tool="Bash",
        trigger=trigger,
        mistake="the command stalled the hook for seconds on a long input",
        fix="write the trigger without nested or adjacent overlapping repeats",
        summary="a trigger copied from a file",
        evidence=(Evidence("/t/a.jsonl", 5, "c1", "s1"),),
        project="/home/dev/app",
        confidence=0.85,
        detector="tier1",
    )
    outcome = Intake(store, Config()).admit(block)
    assert outcome.status == NEW
    assert store.list_lessons() == []
    (pending,) = store.list_candidates()
    assert pending.trigger == trigger
    assert pending.status == "pending"


def test_an_unsafe_tier1_glob_waits_for_review(store):
    """A file tool's glob that compiles to a refused regex is held back too."""
    from lessons_core.models import Candidate, Config, Evidence
    from lessons_core.scan.intake import NEW, Intake

    block = Candidate(
        id="",
        tier=1,
        agent="claude",
        tool="Edit",
        trigger="src/*a*a*a*a*.py",
        mistake="an edit under these folders broke the generated code",
        fix="regenerate the code instead of editing the generated files",
        summary="edits to generated code",
        evidence=(Evidence("/t/a.jsonl", 5, "c1", "s1"),),
        project="/home/dev/app",
        confidence=0.85,
        detector="tier1",
    )
    assert Intake(store, Config()).admit(block).status == NEW
    assert store.list_lessons() == []


def test_the_hook_and_the_probe_bound_the_same_length():
    """The hook matches no more of a subject than the build measured patterns on."""
    from lessons_core.hot import match

    assert match.SUBJECT_LIMIT == SUBJECT_LIMIT
    subject = match.Subject({"command": "x" * (3 * SUBJECT_LIMIT), "paths": ["/" * 99999]})
    assert len(subject.text("full")) == SUBJECT_LIMIT
    assert all(len(p) == SUBJECT_LIMIT for p in subject.paths())


def test_a_guard_still_denies_within_the_bound_and_not_past_it():
    """Text past the bound is not matched: a documented limit, tested so it stays known."""
    from lessons_core.hot import match

    lesson = {"commands": [{"source": hot_source(r"\brm\s+-rf\b"), "literal": "rm"}]}
    near = match.Subject({"command": "x" * (SUBJECT_LIMIT - 20) + " rm -rf /"})
    far = match.Subject({"command": "x" * SUBJECT_LIMIT + " rm -rf /"})
    assert match.check(lesson, near) is None
    assert match.check(lesson, far) == "command"


#: Patterns and the exact form the hook runs: one per way of rewriting (a non-overlapping segment
#: found by a look-ahead, the last match before a negative look-ahead, a segment that can run on
#: to the next line tried on one line too, a gap written as a class, trailing repeats dropped).
HOT_FORMS = {
    r"\bjq\b.*\belse\s+empty\b": r"(?<![^\n])(?>[^\n]*?\bjq\b)[^\n]*?\belse\s+empty\b",
    r"git.*push\d+.*main": r"(?<![^\n])(?>[^\n]*?git)(?>[^\n]*?(?=push\d+))push\d+[^\n]*?main",
    r"x.*y[^/]*": r"(?<![^\n])(?>[^\n]*?x)[^\n]*?y",
    r".*x.*y": r"(?<![^\n])(?>[^\n]*?x)[^\n]*?y",  # a leading .* says nothing
    r"x.*y.*?": r"(?<![^\n])(?>[^\n]*?x)[^\n]*?y",
    r"x.*y(a|b)": r"(?<![^\n])(?>[^\n]*?x)[^\n]*?y(a|b)",
    r"xy\d+(?!.*z)": r"(?<![^\n])(?>.*(?=xy\d+))xy\d+(?!.*z)",
    # After a .* gap, the last piece's negative look-ahead is tried on its last match only.
    r"\bgit\b.*\bpush\b(?!.*--dry-run)": (
        r"(?<![^\n])(?>[^\n]*?\bgit\b)(?>.*\bpush\b)(?!.*--dry-run)"
    ),
    r"x\s+y(?!.*z)": (
        r"(?<![^\n])(?:(?>.*(?=x\s+y))x\s+y(?!.*z)|(?>.*(?=x[^\S\n]+y))x[^\S\n]+y(?!.*z))"
    ),
    r"x[^x,]+y(?!.*z)": (
        r"(?<![^\n])(?:(?>.*(?=x[^x,]+y))x[^x,]+y(?!.*z)|(?>.*(?=x[^\nx,]+y))x[^\nx,]+y(?!.*z))"
    ),
    r"\bgit\s+push\b(?=.*--force)": (
        r"(?<![^\n])(?:(?>.*(?=\bgit\s+push\b))\bgit\s+push\b(?=.*--force)"
        r"|(?>[^\n]*?(?=\bgit[^\S\n]+push\b))\bgit[^\S\n]+push\b(?=.*--force))"
    ),
    r"\bgit\b[^|;&\n]*?\bpush\b(?=[^|;&\n]*?\s--force(?:[\s=]|$))": (
        r"(?<![^|;&\n])(?>[^|;&\n]*?\bgit\b)(?>[^|;&\n]*?\bpush\b)"
        r"(?=[^|;&\n]*?\s--force(?:[\s=]|$))"
    ),
    # A possessive .*+ is no gap: its branch stays as written, and the other is still rewritten.
    r"a.*b|x.*+y": r"(?<![^\n])(?>[^\n]*?a)[^\n]*?b|x.*+y",
}


@pytest.mark.parametrize(("source", "hot"), HOT_FORMS.items())
def test_each_way_of_rewriting_gives_its_linear_form(source, hot):
    """A rewrite that silently gave up would leave the pattern as written, which finds the same
    and so passes every test of answers, but costs the square of the subject again."""
    assert hot_source(source) == hot


REWRITTEN = [
    r"git.*push.*--force.*main",
    r".*a.*a.*a.*a.*b",
    r"\bjq\b.*\belse\s+empty\b",
    r"\bpytest\b(?!.*--timeout)",
    r"\bcargo\s+build\b(?!.*--offline)",
    r"\bgit\s+push\b(?=.*(?:\s-f\b|--force(?!-with-lease)))(?=.*\b(?:main|master)\b)",
    r"\bgit\b[^|;&\n]*?\bpush\b(?=[^|;&\n]*?\s--force(?:[\s=]|$))",
    r"\btool3\b(?=[^|;&\n]*?\s--flag3(?:[\s=]|$))",
    r"src/app/api/webhooks/.+/route\.(ts|js)$",
    r"(?i)^.*/api/.*$",
    r"chrome.*9222|--remote-debugging",
    r"x.*a(?:b|bc).*c",
    r"x.*a\sa.*y",
    r"x\s+y(?!.*z)",
    r"x[\s,]+y(?!.*z)",
    *HOT_FORMS,
]
_PARTS = [
    "git",
    "push",
    " --force",
    " -f",
    "main",
    "--timeout",
    "pytest",
    "cargo",
    "build",
    " --offline",
    "jq",
    "else empty",
    "a",
    "b",
    "c",
    "x",
    "y",
    "z",
    " ",
    "\n",
    "|",
    ";",
    "/",
    "api",
    "src/app/api/webhooks/",
    "route.ts",
    "chrome",
    "9222",
    "tool3",
    " --flag3",
    "-with-lease",
    "master",
    "\n ",
    "bc",
    "1",
    "ya",
    "yc",
    ",",
    "\u3000",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PARTS), max_size=14), st.sampled_from(REWRITTEN))
def test_a_rewritten_pattern_finds_exactly_what_the_written_one_finds(parts, source):
    """The rewrite changes the cost of a search, never its answer."""
    text = "".join(parts)
    assert bool(re.search(hot_source(source), text)) is bool(re.search(source, text))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["src", "test", "a", "b", "x.py", "y.ts", "**", "*", "?"]),
        min_size=1,
        max_size=6,
    ),
    st.lists(st.sampled_from(["src", "test", "a", "b", "x.py", "y.ts", "c"]), max_size=8),
    st.booleans(),
)
def test_a_glob_matches_as_the_plain_translation_does(glob_parts, path_parts, absolute):
    """The linear form of a glob with **/ between parts answers as the plain regex does."""
    from lessons_core.patterns import globs

    glob = ("/" if absolute else "") + "/".join(glob_parts)
    path = "/" + "/".join(path_parts)
    plain_body = globs._translate(glob, 0, len(glob), in_braces=False)[0]
    plain_body = plain_body.replace(globs._GLOBSTAR, globs._ANY_DIRS)
    plain = ("^" if absolute else "(?:^|/)") + plain_body + "$"
    fast = globs.glob_to_regex(glob)
    assert bool(re.search(fast, path)) is bool(re.search(plain, path)), (glob, fast, plain)
