"""The judging of a pair: whether a corrected failure is a mistake a person would call
reusable, and of which class.

A failing test run fixed by an edit, or a file that was not where the agent looked, is a
one-off fact and is dropped; a tool refusing the call, an unknown option, a wrong working
directory or a step the error named first is kept, with the class the lesson is written from.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from lessons_core.patterns import kept_programs
from lessons_core.scan import events as ev
from lessons_core.scan import scoring
from lessons_core.scan.detectors import edit_causes, failures, triggers
from lessons_core.scan.detectors.failures import error_lines
from lessons_core.scan.detectors.tier2.calls import other_manager
from lessons_core.scan.detectors.tier2.classes import (
    _TOOL_REFUSALS,
    _WORK_FAILURE,
    ANOTHER_PROGRAM,
    ANOTHER_WAY,
    ARG_FORM,
    AS_ARGUMENT,
    AS_MODULE,
    BARE_KEY,
    CWD_DRIFT,
    DASH_ARGUMENT,
    DOUBLE_QUOTED,
    EATEN_BACKSLASH,
    ENV_NOT_LOADED,
    ENV_SET,
    ERROR_NAMED,
    EXPANDED_GLOB,
    FOLDER_GIVEN,
    FULL_NAME,
    GH_GRAPHQL,
    GO_FILES,
    GUESSED_PATH,
    IN_FRONT,
    NAME_FOR_PATH,
    NEEDS_ROOT,
    NOT_EXECUTABLE,
    NOT_EXPORTED,
    OPERATOR_WORD,
    OPTION_JOINED,
    OPTION_STAND_IN,
    OPTION_VALUE,
    OTHER_SUBCOMMAND,
    OTHER_VERSION,
    PACKAGE_MANAGER,
    PACKAGE_NAME,
    PASSED_ON,
    PATTERN_PATH,
    PLUGIN_ELSEWHERE,
    PREREQUISITE,
    PROJECT_TASK,
    QUOTED_GLOB,
    SANDBOX,
    SCHEME_ADDED,
    SPACED_PATH,
    SSH_URL,
    STALE_OUTPUT,
    STEP_FIRST,
    STEP_REDONE,
    SUBPROJECT,
    SUDO_REDIRECT,
    TOOL_CANNOT_START,
    UNKNOWN_SKILL,
    UNMATCHED_GLOB,
    WORKDIR_DRIFT,
    WRITE_ELSEWHERE,
    _refused_arguments,
    cannot_start,
    gh_graphql_refused,
    unknown_skill,
)
from lessons_core.scan.detectors.tier2.drift import (
    _cd_to_root,
    _drift,
    _path_of_another_workdir,
    _workdir_drift,
)
from lessons_core.scan.detectors.tier2.finding import Finding
from lessons_core.scan.detectors.tier2.pairing import _operands
from lessons_core.scan.detectors.tier2.paths import guessed, not_given
from lessons_core.scan.detectors.tier2.recall import (
    called_otherwise,
    flaky_run,
    set_in_front,
    tests_failed,
)
from lessons_core.scan.detectors.tier2.remedies import _REFUSED_WORD, _cleared, through_gh_api


def _judge(
    finding: Finding, events: list[ev.Event], i: int, results: dict[int, ev.Event]
) -> Finding | None:
    """Keep a corrected failure only when a person would call it a reusable mistake."""
    call, result, fix = finding.call, finding.result, finding.fix
    assert fix is not None
    cls = failures.mistake_class(result.text)
    if finding.later is not None:
        finding.cls = STEP_REDONE  # (pairing found it so: an earlier step run again)
        return finding
    if finding.step is not None:
        finding.cls = PREREQUISITE
        return finding
    # (a step that rewrote a file is no edit of the code when the error asked for it: ``Run
    # the command biome migrate`` of ``biome migrate --write && biome check .``)
    step = (
        triggers.step_first(call.command, fix.command, result.text)
        if call.command and fix.command
        else None
    )
    # (a traceback of a module missing is the environment's, not the code's; so is a run the
    # error itself said needs the step, ``Please run "prisma generate"``, or one whose error
    # named the file the step made: ``touch database/database.sqlite``; or a run that failed
    # before any test did and worked once a step ran in front, no file edited, deleted or put
    # back: the code was the same)
    code_failed = _WORK_FAILURE.search(result.text[:3000]) and not (
        (cls is not None and cls.name == failures.MODULE_NOT_FOUND)
        or (step is not None and triggers.step_named(result.text, step))
        or (step is not None and triggers.step_makes_named(result.text, step))
        or (
            step is not None
            and not finding.edited
            and not triggers.moves_the_tree(step)
            and not tests_failed(result.text)
        )
    )
    if step is not None and not finding.edited and not code_failed:
        # (the step ran in front of the same command, on the same line)
        finding.cls, finding.step = STEP_FIRST, step
        return finding
    if (
        call.command
        and fix.command
        and triggers.took_suggestion(call.command, fix.command, result.text)
    ):
        return None  # a slip the tool set right ("did you mean 'unit_tests'?"): a one-off
    # (read once: two letters swapped are a slip whatever the class; a letter or two of a name,
    # only where no class tells more, below)
    slip = triggers.retyped(call.command, fix.command) if call.command and fix.command else None
    if slip == triggers.KEYS:
        return None  # two letters typed the wrong way round (``make tset``): a one-off
    if cannot_start(call, result.text):
        # The tool could not start, whatever it was given: the lesson is the shell doing its
        # job (:func:`.remedies._searched_in_shell`), never the same tool working again.
        if not fix.command:
            return None
        finding.cls = TOOL_CANNOT_START
        return finding
    if unknown_skill(call, result.text) is not None:
        # The skill's job done in the shell (:func:`.remedies._did_by_hand`); another call of
        # the same tool is no way around a name the project does not define.
        if not fix.command:
            return None
        finding.cls = UNKNOWN_SKILL
        return finding
    target = gh_graphql_refused(call, result.text)
    if target is not None and through_gh_api(target, fix):
        # gh's own query failed, not the change: the REST call on the same number made it.
        finding.cls = GH_GRAPHQL
        return finding
    if call.command and not finding.edited and not _removes(call.command):
        if finding.cleared is None:
            fix_at = next((k for k in range(i + 1, len(events)) if events[k] is fix), i)
            finding.cleared = _cleared(result.text, events, i, fix_at, results)
        if finding.cleared is not None:
            finding.cls = STALE_OUTPUT
            return finding
    if call.command and fix.escalated and not call.escalated and not finding.edited:
        finding.cls = SANDBOX  # the same command, once it could leave the sandbox, worked
        return finding
    variable = triggers.missing_variable(result.text) if call.command and fix.command else None
    if (
        variable
        and not finding.edited
        and triggers.loads_variable(call.command or "", fix.command or "", variable)
    ):
        finding.cls = ENV_NOT_LOADED  # (whatever else the error reads like: a traceback)
        return finding
    loaded = (
        triggers.env_loaded_first(call.command, fix.command)
        if call.command and fix.command and not finding.edited
        else None
    )
    if loaded is not None:
        # the project's env file read first, nothing else changed: a step this shell needs
        finding.cls, finding.step = STEP_FIRST, loaded
        return finding
    if call.command and fix.command and not finding.edited:
        unset = triggers.unexported(call.command, fix.command)
        if unset is not None:
            finding.cls, finding.option = NOT_EXPORTED, unset  # (whatever the error said)
            return finding
        # another subcommand of the same program, the one the error said to run
        was, now = triggers.main_shape(call.command), triggers.main_shape(fix.command)
        if was and now and was.exe == now.exe and was.sub != now.sub:
            told = triggers.command_named(result.text, fix.command)
            if told is not None:
                finding.cls, finding.stand_in = ERROR_NAMED, told
                return finding
        module = triggers.as_module(call.command, fix.command)
        if module is not None:  # (whatever the traceback: the same script, run as a module)
            finding.cls, finding.stand_in = AS_MODULE, module[1]
            return finding
        swapped = triggers.option_stand_in(call.command, fix.command, result.text)
        if swapped is not None:
            finding.cls, (finding.option, finding.stand_in) = OPTION_STAND_IN, swapped
            return finding
        finding.option = triggers.empty_value_added(call.command, fix.command)
        if finding.option is not None:
            finding.cls = OPTION_VALUE
            return finding
        # one word written otherwise: quoted, given its scheme, given by name
        for cls_of, written in (
            (SPACED_PATH, triggers.space_quoted),
            (OPERATOR_WORD, triggers.operator_quoted),
            (EXPANDED_GLOB, triggers.bare_glob),
            (OPTION_JOINED, triggers.option_joined),
            (SCHEME_ADDED, triggers.scheme_added),
            (NAME_FOR_PATH, triggers.name_for_path),
        ):
            found = written(call.command, fix.command)
            if found is not None:
                finding.cls, finding.stand_in = cls_of, found
                return finding
        # (the error names the word as the shell read it: whatever its class, a missing path)
        eaten = triggers.eaten_backslashes(call.command, result.text)
        if eaten is not None:
            finding.cls, finding.stand_in = EATEN_BACKSLASH, eaten
            return finding
        finding.renamed = triggers.registry_added(call.command, fix.command)
        if finding.renamed is not None:
            finding.cls = FULL_NAME  # (a short name given by its full one)
            return finding
        finding.ssh_host = triggers.ssh_to_https(call.command, fix.command)
        if finding.ssh_host is not None:
            finding.cls = SSH_URL  # (whatever the error said: the address was all that changed)
            return finding
        finding.renamed = triggers.package_renamed(call.command, fix.command, result.text)
        if finding.renamed is not None:
            finding.cls = PACKAGE_NAME
            return finding
        form = triggers.argument_form(call.command, fix.command)
        if form is not None and (
            form[0] in result.text or not _WORK_FAILURE.search(result.text[:3000])
        ):
            # one word written in another form (``x.py:88`` → ``x.py::test_refund``), the
            # error naming it or no test failing: the form was the mistake, not the code
            finding.cls, finding.renamed = ARG_FORM, form[:2]
            return finding
    if result.failure == ev.DENIED:
        return None  # refused, and not resolved by asking for the permission
    if finding.other_target is not None:
        return _judge_other_way(finding, cls)
    if call.command and fix.command and not finding.edited:
        named = _named_by_the_call(finding, cls, results)
        if named is not None:
            return named
    setup_failed = bool(call.command) and _culprit_is_setup(call.command or "", result.text)
    # the fix's single quotes where the call had double ones the shell read into, nothing
    # else changed (:data:`DOUBLE_QUOTED`)
    quoted = (
        None if finding.edited else triggers.single_quoted(call.command or "", fix.command or "")
    )
    missing = cls is not None and cls.name == failures.MISSING_PATH
    if setup_failed or missing or _cd_to_root(fix):
        drift = _drift(events, i, call, fix, results)
        if drift is not None:
            finding.cls, finding.drift_dir = CWD_DRIFT, drift
            return finding
        workdir = _workdir_drift(call, fix) if missing else None
        if workdir is None and missing:
            workdir = _path_of_another_workdir(events, i, call, fix, results)
        if workdir is not None:
            finding.cls, finding.drift_dir = WORKDIR_DRIFT, workdir
            return finding
        if missing and _pattern_taken_for_path(call.command or "", result.text):
            finding.cls = PATTERN_PATH  # no file was guessed: the call's syntax was wrong
            return finding
        if missing and triggers.dash_argument_trigger(call.command or "", fix.command or ""):
            # a pattern read as options, one of which took a file (``git grep "-fno-rtti"``
            # read ``-f no-rtti``): the file is no guess, the dash was the mistake
            finding.cls = DASH_ARGUMENT
            return finding
        where = guessed(call, fix, result.text) if missing and not finding.edited else None
        if where is not None:
            # A file that was not where the agent looked: a fact of this project, a lesson
            # once the same guess comes back (:mod:`.paths`).
            finding.cls, finding.guessed = GUESSED_PATH, where
            return finding
        below = (
            triggers.subfolder_operand(call.command or "", fix.command or "", result.text)
            if missing and not finding.edited
            else None
        )
        if below is not None:
            finding.cls, finding.drift_dir = SUBPROJECT, below  # (``npm --prefix web test``)
            return finding
        if set_in_front(finding):
            finding.cls = ENV_SET  # (a search path set for it: ``PKG_CONFIG_PATH=… make``)
            return finding
        if missing and quoted is None and not_given(finding):
            cls = None  # the program's own file, not the call's: what changed tells the lesson
        elif (setup_failed or missing) and quoted is None:
            # a path that was not there, and no sign of where it is (unless a shell made it up
            # out of double quotes: ``"cd $ROOT/app"`` sent over ``ssh``, read here)
            return None
    if (
        cls is not None
        and cls.name in _TOOL_REFUSALS
        and call.command
        and not _refused_arguments(result)
    ):
        cls = None  # the words came from the command's output, not from the tool refusing it
    # Two command lines and no code changed between them: what tells them apart is how the
    # command was called.
    failing, fixed, error = call.command or "", fix.command or "", result.text
    only_the_call = bool(failing and fixed) and not finding.edited
    name = cls.name if cls is not None else None
    if only_the_call and quoted is not None:
        finding.cls = DOUBLE_QUOTED  # (nothing else changed: the quotes were the mistake)
        return finding
    if only_the_call and triggers.bare_key(failing, fixed) is not None:
        finding.cls = BARE_KEY  # (nothing else changed: the word was left bare)
        return finding
    if only_the_call and name == failures.COMMAND_NOT_FOUND and finding.wrapper is None:
        # a stage of the line this machine lacks a program for, done by another program
        # (``… | jq .x`` → ``… | python3 -m json.tool``)
        finding.stand_in = triggers.stand_in(failing, fixed, error)
        if finding.stand_in is not None:
            finding.cls = ANOTHER_PROGRAM
            return finding
    if (
        only_the_call
        and other_manager(failing, fixed) is not None
        and (cls is None or cls.reusable)
        and not _WORK_FAILURE.search(result.text[:3000])
    ):
        finding.cls = PACKAGE_MANAGER  # the job done through the project's own manager
        return finding
    if (
        only_the_call
        and name in (None, failures.UNKNOWN_OPTION)
        and triggers.dash_argument_trigger(failing, fixed) is not None
    ):
        finding.cls = DASH_ARGUMENT
        return finding
    if only_the_call and name == failures.UNKNOWN_OPTION and triggers.run_through(failing, fixed):
        finding.cls = PLUGIN_ELSEWHERE  # (the option was kept: it was right, the place was not)
        return finding
    if only_the_call and name == failures.UNKNOWN_OPTION and _passed_on(failing, fixed, error):
        finding.cls = PASSED_ON
        return finding
    folder = (
        triggers.subfolder_run(failing, fixed) or triggers.subfolder_operand(failing, fixed, error)
        if only_the_call
        else None
    )
    works_elsewhere = folder is not None and (cls is None or cls.reusable)
    if works_elsewhere and not _WORK_FAILURE.search(result.text[:3000]):
        finding.cls, finding.drift_dir = SUBPROJECT, folder  # (a failing run is the code's)
        return finding
    if only_the_call and name == failures.NOT_PERMITTED:
        # Not permitted is a one-off (a read-only path, a file of another user) unless the fix
        # shows what this machine wants: the same command through ``sudo``, or the script
        # handed to its interpreter.
        if triggers.through_sudo(failing, fixed):
            finding.cls = NEEDS_ROOT
            return finding
        finding.stand_in = triggers.sudo_redirect(failing, fixed)
        if finding.stand_in is not None:
            finding.cls = SUDO_REDIRECT  # (the file written through ``sudo tee``)
            return finding
        if triggers.script_run_by_path(failing, fixed) is not None:
            finding.cls = NOT_EXECUTABLE
            return finding
        if triggers.assignments_added(failing, fixed):
            # a place of its own for what it writes (``GOCACHE=$PWD/.cache go test`` where a
            # sandbox keeps the shell out of the home folder): a variable this shell lacks
            finding.cls = ENV_NOT_LOADED
            return finding
        if triggers.options_added(failing, fixed, with_values=True) or triggers.options_added(
            fixed, failing, with_values=True
        ):
            # an option that keeps it where it may write (``npm install -g --prefix ~/.local``,
            # ``make install PREFIX=~/.local``), or one dropped that sent it where it may not
            # (``git config --global``): how to call it here, told by what changed
            finding.cls = WRITE_ELSEWHERE
            return finding
    if cls is None:
        if result.failure == ev.TIMEOUT:
            return finding if not finding.edited else None
        if finding.edited:
            # A test, build or lint run that failed: what fixed it was (nearly always) a
            # change to the code.
            return None
        if scoring.USER_CORRECTION in finding.signals:
            return finding
        if not call.command:
            return None
        if _WORK_FAILURE.search(result.text[:3000]) and not flaky_run(
            call.command, fix.command or "", result.text
        ):
            if set_in_front(finding):
                # (nothing changed but a variable set for it: not the code, the machine)
                finding.cls = ENV_SET
                return finding
            if called_otherwise(call.command, fix.command or "", result.text):
                # (no test failed, no file edited: the project's command is called so here)
                finding.generic = True
                return finding
            if finding.wrapper is not None:
                # (no file edited, the same command run through a wrapper or without the one
                # it had, ``mise exec -- zig build``: the toolchain or environment, not the
                # code)
                finding.generic = True
                return finding
            return None  # the run failed on the code, unless the wider run then passed
        if slip is not None:
            return None  # a word typed anew, a letter or two amiss: a slip of this call
        # A failure no class knows, fixed by the same command with something changed: a
        # mistake when what changed can be named (:func:`.recall._generic_trigger`).
        finding.generic = True
        return finding
    if not cls.reusable:
        return None
    if (
        cls.name == failures.NO_NETWORK
        and call.command
        and fix.command
        and _operands(call.command) != _operands(fix.command)
    ):
        # Another host or port (``web-prod01`` → ``web-prod-01``, ``:9092`` → ``:9094``): not
        # the network, but what was named; judged as a failure no class knows.
        finding.generic = True
        return finding
    if finding.edited and cls.name not in _TOOL_REFUSALS:
        return None  # the call worked once the code changed: the code was the problem
    finding.cls = cls
    if cls.name == failures.SHELL_SYNTAX and _unmatched_glob(result.text, fix.command or ""):
        finding.cls = UNMATCHED_GLOB
    if cls.name == failures.STALE_TEXT:
        finding.edit_cause = _edit_cause(finding, events, i, results)
    return finding


def _named_by_the_call(
    finding: Finding, cls: failures.MistakeClass | None, results: dict[int, ev.Event]
) -> Finding | None:
    """The lesson two command lines tell by themselves, nothing edited between them: the
    package given where its files were, another subcommand or version of the program, the
    project's own way to run it, a glob or a folder the program took for a path, a variable on
    the wrong side of the program. ``None`` when they tell none of these."""
    call, fix, result = finding.call, finding.fix, finding.result
    assert call.command and fix is not None and fix.command
    if triggers.go_files_given(call.command, fix.command):
        finding.cls = GO_FILES  # (whatever the compiler said: the package was meant)
        return finding
    other = triggers.other_subcommand(call.command, fix.command)
    if other is not None and not _WORK_FAILURE.search(result.text[:3000]):
        finding.cls, finding.stand_in = OTHER_SUBCOMMAND, other  # (the same arguments)
        return finding
    missing = cls is not None and cls.name == failures.COMMAND_NOT_FOUND
    version = triggers.other_version(call.command, fix.command)
    if version is not None and not missing:
        finding.cls, finding.stand_in = OTHER_VERSION, version  # (all that changed)
        return finding
    done = results.get(id(fix))  # (what the fix printed: a task echoes what it runs)
    shape = triggers.main_shape(call.command)
    # (a program this machine lacks, of no subcommand, that a task echoed at work: the lesson
    # is that it is not on PATH, and where the project keeps it)
    echoed = not missing or (shape is not None and bool(shape.sub))
    task = triggers.project_task(call.command, fix.command) or (
        triggers.task_that_ran(call.command, fix.command, done.text if done is not None else "")
        if echoed
        else None
    )
    ran = triggers.main_shape(task) if task is not None else None
    if missing and ran is not None and ran.exe not in triggers.TASK_RUNNERS:
        # a program this machine lacks, its job done by another: that it is not on PATH is
        # the lesson, unless a task of the project's ran it (``mvn test`` → ``./mvnw test``)
        task = None
    if task is not None:
        finding.cls, finding.stand_in = PROJECT_TASK, task  # how the project runs it
        return finding
    if triggers.quoted_glob(call.command, result.text) is not None:
        finding.cls = QUOTED_GLOB  # no file was guessed: the pattern reached it as a path
        return finding
    if cls is not None and cls.name == failures.IS_DIRECTORY:
        folder = triggers.folder_given(call.command, fix.command, result.text)
        if folder is not None:
            finding.cls, finding.drift_dir = FOLDER_GIVEN, folder  # (then files by the set)
            return finding
    moved = triggers.assignment_moved(call.command, fix.command)
    if moved is not None:  # (all that changed: which side of the program it was on)
        finding.option = moved[0]
        finding.cls = AS_ARGUMENT if moved[1] else IN_FRONT
        return finding
    return None


def _passed_on(failing: str, fixed: str, error: str) -> bool:
    """Whether the option the error refused is one the fix handed on after ``--`` to the
    program the command runs. (Where the failing call had handed it on too, its trigger, the
    option before any ``--``, does not fire on it, and no lesson is made.)"""
    flag = triggers.refused_option(error, failing)
    return flag is not None and triggers.passed_on(fixed, flag)


def _judge_other_way(finding: Finding, cls: failures.MistakeClass | None) -> Finding | None:
    """A failed command whose job another program then did on the same target: a lesson when
    the command's own complaint is not a one-off (a path that is not there, a failing test
    run), the command ran at all, and no file was changed on the way (then the code was the
    problem)."""
    result = finding.result
    if finding.edited or not error_lines(result.text):
        return None
    if cls is not None and (not cls.reusable or cls.name == failures.SHELL_SYNTAX):
        return None  # (a word the shell refused: the command never ran to fail)
    if _WORK_FAILURE.search(result.text[:3000]) or _WORK_FAILURE.search(result.text[-3000:]):
        return None
    missing = cls is not None and cls.name == failures.COMMAND_NOT_FOUND
    if missing and triggers.missing_program(finding.call.command or "", result.text):
        finding.cls = ANOTHER_PROGRAM
    else:
        finding.cls = ANOTHER_WAY
    return finding


#: What an error says was not there (``stat ./...: no such file or directory``).
_NOT_THERE = kept_programs.compile(
    r"([^\s:'\"`]+)'?:? (?:no such file or directory|not found)", re.I
)


def _pattern_taken_for_path(failing: str, error: str) -> bool:
    """Whether the path the error says was not there is a package pattern, not a file the
    agent guessed: a last part of ``...`` (``./...``, ``pkg/...``: the ``go`` command's "every
    package below"), given to a tool that took it for a file (``gofmt -l ./...``)."""
    for m in _NOT_THERE.finditer(error[:1500]):
        word = m.group(1)
        if triggers.package_pattern(word) and word in failing.split():
            return True
    return False


def _removes(command: str) -> bool:
    """Whether the call was itself an ``rm``: the path its error names is the one it was told to
    delete, not generated output some build read, so a folder deleted next is no stale output
    cleared (``rm build/gen/x.map`` missing, then ``rm -rf build/gen``)."""
    shape = triggers.main_shape(command)
    return shape is not None and shape.exe == "rm"


def _unmatched_glob(error: str, fixed: str) -> bool:
    """Whether the word zsh refused (``no matches found: plans/*-PLAN.md``) was a glob meant
    for files: a ``*``, or a ``?`` that opens no query string. A bracket alone is taken for
    the literal it usually is (``.[dev]``), which quoting does cure; so does a fix that gave
    the very word in quotes (``redis-cli --scan --pattern 'session:*'``): it was meant for the
    program, not for files."""
    m = _REFUSED_WORD.search(error[:1500])
    if m is None:
        return False
    word = m.group(1)
    if triggers.in_quotes(word, fixed):
        return False
    return "*" in word or ("?" in word and not triggers.query_string(word))


def _culprit_is_setup(command: str, output: str) -> bool:
    """Whether the error names a set-up step (``cd: no such file …``) as what failed."""
    head = output[:600]
    for shape in triggers.shapes(command):
        if shape.exe in triggers.SETUP_COMMANDS and re.search(
            rf"(?:^|[\s(:]){re.escape(shape.exe)}(?::|\s*:)", head
        ):
            return True
    return False


def _edit_cause(
    finding: Finding, events: list[ev.Event], i: int, results: dict[int, ev.Event]
) -> str | None:
    """Why the refused edit's text was not found, from the call that then worked and the edits
    of the same file made since it was last read (:func:`edit_causes.cause`)."""
    call, fix = finding.call, finding.fix
    if call.edit is None or fix is None or not call.paths:
        return None
    earlier = _edits_since_read(call, events, i, results)
    if fix.edit is not None:
        return edit_causes.cause(call.edit[0], fix.edit[0], earlier)
    if fix.command:
        script = edit_causes.script_text(fix.command)
        return edit_causes.cause(call.edit[0], script, earlier, script=True)
    return edit_causes.cause(call.edit[0], None, earlier)


def _edits_since_read(
    call: ev.Event, events: list[ev.Event], i: int, results: dict[int, ev.Event]
) -> list[tuple[str, str]]:
    """The edits of ``call``'s file that worked after the file was last read and before
    ``call`` (from the failed result at ``i`` backwards): what the file looked like when it
    was read is not what it was when the call was made."""
    path = call.paths[0]
    name = PurePosixPath(path).name
    out: list[tuple[str, str]] = []
    started = False
    for k in range(i - 1, -1, -1):
        other = events[k]
        if other is call:
            started = True
            continue
        if not started or other.kind != ev.TOOL_CALL or other.sidechain != call.sidechain:
            continue
        if other.edit is not None and path in other.paths:
            res = results.get(id(other))
            if res is not None and res.failure is None:
                out.append(other.edit)
        elif path in other.paths or (other.command and name and name in other.command):
            break  # the file was read (or otherwise looked at) here
    return out
