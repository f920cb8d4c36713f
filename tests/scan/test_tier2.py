"""Tier 2 heuristics: error → correction, user corrections, retries, hangs, self-diagnosis."""

from __future__ import annotations

import pytest

from lessons_core.models import Config, ScoringWeights
from lessons_core.scan import events as ev
from lessons_core.scan import scoring, tier2

ERR = ev.ERROR


def _one(script, config=None):
    found = list(tier2.detect(script.events, config=config or Config()))
    assert len(found) == 1, found
    return found[0]


def test_error_then_corrected_call_is_a_candidate(script):
    """A failure, then a similar call with different input that works."""
    script.run("pytest tests/", "bash: pytest: command not found", failure=ERR, code=127)
    script.run(".venv/bin/python -m pytest tests/", "12 passed")
    candidate = _one(script)
    assert candidate.tier == 2
    assert candidate.tool == "Bash"
    # Run bare from PATH: the fix runs pytest too, through the virtual environment.
    assert candidate.trigger == r"^\s*\bpytest\b"
    assert "`pytest tests/` failed: the executable is not on PATH" in candidate.mistake
    assert "command not found" in candidate.mistake
    assert ".venv/bin/python -m pytest tests/" in candidate.fix
    assert candidate.summary == "pytest: the command is not on PATH"
    assert candidate.error_lines == ("bash: pytest: command not found",)
    assert candidate.tags == ("tool:pytest", "lang:python")
    assert candidate.confidence == pytest.approx(0.3 + 0.25 + 0.1)
    (evidence,) = candidate.evidence
    assert (evidence.line, evidence.call_id, evidence.session_id) == (2, "c1", "s1")


def test_no_correction_no_candidate(script):
    """A failure nobody fixed teaches nothing."""
    script.run("make deploy", "error: no target", failure=ERR, code=2)
    script.run("ls", "a b")
    assert list(tier2.detect(script.events)) == []


def test_same_call_working_on_retry_is_flaky_not_a_mistake(script):
    """The identical command failing then working is a transient failure."""
    script.run("git fetch origin", "Could not resolve host", failure=ERR, code=128)
    script.run("git fetch origin", "ok")
    assert list(tier2.detect(script.events)) == []


def test_rejections_and_denials_are_not_mistakes(script):
    """The user saying no, or a permission rule, is not the agent's mistake."""
    script.run("rm -rf build", "user doesn't want to proceed", failure=ev.REJECTED)
    script.run("rm -rf build/cache", "ok")
    script.run("curl x | sh", "This command requires approval", failure=ev.DENIED)
    script.run("curl -o x.sh x", "ok")
    assert list(tier2.detect(script.events)) == []


def test_retry_loop_raises_confidence_and_priority(script):
    """The same failing call three times, then a fix: retry-loop signal, higher priority."""
    for _ in range(3):
        script.run("npm test", 'npm ERR! Missing script: "test"', failure=ERR, code=1)
    script.run("npm run test:unit", "40 passed")
    candidate = _one(script)
    assert candidate.confidence == pytest.approx(0.3 + 0.25 + 0.15 + 0.1)
    assert candidate.priority == 6
    # Every failed attempt is evidence; the trigger is ``npm test``, not ``npm run test:unit``.
    assert [e.line for e in candidate.evidence] == [2, 4, 6]
    assert candidate.trigger == r"\bnpm\b\s+test(?![\w:.-])"


def test_user_correction_within_the_window(script):
    """The user's correction between failure and fix is quoted and scored."""
    script.run("pip install requests", "error: externally-managed-environment", failure=ERR, code=1)
    script.user("no, use uv add for dependencies here")
    script.run("uv add requests", "Resolved 5 packages")
    candidate = _one(script)
    assert "the user said: “no, use uv add" in candidate.mistake
    assert candidate.confidence == pytest.approx(0.3 + 0.3 + 0.25)


def test_user_correction_after_a_call_that_worked(script):
    """No error at all: the user's words say what was wrong; the next call is the fix."""
    script.run("pip install requests", "Successfully installed")
    script.user("don't use pip here, use uv add instead")
    script.run("uv add requests", "Resolved")
    candidate = _one(script)
    assert "was not what the user wanted" in candidate.mistake
    assert candidate.trigger.startswith(r"\bpip\b")


def test_hang_or_timeout_signal(script):
    """A timed-out call followed by a working variant scores the hang signal."""
    script.run("cargo build", "Command timed out after 2m", failure=ev.TIMEOUT)
    script.run("cargo build --offline", "Finished")
    candidate = _one(script)
    assert candidate.confidence == pytest.approx(0.3 + 0.25 + 0.15)
    assert candidate.priority == 6


def test_self_diagnosis_is_quoted_in_the_fix(script):
    """The agent's own explanation (before the fix) becomes part of the fix text."""
    script.run("git gc --auto --dry-run", "error: unknown option `dry-run'", failure=ERR, code=129)
    script.say("Let me look. I see the issue: gc has no dry run; prune has one.")
    script.run("git gc --auto", "ok")
    candidate = _one(script)
    assert candidate.fix.startswith("I see the issue: gc has no dry run; prune has one.")
    assert candidate.trigger == r"\bgit\b[^|;&\n]*?\bgc\b(?=[^|;&\n]*?\s--dry-run(?:[\s=]|$))"
    assert candidate.confidence == pytest.approx(0.3 + 0.25 + 0.1 + 0.1)


def test_weights_come_from_the_configuration(script):
    """``Config.scoring`` drives the formula, capped at ``max_confidence``."""
    script.run("cargo build", "timed out", failure=ev.TIMEOUT)
    script.say("The problem was the blocked network.")
    script.run("cargo build --offline", "Finished")
    weights = ScoringWeights(
        base=0.5, error_then_success=0.3, hang_or_timeout=0.3, max_confidence=0.9
    )
    candidate = _one(script, Config(scoring=weights))
    assert candidate.confidence == 0.9


def test_edit_before_read_suggests_reading_first(script):
    """File tools match on the file; a Read in between is the remedy."""
    script.file("Edit", "/p/src/app.py", "File has not been read yet.", failure=ev.VALIDATION)
    script.file("Read", "/p/src/app.py", "1\tx = 1")
    script.file("Edit", "/p/src/app.py", "updated")
    candidate = _one(script)
    assert candidate.tool == "Edit"
    assert candidate.trigger == "**/*.py"
    assert candidate.summary == "Edit: read the file before changing it"
    assert candidate.fix.startswith("Read the file first, then repeat the Edit")


def test_probe_with_no_output_is_not_a_mistake(script):
    """``rg`` exiting 1 with no output found nothing; that is not an error."""
    script.run('rg "PATCH" src', "", failure=ERR, code=1)
    script.run('rg "updateTeam" src', "src/a.ts:1")
    assert list(tier2.detect(script.events)) == []


def test_sessions_are_kept_apart(script):
    """A failure in one session is not corrected by a call in another."""
    script.run("pytest", "not found", failure=ERR, code=127)
    script.session = "s2"
    script.run("python -m pytest", "ok")
    assert list(tier2.detect(script.events)) == []


def test_scoring_priority_recurrence():
    """Priority grows with severity and with the number of sessions."""
    assert scoring.priority({scoring.ERROR_THEN_SUCCESS}) == 5
    assert scoring.priority({scoring.RETRY_LOOP}, sessions=3) == 8
    assert scoring.priority(set(), sessions=20) == 7


def test_other_subcommands_are_not_corrections(script):
    """``git commit`` failing then ``git log`` working is another task, not a fix."""
    script.run('git commit -m "x"', "nothing to commit, working tree clean", failure=ERR, code=1)
    script.run("git log --oneline -5", "abc123 x")
    assert list(tier2.detect(script.events)) == []


def test_failed_setup_step_is_not_a_lesson(script):
    """When ``cd`` is what failed, the command after it teaches nothing."""
    script.run(
        "cd test && uv run pytest",
        "(eval):cd:1: no such file or directory: test",
        failure=ERR,
        code=1,
    )
    script.run("uv run pytest test/", "5 passed")
    assert list(tier2.detect(script.events)) == []


def test_a_new_request_is_not_a_correction_of_the_previous_call(script):
    """ "Don't forget the tests" after a commit, then pytest: a new task, no candidate."""
    script.run('git commit -m "feat: x"', "[main abc123] feat: x")
    script.user("don't forget to run the tests as well")
    script.run("python -m pytest -q", "12 passed")
    assert list(tier2.detect(script.events)) == []


def test_codex_search_with_no_match_is_not_a_mistake(tmp_path):
    """A unified-exec ``rg`` that exits 1 with no output found nothing: no candidate."""
    import json

    from lessons_codex import reader

    rows = [
        {"type": "session_meta", "payload": {"id": "s", "cwd": "/p"}},
        {
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": "rg PATCH src"}),
                "call_id": "a",
            },
        },
        {
            "type": "response_item",
            "payload": {
                "type": "function_call_output",
                "call_id": "a",
                "output": "Chunk ID: 1\nWall time: 0.1 seconds\n"
                "Process exited with code 1\nOutput:\n",
            },
        },
        {
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": "rg patch src"}),
                "call_id": "b",
            },
        },
        {
            "type": "response_item",
            "payload": {
                "type": "function_call_output",
                "call_id": "b",
                "output": "Process exited with code 0\nOutput:\nsrc/a.ts:1:patch\n",
            },
        },
    ]
    path = tmp_path / "rollout-x.jsonl"
    path.write_text("".join(json.dumps({"timestamp": "t", **r}) + "\n" for r in rows))
    events = list(reader.read(path, progress=ev.Progress()))
    failed = next(e for e in events if e.kind == ev.TOOL_RESULT and e.call_id == "a")
    assert (failed.failure, failed.exit_code, failed.text) == (ev.ERROR, 1, "")
    assert list(tier2.detect(events)) == []
