"""The failure classes' prefilter: a text the substring test turns away matches no class."""

from __future__ import annotations

import re

import pytest

from lessons_core.patterns.linearize import top_level_split
from lessons_core.scan import events as ev
from lessons_core.scan.detectors import failures, tier2


@pytest.mark.parametrize("kind,source", failures._CLASSES)
def test_every_alternative_holds_a_prefilter_literal(kind, source):
    """Each alternative of each class, with its escapes undone, contains one of the literals
    outside any group: otherwise a text matching it could be turned away unread."""
    for branch in top_level_split(source, "|"):
        plain = re.sub(r"\\(.)", r"\1", re.sub(r"\((?:[^()\\]|\\.)*\)[?*]?", "\0", branch))
        assert any(lit in plain.lower() for lit in failures._LITERALS), (kind, branch)


@pytest.mark.parametrize(
    "text,kind",
    [
        ("The user doesn't want to proceed with this tool use.", ev.REJECTED),
        ("Permission to use Bash has been denied.", ev.DENIED),
        ("[Request interrupted by user]", ev.INTERRUPTED),
        ("Command timed out after 2m 0s", ev.TIMEOUT),
        ("<tool_use_error>File has not been read yet.</tool_use_error>", ev.VALIDATION),
        ("FOUND 2 MATCHES OF THE STRING TO REPLACE", ev.VALIDATION),
        ("Fichier → Path does not exist: /tmp/é", ev.VALIDATION),
        ("Exit code 1\nModuleNotFoundError: No module named 'x'", None),
        ("Erreur — rien trouvé", None),
    ],
)
def test_class_of_with_and_without_the_prefilter(text, kind):
    """The fast path gives what the caseless alternation gives, ASCII or not."""
    assert failures.class_of(text) == kind
    slow = {m.lastgroup for m in failures._any_class().finditer(text)}
    assert next((k for k in failures._PRIORITY if k in slow), None) == kind


def test_a_caseless_fold_outside_ascii_takes_the_slow_path():
    """The long s matches ``s`` caselessly but ``str.lower`` keeps it: such a text is searched
    caselessly, so it is still classified."""
    text = "\u017fandbox denied this write"
    assert failures.class_of(text) == ev.DENIED


_ERROR_TEXTS = [
    "<tool_use_error>File has not been read yet. Read it first.</tool_use_error>",
    "Found 3 matches of the string to replace, but replace_all is false.",
    "ERROR: String To Replace Not Found in file.",
    "bash: line 1: pytest: command not found",
    "zsh:1: COMMAND NOT FOUND: npm",
    "npm: not found",
    "Traceback (most recent call last):\nModuleNotFoundError: No module named 'yaml'",
    "error: externally-managed-environment\n× This environment is externally managed",
    "cp: cannot stat '/tmp/x': No such file or directory",
    "EISDIR: illegal operation on a directory, read",
    "Fichier → Path does not exist: /tmp/é",
    "Erreur — rien trouvé",
    "error: unrecognized arguments: --fast",
    "make: *** No rule to make target 'tset'.  Stop.",
    "InputValidationError: required parameter `file_path` is missing",
    "open /etc/shadow: PERMISSION DENIED",
    "all good: 3 passed in 0.2s",
]


@pytest.mark.parametrize("text", _ERROR_TEXTS)
def test_a_mistake_class_is_found_alike_on_the_lowered_text(text):
    """The lowered patterns on the lowered text pick the class the caseless patterns pick."""
    caseless = next((c for c in failures.MISTAKE_CLASSES if c.pattern.search(text)), None)
    assert failures.mistake_class(text) is caseless
    for cls in failures.MISTAKE_CLASSES:
        assert bool(cls.lowered.search(text.lower())) == bool(cls.pattern.search(text)), cls.name


@pytest.mark.parametrize(
    "text,name",
    [
        ("open /etc/shadow: permi\u017f\u017fion denied", failures.NOT_PERMITTED),  # long s
        ("git: unknown opt\u0131on --fast", failures.UNKNOWN_OPTION),  # dotless i
        ("git: \u0130nvalid option --fast", failures.UNKNOWN_OPTION),  # dotted capital I
    ],
)
def test_a_mistake_class_behind_a_caseless_fold_is_still_found(text, name):
    """The long s matches ``s`` caselessly (and the Turkish i's match ``i``) but ``str.lower``
    gives no ASCII letter for them: a text with one inside the words its class matches is
    searched with the caseless patterns, so its class is found all the same."""
    low = text.lower()
    assert not any(cls.lowered.search(low) for cls in failures.MISTAKE_CLASSES)  # the fold matters
    assert failures.mistake_class(text) is failures.mistake_class_named(name)


def test_a_missing_path_is_a_one_off_and_a_missing_command_is_not():
    """A file that was not where the call looked is a fact of one repository; a command not on
    PATH is a mistake the next session can make again."""
    missing = failures.mistake_class("cat: notes.txt: No such file or directory")
    assert missing is failures.mistake_class_named(failures.MISSING_PATH)
    assert missing.reusable is False
    command = failures.mistake_class("bash: line 1: pytest: command not found")
    assert command is not None and command.reusable is True


@pytest.mark.parametrize(
    "text,name",
    [
        ("Error: You must read file /a/b.py before overwriting it. Use the Read tool first",
         failures.NOT_READ),
        ("Error: File /a/b.py has been modified since it was last read.", failures.NOT_READ),
        ("Error: Could not find oldString in the file. It must match exactly, including"
         " whitespace, indentation, and line endings.", failures.STALE_TEXT),
        ("Error: oldString not found in content", failures.STALE_TEXT),
        ("Error: Found multiple matches for oldString. Provide more surrounding context to make"
         " the match unique.", failures.AMBIGUOUS_TEXT),
    ],
)  # fmt: skip
def test_opencode_s_edit_refusals_are_the_classes_of_claude_s(text, name):
    """OpenCode's edit and write tools refuse a call in their own words (``oldString``, "must
    read file"): the same mistakes as Claude Code's, so the same lessons, and a refusal of the
    call (validation) rather than a command that failed."""
    assert failures.mistake_class(text) is failures.mistake_class_named(name)
    assert failures.class_of(text) == ev.VALIDATION


@pytest.mark.parametrize(
    "text,name",
    [
        ("Could not find an exact match for 'old_string' in '/w/app.py'. If previous edits"
         " modified the file or you are modifying lines outside your recent read window, please"
         " use ReadFile to inspect the target lines before retrying with an exact 'old_string'.",
         failures.STALE_TEXT),
        ("No match found", failures.STALE_TEXT),  # Copilot CLI's edit tool
        ("Multiple matches found", failures.AMBIGUOUS_TEXT),
    ],
)  # fmt: skip
def test_gemini_s_and_copilot_s_edit_refusals_are_the_classes_of_claude_s(text, name):
    """The current Gemini CLI's ``replace`` and Copilot CLI's ``edit`` say it in words of their
    own (as the end-to-end capture test met them): the same mistakes, the same lessons."""
    assert failures.mistake_class(text) is failures.mistake_class_named(name)
    if text.startswith("Could not find"):  # (Copilot's reader tells its own from the tool)
        assert failures.class_of(text) == ev.VALIDATION


@pytest.mark.parametrize(
    "text,name",
    [
        # a tool the model made up, in each agent's words
        ("unsupported call: NoSuchTool", failures.UNKNOWN_TOOL),  # Codex
        ('Tool "NoSuchTool" not found. Did you mean one of: "glob", "read_file"?',
         failures.UNKNOWN_TOOL),  # Gemini CLI
        ("Model tried to call unavailable tool 'NoSuchTool'. Available tools: bash, edit",
         failures.UNKNOWN_TOOL),  # OpenCode, Kilo
        ("Tool 'NoSuchTool' does not exist.", failures.UNKNOWN_TOOL),  # Copilot CLI
        # an edit before the file was read (Qwen Code)
        ("File /w/a.py has not been read in this session. Use the read_file tool first to load"
         " the current content.", failures.NOT_READ),
        # a parameter left out (Copilot CLI's create)
        ('"file_text": Required', failures.BAD_PARAMETERS),
    ],
)  # fmt: skip
def test_every_agent_s_refusal_of_a_malformed_call_is_one_class(text, name):
    """The wordings each agent CLI gave the same malformed call in the end-to-end runs: one
    class, so one lesson, whichever agent made the call; each is a refusal, not output."""
    assert failures.mistake_class(text) is failures.mistake_class_named(name)
    if name != failures.BAD_PARAMETERS:
        assert failures.class_of(text) == ev.VALIDATION


def test_a_tool_or_a_parameter_named_inside_output_is_no_refusal():
    """The anchored wordings name a class only as the whole start of a result."""
    unknown = failures.mistake_class_named(failures.UNKNOWN_TOOL)
    assert failures.mistake_class("ls\nTool 'x' does not exist in this list") is not unknown
    assert failures.mistake_class('{\n"name": Required by the schema') is None


@pytest.mark.parametrize(
    "text",
    [
        "must provide `--title` and `--body` when not running interactively",
        "error: unable to start editor 'vi'",
        "error: There was a problem with the editor 'vi'.",
        "hint: Waiting for your editor to close the file...",
        "the input device is not a TTY",
        "stdin is not a tty",
        "Error: Not a terminal",
        "stty: 'standard input': Inappropriate ioctl for device",
        "sudo: no tty present and no askpass program specified",
        "This command requires an interactive terminal",
        "Cannot run in non-interactive mode without --yes",
        "? Project name: cannot prompt, input is not a TTY",
        "an interactive terminal is required",
    ],
)
def test_a_command_that_wanted_a_terminal_is_one_class(text):
    """An agent's shell has no terminal: each program's way of saying it wanted one (to prompt,
    to open an editor, to allocate a TTY) is the one class."""
    assert failures.mistake_class(text) is failures.mistake_class_named(failures.NO_TERMINAL)


def test_a_shell_that_refuses_command_substitution_is_a_class_of_its_own():
    """Gemini CLI's shell refuses ``$(…)``: the tool's refusal, not the command's output, and
    its sentence is the error line the lesson is recalled by."""
    text = (
        "Command injection detected: command substitution syntax ($(), backticks, <() or >()) "
        "found in command arguments. This is a security risk and the command was blocked."
    )
    found = failures.mistake_class(text)
    assert found is failures.mistake_class_named(failures.SUBSTITUTION_BLOCKED)
    assert failures.error_lines(text)[0].startswith("Command injection detected")
    assert failures.mistake_class("Error: Command substitution using $() is not allowed") is found


def test_git_s_disabled_credential_prompt_stays_an_authentication_failure():
    text = "fatal: could not read Username for 'https://github.com': terminal prompts disabled"
    assert failures.mistake_class(text) is failures.mistake_class_named(failures.AUTHENTICATION)


def test_copilot_s_words_alone_name_no_class_inside_other_output():
    """Copilot's refusal is its whole message; a command that printed it among other lines is
    not an edit refused."""
    assert failures.mistake_class("searching…\nNo match found\n3 files checked") is None


@pytest.mark.parametrize(
    "text",
    [
        "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote",
        "fatal: could not read Username for 'https://github.com': terminal prompts disabled",
        "remote: Invalid username or token.\nfatal: Authentication failed for 'https://h/r/'",
        "To get started with GitHub CLI, please run:  gh auth login",
        "HTTP 401: Bad credentials (https://api.github.com/user)",
    ],
)
def test_a_credential_the_place_lacks_is_a_reusable_class_of_its_own(text):
    """An SSH key refused is not a file the command may not touch: it is what this place can
    authenticate with, which the next session meets again (and is fixed by another remote or
    login, not by another path)."""
    found = failures.mistake_class(text)
    assert found is failures.mistake_class_named(failures.AUTHENTICATION)
    assert found.reusable is True
    plain = failures.mistake_class("rm: cannot remove 'x': Permission denied")
    assert plain is failures.mistake_class_named(failures.NOT_PERMITTED)


def test_a_file_the_read_tool_did_not_find_is_a_missing_path():
    """Gemini CLI's and OpenCode's read tools say "File not found: <path>"; a command's output
    that merely holds the words later on is not a path the call named."""
    missing = failures.mistake_class_named(failures.MISSING_PATH)
    assert failures.mistake_class("File not found: /w/src/util.py") is missing
    assert failures.mistake_class("Checking assets\nFile not found: logo.svg (skipped)") is None


def test_a_mistake_class_is_read_from_the_first_1500_characters():
    """Only the head of an output is read: an error stated past its first 1,500 characters (a
    long log before it) gives no class, and one ending on the 1,500th still does."""
    error = "cat: build: No such file or directory"
    missing = failures.mistake_class_named(failures.MISSING_PATH)
    fits = "compiling module\n" * 50
    fits += "." * (1500 - len(fits) - len(error) - 1) + "\n" + error
    assert len(fits) == 1500
    assert failures.mistake_class(fits) is missing
    assert failures.mistake_class(fits + "\nmore output") is missing
    assert failures.mistake_class("." + fits) is None


def test_a_failure_kind_is_read_from_the_first_500_characters():
    """Harnesses state why a call failed at the start of its result: a timeout stated up to
    the 500th character is one, a statement cut at it is not."""
    said = "Command timed out"
    fits = "." * (500 - len(said)) + said
    assert len(fits) == 500
    assert failures.classify_text(fits) == ev.TIMEOUT
    assert failures.classify_text("." + fits) is None


def test_a_command_not_permitted_where_it_ran_is_recalled_at_its_error(script):
    """A permission the place lacked is a fact of that place (a system folder, a sandbox):
    resolved by calling the command so that it writes where it may, it is a lesson (the
    labelling rules' refusals "with how they were resolved"), recalled when the same refusal
    comes back, not before every global install."""
    refused = "npm ERR! Error: EACCES: permission denied, mkdir '/usr/lib/node_modules'"
    assert failures.mistake_class(refused) is failures.mistake_class_named(failures.NOT_PERMITTED)
    script.run("npm install -g typescript", refused, failure=ev.ERROR, code=243)
    script.run("npm install -g --prefix ~/.local typescript", "added 1 package in 2s")
    (candidate,) = tier2.detect(script.events)
    assert candidate.summary == (
        "npm install: not permitted there; it worked with `--prefix ~/.local`"
    )
    assert candidate.trigger is None


def test_a_command_not_permitted_and_not_resolved_is_no_lesson(script):
    """Refused, then another file written instead: a fact of that file, no lesson."""
    refused = "cp: cannot create regular file '/etc/hosts': Permission denied"
    script.run("cp hosts /etc/hosts", refused, failure=ev.ERROR, code=1)
    script.run("cp hosts /tmp/hosts", "")
    assert list(tier2.detect(script.events)) == []


# -- the lines of an output that state the error -----------------------------------------------


def test_error_lines_keep_only_the_lines_that_state_the_error():
    """Progress lines go, a repeated error line is kept once, whitespace is collapsed."""
    text = "Compiling app v0.1.0\nerror:   mismatched types\n\nerror:   mismatched types\ndone\n"
    assert failures.error_lines(text) == ("error: mismatched types",)


@pytest.mark.parametrize(
    "line",
    [
        'rg: the literal "\\n" is not allowed in a regex',
        "cat: illegal option -- A",
        "SyntaxError: Unexpected token '}'",
        "Operation not permitted",
        "this platform is not supported",
        "ERR_PNPM_UNSUPPORTED_ENGINE Unsupported environment",
        "unrecognized subcommand 'bun'",
        "[ERR_PNPM_ABORTED_REMOVE_MODULES_DIR_NO_TTY] Aborted removal of modules directory",
        "Aborted (core dumped)",
        "File does not exist.",  # Claude Code's Read
        "Path does not exist",  # Copilot CLI's view
        "error: pathspec 'main' doesn't exist",
        "File 'out/a.mp4' already exists. Overwrite? [y/N] Not overwriting - exiting",
        "Could not open a connection to your authentication agent.",
        "Couldn't find a project to run. Ensure a project exists in /p, or pass --project.",
        "abort: push creates new remote branches: 'calib'",
        "flag '--no-password' requires the '--insecure' flag",
        "option --output requires an argument",
        "-o requires a value",
        "flag --token required",
        "X Pull request acme/web#512 is not mergeable: the base branch policy prohibits it.",
        "x No package found with name 'web' in workspace",
        "✖ You must sign in or use a license key with Serverless Framework V.4",
        "No test files found, exiting with code 1",
        '"/p/data/orders.csv" is not a core dump: file format not recognized',
        "WARN Command cancelled.",
        'FATA[0001] pinging container registry localhost:5000: Get "https://localhost:5000/v2/"',
    ],
)
def test_a_line_that_says_what_was_refused_is_an_error_line(line):
    """A command's own refusal in words other than "error": not allowed, not supported, not
    permitted, illegal, unexpected, unrecognized, could not, an opening "abort:". The line
    after it, the usage or the advice, is not."""
    assert failures.error_lines(f"{line}\nusage: tool [-belnstuv] [file ...]") == (line,)


@pytest.mark.parametrize(
    "line",
    [
        "Requires-Python >=3.11",
        "this package requires node 20",
        "--watch is required here",
        "  - requires: python>=3.11",
        # a mark only where a word starts in capitals after it; "no" only opening the line
        "x 12 y 40",
        "x marks where the tile goes",
        "INFO[0000] copied the blob; ERRO[ and FATA[ lines would follow it",
        "- [x] Run the checks",
        "found 3 packages, no vulnerabilities found",
    ],
)
def test_what_a_package_requires_is_no_error_line(line):
    """Only an option that requires something states a refusal: a package's requirements, or
    a word of a longer name, do not."""
    assert failures.error_lines(line) == ()


def test_a_harness_header_is_passed_over_and_the_error_after_it_kept():
    """Codex's and Claude Code's header lines (exit code, chunk, wall time) come before what
    the command printed: they are no error line, and the lines after them are read on."""
    text = "Exit code 1\nChunk ID: 1a2b\nWall time: 0.2 seconds\nerror: no such remote 'up'"
    assert failures.error_lines(text) == ("error: no such remote 'up'",)


def test_a_command_killed_at_its_timeout_is_a_timeout_and_says_so():
    """OpenCode's and Kilo's shell tool kill a command that outlived its timeout and append a
    note in markup of their own: the note is the error line, without the markup, and the
    failure a timeout."""
    text = (
        "watching for changes\n\n\n<shell_metadata>\nshell tool terminated command after "
        "exceeding timeout 2000 ms. If this command is expected to take longer and is not "
        "waiting for interactive input, retry with a larger timeout value in milliseconds.\n"
        "</shell_metadata>"
    )
    (line,) = failures.error_lines(text)
    assert line.startswith("shell tool terminated command after exceeding timeout 2000 ms.")
    assert failures.class_of(line) == ev.TIMEOUT
    assert "<" not in failures.strip_tags(text)


def test_a_usage_line_comes_after_the_error_it_came_with():
    """argparse and pytest print how the command is called before what was wrong; the usage
    is the same for every error, so the line that says what was wrong leads."""
    text = (
        "ERROR: usage: pytest [options] [file_or_dir] [file_or_dir] [...]\n"
        "pytest: error: unrecognized arguments: --cov=src\n  inifile: /p/pytest.ini"
    )
    assert failures.error_lines(text) == (
        "pytest: error: unrecognized arguments: --cov=src",
        "ERROR: usage: pytest [options] [file_or_dir] [file_or_dir] [...]",
    )


def test_an_error_code_is_told_by_its_case():
    """Node's and pnpm's codes (``ERR_PNPM_…``, ``ERR_MODULE_NOT_FOUND``) state the error; a
    name in lower case with the same letters (``err_count``) is a program's own word."""
    assert failures.error_lines("ERR_SOCKET_CLOSED while fetching") == (
        "ERR_SOCKET_CLOSED while fetching",
    )
    assert failures.error_lines("stats: err_count = 0") == ()


@pytest.mark.parametrize(
    "frame",
    [
        "at getFinalError (file:///opt/pnpm/dist/pnpm.mjs:34109:14)",
        "at async Promise.all (index 0)",
        "at Object.<anonymous> (/w/app/build.js:3:9)",
        "at /w/app/node_modules/x/index.js:12:5",
        "at com.acme.Store.loadError(Store.java:41)",
        'File "/w/app/cli.py", line 12, in raise_error',
        "at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
    ],
)
def test_a_stack_frame_comes_after_the_error_it_carried(frame):
    """A frame of a stack trace holds a function's name (``getFinalError``), not the error: it
    is kept after the lines that state one, whichever came first."""
    text = f"{frame}\nTypeError: cannot read properties of undefined\n{frame}2"
    assert failures.error_lines(text)[0] == "TypeError: cannot read properties of undefined"


def test_a_line_that_only_starts_with_at_is_no_frame():
    """ "at 10:30 the build failed" is a sentence: it keeps its place."""
    text = "at 10:30 the build failed\nerror: disk full"
    assert failures.error_lines(text) == ("at 10:30 the build failed", "error: disk full")


def test_an_abort_only_opening_a_line_states_an_error():
    """hg's ``abort: …`` states why it stopped; advice on how to abort does not."""
    text = "abort: push creates new remote branches: 'x'\n(use 'git rebase --abort' to stop)"
    assert failures.error_lines(text) == ("abort: push creates new remote branches: 'x'",)


def test_error_lines_stop_at_the_limit():
    """The first ``limit`` error lines, in order, and no more."""
    text = "\n".join(f"error: failure number {n}" for n in range(8))
    assert failures.error_lines(text) == tuple(f"error: failure number {n}" for n in range(5))
    assert failures.error_lines(text, 2) == ("error: failure number 0", "error: failure number 1")


def test_error_lines_redact_no_line_past_the_limit(monkeypatch):
    """Redaction, the costly step, runs on the lines kept and stops once ``limit`` are found: a
    failed build's output can hold thousands of error lines."""
    redacted: list[str] = []

    def counting(line: str, limit: int) -> str:
        redacted.append(line)
        return line

    monkeypatch.setattr(failures, "redact_head", counting)
    text = "\n".join(f"error: unresolved import number {n}" for n in range(9))
    assert len(failures.error_lines(text, 3)) == 3
    assert redacted == [f"error: unresolved import number {n}" for n in range(3)]


def test_an_error_line_is_cut_to_200_characters():
    """A long line keeps its first 200 characters (after redaction)."""
    line = "error: " + "the value was out of range " * 12
    assert failures.error_lines(line) == (line[:200],)


def test_a_passed_tests_line_is_no_error_line():
    """A test named after errors passed: its line says nothing failed, the timeout does."""
    text = (
        "  ✔ provider keeps checkpoint session load errors in-tree\n"
        "  43 passing (9s)\n"
        "  1 failing\n"
        "  Error: Timeout of 2000ms exceeded.\n"
    )
    lines = failures.error_lines(text)
    assert lines[0] == "Error: Timeout of 2000ms exceeded."
    assert not any("✔" in line for line in lines)


def test_a_lone_word_is_no_error_line():
    """A test suite titled ``missing`` prints the word on a line of its own: it states no error,
    and quoted as the error it hides the timeout that was one."""
    text = (
        "  missing\n    ✔ reads the mirror ref\n  1 failing\n  Error: Timeout of 2000ms exceeded.\n"
    )
    assert failures.error_lines(text) == ("Error: Timeout of 2000ms exceeded.", "1 failing")
    assert failures.error_lines("FAILED\nfatal: not a git repository\n") == (
        "fatal: not a git repository",
    )


def test_warnings_and_tallies_come_after_the_lines_that_say_what_failed():
    """The first line is the one a lesson quotes: never a warning the run went on from, nor a
    count of failures, when a later line says what failed."""
    text = (
        "▲ [WARNING] Missing required secrets: API_KEY.\n"
        "npm WARN cannot resolve peer react@18\n"
        "Found 1 error.\n"
        "Error: listen EPERM: operation not permitted 127.0.0.1\n"
    )
    assert failures.error_lines(text) == (
        "Error: listen EPERM: operation not permitted 127.0.0.1",
        "▲ [WARNING] Missing required secrets: API_KEY.",
        "npm WARN cannot resolve peer react@18",
        "Found 1 error.",
    )
    assert failures.error_lines("warning: missing docs\n") == ("warning: missing docs",)


def test_colour_codes_are_dropped_from_error_lines():
    text = (
        "\x1b[31m✘ \x1b[41;31m[\x1b[41;97mERROR\x1b[41;31m]\x1b[0m \x1b[1mCould not bind\x1b[0m\n"
    )
    assert failures.error_lines(text) == ("✘ [ERROR] Could not bind",)


def test_a_rejected_push_states_its_reason_before_the_summary():
    """git says why a push was refused on the ``! [rejected]`` line, before the summary."""
    text = (
        "To https://example.com/o/r.git\n"
        " ! [rejected]        b -> b (stale info)\n"
        "error: failed to push some refs to 'https://example.com/o/r.git'\n"
    )
    assert failures.error_lines(text)[0] == "! [rejected] b -> b (stale info)"
