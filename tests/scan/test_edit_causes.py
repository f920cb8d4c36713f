"""Why an edit's text was not found, read from the edit that then worked: leading whitespace,
an older version of the file, a retyped long line; and the general lesson when the pair shows
none of them.

Every text here is written for the test.
"""

from __future__ import annotations

from lessons_core.scan import events as ev
from lessons_core.scan.detectors import edit_causes, tier2

NOT_FOUND = "<tool_use_error>String to replace not found in file.</tool_use_error>"
GENERAL = "Edit: copy the text to replace from the file as it is now"
LONG = "\tnotice = 'The reports are rebuilt every night; ask the desk before you change them.'"


def _refused_then_fixed(script, failed: str, fixed: str, path: str = "/p/src/panel.ts") -> None:
    """An edit refused for its text, then an edit of the same file that worked."""
    script.file("Edit", path, NOT_FOUND, failure=ev.VALIDATION, edit=(failed, "x"))
    script.file("Edit", path, "The file has been updated.", edit=(fixed, "x"))


def _one(script):
    (candidate,) = tier2.detect(script.events)
    return candidate


# -- the comparisons ------------------------------------------------------------------------


def test_lines_that_differ_only_in_leading_tabs_are_indentation():
    failed = "\t\tif (ready) {\n\t\t\tstart();\n\t\t}"
    fixed = "\t\t\tif (ready) {\n\t\t\t\tstart();\n\t\t\t}"
    assert edit_causes.cause(failed, fixed) == edit_causes.INDENTATION
    assert edit_causes.cause("    total = 0", "\ttotal = 0") == edit_causes.INDENTATION


def test_the_same_text_or_other_words_are_no_indentation():
    text = "\tif (ready) {\n\t\tstart();"
    assert not edit_causes.indentation_only(text, text)
    assert not edit_causes.indentation_only(text, "\tif (done) {\n\t\tstop();")


def test_a_script_that_rewrote_the_file_shows_the_indentation_in_its_literals():
    """The fix was a script: its text is escaped and framed by code, yet its lines are there."""
    failed = "\t\t<Row item={item} />\n\t\t<Row item={next} />"
    command = (
        "python3 - <<'EOF'\ns = open('panel.tsx').read()\nold = (\n"
        "    '\\t\\t\\t<Row item={item} />\\n'\n"
        "    '\\t\\t\\t<Row item={next} />'\n)\n"
        "open('panel.tsx', 'w').write(s.replace(old, ''))\nEOF"
    )
    script = edit_causes.script_text(command)
    assert edit_causes.cause(failed, script, script=True) == edit_causes.INDENTATION


def test_a_line_an_earlier_edit_took_out_is_an_older_version():
    earlier = [("limit = 10\nretries = 2", "limit = 20\nretries = 2")]
    assert edit_causes.cause("limit = 10", None, earlier) == edit_causes.OLDER_VERSION
    assert edit_causes.cause("limit = 10", None, []) is None


def test_a_file_edited_since_it_was_read_and_a_line_said_otherwise_is_an_older_version():
    """The failed text names a list item by the number it had before the earlier edit."""
    earlier = [("1. Build\n2. Lint", "1. Build")]
    failed, fixed = "3. Test\n   - run the unit tests", "2. Test\n   - run the unit tests"
    assert edit_causes.cause(failed, fixed, earlier) == edit_causes.OLDER_VERSION
    # Without an edit since the file was read, the same pair says nothing of an older version.
    assert edit_causes.cause(failed, fixed, []) is None
    # A fix that only took fewer lines did not say any of them otherwise.
    assert edit_causes.cause(failed, "   - run the unit tests", earlier) is None


def test_one_long_line_a_few_characters_off_is_retyped():
    failed = LONG.replace("them.'", "them'")  # the period dropped
    assert edit_causes.cause(failed, LONG) == edit_causes.RETYPED
    short = "\tname = 'desk'"
    assert edit_causes.cause(short, "\tname = 'desks'") is None  # a short line: on purpose
    two = f"{failed}\n{failed.replace('reports', 'charts')}"
    assert edit_causes.cause(two, f"{LONG}\n{LONG.replace('reports', 'charts')}") is None


def test_a_script_fix_never_claims_a_retyped_line():
    failed = LONG.replace("them.'", "them'")
    assert edit_causes.cause(failed, LONG, script=True) is None


# -- the lesson ------------------------------------------------------------------------------


def test_a_refused_edit_says_its_indentation_was_wrong(script):
    _refused_then_fixed(script, "\t\treturn total;", "\t\t\treturn total;")
    candidate = _one(script)
    assert candidate.summary == "Edit: copy the leading tabs or spaces of the lines to replace"
    assert "leading whitespace" in candidate.mistake
    assert "counting their leading tabs or spaces" in candidate.fix
    assert candidate.trigger is None  # recalled at the refusal, as every such refusal is


def test_a_refused_edit_says_it_was_written_from_an_older_version(script):
    """Read, edited (the limit changed), then an edit written from the file as read."""
    path = "/p/settings.py"
    script.file("Read", path, "1\tlimit = 10\n2\tretries = 2")
    script.file("Edit", path, "updated", edit=("limit = 10", "limit = 20"))
    script.file(
        "Edit", path, NOT_FOUND, failure=ev.VALIDATION, edit=("limit = 10\nretries = 2", "x")
    )
    script.file("Edit", path, "updated", edit=("limit = 20\nretries = 2", "x"))
    candidate = _one(script)
    assert candidate.summary == "Edit: read the lines again after editing the file"
    assert "older version of the file" in candidate.mistake
    assert candidate.fix.startswith("Read the lines again after each edit")


def test_a_read_after_the_earlier_edit_clears_it(script):
    """The file was read again after its edit: what was edited before is no cause."""
    path = "/p/settings.py"
    script.file("Edit", path, "updated", edit=("limit = 10", "limit = 20"))
    script.file("Read", path, "1\tlimit = 20")
    _refused_then_fixed(script, "limit = 10", "limit = 20", path)
    assert _one(script).summary == GENERAL


def test_a_refused_edit_says_a_long_line_was_retyped(script):
    _refused_then_fixed(script, LONG.replace("the desk", "desk"), LONG)
    candidate = _one(script)
    assert candidate.summary == "Edit: copy long lines instead of retyping them"
    assert "retyped" in candidate.mistake


def test_a_pair_that_shows_no_cause_keeps_the_general_lesson(script):
    _refused_then_fixed(script, "\tcolor = 'red'", "\tsize = 'large'")
    assert _one(script).summary == GENERAL


def _session(script, session: str, failed: str, fixed: str, path: str) -> list[ev.Event]:
    one = type(script)(session=session, project=f"/w/{session}")
    one.say(f"Editing, session {session}.")  # (the scripts share one file name: other lines)
    if session != "s1":
        one.say("Next.")
    _refused_then_fixed(one, failed, fixed, path)
    return one.events


def test_one_cause_in_two_sessions_is_one_candidate_and_causes_stay_apart(home, script):
    from lessons_core import services
    from lessons_core.models import Config
    from lessons_core.scan.intake import Intake

    found = [
        *tier2.detect(_session(script, "s1", "\tstart();", "\t\tstart();", "/w/s1/a.ts")),
        *tier2.detect(_session(script, "s2", "  stop();", "    stop();", "/w/s2/b.ts")),
        *tier2.detect(_session(script, "s3", LONG.replace("night", "nite"), LONG, "/w/s3/c.ts")),
    ]
    with services.open_store() as store:
        intake = Intake(store, Config())
        statuses = [intake.admit(c).status for c in found]
        stored = [c for c in store.list_candidates(status=None) if c.tier == 2]
    assert statuses == ["new", "duplicate", "new"]
    by_summary = {c.summary: {e.session_id for e in c.evidence} for c in stored}
    assert by_summary == {
        "Edit: copy the leading tabs or spaces of the lines to replace": {"s1", "s2"},
        "Edit: copy long lines instead of retyping them": {"s3"},
    }


# -- the edits since the file was read ------------------------------------------------------


def test_an_edit_at_the_start_of_the_session_still_counts(script):
    """The file was edited first thing (never read in the session), a remark came between,
    and the refused edit was written from the text before that edit: every event back to the
    session's first is looked at, not every other one."""
    path = "/p/settings.py"
    script.file("Edit", path, "updated", edit=("limit = 10", "limit = 20"))
    script.say("Now the retries.")
    script.file(
        "Edit", path, NOT_FOUND, failure=ev.VALIDATION, edit=("limit = 10\nretries = 2", "x")
    )
    script.file("Edit", path, "updated", edit=("limit = 20\nretries = 2", "x"))
    assert _one(script).summary == "Edit: read the lines again after editing the file"


def test_a_read_sent_beside_the_refused_edit_is_no_read_before_it(script):
    """A Read of the file sent in the same turn as the refused edit (its call between the
    edit's call and its result) came back after the edit was written: the edit made before
    them still explains the refusal."""
    path = "/p/settings.py"
    script.file("Read", path, "1\tlimit = 10\n2\tretries = 2")
    script.file("Edit", path, "updated", edit=("limit = 10", "limit = 20"))
    refused = ("limit = 10\nretries = 2", "x")
    script._add(ev.TOOL_CALL, tool="Edit", paths=(path,), call_id="e1", edit=refused)
    script._add(ev.TOOL_CALL, tool="Read", paths=(path,), call_id="r1")
    script._add(ev.TOOL_RESULT, tool="Edit", call_id="e1", failure=ev.VALIDATION, text=NOT_FOUND)
    script._add(ev.TOOL_RESULT, tool="Read", call_id="r1", text="1\tlimit = 20\n2\tretries = 2")
    script.file("Edit", path, "updated", edit=("limit = 20\nretries = 2", "x"))
    assert _one(script).summary == "Edit: read the lines again after editing the file"


# -- a script as the fix ----------------------------------------------------------------------


def test_a_script_fix_shows_the_indentation_of_the_refused_text(script):
    """The refused edit's text to replace (not its replacement) is compared with the lines
    of the script that then rewrote the file: one more tab on each, so the lesson is the
    indentation."""
    failed = "\t\t<Row item={item} />\n\t\t<Row item={next} />"
    script.file(
        "Edit", "/p/src/panel.tsx", NOT_FOUND, failure=ev.VALIDATION, edit=(failed, "\t\t<Row />")
    )
    script.run(
        "python3 - <<'EOF'\ns = open('panel.tsx').read()\nold = (\n"
        "    '\\t\\t\\t<Row item={item} />\\n'\n"
        "    '\\t\\t\\t<Row item={next} />'\n)\n"
        "open('panel.tsx', 'w').write(s.replace(old, ''))\nEOF",
        "",
    )
    assert _one(script).summary == "Edit: copy the leading tabs or spaces of the lines to replace"


def test_a_script_fix_holding_the_long_line_is_no_retyping(script):
    """The script that rewrote the file holds the long line the refused edit had a few
    characters off, but a script's lines are as often its code: the lesson stays general."""
    script.file(
        "Edit",
        "/p/src/panel.ts",
        NOT_FOUND,
        failure=ev.VALIDATION,
        edit=(LONG.replace("the desk", "desk"), "x"),
    )
    script.run(
        "python3 - <<'EOF'\np = 'panel.ts'\ns = open(p).read()\nold = (\n"
        "    \"\\tnotice = 'The reports are rebuilt every night; ask the desk before you"
        " change them.'\"\n)\nopen(p, 'w').write(s.replace(old, ''))\nEOF",
        "",
    )
    assert _one(script).summary == GENERAL
