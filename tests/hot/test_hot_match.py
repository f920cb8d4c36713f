"""Which lessons fire for a tool call: gates, prefilters, match targets, scope."""

from __future__ import annotations

import marshal

from hot_support import make_lesson, manifest_for, pre_tool

from lessons_core.hot import match
from lessons_core.models import LessonType, MatchTarget


def test_executable_target_ignores_quoted_arguments():
    """`git commit -m "rm -rf /"` must not fire an rm -rf lesson matched on the executable part."""
    lesson = make_lesson(
        triggers={"tool_names": ["Bash"], "command_patterns": [r"\brm\s+-rf\b"]},
        command_match_target=MatchTarget.EXECUTABLE,
    )
    manifest = manifest_for(lesson)
    quoted = pre_tool(tool="Bash", command='git commit -m "rm -rf /"')
    real = pre_tool(tool="Bash", command="rm -rf /tmp/build")
    assert match.matching(manifest, quoted) == []
    assert match.matching(manifest, real) == [lesson.id]


def test_full_target_sees_quoted_arguments():
    """With the default `full` target the whole command string is matched."""
    lesson = make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": [r"\brm\s+-rf\b"]})
    manifest = manifest_for(lesson)
    assert match.matching(manifest, pre_tool(tool="Bash", command='git commit -m "rm -rf /"')) == [
        lesson.id
    ]


def test_tool_gate():
    """A tool-gated lesson fires only for its tools."""
    lesson = make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": ["pytest"]})
    manifest = manifest_for(lesson)
    assert match.matching(manifest, pre_tool(tool="Bash", command="pytest -x")) == [lesson.id]
    assert match.matching(manifest, pre_tool(tool="Write", command="pytest -x")) == []


def test_tool_only_lesson_fires_on_every_call_of_the_tool():
    """No pattern: the tool gate alone decides."""
    lesson = make_lesson(triggers={"tool_names": ["WebFetch"]})
    manifest = manifest_for(lesson)
    assert match.matching(manifest, pre_tool(tool="WebFetch")) == [lesson.id]
    assert match.matching(manifest, pre_tool(tool="Bash", command="ls")) == []


def test_path_globs_on_file_tools_and_command_on_bash():
    """A lesson with command and path patterns: each applies to the calls that have it."""
    lesson = make_lesson(
        triggers={
            "tool_names": ["Bash", "Edit", "Write"],
            "command_patterns": [r"\beval\s+"],
            "path_patterns": ["*.sh"],
        }
    )
    manifest = manifest_for(lesson)
    assert match.matching(manifest, pre_tool(tool="Bash", command="eval $x")) == [lesson.id]
    assert match.matching(manifest, pre_tool(tool="Bash", command="echo hi")) == []
    assert match.matching(manifest, pre_tool(tool="Edit", paths=["/p/run.sh"])) == [lesson.id]
    assert match.matching(manifest, pre_tool(tool="Edit", paths=["/p/run.py"])) == []
    assert match.matching(manifest, pre_tool(tool="Write", paths=[])) == []


def test_windows_paths_are_compared_with_slashes():
    """Backslash separators are turned into `/` before the path regexes run."""
    lesson = make_lesson(triggers={"tool_names": ["Edit"], "path_patterns": ["src/**/*.py"]})
    manifest = manifest_for(lesson)
    event = pre_tool(tool="Edit", paths=["C:\\work\\app\\src\\pkg\\mod.py"])
    assert match.matching(manifest, event) == [lesson.id]


def test_content_patterns_need_introduced_text():
    """Content patterns are an AND gate on the text the call introduces."""
    lesson = make_lesson(
        triggers={
            "tool_names": ["Edit", "Read"],
            "path_patterns": ["*.py"],
            "content_patterns": [r"\bprint\("],
        }
    )
    manifest = manifest_for(lesson)
    with_print = pre_tool(tool="Edit", paths=["/a/x.py"], content="print(1)")
    without = pre_tool(tool="Edit", paths=["/a/x.py"], content="log(1)")
    read = pre_tool(tool="Read", paths=["/a/x.py"])
    assert match.matching(manifest, with_print) == [lesson.id]
    assert match.matching(manifest, without) == []
    assert match.matching(manifest, read) == []


def test_any_tool_lessons_are_checked_for_every_tool():
    """A lesson with patterns but no tool gate is considered for any tool."""
    lesson = make_lesson(triggers={"content_patterns": ["AKIA[0-9A-Z]{16}"]})
    manifest = manifest_for(lesson)
    event = pre_tool(tool="Write", paths=["/a/.env"], content="key=AKIAABCDEFGHIJKLMNOP")
    assert match.matching(manifest, event) == [lesson.id]


def test_model_gate():
    """Model patterns narrow a lesson; an unknown model passes."""
    lesson = make_lesson(
        triggers={"tool_names": ["Bash"], "command_patterns": ["sed -i"], "model_patterns": ["gpt"]}
    )
    manifest = manifest_for(lesson)
    cmd = "sed -i s/a/b/ f"
    assert match.matching(manifest, pre_tool(tool="Bash", command=cmd, model="gpt-5")) == [
        lesson.id
    ]
    assert match.matching(manifest, pre_tool(tool="Bash", command=cmd, model="claude-x")) == []
    assert match.matching(manifest, pre_tool(tool="Bash", command=cmd, model=None)) == [lesson.id]


def test_scope_compares_the_project_id(tmp_path):
    """A scoped lesson fires only where `project_id(cwd)` equals its scope."""
    from lessons_core.hot.project import project_id

    here = tmp_path / "proj"
    here.mkdir()
    other = tmp_path / "other"
    other.mkdir()
    scope = project_id(str(here))
    lesson = make_lesson(
        triggers={"tool_names": ["Bash"], "command_patterns": ["make"]}, scope=scope
    )
    manifest = manifest_for(lesson)
    assert match.matching(manifest, pre_tool(tool="Bash", command="make", cwd=str(here))) == [
        lesson.id
    ]
    assert match.matching(manifest, pre_tool(tool="Bash", command="make", cwd=str(other))) == []


def test_prefilter_skips_compiling(monkeypatch):
    """A pattern whose literal is absent is never compiled."""
    lesson = make_lesson(
        triggers={"tool_names": ["Bash"], "command_patterns": [r"\bterraform\s+apply"]}
    )
    manifest = manifest_for(lesson)
    match._compiled.clear()
    assert match.matching(manifest, pre_tool(tool="Bash", command="ls -la")) == []
    assert match._compiled == {}
    assert match.matching(manifest, pre_tool(tool="Bash", command="terraform  apply")) == [
        lesson.id
    ]
    assert list(match._compiled) == [r"\bterraform\s+apply"]


def test_case_folding_pattern_matches_non_ascii_fold():
    """A case-insensitive pattern still fires when the text folds only under re.IGNORECASE."""
    lesson = make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": ["(?i)kubectl"]})
    manifest = manifest_for(lesson)
    event = pre_tool(tool="Bash", command="\u212aUBECTL get pods")  # Kelvin sign folds to k
    assert match.matching(manifest, event) == [lesson.id]


def test_trace_names_the_failing_gate():
    """`trace` reports for each lesson the gate it stopped at (None = fires)."""
    on_bash = make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": ["pytest"]})
    on_edit = make_lesson(triggers={"tool_names": ["Edit"], "path_patterns": ["*.md"]})
    gates = dict(match.trace(manifest_for(on_bash, on_edit), pre_tool(tool="Bash", command="ls")))
    assert gates == {on_bash.id: "command", on_edit.id: "tool"}


# -- the call's search budget ---------------------------------------------------------------


def test_searched_takes_the_limit_then_the_budget_and_never_less_than_the_short_subject():
    assert match.searched(100, None, None) == 100
    assert match.searched(100, 40, None) == 40
    assert match.searched(100, 400, None) == 100
    assert match.searched(30_000, None, 10_000) == 10_000  # what the budget has left
    assert match.searched(30_000, None, 10) == match.SHORT_SUBJECT  # spent: the short subject
    assert match.searched(30_000, None, -5) == match.SHORT_SUBJECT
    assert match.searched(100, None, 10) == 100  # a short subject is never cut
    assert match.searched(30_000, 1_000, 10) == 1_000


#: Linear, so it carries no subject limit of its own: only the call's budget can cut it.
_LINEAR_FORCE_PUSH = r"\bgit\s+push\s+--force\b"


def _long_command(tail: str) -> str:
    """A command of the hook's whole subject length with ``tail`` at its very end."""
    filler = "echo lint-check-ok; " * (match.SUBJECT_LIMIT // 20)
    tail = "; " + tail
    return filler[: match.SUBJECT_LIMIT - len(tail)] + tail


def _many_hints(count: int) -> list:
    """Hints whose pattern holds the filler's literal, so every one is searched whole."""
    return [
        make_lesson(
            summary=f"hint {i}",
            triggers={"tool_names": ["Bash"], "command_patterns": [rf"lint-check-ok;\s*x{i}\b"]},
        )
        for i in range(count)
    ]


def test_hints_share_the_calls_budget_so_a_long_command_is_not_searched_whole_by_each():
    """Past the budget, a hint sees only the start of a long command: its match at the end is
    not found, while the same hint on a fresh call finds it."""
    spend = match.SEARCH_BUDGET // match.SUBJECT_LIMIT + 1
    late = make_lesson(
        summary="late hint",
        triggers={"tool_names": ["Bash"], "command_patterns": [_LINEAR_FORCE_PUSH]},
    )
    hints = _many_hints(spend)
    manifest = manifest_for(*hints, late)
    lessons = manifest["lessons"]
    assert "limit" not in lessons[late.id]["commands"][0]
    event = pre_tool(tool="Bash", command=_long_command("git push --force"))
    subject = match.Subject(event)
    for hint in hints:
        assert match.check(lessons[hint.id], subject) == "command"
    assert match.check(lessons[late.id], subject) == "command"
    assert match.check(lessons[late.id], match.Subject(event)) is None


def test_a_guard_sees_the_whole_command_however_much_the_hints_searched():
    spend = match.SEARCH_BUDGET // match.SUBJECT_LIMIT + 1
    guard = make_lesson(
        summary="never force-push",
        type=LessonType.GUARD,
        triggers={"tool_names": ["Bash"], "command_patterns": [_LINEAR_FORCE_PUSH]},
    )
    hints = _many_hints(spend)
    manifest = manifest_for(*hints, guard)
    lessons = manifest["lessons"]
    subject = match.Subject(pre_tool(tool="Bash", command=_long_command("git push --force")))
    for hint in hints:
        match.check(lessons[hint.id], subject)
    assert subject.left < match.SHORT_SUBJECT  # the hints spent the budget
    assert match.check(lessons[guard.id], subject) is None


def test_one_call_searches_at_most_the_budget_and_a_short_subject_per_further_hint():
    count = 3 * (match.SEARCH_BUDGET // match.SUBJECT_LIMIT)
    manifest = manifest_for(*_many_hints(count))
    subject = match.Subject(pre_tool(tool="Bash", command=_long_command("done")))
    lessons = manifest["lessons"]
    for lesson_id in match.candidates(manifest, "Bash"):
        match.check(lessons[lesson_id], subject)
    spent = match.SEARCH_BUDGET - subject.left
    assert spent <= match.SEARCH_BUDGET + count * match.SHORT_SUBJECT
    assert spent > match.SEARCH_BUDGET  # every hint was searched, the later ones in part


def test_subject_limit_is_the_compilers_to_the_character():
    """Patterns see exactly the first characters the compiler measured them on: a match that
    ends on the last of them fires, one that ends just past them does not."""
    from lessons_core.patterns.probe import SUBJECT_LIMIT

    lesson = make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": ["zz"]})
    manifest = manifest_for(lesson)
    inside = "a" * (SUBJECT_LIMIT - 2) + "zz"
    past = "a" * (SUBJECT_LIMIT - 1) + "zz"
    assert match.matching(manifest, pre_tool(tool="Bash", command=inside)) == [lesson.id]
    assert match.matching(manifest, pre_tool(tool="Bash", command=past)) == []


def test_build_time_programs_are_what_runs():
    """A pattern with a program in the manifest runs that program (as a tuple, or marshalled
    as the marshal copy stores it): the hook does not compile it again."""
    from lessons_core.patterns.programs import program

    other = program("beta")
    for stored in (other, marshal.dumps(other)):
        match._compiled.clear()
        match.use_programs({"programs": {"alpha": stored}})
        try:
            compiled = match.compiled("alpha")
            assert compiled.search("beta") is not None
            assert compiled.search("alpha") is None
        finally:
            match.use_programs({})
            match._compiled.clear()


def test_empty_and_odd_paths_are_no_paths():
    """Empty or non-string entries of an event's paths are not paths: a lesson with command and
    path patterns is judged on the command alone, and nothing raises."""
    lesson = make_lesson(
        triggers={
            "tool_names": ["Bash"],
            "command_patterns": [r"\beval\s+"],
            "path_patterns": ["*.sh"],
        }
    )
    manifest = manifest_for(lesson)
    for paths in ([""], ["", None, 42]):
        event = pre_tool(tool="Bash", command="eval $x", paths=paths)
        assert match.matching(manifest, event) == [lesson.id]


def test_absent_literal_spares_compiling_a_case_folding_pattern_on_ascii_text():
    """On ASCII text, where `str.lower` folds as `re.IGNORECASE` does, a case-folding pattern
    whose literal is absent is not compiled either."""
    lesson = make_lesson(
        triggers={"tool_names": ["Bash"], "command_patterns": [r"(?i)\bterraform\s+apply"]}
    )
    manifest = manifest_for(lesson)
    match._compiled.clear()
    assert match.matching(manifest, pre_tool(tool="Bash", command="ls -la")) == []
    assert match._compiled == {}
    assert match.matching(manifest, pre_tool(tool="Bash", command="TERRAFORM apply")) == [lesson.id]


def test_trace_names_the_kind_a_call_lacks():
    """A call with neither kind of subject a lesson's patterns need fails on the kind the lesson
    has: `command` for command patterns alone, `path` when it has path patterns."""
    commands = make_lesson(triggers={"tool_names": ["Bash", "Edit"], "command_patterns": ["make"]})
    paths = make_lesson(triggers={"tool_names": ["Bash", "Edit"], "path_patterns": ["*.md"]})
    both = make_lesson(
        triggers={
            "tool_names": ["Bash", "Edit"],
            "command_patterns": ["make"],
            "path_patterns": ["*.md"],
        }
    )
    manifest = manifest_for(commands, paths, both)
    gates = dict(match.trace(manifest, pre_tool(tool="Edit", content="x")))
    assert gates == {commands.id: "command", paths.id: "path", both.id: "path"}


def test_trace_leaves_out_session_start_lessons_and_goes_on():
    """Protocol and directive lessons have no gates to trace; the lessons after them still do."""
    directive = make_lesson(type=LessonType.DIRECTIVE)
    protocol = make_lesson(type=LessonType.PROTOCOL)
    hint = make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": ["pytest"]})
    manifest = manifest_for(directive, protocol, hint)
    assert match.trace(manifest, pre_tool(tool="Bash", command="pytest")) == [(hint.id, None)]


def test_prefilter_looks_for_needles_in_the_executable_text_too():
    """An executable-target pattern is matched on the command with its quoted data blanked, so
    the prefilter looks for its needles there as well as in the command as written."""
    lesson = make_lesson(
        triggers={"tool_names": ["Bash"], "command_patterns": ["commit -m ''"]},
        command_match_target=MatchTarget.EXECUTABLE,
    )
    manifest = manifest_for(lesson)
    assert manifest["prefilter"]["Bash"]["pairs"] == [["commit -m ''", lesson.id]]
    event = pre_tool(tool="Bash", command="git commit -m 'wip'")
    assert match.matching(manifest, event) == [lesson.id]


def test_every_pattern_of_a_lesson_is_tried_past_an_absent_literal():
    """A pattern whose literal (one substring, or any of several) is absent is passed over, not
    the lesson: its next pattern still decides, and a present literal lets its pattern run."""
    lesson = make_lesson(
        triggers={"tool_names": ["Bash"], "command_patterns": ["terraform", "kubectl"]}
    )
    either = make_lesson(
        triggers={"tool_names": ["Bash"], "command_patterns": [r"\b(npm|pnpm)\s+i\b", "yarn"]}
    )
    manifest = manifest_for(lesson, either)
    assert match.matching(manifest, pre_tool(tool="Bash", command="kubectl get")) == [lesson.id]
    assert match.matching(manifest, pre_tool(tool="Bash", command="yarn add")) == [either.id]
    assert match.matching(manifest, pre_tool(tool="Bash", command="pnpm i x")) == [either.id]


def test_absent_literal_spares_compiling_on_non_ascii_text():
    """A pattern that does not fold case is passed over by its absent literal on any text."""
    lesson = make_lesson(
        triggers={"tool_names": ["Bash"], "command_patterns": [r"\bterraform\s+apply"]}
    )
    manifest = manifest_for(lesson)
    match._compiled.clear()
    assert match.matching(manifest, pre_tool(tool="Bash", command="echo héllo")) == []
    assert match._compiled == {}


def test_a_polynomial_pattern_sees_its_own_limit_only():
    """A pattern the build measured on a shorter subject (its `limit`) is searched on that many
    characters: a match past them does not fire, one inside does."""
    lesson = make_lesson(
        triggers={"tool_names": ["Bash"], "command_patterns": [r"\bgit\s+push\b.*--force\b"]}
    )
    manifest = manifest_for(lesson)
    entry = manifest["lessons"][lesson.id]
    (pattern,) = entry["commands"]
    limit = pattern["limit"]
    inside = "git push " + " " * (limit - len("git push --force")) + "--force"
    past = "git push " + " " * limit + "--force"
    # `check` judges a lesson listed for the call unless told otherwise (as the judging does)
    assert match.check(entry, match.Subject(pre_tool(tool="Bash", command=inside))) is None
    assert match.check(entry, match.Subject(pre_tool(tool="Bash", command=past))) == "command"


def test_a_broken_program_falls_back_to_compiling():
    """A stored program `_sre` refuses is no failure: the pattern is compiled from its source."""
    match._compiled.clear()
    match.use_programs({"programs": {"alpha": (0, [1, 2, 3], 0, {}, ())}})
    try:
        assert match.compiled("alpha").search("xalphax") is not None
    finally:
        match.use_programs({})
        match._compiled.clear()


def test_an_empty_model_is_an_unknown_model():
    """A call naming its model as an empty string passes the model gate, as one naming none."""
    lesson = make_lesson(
        triggers={"tool_names": ["Bash"], "command_patterns": ["sed -i"], "model_patterns": ["gpt"]}
    )
    manifest = manifest_for(lesson)
    event = pre_tool(tool="Bash", command="sed -i s/a/b/ f", model="")
    assert match.matching(manifest, event) == [lesson.id]


def test_a_cwd_that_is_no_path_keeps_a_scoped_lesson_silent():
    """A payload whose cwd is not a string has no project: a scoped lesson does not fire there,
    and the call is judged without raising."""
    lesson = make_lesson(
        triggers={"tool_names": ["Bash"], "command_patterns": ["make"]}, scope="github.com/o/r"
    )
    manifest = manifest_for(lesson)
    assert match.matching(manifest, pre_tool(tool="Bash", command="make", cwd=42)) == []
