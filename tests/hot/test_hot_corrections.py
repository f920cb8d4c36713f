"""The correction judgement the hook and the scanner share, and the line the hook adds to a
correcting prompt."""

from __future__ import annotations

import io
import json
import sys

import echo_adapter
import pytest
from hot_support import HERE, install_manifest

from hook_support import BANNED, modules_after_run
from lessons_core.hot import corrections, runner

CORRECTIONS = [
    "no, use pnpm here",
    "No don't run the migrations against prod",
    "nope. that's the wrong file",
    "Don't push to main, open a pull request",
    "stop using cat to read files",
    "please don't commit the lockfile",
    "that's not the branch I meant - it's called feat/login",
    "That's wrong, the config lives in settings.toml",
    "hmm, I think it's better not to store tokens in local storage",
    "we use uv here, not pip",
    "put the rules in AGENTS.md, not a skill",
    "use bun run not a path to the script",
    "gh should work, request elevated permissions",
    "log in on your own browser and test it out yourself",
    "check again on the staging host",
    "Why did you delete the fixtures?",
    "I asked you to keep the old endpoint",
    "You should have run the formatter first",
    "Use the HTTPS remote instead of SSH",
    "<ide_opened_file>The user opened the file a.py in the IDE.</ide_opened_file>\nno, use tabs",
    "# Context from my IDE setup:\n\n## Active file: a.py\n\n## My request for Codex:\n"
    "don't add a new dependency for this",
    "please just don't touch the lockfile",
    "why not use the existing helper instead of a new one?",
    "please keep it in pyproject not setup.cfg",  # "use X not Y" inside the sentence
    # a rule for the sessions to come, a preference, a short spelling
    "the tests need docker running, start it first next time",
    "from now on run the formatter before you commit",
    "I prefer small commits, one per change",
    "pls use pnpm, npm messes up the lockfile",
    "please always run the linter before committing",
    "can you not add comments that just repeat the code",
    "no need for sudo here",
    "remember the staging db is read only",
    "## My request for Codex:\nno, use tabs",  # the IDE's heading first, nothing before it
    # the apostrophe left out
    "you cant push from here, the remote is read only",
    "thats not the client we use, swap it for http.ts",
    # an instruction that opens a later clause
    "ugh, the debug prints again. use the logger",
    "that option was dropped in v5, use --output json",
    # "X not Y" with no comma
    "the db listens on 5433 not 5432",
    # a habit of the agent's, said back to it
    "you keep forgetting the changelog",
    "you always leave the debug flag on",
    "its bun here so `bunx` not npx",
    # how the user wants the agent to work; a fact of the project it went against
    "ask me before you rewrite history",
    "make sure you regenerate the client before building",
    "you need to seed the database before the e2e run",
    "we don't squash here, keep each commit",
    "we switched to vitest last month",
    "redis has to be running for these tests",
    "branch names should follow the ticket id",
    "try it yourself",
    "the config belongs in pyproject rather than setup.cfg",
    "put the helper in the shared module instead",
    "we do not commit generated files",
    "please do not rename the public functions",
    "I'd use the one in utils not a new one",  # a use-verb, "not" four words on
    "hmm ok so wrong file",  # the opener after three fillers
    # the point on the third line of the first paragraph
    "I looked at the diff.\nThe lockfile changed though,\nplease don't touch the lockfile",
    # what the user does not want of the agent; a practice explained, ruled out, told
    "i dont need you to recap every file at the end",
    "I don't want you adding dependencies for this",
    "the runners lack make, thats why we have a justfile",
    "the cluster runs k8s 1.24, so no ephemeral containers",
    "releases here follow semver strictly",
    "config files here live under etc/",
    # a request that looks back at what was done: a correction in the form of a request
    "Can you put it in AGENTS.md, not a skill?",
    "can you use the date helper instead of writing a new parser?",
    "looks good, but can you tell me why you used npm? we use pnpm",
    "next time dont add a new parser, we have one in utils",
    "can you move it to AGENTS.md? it belongs there, not in a skill",
    "no. can you use the shared fixture?",
    "can you not add comments that just repeat the code?",
    # what only looks like a request: no question asked, or not of the agent
    "could you use the shared fixture, we never build the db by hand",
    "we use pnpm here. would npm even work?",
    "now you need to regenerate the client before the build",
    # what the agent used, a habit ruled out
    "you used `float` for the amount, money is Decimal here",
    "only ever stage the files you changed, by path",
    # what the agent did, said back to it
    "every commit has to pass the linter locally, you pushed 3 lint failures",
    "feature flags go through the flag service, drop the env var you just added",
    # said before; a thing off limits to the agent; a fact of the project it went against
    "i've said this before, no emojis in commit messages",
    "the billing tables are off limits, ask me for any write",
    "anything that touches prod goes through me",
    "openapi.ts is generated, edit the spec instead",
    "the firmware toolchain is pinned to gcc 12 for a reason",
    "en.json is the only source, the other locales get overwritten on sync",
    # a repeated "no", a reminder, a question about what the agent did answered by how it is
    "no no, the seed data never goes into the prod bucket",
    "reminder: release tags are signed, `git tag -s`",
    "why is there a Makefile? this repo builds with just, see the justfile",
    # said before in other words; a "how come" about what the agent did; how the project is
    # everywhere, where its things go, what must never happen
    "we went over this: migrations are reviewed by the dba, open a PR",
    "as discussed, the sdk is versioned with the api",
    "for the third time, tabs in the makefile",
    "how come you're editing dist/? it is built by the release job",
    "timestamps are UTC throughout the pipeline",
    "fixtures go in tests/data, not next to the test",
    "the lockfile must never be edited by hand",
    "the reports use raw sql on purpose, keep it like this",
    "every write to the ledger goes through the outbox",
    # a question that rebukes; a habit that came back; a rule for every such change
    "did you forget the changelog? every release needs an entry",
    "who told you to push? i push myself",
    "not again… the fixtures are read-only",
    "when the build is red, fix it before moving on. you skipped it again",
    "whenever you change the schema, regenerate the client",
    # "before you" with a "don't": a rule, not the step before the next one
    "before you edit anything under gen/ - dont, it comes from the proto",
    # a choice for a piece of work, set against what the agent did
    "use the date helper for the parser instead of a new regex",
    # its reason names a piece of work, not the choice
    "use the gradle wrapper, the system gradle is too old for the build",
    # "remember" that tells, not asks; its question comes later
    "remember, staging deploys go through the pipeline. ok?",
]

ORDINARY = [
    "Add a test for the parser",
    "is the api client generated, or written by hand?",
    "Now refactor the login form into its own component",
    "What does this function return?",
    "Looks good, commit it",
    "yes",
    "ok thanks",
    "Implement the following plan:\n\n# Plan\n- don't break the API\n- add a cache",
    "No teams are loading into the pane now",
    "it still doesn't work",
    "the redirect doesn't work :(",
    "are you sure?",
    "should we use the cache here instead?",
    "let's not change this just yet",
    "I have the repo at github.com/a/b, not sure which remote you need",
    "Familiarize yourself with the code base",
    "```\nTraceback: don't know\n```",
    "Caveat: The messages below were generated by the user while running local commands.",
    # a "don't" that describes, an adverb between it and its subject
    "I actually don't like this idea much, can you sketch another one?",
    "we really don't need the cache for the demo",
    # a cue past the lines judged (the first three) is a paste's, not the point's
    "Add the endpoint\nwith a test\nand the docs\nand don't forget the changelog",
    "let me check and get back to you",
    "I think we should also handle the timeout case",
    "next, make the endpoint return 404 when the user does not exist",
    "thanks! one more thing: rename the variable to user_count",
    # a suggestion of what to do next
    "Now run the type check and the tests. You know, why not run them all",
    # a "don't" or "never" of the user's own mind, a question that asks for a choice
    "don't know if it matters, but the build got slower",
    "never seen this warning before, what is it?",
    "I do not think this is related",
    "what could we use instead of polling here?",
    # a "not" of a state or a verb, not two things set apart
    "module not found after the upgrade, any idea?",
    "the tests not passing is expected for now",
    "this is not urgent",
    "we don't have a staging server yet",
    "do not know why the build got slower",
    "don't know",
    "we don't know why the deploy is slow",  # the team's mind, not its practice
    "we don't really mind either way",
    "I asked if we deploy on fridays and we do not",
    "ok, well",
    # "never would have", a courtesy after "so no", "here" of the moment
    "perfect, thanks. never would have found that",
    # what the user wants of their own work, found they do not need
    "I don't want to make it work only on my machine",
    "ahh ok looks like i dont need the token for that endpoint",
    "it can wait, so no rush",
    "the problem here is the cache, can you look?",
    "so here is the log from the run",
    "the tests are failing, so no idea what broke",
    "ok so the deploy went fine, no issues",
    "the logs here look fine to me",
    # a decision for the moment, the user's own next step, a "why" that only asks
    "don't tag the release yet, the changelog is not done",
    "before you deploy, let me read the migration once more",
    "no, only this one job needs the longer timeout",
    # a suggestion put to the agent, a doubt where a thing should live, a "why" that asks
    "instead of a cron, could we listen to the queue? what do you think?",
    "should that live in the worker or in the api? not sure",
    "why does the cache keep missing every time we deploy?",
    "why does the linter only complain on my machine?",
    "why is the badge red? not sure",
    "is the seed data loaded? the fixtures take a minute to build",
    "why is the bundle so big? could it be the icons? any idea?",
    # new work asked for, in the words of a correction: its "don't", "use", "make sure" and
    # "never" are the new work's constraints
    "next: add retries to the webhook sender, use the backoff helper, don't block the request",
    "one more: write a test for the empty cart, make sure it covers the zero total",
    "cool, pagination next. stick to cursor-based, offsets break under writes",
    "Can you add a health endpoint? It must not touch the database.",
    "looks good. could you also write the changelog entry? we use keep-a-changelog",
    "Please write the seed script so it can run twice. Never truncate the users table.",
    "before you start on the export job: we're on postgres 15, so use MERGE",
    "for the new importer use the shared csv reader, no need to write one",
    "now add a dark mode toggle, and always keep the user's choice in localStorage",
    "add a --verbose flag to the cli, don't change the default output",
    "can you set up the docker compose file? use the images pinned in .env",
    "the deploy is friday - can you bump the chart version? never reuse a tag",
    "one more: use the backoff helper for the retries, don't block the request",
    "so could you add the index? make sure you never lock the table",
    "great, add a retry and don't block the request",
    # the work named first ("for the …,"), then how it is to be done
    "for the CSV importer, stick to the stdlib and make sure it handles a BOM",
    # a choice for the piece in hand only
    "hmm no, for this one keep the enum as strings",
    # when the work is to pause; a question first, then what it is about
    "I'm offline for an hour. stop after the tests pass and leave me a summary",
    "stop here for today",
    "what does the `wrong_tenant` code mean? seeing these: code=wrong_tenant",
    # a "why" question with a request or a paste after it asks
    "why is the import so slow? profile output below",
    "why are there two failing tests in CI? can you investigate",
    "why does the build take so long? attached the timings",
    # the user's own part offered; a remark; the step before the next one
    "instead of me describing it, here's the screenshot",
    "always fun when the cache lies. anyway, add the export",
    "before you open the PR, squash the commits please",
    # what may be done again, or asked again
    "you can run the seed again, the db is empty now",
    "good. did you run it again after the fix?",
    "you saw the same timeout again?",
    # asks what the agent recalls
    "remember the parser we wrote on monday? reuse it for the import",
    # a choice for the piece of work named
    "use a map keyed by slug for the cache, the list is long",
    # what follows the first paragraph is not judged
    "Please add the endpoint\n\nthe old handler said: don't cache this",
    "",
    None,
    42,
]


@pytest.mark.parametrize("text", CORRECTIONS)
def test_corrections_are_recognised(text):
    assert corrections.correction(text) is not None


@pytest.mark.parametrize("text", ORDINARY)
def test_tasks_questions_approvals_reports_and_pastes_are_not(text):
    assert corrections.correction(text) is None


def test_the_words_kept_are_the_typed_head_without_markup():
    text = "<ide_opened_file>x</ide_opened_file>\nno, use pnpm\n\n```\nlog line 1\n```"
    assert corrections.correction(text) == "no, use pnpm"
    # the words may follow the closing tag with no space between
    assert corrections.head("<reminder>x</reminder>never push to main") == "never push to main"
    assert len(corrections.correction("don't " + "x " * 1000) or "") == corrections.HEAD_CHARS


def test_a_declined_calls_reason_may_be_a_bare_instruction():
    """ "run it with uv" alone is a new request; as the reason for declining ``pip install``
    it is the correction."""
    assert corrections.correction("run it with uv") is None
    assert corrections.correction("run it with uv", rejected=True) == "run it with uv"
    assert corrections.correction("use pnpm", rejected=True) == "use pnpm"
    assert corrections.correction("add the favicon too first", rejected=True) is None
    assert corrections.correction("do we even need this helper?", rejected=True) is None
    # a thing ruled out as the reason ("no" with no comma after it)
    assert corrections.correction("no network calls in unit tests") is None
    assert corrections.correction("no network calls in unit tests", rejected=True)


def test_an_answer_to_the_agents_question_is_judged_as_an_answer():
    """After "Shall I also update the docs?", "no" and "don't bother" answer; words that set
    the agent right still correct."""
    assert corrections.correction("no, leave them", answer=True) is None
    assert corrections.correction("no, it's fine", answer=True) is None
    assert corrections.correction("don't bother", answer=True) is None
    assert corrections.correction("no, use the docs generator instead", answer=True)
    assert corrections.correction("check again on the staging host", answer=True)
    assert corrections.correction("that's not the branch, it's called main", answer=True)
    assert corrections.correction("no, wrong file", answer=True)
    # an instruction opening a later clause still corrects; a "don't" there still answers
    assert corrections.correction("sure, go ahead. use pnpm for it though", answer=True)
    assert corrections.correction("sure, go ahead. don't bother with the docs", answer=True) is None


# -- the hook ----------------------------------------------------------------------------------


def _prompt(prompt, **extra):
    payload = {"event": "prompt", "prompt": prompt, "session_id": "c1", "cwd": "/", **extra}
    out = io.StringIO()
    raw = io.BytesIO(json.dumps(payload).encode())
    assert runner.run(echo_adapter, stdin=raw, stdout=out, environ=None) == 0
    return json.loads(out.getvalue())["decision"].get("context") if out.getvalue() else None


def test_a_correcting_prompt_asks_for_a_lesson_once(home):
    install_manifest(home)
    said = "no, use pnpm here, we don't use npm"
    context = _prompt(said)
    assert context is not None
    assert "The user is correcting you" in context
    assert "#lesson" in context
    assert _prompt(said) is None  # the same correction again: asked once
    assert "correcting you" in (_prompt("don't push to main") or "")  # another one


def test_an_ordinary_prompt_gets_no_line(home):
    install_manifest(home)
    assert _prompt("Add a test for the parser") is None
    assert _prompt("Looks good, commit it") is None


def test_a_sub_agents_prompt_gets_no_line(home):
    install_manifest(home)
    assert _prompt("no, use pnpm here", agent_id="a1") is None


def test_with_the_mcp_server_the_line_names_its_record_tool(home):
    install_manifest(home, mcp_installed=True)
    assert "`record` tool" in (_prompt("no, use pnpm here") or "")


def test_the_correcting_prompt_path_imports_only_the_standard_library(home, tmp_path):
    install_manifest(home)
    payload = {"event": "prompt", "prompt": "no, use pnpm", "session_id": "m", "cwd": "/"}
    argv = [sys.executable, str(HERE / "run_echo_hook.py"), "--modules"]
    loaded, proc = modules_after_run(argv, json.dumps(payload).encode(), tmp_path / "m.txt")
    assert b"correcting you" in proc.stdout
    assert "lessons_core.hot.corrections" in loaded
    assert not (loaded & BANNED), sorted(loaded & BANNED)
