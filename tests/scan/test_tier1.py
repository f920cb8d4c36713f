"""Tier 1: parsing ``#lesson`` blocks, and what must never be captured."""

from __future__ import annotations

from lessons_core import protocol
from lessons_core.scan import tier1

GOOD = """Done.
#lesson
tool: Bash
trigger: pytest tests/
mistake: bare pytest is not on PATH; it lives inside the project's virtualenv
fix: run .venv/bin/python -m pytest so the virtualenv's pytest is used
tags: tool:pytest, lang:python
#/lesson
"""


def test_a_block_in_assistant_text_becomes_a_tier1_candidate(script):
    """Fields map onto the candidate; confidence is 0.85; the trigger is generalised."""
    script.say(GOOD)
    (candidate,) = tier1.detect(script.events)
    assert candidate.tier == 1
    assert candidate.tool == "Bash"
    assert candidate.trigger == r"\bpytest\b"
    assert candidate.mistake.startswith("bare pytest is not on PATH")
    assert candidate.fix.startswith("run .venv/bin/python -m pytest")
    assert candidate.tags == ("tool:pytest", "lang:python")
    assert candidate.confidence == 0.85
    assert candidate.evidence[0].line == 1
    assert candidate.evidence[0].call_id is None
    assert candidate.evidence[0].session_id == "s1"


def test_field_order_aliases_crlf_indentation_and_continuations():
    """Any order, problem/solution, CRLF, indentation, bullets and wrapped values parse."""
    text = (
        "  #lesson\r\n"
        "   - **solution**: pass --offline so cargo uses\r\n"
        "     the vendored crates\r\n"
        "   - problem: cargo build hangs on the blocked network\r\n"
        "   - tool: bash\r\n"
        "  #/lesson\r\n"
    )
    (fields,) = tier1.parse_blocks(text)
    assert fields["fix"] == "pass --offline so cargo uses the vendored crates"
    assert fields["mistake"] == "cargo build hangs on the blocked network"
    assert tier1.canonical_tool(fields["tool"]) == "Bash"
    assert tier1.rejection(fields) is None


def test_blocks_in_tool_results_and_user_text_are_not_captured(script):
    """Only the agent's own prose counts: quoted or pasted blocks are not lessons."""
    script.run("cat NOTES.md", GOOD)
    script.user(GOOD)
    assert list(tier1.detect(script.events)) == []


def test_the_protocol_template_is_rejected(script):
    """An agent echoing the protocol's example block has not learned anything."""
    script.say(protocol.PROTOCOL_TEXT)
    assert list(tier1.detect(script.events)) == []


def test_placeholders_are_rejected(script):
    """``<…>``, ``...``, ``TODO`` in the fields mark an unfilled template."""
    for body in (
        "tool: <tool>\nmistake: <what went wrong>\nfix: <what worked>",
        "mistake: the build failed because of ...\nfix: fix the build configuration properly",
        "mistake: pip install fails outside the virtualenv\nfix: TODO",
    ):
        script.say(f"#lesson\n{body}\n#/lesson")
    assert list(tier1.detect(script.events)) == []


def test_missing_mistake_or_fix_is_rejected():
    """A block needs both halves."""
    assert tier1.rejection({"mistake": "something went quite wrong here"}) is not None
    assert tier1.rejection({"fix": "do the right thing next time around"}) is not None


def test_regex_triggers_are_kept_and_file_triggers_become_globs():
    """A trigger that already is a regex stays; a file tool's trigger is a glob."""
    assert tier1.trigger_for("Bash", r"\bcargo\s+build\b(?!.*--offline)") == (
        r"\bcargo\s+build\b(?!.*--offline)"
    )
    assert tier1.trigger_for("Edit", "src/app/models.py") == "**/*.py"
    assert tier1.trigger_for("Edit", "**/migrations/*.py") == "**/migrations/*.py"


def test_an_unsafe_regex_trigger_is_kept_as_written():
    """A trigger the compiler would refuse stays as the agent wrote it: intake then holds the
    block for review instead of making it live (see tests/security/test_patterns.py)."""
    from lessons_core.compiler.regex_safety import check_pattern

    got = tier1.trigger_for("Bash", r"\bnpm\s+(\w+\s*)+test\b")
    assert got == r"\bnpm\s+(\w+\s*)+test\b"
    assert check_pattern(got) is not None


def test_a_block_split_over_two_text_events_is_joined(script):
    """Claude writes one content block per line; a block may span two of them."""
    head, tail = GOOD.split("fix:")
    script.say(head)
    script.say("fix:" + tail)
    (candidate,) = tier1.detect(script.events)
    assert candidate.fix.startswith("run .venv/bin/python")


def test_several_blocks_in_one_message(script):
    """Every block of a message is its own candidate."""
    other = GOOD.replace("pytest tests/", "npm test").replace("bare pytest", "bare npm test")
    script.say(GOOD + "\n" + other)
    assert len(list(tier1.detect(script.events))) == 2
