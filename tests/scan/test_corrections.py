"""The correction detector on small transcripts in each agent's own format (the content is ours;
field names, nesting and the harness's wording copy what the agents write)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from tests.scan.conftest import Script

from lessons_core.builtin import detectors
from lessons_core.hot import corrections as hot_corrections
from lessons_core.hot.project import project_id
from lessons_core.plugins.specs import DetectorSpec
from lessons_core.scan import events as ev
from lessons_core.scan import intake
from lessons_core.scan.detectors import corrections
from transcript_support import OPENCODE_SCHEMA

# -- Claude Code --------------------------------------------------------------------------------


def _claude(tmp_path: Path, steps, cwd: str = "/w/app", sidechain: bool = False):
    """A Claude Code session from steps: ``("bash", id, cmd)``, ``("result", id, text,
    is_error)``, ``("say", text)`` (the assistant), ``("user", text)``."""
    rows = []
    base = {"isSidechain": sidechain, "userType": "external", "cwd": cwd, "sessionId": "s-1"}
    base["version"] = "2.0.42"
    for n, step in enumerate(steps):
        stamp = {"uuid": f"u{n}", "timestamp": f"2025-11-18T00:00:{n:02d}.000Z"}
        if step[0] == "bash":
            block = {"type": "tool_use", "id": step[1], "name": "Bash"}
            block["input"] = {"command": step[2], "description": "run"}
            message = {"id": f"m{n}", "type": "message", "role": "assistant", "content": [block]}
            rows.append({**base, **stamp, "type": "assistant", "message": message})
        elif step[0] == "say":
            content = [{"type": "text", "text": step[1]}]
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


INSTALL = [
    ("user", "set up the project"),
    ("bash", "t1", "npm install"),
    ("result", "t1", "added 120 packages", False),
    ("say", "Dependencies are installed."),
]


def test_claude_user_correction_is_a_candidate(tmp_path):
    events = _claude(
        tmp_path,
        [
            *INSTALL,
            ("user", "no, use pnpm here, we don't use npm"),
            ("bash", "t2", "pnpm install"),
            ("result", "t2", "Done in 2.1s", False),
        ],
    )
    (candidate,) = corrections.detect(events)
    assert candidate.detector == "corrections" and candidate.tier == 2
    assert candidate.summary == "no, use pnpm here, we don't use npm"
    assert "`npm install`" in candidate.mistake and "“no, use pnpm here" in candidate.mistake
    assert candidate.fix.endswith("the agent then ran `pnpm install`.")
    assert candidate.trigger is None and candidate.tool is None
    assert candidate.tags == ()  # names nothing of the project: global
    (evidence,) = candidate.evidence
    assert (evidence.line, evidence.call_id) == (5, None)  # the user's message
    assert intake.rejection(candidate) is None


def test_claude_ordinary_messages_are_not_candidates(tmp_path):
    """The first message, a new task, a question, an approval, a report, a pasted plan, and
    an answer to the agent's own question."""
    events = _claude(
        tmp_path,
        [
            ("user", "Don't touch the lockfile; add a test for parse()"),
            ("bash", "t1", "pytest -q"),
            ("result", "t1", "3 passed", False),
            ("say", "Tests pass."),
            ("user", "Now add a test for the empty input"),
            ("say", "Added."),
            ("user", "What does parse() return on None?"),
            ("say", "It returns an empty list."),
            ("user", "Looks good, commit it"),
            ("say", "Committed."),
            ("user", "the build still doesn't work"),
            ("say", "Shall I also update the changelog?"),
            ("user", "no, don't bother"),
            ("say", "Okay."),
            ("user", "Implement the following plan:\n\n- never break the API\n- add a cache"),
        ],
    )
    assert list(corrections.detect(events)) == []


def test_claude_rejection_reason_is_cited_at_the_declined_call(tmp_path):
    reason = (
        "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if "
        "it was a file edit, the new_string was NOT written to the file). The user provided the "
        "following reason for the rejection:  use pnpm"
    )
    events = _claude(
        tmp_path,
        [
            ("user", "set up the project"),
            ("bash", "t1", "npm install"),
            ("result", "t1", reason, True),
            ("bash", "t2", "pnpm install"),
            ("result", "t2", "Done in 2.1s", False),
        ],
    )
    assert [e.text for e in events if e.kind == ev.USER_TEXT][-1] == "use pnpm"
    (candidate,) = corrections.detect(events)
    assert candidate.mistake == "The user declined `npm install` and said: “use pnpm”."
    (evidence,) = candidate.evidence
    assert (evidence.line, evidence.call_id) == (3, "t1")


def test_a_rejection_reason_that_asks_a_question_is_not_a_candidate(tmp_path):
    reason = (
        "The user doesn't want to proceed with this tool use. The tool use was rejected. "
        "To tell you how to proceed, the user said: do we even need this helper?"
    )
    events = _claude(
        tmp_path,
        [
            ("user", "set up the project"),
            ("bash", "t1", "npm install left-pad"),
            ("result", "t1", reason, True),
        ],
    )
    assert list(corrections.detect(events)) == []


def test_a_sub_agents_task_is_not_a_correction(tmp_path):
    events = _claude(
        tmp_path,
        [*INSTALL, ("user", "Don't edit files, only report what the tests print")],
        sidechain=True,
    )
    assert list(corrections.detect(events)) == []


def test_a_correction_naming_a_project_thing_is_scoped_to_the_project(tmp_path):
    """ "it's called feat/login" names a branch of this repository: a ``scope:<project id>``
    tag, which promotion turns into the lesson's scope."""
    project = tmp_path / "app"
    project.mkdir()
    events = _claude(
        tmp_path,
        [
            *INSTALL,
            ("user", "that's not the branch I meant - it's called feat/login"),
            ("bash", "t2", "git switch feat/login"),
            ("result", "t2", "Switched to branch 'feat/login'", False),
        ],
        cwd=str(project),
    )
    (candidate,) = corrections.detect(events)
    scope = project_id(str(project))
    assert scope and candidate.tags == (intake.SCOPE_TAG + scope,)
    lesson = intake.to_lesson(candidate)
    assert lesson.scope == scope and lesson.tags == ()
    assert lesson.triggers.tool_names == ()


def test_names_project_thing():
    assert corrections.names_project_thing("put it in AGENTS.md, not a skill")
    assert corrections.names_project_thing("check again on 192.168.1.4")
    assert corrections.names_project_thing("run `make check` first")
    assert not corrections.names_project_thing("don't use sudo with pip.")
    assert not corrections.names_project_thing("use pnpm, e.g. for installs")
    # An abbreviation is skipped, and the words after it are still read.
    assert corrections.names_project_thing("e.g. src/app.py")
    # A mark at a word's start alone (``.env``, ``/tmp``) is a kind of file every project has.
    assert not corrections.names_project_thing("never commit .env files")


def test_the_detector_is_registered_beside_tier1_and_tier2():
    found: list[DetectorSpec] = []
    detectors.lessons_register_detectors(found.append)
    assert [d.name for d in found] == ["tier1", "tier2", "corrections"]
    assert found[2].detect is corrections.detect and found[2].tier == 2


# -- Codex CLI ----------------------------------------------------------------------------------


def _codex(tmp_path: Path, rows):
    path = tmp_path / "rollout-2026-01-01T00-00-00-x.jsonl"
    head = {"type": "session_meta", "payload": {"id": "s", "cwd": "/w/app"}}
    path.write_text("".join(json.dumps({"timestamp": "t", **r}) + "\n" for r in [head, *rows]))
    from lessons_codex import reader

    return list(reader.read(path, progress=ev.Progress()))


def _codex_call(call_id: str, cmd: str, code: int):
    call = {"type": "function_call", "name": "exec_command", "call_id": call_id}
    call["arguments"] = json.dumps({"cmd": cmd})
    output = {"type": "function_call_output", "call_id": call_id}
    output["output"] = f"Process exited with code {code}\nOutput:\nok\n"
    return [
        {"type": "response_item", "payload": call},
        {"type": "response_item", "payload": output},
    ]


def _codex_user(text: str):
    return {"type": "event_msg", "payload": {"type": "user_message", "message": text}}


def _codex_say(text: str):
    content = [{"type": "output_text", "text": text}]
    return {
        "type": "response_item",
        "payload": {"type": "message", "role": "assistant", "content": content},
    }


def test_codex_correction_after_the_ide_context(tmp_path):
    events = _codex(
        tmp_path,
        [
            _codex_user("run the docs example"),
            *_codex_call("c1", "node ./scripts/example.js", 0),
            _codex_say("The example ran."),
            _codex_user(
                "# Context from my IDE setup:\n\n## Active file: docs/a.md\n\n"
                "## My request for Codex:\nthe pattern is to use bun run, not a path to the script"
            ),
            *_codex_call("c2", "bun run example", 0),
        ],
    )
    (candidate,) = corrections.detect(events)
    assert candidate.agent == "codex"
    assert candidate.summary.startswith("the pattern is to use bun run, not a path")
    assert "`node ./scripts/example.js`" in candidate.mistake
    assert candidate.fix.endswith("the agent then ran `bun run example`.")
    assert candidate.evidence[0].line == 6


def test_codex_new_tasks_are_not_candidates(tmp_path):
    events = _codex(
        tmp_path,
        [
            _codex_user("run the docs example"),
            *_codex_call("c1", "node ./scripts/example.js", 0),
            _codex_say("The example ran."),
            _codex_user("Now add the example to the README"),
        ],
    )
    assert list(corrections.detect(events)) == []


# -- Gemini CLI ---------------------------------------------------------------------------------


def _gemini(tmp_path: Path, messages):
    head = {"sessionId": "g-1", "projectHash": "ab" * 32, "startTime": "2026-04-30T08:00:00Z"}
    head |= {"lastUpdated": "2026-04-30T08:00:00Z", "kind": "main", "directories": ["/w/app"]}
    chats = tmp_path / "tmp" / "app" / "chats"
    chats.mkdir(parents=True)
    path = chats / "session-2026-04-30T08-00-g1.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [head, *messages]))
    from lessons_gemini import reader

    return list(reader.read(path, progress=ev.Progress()))


def _gemini_user(mid: str, text: str):
    return {
        "id": mid,
        "timestamp": "2026-04-30T08:00:01Z",
        "type": "user",
        "content": [{"text": text}],
    }


def _gemini_shell(mid: str, call_id: str, cmd: str):
    response = {"output": f"Command: {cmd}\nOutput: ok\nExit Code: 0"}
    call = {
        "id": call_id,
        "name": "run_shell_command",
        "args": {"command": cmd},
        "status": "success",
        "result": [
            {"functionResponse": {"id": call_id, "name": "run_shell_command", "response": response}}
        ],
    }
    return {
        "id": mid,
        "timestamp": "2026-04-30T08:00:02Z",
        "type": "gemini",
        "content": "",
        "toolCalls": [call],
    }


def test_gemini_correction_is_a_candidate(tmp_path):
    events = _gemini(
        tmp_path,
        [
            _gemini_user("u1", "show me the config"),
            _gemini_shell("g1", "s1", "cat config.toml"),
            _gemini_user("u2", "stop using cat to read files, use read_file"),
            _gemini_shell("g2", "s2", "ls"),
        ],
    )
    (candidate,) = corrections.detect(events)
    assert candidate.agent == "gemini"
    assert candidate.summary == "stop using cat to read files, use read_file"
    assert "`cat config.toml`" in candidate.mistake
    assert candidate.evidence[0].line == 4


def test_gemini_a_question_is_not_a_candidate(tmp_path):
    events = _gemini(
        tmp_path,
        [
            _gemini_user("u1", "show me the config"),
            _gemini_shell("g1", "s1", "cat config.toml"),
            _gemini_user("u2", "what does the timeout setting do?"),
        ],
    )
    assert list(corrections.detect(events)) == []


# -- OpenCode -----------------------------------------------------------------------------------

OLD = 1_700_000_000_000


def test_opencode_correction_is_a_candidate(tmp_path):
    db = tmp_path / "opencode.db"
    conn = sqlite3.connect(db)
    conn.executescript(OPENCODE_SCHEMA)
    conn.execute(
        "INSERT INTO session VALUES ('ses', 'g', NULL, NULL, 's', '/w/app', NULL, 't', '1.18', "
        "?, ?)",
        (OLD, OLD),
    )
    done = {"role": "assistant", "time": {"created": OLD, "completed": OLD + 5}}
    user = {"role": "user", "time": {"created": OLD}}
    parts = [
        ("m1", user, {"type": "text", "text": "install deps"}),
        ("m2", done, {"type": "tool", "tool": "bash", "callID": "c1", "state": {
            "status": "completed", "input": {"command": "npm install"}, "output": "ok",
            "metadata": {"exit": 0}}}),
        ("m3", user, {"type": "text", "text": "no, use pnpm"}),
    ]  # fmt: skip
    for n, (mid, message, part) in enumerate(parts):
        conn.execute(
            "INSERT OR IGNORE INTO message VALUES (?, 'ses', ?, ?, ?)",
            (mid, OLD, OLD, json.dumps(message)),
        )
        conn.execute(
            "INSERT INTO part VALUES (?, ?, 'ses', ?, ?, ?)",
            (f"prt_{n}", mid, OLD, OLD, json.dumps(part)),
        )
    conn.commit()
    conn.close()
    from lessons_opencode import reader

    events = list(reader.read(db, 0, progress=ev.Progress(0, 0)))
    (candidate,) = corrections.detect(events)
    assert candidate.agent == "opencode" and candidate.summary == "no, use pnpm"
    assert "`npm install`" in candidate.mistake


def test_the_corrections_detector_is_off_until_the_user_turns_it_on():
    """Its precision on sessions it was not tuned on is below what review time is worth, so a
    scan leaves it out by default; ``offDetectors`` without it brings it back."""
    import attrs

    from lessons_core.models import Config
    from lessons_core.plugins.specs import DetectorSpec
    from lessons_core.scan.engine import active_detectors

    specs = {
        name: DetectorSpec(name=name, detect=lambda events: iter(()))
        for name in ("tier1", "tier2", corrections.NAME)
    }
    default = [spec.name for spec in active_detectors(specs, Config())]
    assert default == ["tier1", "tier2"]
    on = [spec.name for spec in active_detectors(specs, attrs.evolve(Config(), off_detectors=()))]
    assert corrections.NAME in on


# -- the candidate's words, on events built by hand --------------------------------------------


def _corrected(script, said: str):
    """The one candidate of a correction ``said`` after an install."""
    script.user("set up the project")
    script.run("npm install", "added 120 packages")
    script.user(said)
    (candidate,) = corrections.detect(script.events)
    return candidate


def test_a_declined_calls_bare_instruction_is_a_correction(script):
    """ "run it with uv" corrects only as the reason for a declined call."""
    script.user("set up the project")
    script.run("pip install -r requirements.txt", "declined", failure=ev.REJECTED)
    script.user("run it with uv")
    script.run("uv pip install -r requirements.txt", "Installed 12 packages")
    (candidate,) = corrections.detect(script.events)
    assert candidate.mistake == (
        "The user declined `pip install -r requirements.txt` and said: “run it with uv”."
    )


def test_the_users_words_are_quoted_up_to_240_characters(script):
    """240 characters are quoted whole; more are cut to 239 and an ellipsis."""
    words = ("no, use pnpm and keep its lockfile " * 8)[:241]
    candidate = _corrected(script, words[:240])
    assert candidate.fix == f"Do as the user said: “{words[:240]}”."
    longer = _corrected(Script(), words)
    assert longer.fix == f"Do as the user said: “{words[:239]}…”."


def test_the_call_before_is_described_by_its_command_or_its_file(script):
    """A file tool by the file's name; a command up to 120 characters, cut after."""
    command = "npm install " + " ".join(f"package-{n}" for n in range(12))
    assert len(command) > 120
    script.file("Edit", "/p/src/app.py", "The file has been updated.")
    script.user("no, that file is generated, edit the proto instead")
    script.run(command, "added 12 packages")
    script.user("no, use pnpm for that")
    first, second = corrections.detect(script.events)
    assert first.mistake.startswith("The user corrected the agent after Edit on app.py: ")
    assert first.fix.endswith(f"; the agent then ran `{command[:119]}…`.")
    assert second.mistake.startswith(f"The user corrected the agent after `{command[:119]}…`: ")


@pytest.mark.parametrize(
    ("between", "ran"), [(corrections.WINDOW - 1, True), (corrections.WINDOW, False)]
)
def test_the_next_call_is_looked_for_within_the_window(script, between, ran):
    """The call after a correction is its fix's second half only within ``WINDOW`` events."""
    script.run("npm install", "added 120 packages")
    script.user("no, use pnpm")
    for _ in range(between):
        script.say("Switching the package manager.")
    script.run("pnpm install", "Done in 2.1s")
    (candidate,) = corrections.detect(script.events)
    assert ("; the agent then ran `pnpm install`" in candidate.fix) is ran


def test_a_general_rule_is_not_scoped_to_the_project(tmp_path):
    """A correction that names nothing of the project gets no scope tag, in a real one too."""
    candidate = _corrected(Script(project=str(tmp_path)), "no, don't use sudo with pip")
    assert project_id(str(tmp_path))
    assert candidate.tags == ()


def test_a_mark_right_after_the_first_letter_names_a_project_thing() -> None:
    """``a/b`` or ``x.py`` names something of the project by a mark right after its first
    character; a mark only at a word's end (``here.``) does not."""
    assert corrections.names_project_thing("put it in a/b instead")
    assert corrections.names_project_thing("edit x.py, not the copy")
    assert not corrections.names_project_thing("no, stop here.")


def test_a_folder_is_named_by_its_slash() -> None:
    assert corrections.names_project_thing("keep the fixtures in testdata/")
    assert not corrections.names_project_thing("either one works / whatever")


def test_a_name_of_code_scopes_a_rule_but_makes_none() -> None:
    """``parse_config`` names a thing of the project (a rule that names it is scoped to the
    project), yet on its own it makes no rule: it is what a one-off points at."""
    said = "no, I meant parse_config"
    assert corrections.names_project_thing(said)
    assert not corrections.states_rule(said)
    assert corrections.states_rule("no, read settings through load_config, we never parse by hand")


@pytest.mark.parametrize(
    "said",
    [
        "no, make the button blue",
        "that's wrong, the total should include tax",
        "not like that, the modal should close on outside click",
        "no, the sidebar should be collapsible",
        # a name of code is what the work in hand touches, not where things live
        "wrong helper, I meant format_price not format_amount",
        "that's not the table, the one in billing_events",
        # "instead of" sets two choices of this work apart
        "no, put the legend below the chart instead of above it",
        # pointed at the piece of work in hand, though naming a file or a branch of code
        "I meant the other function, `render_row` not `render_rows`",
        "wrong file, i wanted you to edit cart.py not checkout.py",
        "you removed the wrong branch of the if, the else was the one to go",
        "you skipped the wrong test, it's test_upload_resume that hangs",
        # a typo pointed out; where this one change goes
        "that's a typo, the docker tag is 2.3.1 not 2.31",
        "no, this change goes in deploy/values-prod.yaml",
        "wrong branch, this fix belongs on release/1.9",
        # the other one of a name, the one in a place: which piece, not how work is done
        "no, the other `handleSubmit`, not the login form's",
        "that's not the parser, the one in `billing/parse.py`",
        # a reminder, a place the edit left out: they finish the work in hand
        "don't forget the `aria-label` on the icon buttons",
        "you missed one, there's a fourth caller in `jobs/export.py`",
        # one value set right against the one written: numbers, quoted words, a name
        "no, the page size is 25%, not 20% of the screen",
        "wrong env var, it's `STRIPE_KEY` not `STRIPE_TOKEN`",
        "the link should say 'Open in browser', not 'Open URL'",
        "the chart version should be 2.4.0, you left it at 2.3.9",
        "the status is `ARCHIVED`, you wrote `DELETED`",
        "not `order_id`, the total has to be per `invoice_id` here",
        "no, not `total_cents`, the sum has to be over `net_cents`",
        # a step asked for once more is no habit
        "no, the limit is 15%, not 10%, check the ticket again",
        "no, the timeout is 30s, not 10s, restart the worker again",
    ],
)
def test_a_correction_of_the_work_in_hand_is_no_candidate(script, said):
    """Corrections, but of what this piece of work makes: nothing in them would help another
    session, so the detector keeps none (the hook still hears them at prompt time)."""
    script.run("npm test", "Tests: 3 passed")
    script.user(said)
    assert hot_corrections.correction(said)  # (heard as a correction)
    assert list(corrections.detect(script.events)) == []


@pytest.mark.parametrize(
    "said",
    [
        "no, we always rebase, never merge main into feature branches",  # generality
        "nope, the config is in config/settings.yaml",  # a thing of the project
        "no, the e2e run needs HEADLESS=1",  # a variable
        "no, use --format json",  # an option
        "no, use pnpm for that",  # a tool
        "log in on your instance and check it yourself",  # the agent's own work
        "don't touch anything under vendor/ by hand",  # a folder, and by hand
        "ask me before you drop any table",  # how the user wants the agent to work
        "stop using cat to read files, use read_file",  # a habit to drop
        "the preview server is on 4173 not 5173",  # a working word
        "no, Jenkins was removed, the builds are on GitHub Actions",  # a fact that changed
        "that flag is deprecated, stop passing it",
        "no, moment is no longer maintained",
        "no, that helper is deprecated",
        "wrong branch, we always open PRs against develop",  # a pointer, and a practice
        "don't forget, we always bump the version in `setup.cfg` with every release",
        "you keep forgetting the changelog",  # a habit, not one place
        "the solver works in float64 throughout",  # how the project is everywhere
        "as discussed, amounts are integers of cents",  # said before
        # a value a thing runs on is a fact of the place, not a value of the work
        "the api is on port 8081 not 8080 here",
        "the project is on 3.5 not 4, stick to the 3.x calls",
        # a value set right, and more: said before, or a habit that came back
        "as discussed, the tag is `latest` not `main`",
        "you put `print` not `log.debug` in the handler again",
    ],
)
def test_a_correction_of_how_work_is_done_is_a_candidate(script, said):
    script.run("npm test", "Tests: 3 passed")
    script.user(said)
    assert len(list(corrections.detect(script.events))) == 1


@pytest.mark.parametrize(
    ("asked", "found"),
    [("Should I delete the old migrations?", 0), ("I will delete the old migrations.", 1)],
)
def test_a_no_to_the_agents_short_question_answers_it(script, asked, found):
    """ "No, don't …" after the agent asked is the answer it asked for; after a statement it
    sets the agent right."""
    script.run("ls migrations", "0001.py 0002.py")
    script.say(asked)
    script.user("no, don't delete the migrations")
    assert len(list(corrections.detect(script.events))) == found
