"""Tier 2 heuristics: error → correction, user corrections, retries, hangs, self-diagnosis."""

from __future__ import annotations

import attrs
import pytest

from lessons_codex import failures as codex_failures
from lessons_core.models import Config, ScoringWeights
from lessons_core.scan import events as ev
from lessons_core.scan import intake, scoring
from lessons_core.scan.detectors import tier2, triggers
from lessons_core.scan.detectors.tier2 import lesson

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


def test_self_diagnosis_raises_the_confidence_but_stays_out_of_the_fix(script):
    """The agent's own explanation (before the fix) is a signal; the fix text is told from the
    calls, since what the agent says is as often narration as a diagnosis."""
    script.run("git gc --auto --dry-run", "error: unknown option `dry-run'", failure=ERR, code=129)
    script.say("Let me look. I see the issue: gc has no dry run; prune has one.")
    script.run("git gc --auto", "ok")
    candidate = _one(script)
    assert "I see the issue" not in candidate.fix
    assert candidate.fix.startswith("Drop or replace the option: `git gc --auto` worked")
    assert candidate.trigger == r"\bgit\b[^|;&\n]*?\bgc\b(?=[^|;&\n]*?\s--dry-run(?:[\s=]|$))"
    assert candidate.confidence == pytest.approx(0.3 + 0.25 + 0.1 + 0.1)


def test_the_diagnosis_is_its_whole_sentence(script):
    """The sentence starts after the last sentence break before the diagnosis, which the dot
    of a file name is not (it cut ``app.py`` to ``py …``)."""
    script.run("git gc --auto --dry-run", "error: unknown option `dry-run'", failure=ERR, code=129)
    script.say("Checked. Running app.py made it plain and I see the issue: gc has no dry run. So.")
    script.run("git gc --auto", "ok")
    ((finding, _candidate),) = tier2.findings(script.events)
    assert finding.diagnosis == (
        "Running app.py made it plain and I see the issue: gc has no dry run."
    )


def test_weights_come_from_the_configuration(script):
    """``Config.scoring`` drives the formula, capped at ``max_confidence``: every weight differs
    from its default, so a default used in place of any one of them changes the sum."""
    script.run("cargo build", "timed out", failure=ev.TIMEOUT)
    script.say("The problem was the blocked network.")
    script.run("cargo build --offline", "Finished")
    weights = ScoringWeights(
        base=0.2,
        error_then_success=0.05,
        hang_or_timeout=0.2,
        self_diagnosis=0.15,
        user_correction=0.02,  # the signals this finding lacks add nothing
        retry_loop=0.02,
        known_mistake=0.02,
    )
    candidate = _one(script, Config(scoring=weights))
    assert candidate.confidence == pytest.approx(0.2 + 0.05 + 0.2 + 0.15)
    capped = _one(script, Config(scoring=attrs.evolve(weights, max_confidence=0.5)))
    assert capped.confidence == 0.5


def test_edit_before_read_suggests_reading_first(script):
    """A Read in between is the remedy; the lesson comes back with the refusal, not before
    every Edit of a ``.py`` file (nothing in the call shows that the file was not read)."""
    script.file("Edit", "/p/src/app.py", "File has not been read yet.", failure=ev.VALIDATION)
    script.file("Read", "/p/src/app.py", "1\tx = 1")
    script.file("Edit", "/p/src/app.py", "updated")
    candidate = _one(script)
    assert candidate.tool == "Edit" and candidate.trigger is None
    assert candidate.error_lines == ("File has not been read yet.",)
    assert candidate.tags == ("tool:edit", "lang:python")
    assert candidate.summary == "Edit: read the file before changing it"
    assert candidate.fix.startswith("Read the file first, then repeat the Edit")


@pytest.mark.parametrize(
    ("tool", "path", "fixed", "refusal", "summary"),
    [
        (
            "Edit",
            "/p/src/app.js",
            "/p/src/app.js",
            "<tool_use_error>String to replace not found in file.\nString: "
            "  const port = 8080;</tool_use_error>",
            "Edit: copy the text to replace from the file as it is now",
        ),
        (
            "Edit",
            "/p/test/test_x.py",
            "/p/test/test_x.py",
            "<tool_use_error>Found 2 matches of the string to replace, but replace_all is false."
            "\nString:         with tempfile.TemporaryDirectory() as d:</tool_use_error>",
            "Edit: make the text to replace unique",
        ),
        (
            "Glob",
            ".",
            "/p",
            "Path must be absolute: .",
            "Glob: give the tool an absolute path",
        ),
    ],
)
def test_refusals_the_call_does_not_show_carry_only_their_own_words(
    script, tool, path, fixed, refusal, summary
):
    """Stale or repeated text, or a relative path: no extension glob (it would fire on nearly
    every call of the tool); the refusal's line, without the tool's echo of the input (one
    repository's code), is what recall finds the lesson by."""
    script.file(tool, path, refusal, failure=ev.VALIDATION)
    if tool == "Edit":
        script.file("Read", fixed, "1\tx = 1")
    script.file(tool, fixed, "updated")
    candidate = _one(script)
    assert (candidate.tool, candidate.trigger) == (tool, None)
    assert candidate.summary == summary
    (line,) = candidate.error_lines
    assert "String:" not in line and "tempfile" not in line and "const port" not in line
    if tool == "Edit":
        # The Read in between is not the fix (the tool asked for other text, not a read); it
        # is what the lesson says to do before the Edit that then worked.
        name = fixed.rsplit("/", 1)[1]
        assert candidate.fix == (
            f"Read the file again before the Edit; the Edit call on {name} then worked."
        )


def test_a_file_tool_mistake_the_path_shows_keeps_its_path_trigger(script):
    """Reading a directory: the path is what was wrong, so the lesson keeps a path trigger."""
    script.file("Read", "/p/src/deep-manifest", "EISDIR: illegal operation on a directory")
    script.events[-1] = ev.Event(
        ev.TOOL_RESULT,
        "claude",
        session_id="s1",
        project="/p",
        file="/t/session.jsonl",
        line=2,
        offset=200,
        tool="Read",
        call_id="c1",
        failure=ev.VALIDATION,
        text="EISDIR: illegal operation on a directory, read",
    )
    script.file("Glob", "/p/src/deep-manifest", "a.py")
    candidate = _one(script)
    assert (candidate.tool, candidate.trigger) == ("Read", "**/deep-manifest")


def test_reading_a_directory_fixed_by_listing_it_in_the_shell(script):
    """``ls`` on the directory is a listing as much as the Glob tool is."""
    script.file("Read", "/p/src", "EISDIR: illegal operation on a directory, read", failure=ERR)
    script.run("ls /p/src", "a.py b.py")
    candidate = _one(script)
    assert (candidate.tool, candidate.trigger) == ("Read", "**/src")
    assert candidate.fix.endswith(": `ls /p/src` worked.")


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


# -- real transcript shapes ------------------------------------------------------------------
# Lines below copy the shapes the agents write (field names, nesting, the harness's own
# wording); the content is ours.


def _claude_lines(tmp_path, steps):
    """A Claude Code session from ``(kind, ...)`` steps: ``("bash", id, cmd)``,
    ``("edit", id, path)``, ``("read", id, path)``, ``("result", id, text, is_error)``,
    ``("user", text)``."""
    import json

    rows = []
    base = {"isSidechain": False, "userType": "external", "cwd": "/w/app", "sessionId": "s-1"}
    base["version"] = "2.0.42"
    for n, step in enumerate(steps):
        stamp = {"uuid": f"u{n}", "timestamp": f"2025-11-18T00:00:{n:02d}.000Z"}
        if step[0] in ("bash", "edit", "read", "write"):
            name = {"bash": "Bash", "edit": "Edit", "read": "Read", "write": "Write"}[step[0]]
            tool_input = (
                {"command": step[2], "description": "run"}
                if step[0] == "bash"
                else {"file_path": step[2], "old_string": "a", "new_string": "b"}
                if step[0] == "edit"
                else {"file_path": step[2]}
            )
            content = [{"type": "tool_use", "id": step[1], "name": name, "input": tool_input}]
            message = {"id": f"m{n}", "type": "message", "role": "assistant", "content": content}
            rows.append({**base, **stamp, "type": "assistant", "message": message})
        elif step[0] == "result":
            block = {"type": "tool_result", "content": step[2], "tool_use_id": step[1]}
            if step[3]:
                block["is_error"] = True
            message = {"role": "user", "content": [block]}
            rows.append({**base, **stamp, "type": "user", "message": message})
        elif step[0] == "user":
            message = {"role": "user", "content": step[1]}
            rows.append({**base, **stamp, "type": "user", "message": message})
    path = tmp_path / "s-1.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    from lessons_claude import reader

    return list(reader.read(path, progress=ev.Progress()))


def test_claude_edit_before_read_is_kept_despite_the_error_markup(tmp_path):
    """``<tool_use_error>`` is the harness's markup, not a template placeholder: the lesson
    passes intake and its texts carry no tag."""
    from lessons_core.scan import intake

    events = _claude_lines(
        tmp_path,
        [
            ("edit", "t1", "/w/app/vercel.json"),
            (
                "result",
                "t1",
                "<tool_use_error>File has not been read yet. Read it first before writing to it."
                "</tool_use_error>",
                True,
            ),
            ("read", "t2", "/w/app/vercel.json"),
            ("result", "t2", '{"rewrites": []}', False),
            ("edit", "t3", "/w/app/vercel.json"),
            ("result", "t3", "The file has been updated.", False),
        ],
    )
    (candidate,) = tier2.detect(events)
    assert intake.rejection(candidate) is None
    assert "tool_use_error" not in candidate.mistake + candidate.fix
    assert all("tool_use_error" not in line for line in candidate.error_lines)
    assert candidate.summary == "Edit: read the file before changing it"
    assert candidate.evidence[0].call_id == "t1"


def test_claude_rejection_with_a_reason_is_a_lesson(tmp_path):
    """ "The user provided the following reason for the rejection: use pnpm" → ``pnpm install``."""
    reason = (
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
        "it was a file edit, the new_string was NOT written to the file). The user provided the "
        "following reason for the rejection:  use pnpm"
    )
    events = _claude_lines(
        tmp_path,
        [
            ("bash", "t1", "npm install"),
            ("result", "t1", reason, True),
            ("bash", "t2", "pnpm install"),
            ("result", "t2", "Done in 2.1s", False),
        ],
    )
    (candidate,) = tier2.detect(events)
    assert "the user said: “use pnpm”" in candidate.mistake
    assert candidate.fix == "Run `pnpm install` instead."
    assert candidate.trigger == r"\bnpm\b[^|;&\n]*?\binstall\b"
    assert not triggers.matches(candidate.trigger, "pnpm install")


def test_a_rejection_whose_reason_is_a_question_is_not_a_lesson(tmp_path):
    """Feedback about this task's design ("do we even need it?") teaches nothing reusable."""
    events = _claude_lines(
        tmp_path,
        [
            ("edit", "t1", "/w/app/render.py"),
            (
                "result",
                "t1",
                "The user doesn't want to proceed with this tool use. The tool use was rejected. "
                "To tell you how to proceed, the user said: do we even need this helper?",
                True,
            ),
            ("edit", "t2", "/w/app/render.py"),
            ("result", "t2", "The file has been updated.", False),
        ],
    )
    assert list(tier2.detect(events)) == []


def test_cwd_drift_after_a_persistent_cd(tmp_path):
    """An earlier ``cd sub`` stays in force in Claude's shell: the relative path fails, the
    absolute one works; the trigger is the relative ``cd``, which the fix does not hold."""
    events = _claude_lines(
        tmp_path,
        [
            ("bash", "t1", "cd tests && uv run python -c 'print(1)'"),
            ("result", "t1", "1", False),
            ("bash", "t2", "ruff check src/app/render.py"),
            ("result", "t2", "src/app/render.py:1:1: E902 No such file or directory", True),
            ("bash", "t3", "ruff check /w/app/src/app/render.py"),
            ("result", "t3", "All checks passed!", False),
        ],
    )
    (candidate,) = tier2.detect(events)
    assert candidate.summary == "ruff: the working directory stayed where an earlier cd left it"
    assert "an earlier `cd tests`" in candidate.mistake
    assert candidate.trigger == triggers.RELATIVE_CD
    assert triggers.matches(candidate.trigger, "cd tests && pytest")
    assert not triggers.matches(candidate.trigger, "ruff check /w/app/src/app/render.py")
    assert not triggers.matches(candidate.trigger, "cd /w/app && pytest")


def test_a_missing_file_fixed_by_another_path_waits_to_come_back(tmp_path):
    """No earlier ``cd``: the file was just elsewhere. Once is a fact of this task, not yet a
    lesson: the finding says where the file lives in the project and is marked to wait until
    the same guess comes back in another session. Its trigger is the wrong path alone."""
    events = _claude_lines(
        tmp_path,
        [
            ("bash", "t1", "sed -n '1,20p' src/hooks/use-list.ts"),
            ("result", "t1", "sed: src/hooks/use-list.ts: No such file or directory", True),
            ("bash", "t2", "sed -n '1,20p' src/ui/hooks/use-list.ts"),
            ("result", "t2", "export function useList() {}", False),
        ],
    )
    (candidate,) = tier2.detect(events)
    assert intake.RECURS_TAG in candidate.tags
    assert candidate.summary == "sed: `use-list.ts` is at `src/ui/hooks/use-list.ts`"
    assert "the path `src/hooks/use-list.ts` was guessed" in candidate.mistake
    assert candidate.fix.startswith("Look for `use-list.ts` at `src/ui/hooks/use-list.ts`")
    assert triggers.matches(candidate.trigger, "cat src/hooks/use-list.ts")
    assert triggers.matches(candidate.trigger, "cat /w/app/src/hooks/use-list.ts")
    assert not triggers.matches(candidate.trigger, "sed -n '1,20p' src/ui/hooks/use-list.ts")


def test_a_missing_file_fixed_by_a_file_of_another_name_is_a_one_off(tmp_path):
    """The call after it read another file altogether: the next step of the task, which says
    nothing of where the missing one lives."""
    events = _claude_lines(
        tmp_path,
        [
            ("bash", "t1", "sed -n '1,20p' src/hooks/use-list.ts"),
            ("result", "t1", "sed: src/hooks/use-list.ts: No such file or directory", True),
            ("bash", "t2", "sed -n '1,20p' src/ui/hooks/use-items.ts"),
            ("result", "t2", "export function useItems() {}", False),
        ],
    )
    assert list(tier2.detect(events)) == []


def test_a_test_run_fixed_by_editing_the_code_is_not_a_lesson(script):
    """The suite failed until the code changed: the code was the problem, not the call."""
    script.run(
        "pytest -x tests/test_app.py", "FAILED tests/test_app.py::test_x", failure=ERR, code=1
    )
    script.file("Edit", "/p/app.py", "updated")
    script.run("pytest tests/test_app.py", "3 passed")
    assert list(tier2.detect(script.events)) == []


def test_codex_unquoted_parentheses_in_a_path(tmp_path):
    """Codex's "sandbox denied" wrapper around a bash syntax error is the command's error;
    the lesson is to quote the path, and its trigger misses the quoted fix."""
    import json

    from lessons_codex import reader

    def call(cid, cmd):
        args = json.dumps({"command": ["bash", "-lc", cmd], "workdir": "/w/app"})
        payload = {"type": "function_call", "name": "shell", "arguments": args, "call_id": cid}
        return {"type": "response_item", "payload": payload}

    def output(cid, text):
        payload = {"type": "function_call_output", "call_id": cid, "output": text}
        return {"type": "response_item", "payload": payload}

    bad = "sed -n '1,80p' app/(auth)/login/page.tsx"
    good = "sed -n '1,80p' 'app/(auth)/login/page.tsx'"
    rows = [
        {"type": "session_meta", "payload": {"id": "s", "cwd": "/w/app"}},
        call("a", bad),
        output(
            "a",
            "failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, "
            "exit code: 2, stdout: , stderr: bash: -c: line 0: syntax error near unexpected "
            "token `('\n",
        ),
        call("b", good),
        output("b", json.dumps({"output": "export default", "metadata": {"exit_code": 0}})),
    ]
    path = tmp_path / "rollout-x.jsonl"
    path.write_text("".join(json.dumps({"timestamp": "t", **r}) + "\n" for r in rows))
    events = list(reader.read(path, progress=ev.Progress()))
    failed = next(e for e in events if e.kind == ev.TOOL_RESULT and e.call_id == "a")
    assert failed.failure == ev.ERROR
    assert failed.text.startswith("bash: -c: line 0: syntax error")
    (candidate,) = tier2.detect(events)
    assert candidate.summary == "sed: quote words the shell would read as syntax"
    assert triggers.matches(candidate.trigger, bad)
    assert not triggers.matches(candidate.trigger, good)


def test_codex_sandbox_wrapper_with_a_real_denial_stays_denied():
    """ "operation not permitted" inside the wrapper is the sandbox's doing."""

    text = (
        "failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, "
        "exit code: 1, stdout: , stderr: ps: operation not permitted"
    )
    assert codex_failures.unwrap_sandbox(text) == ("ps: operation not permitted", True)
    assert codex_failures.unwrap_sandbox("plain output") == ("plain output", False)


def test_gemini_relative_path_refused_by_the_tool(tmp_path):
    """Gemini's "Path must be absolute" is a tool refusal; the next listing with an absolute
    path is the fix."""
    import json

    from lessons_gemini import reader

    def message(n, call_id, name, args, status, response):
        call = {
            "id": call_id,
            "name": name,
            "args": args,
            "status": status,
            "timestamp": f"2025-10-27T19:55:{n:02d}.000Z",
            "result": [{"functionResponse": {"id": call_id, "name": name, "response": response}}],
        }
        return {
            "id": f"m{n}",
            "timestamp": f"2025-10-27T19:55:{n:02d}.000Z",
            "type": "gemini",
            "content": "",
            "toolCalls": [call],
        }

    doc = {
        "sessionId": "g-1",
        "projectHash": "h",
        "startTime": "2025-10-27T19:55:00.000Z",
        "lastUpdated": "2025-10-27T19:56:00.000Z",
        "messages": [
            {"id": "m0", "timestamp": "2025-10-27T19:55:00.000Z", "type": "user", "content": "hi"},
            message(1, "ls-1", "list_directory", {"path": "."}, "error",
                    {"error": "Path must be absolute: ."}),
            message(2, "ls-2", "list_directory", {"path": "/w/app"}, "success",
                    {"output": "Directory listing for /w/app: a.py"}),
        ],
    }  # fmt: skip
    chats = tmp_path / ".gemini" / "tmp" / "h" / "chats"
    chats.mkdir(parents=True)
    path = chats / "session-2025-10-27T19-55-g1.json"
    path.write_text(json.dumps(doc))
    events = list(reader.read(path, progress=ev.Progress()))
    (candidate,) = tier2.detect(events)
    assert candidate.summary == "Glob: give the tool an absolute path"
    assert candidate.trigger is None  # the tool's name is the trigger


@pytest.mark.corpus
def test_real_corpus_triggers_miss_their_fixes(shared_dir):
    """Every Tier 2 candidate of the real corpus: the trigger is not a bare executable and
    does not fire on the call that fixed the mistake."""
    from lessons_core.scan import discovery
    from lessons_core.scan.detectors import failures
    from lessons_core.scan.detectors import tier2 as t2

    readers = {
        "claude": "lessons_claude.reader",
        "codex": "lessons_codex.reader",
        "gemini": "lessons_gemini.reader",
    }
    import importlib

    from lessons_core.plugins.manager import Plugins

    agents = Plugins.load().agents()
    seen = 0
    for path in sorted((shared_dir / "corpus" / "real").rglob("*.json*")):
        agent = discovery.sniff(path, agents) if not path.name.endswith(".meta.json") else None
        if agent is None:
            continue
        events = list(importlib.import_module(readers[agent]).read(path, progress=ev.Progress()))
        calls = {e.call_id: e for e in events if e.kind == ev.TOOL_CALL}
        findings: list[tuple[object, object]] = []
        real_candidate = t2._candidate

        def spy(finding, cfg, findings=findings, real=real_candidate):
            out = real(finding, cfg)
            if out is not None:
                findings.append((out, finding.fix))
            return out

        t2._candidate = spy
        try:
            list(t2.detect(events))
        finally:
            t2._candidate = real_candidate
        for candidate, fix in findings:
            seen += 1
            assert not triggers.is_bare_executable(candidate.trigger), candidate
            if candidate.trigger and fix.command:
                assert not triggers.matches(candidate.trigger, fix.command), candidate
            for text in (candidate.mistake, candidate.fix):
                assert failures.strip_tags(text) == text
            assert calls  # the candidate came from a call of this transcript
    assert seen >= 10


def test_cwd_drift_fixed_path_counts_even_when_the_tests_then_fail(tmp_path):
    """The absolute path was found (the suite ran and failed on its own tests): the path
    mistake was fixed; what failed next is another matter."""
    events = _claude_lines(
        tmp_path,
        [
            ("bash", "t1", "cd test && uv run pytest -q"),
            ("result", "t1", "3 passed", False),
            ("bash", "t2", "uv run pytest test/test_render.py -v"),
            ("result", "t2", "ERROR: file or directory not found: test/test_render.py", True),
            ("bash", "t3", "uv run pytest /w/app/test/test_render.py -v"),
            ("result", "t3", "FAILED test_render.py::test_link - AssertionError", True),
        ],
    )
    (candidate,) = tier2.detect(events)
    assert candidate.trigger == triggers.RELATIVE_CD
    assert candidate.evidence[0].call_id == "t2"


def test_a_hang_fixed_by_a_one_shot_mode(script):
    """``vitest`` waits for changes and is killed; ``vitest run`` finishes. The trigger is
    vitest without ``run``."""
    script.run("npx vitest", "Command timed out after 2m 0.0s", failure=ev.TIMEOUT)
    script.run("npx vitest run", "Test Files  4 passed (4)")
    candidate = _one(script)
    assert triggers.matches(candidate.trigger, "npx vitest")
    assert triggers.matches(candidate.trigger, "npx vitest --reporter dot")
    assert not triggers.matches(candidate.trigger, "npx vitest run")
    assert candidate.priority == 6


def test_a_hang_fixed_by_a_timeout_prefix(script):
    """Run bare, it hung; under ``timeout`` it came back."""
    script.run("npm run dev", "Command timed out after 2m 0.0s", failure=ev.TIMEOUT)
    script.run("timeout 10 npm run dev", "ready in 300 ms")
    candidate = _one(script)
    assert triggers.matches(candidate.trigger, "npm run dev")
    assert not triggers.matches(candidate.trigger, "timeout 10 npm run dev")


def test_module_not_found_fixed_by_the_project_environment(script):
    """The bare interpreter lacks the project's packages; ``uv run`` has them."""
    script.run(
        "python scripts/report.py",
        "ModuleNotFoundError: No module named 'httpx'",
        failure=ERR,
        code=1,
    )
    script.run("uv run python scripts/report.py", "wrote report.html")
    candidate = _one(script)
    assert candidate.summary == "report.py: run it in the project's environment"
    assert triggers.matches(candidate.trigger, "python scripts/report.py")
    assert not triggers.matches(candidate.trigger, "uv run python scripts/report.py")


def test_module_not_found_fixed_by_editing_an_import_is_not_a_lesson(script):
    """An import typo fixed in the code is the code's problem."""
    script.run("python app.py", "ModuleNotFoundError: No module named 'reqeusts'", failure=ERR)
    script.file("Edit", "/p/app.py", "updated")
    script.run("python app.py --once", "ok")
    assert list(tier2.detect(script.events)) == []


def test_a_misspelt_script_is_fixed_by_the_first_one_that_worked(script):
    """No later call of the same script: the first other script of the same tool that worked
    is the fix, not the last one the window holds. (Two letters swapped, ``tset``, would be a
    slip of the keys and no lesson at all.)"""
    script.run("npm run tests", 'npm ERR! Missing script: "tests"', failure=ERR, code=1)
    script.run("npm run test", "40 passed")
    script.run("npm run lint", "no problems")
    candidate = _one(script)
    assert candidate.fix == "Use one that exists: `npm run test` worked."


def test_a_call_of_an_mcp_servers_tool_is_no_lesson(script):
    """A server's tool that takes a command is not the agent's shell: nothing to match."""
    failed = "bash: pytest: command not found"
    script.run("pytest tests/", failed, failure=ERR, code=127, tool="mcp__shell__run")
    script.run(".venv/bin/python -m pytest tests/", "12 passed", tool="mcp__shell__run")
    assert list(tier2.detect(script.events)) == []


def test_the_users_words_are_quoted_up_to_200_characters(script):
    """A long correction is cut to 199 characters and an ellipsis."""
    script.run("pytest tests/", "bash: pytest: command not found", failure=ERR, code=127)
    said = "no, " + "use the project's environment, never the bare one " * 6
    script.user(said)
    script.run(".venv/bin/python -m pytest tests/", "12 passed")
    candidate = _one(script)
    assert f"the user said: “{said[:199]}…”." in candidate.mistake


@pytest.mark.parametrize("length", [63, 64])
def test_a_summary_is_kept_to_100_characters(script, length):
    """The summary is one line of at most 100 characters: a summary of exactly 100 is kept
    whole, a longer one is cut to its first 99, without an ellipsis."""
    exe = "tool-" + "x" * (length - 5)  # a generated executable's long name
    script.run(f"{exe} --frobnicate", "error: unknown option '--frobnicate'", failure=ERR, code=2)
    script.run(exe, "ok")
    summary = f"{exe}: an option the command does not have"
    assert _one(script).summary == (summary if len(summary) <= 100 else summary[:99])


def test_a_fixing_command_is_quoted_up_to_160_characters(script):
    """A failure no class knows, fixed by a long command: the fix quotes the command's first
    159 characters and an ellipsis."""
    refusal = " ! [rejected]        b -> b (stale info)\nerror: failed to push some refs to 'h'"
    good = f"git push --force-with-lease=refs/heads/b:abc123 https://h/{'o' * 120}/r.git HEAD:b"
    script.run("git push --force-with-lease", refusal, failure=ERR, code=1)
    script.run(good, " + 1..2 HEAD -> b (forced update)")
    assert _one(script).fix == f"Run `{good[:159]}…` instead."


_LONG_URL = f"https://api.example.com/repos/o/r/issues?state=open&per_page=100&q={'x' * 90}"


def test_a_long_command_is_quoted_where_it_parts_from_the_other_call(script):
    """Two long commands that part past what a quote from their start shows (the same long
    URL, then another jq filter): both quotes start a little before that point, on a word, so
    the lesson shows the filter that failed and the one that worked."""
    token = "ghp_" + "A1b2C3d4E5" * 4  # redacted wherever the quote starts
    wrong = f"curl -sSL '{_LONG_URL}' -H 'Authorization: token {token}' | jq -r '.[] | .number"
    wrong += ' + "\\t" + .title\''
    right = f"curl -sSL '{_LONG_URL}' -H 'Authorization: token {token}' | jq -r '.[] | "
    right += "[(.number|tostring), .title] | @tsv'"
    error = 'jq: error (at <stdin>:3): number (7) and string ("\\t") cannot be added'
    script.run(wrong, error, failure=ERR, code=5)
    script.run(right, "7\tfix it")
    candidate = _one(script)
    assert "ghp_" not in candidate.fix and "ghp_" not in candidate.mistake
    fixed = candidate.fix.removeprefix("Run `").removesuffix("` instead.")
    assert fixed.startswith("…") and len(fixed) <= 159
    assert "jq -r '.[] | [(.number|tostring), .title] | @tsv'" in fixed
    quoted = candidate.mistake.split("`")[1]
    assert quoted.startswith("…") and quoted.endswith('.number + "\\t" + .title\'')
    assert len(quoted) <= 120
    assert "jq: error" in candidate.mistake


def test_a_quote_that_starts_at_the_change_still_fills_its_width(script):
    """A change near a long command's end: the quote ends with the command and starts, on a
    word, as far back as its width allows, not a few words after the change."""
    refspecs = " ".join(f"refs/heads/topic-{n}:refs/heads/topic-{n}" for n in range(5))
    wrong = f"git push origin {refspecs} --force-with-lease"
    right = f"git push origin {refspecs} --force-with-lease=topic-4:abc123"
    refusal = " ! [rejected]        b -> b (stale info)\nerror: failed to push some refs to 'h'"
    script.run(wrong, refusal, failure=ERR, code=1)
    script.run(right, " + 1..2 HEAD -> b (forced update)")
    quoted = _one(script).fix.removeprefix("Run `").removesuffix("` instead.")
    assert quoted.startswith("…") and right.endswith(quoted[1:])
    assert 158 - 40 < len(quoted) <= 159
    assert right[-len(quoted)] == " "  # the character before the quote: it starts on a word


def test_a_change_inside_a_long_word_is_quoted_from_inside_the_word(script):
    """The calls part inside a word far longer than the quote's lead: the quote starts inside
    the word (no word's start is near), shows the change, and marks the cut at both ends."""
    ref = f"refs/heads/{'segment/' * 20}topic"
    tail = " origin HEAD:topic --no-verify --progress --recurse-submodules=check --verbose" * 2
    right = f"git push --force-with-lease={ref}:def456{tail}"
    refusal = " ! [rejected]        topic -> topic (stale info)"
    script.run(right.replace("def456", "abc123"), refusal, failure=ERR, code=1)
    script.run(right, " + 1..2 HEAD -> topic")
    fixed = _one(script).fix.removeprefix("Run `").removesuffix("` instead.")
    assert fixed.startswith("…") and fixed.endswith("…") and len(fixed) == 160
    assert right.index(fixed[1:-1]) > right.index("segment/")  # inside the word
    assert "topic:def456 origin" in fixed


@pytest.mark.parametrize(("same", "from_start"), [(90, True), (91, False)])
def test_a_change_the_start_shows_with_a_quarter_of_the_width_before_it(same, from_start):
    """A quote of 120 characters keeps 30 before the change: commands that part at character
    90 are quoted from their start (the change and its 30 characters still show), one
    character later from a little before the change."""
    wrong, right = "a" * same + "B" + "c" * 100, "a" * same + "D" + "c" * 100
    quoted = lesson._quoted(wrong, right, 120)
    if from_start:
        assert quoted == wrong[:119] + "…"
    else:
        assert quoted.startswith("…") and "aB" in quoted


def test_a_long_command_is_compared_over_its_first_20000_characters():
    """Where two commands part is looked for in their redacted heads (4,000 characters and the
    margin redaction searches past them, up to the next space), not in a heredoc of megabytes:
    a change just past that head is not found, and the quote starts where the command does;
    the same change ten characters earlier is."""
    head = "w" * 20000
    assert lesson._quoted(head + " A end", head + " B end", 120) == head[:119] + "…"
    early = "w" * 19990
    assert lesson._quoted(early + " A end", early + " B end", 120).startswith("…")


def test_a_command_as_long_as_the_quote_is_quoted_whole(script):
    """A command of exactly the quote's width is shown whole, wherever it parts."""
    wrong = f"git push origin {'x' * 113} --force-with-lease=main:abc123"
    right = wrong.replace("abc123", "def456")
    assert len(right) == 160
    refusal = " ! [rejected]        main -> main (stale info)"
    script.run(wrong, refusal, failure=ERR, code=1)
    script.run(right, " + 1..2 HEAD -> main (forced update)")
    assert _one(script).fix == f"Run `{right}` instead."


def test_the_same_long_command_again_is_quoted_from_its_start(script):
    """A command that worked as it was once the step its error named had run: the two calls
    never part, so there is no change to show and the quotes start where the command does."""
    files = " ".join(f"packages/part-{n:02d}/src/index.ts" for n in range(8))
    command = f"corepack pnpm exec tsc --noEmit {files}"
    error = 'ERR_PNPM_VERIFY_DEPS_BEFORE_RUN out of date.\n\nRun "pnpm install" to update them.'
    script.run(command, error, failure=ERR, code=1)
    script.run("corepack pnpm install", "Done in 2.1s")
    script.run(command, "")
    candidate = _one(script)
    assert f"`{command[:119]}…`" in candidate.mistake


def test_a_sandbox_lesson_quotes_the_command_from_its_start(script):
    """Run again with escalated permissions, the command may differ far on (another set of
    tests); the lesson is the permission, so the quotes keep the command's start."""
    files = " ".join(f"test/part-{n:02d}-of-the-suite.test.ts" for n in range(6))
    eperm = "Error: EPERM: operation not permitted, open '/Users/u/Library/Preferences/x.log'"
    script.run(f"pnpm exec vitest run {files}", eperm, failure=ERR, code=1)
    script.run(f"pnpm exec vitest run {files} test/extra.test.ts", "40 passed", escalated=True)
    candidate = _one(script)
    assert "`pnpm exec vitest run test/part-00" in candidate.mistake
    assert "`pnpm exec vitest run test/part-00" in candidate.fix


_REJECTED_FOR_PNPM = (
    "The user doesn't want to proceed with this tool use. The user provided the following "
    "reason for the rejection:  use pnpm"
)


@pytest.mark.parametrize(("between", "found"), [(tier2.WINDOW - 1, 1), (tier2.WINDOW, 0)])
def test_a_rejections_fix_comes_within_the_window(script, between, found):
    """The call that did what the user asked must come within ``WINDOW`` events."""
    script.run("npm install", _REJECTED_FOR_PNPM, failure=ev.REJECTED)
    for _ in range(between):
        script.say("Let me look at the lockfile first.")
    script.run("pnpm install", "Done in 2.1s")
    assert len(list(tier2.detect(script.events))) == found


def test_a_rejected_read_is_not_fixed_by_reading_another_file(script):
    """Only an edit the user rejected is answered by the next edit of its kind; a Read of
    another file is a look elsewhere, not the rejected read done the user's way."""
    rejected = _REJECTED_FOR_PNPM.replace("use pnpm", "use the summary, not the raw log")
    script.file("Read", "/p/build.log", rejected, failure=ev.REJECTED)
    script.file("Read", "/p/summary.txt", "3 failures")
    assert list(tier2.detect(script.events)) == []


def test_a_users_correction_is_looked_for_in_the_first_300_characters() -> None:
    """The opening of a long message is what tells a correction; its first 300 characters are
    read, so "no" that ends at the 300th counts and one past it does not."""
    tier2._is_correction.cache_clear()
    assert tier2._is_correction("-" * 298 + "no")
    assert not tier2._is_correction("-" * 299 + "no")
    assert tier2._is_correction("No, use pnpm here.")
    assert not tier2._is_correction("[pasted log] no such file")


_RG_NEWLINE = (
    'rg: the literal "\\n" is not allowed in a regex\n\n'
    "Consider enabling multiline mode with the --multiline flag (or -U for short).\n"
    "When multiline mode is enabled, new line characters can be matched."
)


def test_a_refusal_the_fix_answered_with_the_flag_it_advised(script):
    """``rg`` refused a literal ``\\n`` and advised ``-U``; the same search with ``-U`` worked.
    Nothing in the command line tells the two apart but the flag the error named, so the lesson
    is recalled at that error, and quotes the command's own advice beside it."""
    script.run('rg -n "foo\\nbar" src', _RG_NEWLINE, failure=ERR, code=2)
    script.run('rg -n -U "foo\\nbar" src', "src/a.py:3:foo")
    candidate = _one(script)
    assert candidate.summary == "rg: it worked with `-U`"
    assert candidate.error_lines == ('rg: the literal "\\n" is not allowed in a regex',)
    assert candidate.mistake.endswith(
        "; it said: “Consider enabling multiline mode with the --multiline flag (or -U for"
        " short).”."
    )
    assert candidate.fix == 'Run `rg -n -U "foo\\nbar" src` instead.'


def test_the_advice_quoted_is_a_line_of_its_own_cut_to_160_characters():
    """The first line that advises (``hint:``, ``Consider …``, ``Did you mean …``), not one the
    lesson quotes as the error already, cut as every quote is."""
    from lessons_core.scan.detectors.tier2.lesson import _hint

    text = "hint: the push was rejected\nerror: failed\nhint: pull first, then push again"
    assert _hint(text, ("hint: the push was rejected", "error: failed")) == (
        "hint: pull first, then push again"
    )
    assert _hint("error: failed\nsee the log", ("error: failed",)) is None
    long = _hint("Consider " + "a very long piece of advice " * 10, ())
    assert long is not None and len(long) == 160 and long.endswith("…")
