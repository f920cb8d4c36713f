"""When a lesson comes back: the trigger that fires on the wrong call and not on its fix, or
none, when only the failure itself tells the lesson is due (failure-time recall).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from lessons_core.patterns import kept_programs
from lessons_core.privacy import redact_head
from lessons_core.scan import events as ev
from lessons_core.scan.detectors import failures, triggers
from lessons_core.scan.detectors.failures import error_lines
from lessons_core.scan.detectors.tier2.calls import _FILE_TOOLS, _REWRITES
from lessons_core.scan.detectors.tier2.classes import (
    _COMMAND_FAILURE_TIME,
    _ENVIRONMENT_CLASSES,
    _WORK_FAILURE,
    ANOTHER_PROGRAM,
    ARG_FORM,
    AS_ARGUMENT,
    AS_MODULE,
    BARE_KEY,
    CWD_DRIFT,
    DASH_ARGUMENT,
    DOUBLE_QUOTED,
    EATEN_BACKSLASH,
    EXPANDED_GLOB,
    FAILURE_TIME_CLASSES,
    FOLDER_GIVEN,
    FULL_NAME,
    GO_FILES,
    IN_FRONT,
    NAME_FOR_PATH,
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
    PROJECT_TASK,
    QUOTED_GLOB,
    SANDBOX,
    SCHEME_ADDED,
    SPACED_PATH,
    SSH_URL,
    STEP_REDONE,
    SUDO_REDIRECT,
    _refused_arguments,
)
from lessons_core.scan.detectors.tier2.finding import Finding
from lessons_core.scan.detectors.tier2.paths import guessed_trigger, not_given

#: A word a fix added that can name a subcommand or a flag.
_ADDED_WORD = kept_programs.compile(r"[A-Za-z][\w-]*|--?[A-Za-z][\w-]*")


def _separates(pattern: str | None, failing: str, fixed: str) -> bool:
    """Whether ``pattern`` fires on the failing call and not on its fix: what every trigger
    must do."""
    if not pattern:
        return False
    return triggers.matches(pattern, failing) and not triggers.matches(pattern, fixed)


def _if_separates(pattern: str | None, failing: str, fixed: str) -> str | None:
    """``pattern`` where it separates the failing call from its fix, else no trigger."""
    return pattern if _separates(pattern, failing, fixed) else None


def _failure_time(finding: Finding) -> bool:
    """Whether the finding is a tool's refusal the call does not show (see
    :data:`FAILURE_TIME_CLASSES`), or a wrong working directory the command line does not
    show: its lesson is recalled at the failure, never before a call."""
    cls = finding.cls
    if cls is None:
        return False
    if finding.call.command:
        absolute_drift = cls is CWD_DRIFT and (finding.drift_dir or "").startswith("/")
        refused = cls.name == failures.BAD_PARAMETERS and _refused_arguments(finding.result)
        # an option a configuration file gave it: the command line is the same as the fix's
        configured = cls.name == failures.UNKNOWN_OPTION and triggers.option_from_elsewhere(
            finding.result.text[:1500], finding.call.command
        )
        return cls.name in _COMMAND_FAILURE_TIME or absolute_drift or refused or configured
    return cls.name in FAILURE_TIME_CLASSES


def _trigger(finding: Finding) -> str | None:
    """A pattern that fires on the wrong call and not on its fix (``None``: tool name only)."""
    call, fix, cls = finding.call, finding.fix, finding.cls
    assert fix is not None
    if _failure_time(finding):
        return None
    if finding.guessed is not None:
        return guessed_trigger(call, *finding.guessed)
    if not call.command:
        if call.paths and call.tool in _FILE_TOOLS:
            return triggers.path_trigger(call.paths[0])
        return None
    failing, fixed = call.command, fix.command or ""
    name = cls.name if cls is not None else None
    if name == CWD_DRIFT.name:
        # An absolute ``cd`` into a subdirectory looks like the fix's own ``cd``: such a drift
        # is recalled when the failure happens (:func:`_failure_time`).
        return None if (finding.drift_dir or "").startswith("/") else triggers.RELATIVE_CD
    if name == STEP_REDONE.name:
        # the step as it ran (its words, then options only: not ``git stash pop``), without
        # the option the later command needed
        added = triggers.options_added(failing, fixed)
        action = triggers.action_or_whole(failing)
        step = action + r"(?!\s+[^\s|;&-])" if action else None
        bare = triggers.without_flag(step, added[0]) if added and step else None
        return _if_separates(bare, failing, fixed)
    if name == DOUBLE_QUOTED.name:
        # the command with a double-quoted word the shell reads into: a ``$``, an inner ``"``
        quoted = triggers.double_quoted_trigger(failing)
        return _if_separates(quoted, failing, fixed)
    if name == PACKAGE_NAME.name and finding.renamed is not None:
        # every install of the name the registry does not publish, with a version or not
        install = triggers.package_trigger(failing, finding.renamed[0])
        return _if_separates(install, failing, fixed)
    if name == ARG_FORM.name:
        # every call of the command given a word of the wrong form
        form = triggers.argument_form(failing, fixed)
        written = triggers.argument_form_trigger(failing, form[2]) if form else None
        return _if_separates(written, failing, fixed)
    if name == OPTION_STAND_IN.name and finding.option and finding.stand_in:
        # every call of the program with the option it does not have here
        other_verb = " " in finding.stand_in  # (``ruff format`` → ``ruff check``)
        base = triggers.verb_trigger(failing) if other_verb else triggers.base_trigger(failing)
        flagged = triggers.with_flag(base, finding.option) if base else None
        return _if_separates(flagged, failing, fixed)
    if name == OPTION_VALUE.name and finding.option:
        bare = triggers.empty_value_trigger(failing, finding.option)
        return _if_separates(bare, failing, fixed)
    if name == SSH_URL.name and finding.ssh_host:
        # every command of the program given an SSH address of that host
        # (an SSH address of the host, which the fix no longer gave: it separates the two)
        return triggers.ssh_url_trigger(failing, finding.ssh_host)
    if name == PROJECT_TASK.name:
        # the command, its subcommand named, as it was run bare; the subcommand right after
        # the program where the fix ran the same program (``bun test``, not ``bun run test``)
        # (a command of no subcommand as its words were written, the very run the task does:
        # the program's name alone would fire on its every run)
        for bare in (
            triggers.whole_trigger(failing),
            triggers.command_trigger(failing, fixed),
            triggers.tight_trigger(failing),
        ):
            if _separates(bare, failing, fixed):
                return bare
        return None
    if name == ANOTHER_PROGRAM.name:
        # every line that starts the program this machine lacks (``$(nproc)`` too)
        missing = triggers.missing_program(failing, finding.result.text)
        bare = triggers.leading_trigger(missing) if missing is not None else None
        return _if_separates(bare, failing, fixed)
    wrapper = _wrapper_trigger(finding)
    if wrapper is not None:
        return wrapper
    named = triggers.named_segment(failing, finding.result.text)
    if finding.generic:
        return _generic_trigger(finding, named)
    if name == PATTERN_PATH.name:
        return triggers.pattern_path_trigger(failing, fixed)
    if name in (AS_ARGUMENT.name, IN_FRONT.name) and finding.option:
        # the variable on the side of the program it was wrongly given on
        return triggers.assignment_trigger(failing, finding.option, name == AS_ARGUMENT.name)
    if name == GO_FILES.name:
        files = triggers.go_files_trigger(failing)
        return _if_separates(files, failing, fixed)
    if name == BARE_KEY.name:
        keyed = triggers.bare_key_trigger(failing)
        return _if_separates(keyed, failing, fixed)
    if name == SUDO_REDIRECT.name:
        return _if_separates(triggers.SUDO_REDIRECT, failing, fixed)
    if name == OTHER_SUBCOMMAND.name:
        # the first subcommand given an operand (``vcpkg install fmt``, not ``vcpkg install``)
        given = triggers.operand_given_trigger(failing)
        return _if_separates(given, failing, fixed)
    if name == OTHER_VERSION.name:
        # the version on PATH, by its bare name, first in a simple command (not ``-17`` on)
        shape = triggers.main_shape(failing)
        bare = triggers.leading_trigger(shape.exe) + r"(?![\w.-])" if shape is not None else None
        return _if_separates(bare, failing, fixed)
    if name == FOLDER_GIVEN.name and finding.drift_dir:
        return triggers.folder_trigger(failing, finding.drift_dir)
    if name == QUOTED_GLOB.name:
        return triggers.quoted_glob_trigger(failing, fixed)
    if name == failures.SHELL_SYNTAX:
        found = None
        head = finding.result.text[:1500]
        if "no matches found" in head or "paths must precede expression" in head:
            # zsh's unmatched glob; a glob bash expanded before ``find`` could read it
            found = triggers.glob_trigger(failing, fixed)
        found = (
            found
            or triggers.unquoted_path_trigger(failing)
            or triggers.parenthesised_word_trigger(failing)
        )
        if found is None or triggers.matches(found, fixed):
            return None  # no word the shell misread that the fix wrote otherwise: no lesson
        return found
    if named is not None:
        # The error named one simple command of the line: the trigger is built on it, against
        # the fix's command of the same kind (none when the fix dropped it), and still checked
        # against the whole fixing call.
        fixed_whole = fixed
        failing = named[0]
        fixed = triggers.segment_of(fixed_whole, named[1].exe, named[1].sub) or ""
    else:
        fixed_whole = fixed
    base = triggers.base_trigger(failing)
    if base is None:
        return None
    # A command that did not end is named to its action (``docker compose up`` without ``-d``,
    # not ``docker compose logs``).
    timed_out = finding.result.failure == ev.TIMEOUT
    named_to = (triggers.action_trigger(failing) or base) if timed_out else base
    if timed_out:
        # a variable the fix set in front that let it end (``PAGER=cat psql …``)
        for variable in triggers.assignments(fixed):  # (one the call set too cannot separate)
            unset = triggers.without_assignment(named_to, variable)
            if _separates(unset, failing, fixed_whole):
                return unset
        if triggers.backgrounded(failing, fixed):
            # a server or watcher run in the foreground, then in the background
            alone = triggers.in_foreground(named_to)
            return _if_separates(alone, failing, fixed_whole)
    if name == failures.NO_TERMINAL:
        return _no_terminal_trigger(failing, fixed, fixed_whole)
    if name == SANDBOX.name:
        shape = triggers.main_shape(failing)
        return base if shape is not None and shape.sub else None
    if name == DASH_ARGUMENT.name:
        dashed = triggers.dash_argument_trigger(failing, fixed)
        return dashed if dashed and not triggers.matches(dashed, fixed_whole) else None
    if name == NOT_EXPORTED.name and finding.option:
        return _if_separates(triggers.unexported_trigger(finding.option), failing, fixed)
    if name == FULL_NAME.name and finding.renamed is not None:
        short = triggers.short_name_trigger(failing, finding.renamed[0])
        return _if_separates(short, failing, fixed)
    if name == NAME_FOR_PATH.name:
        return _if_separates(triggers.file_given_trigger(failing, fixed), failing, fixed)
    if name == SCHEME_ADDED.name:
        return _if_separates(triggers.host_path_trigger(failing), failing, fixed)
    if name == OPERATOR_WORD.name:
        # the program as the quoted fix names it, on the whole lines: the word cut the failing
        # one (the error names the piece after the cut: ``android-35: command not found``)
        bare = triggers.operator_word_trigger(fixed_whole)
        return _if_separates(bare, call.command, fixed_whole)
    if name == EXPANDED_GLOB.name:
        return triggers.bare_glob_trigger(failing, fixed)
    if name == EATEN_BACKSLASH.name:
        return triggers.eaten_backslash_trigger(failing, fixed)
    if name == OPTION_JOINED.name and finding.stand_in:
        return triggers.option_joined_trigger(failing, fixed, finding.stand_in)
    if name == SPACED_PATH.name and finding.stand_in:
        spaced = triggers.space_path_trigger(finding.stand_in)
        return _if_separates(spaced, failing, fixed)
    if name == AS_MODULE.name:
        ran = triggers.as_module(failing, fixed_whole)
        script = triggers.as_module_trigger(ran[0]) if ran is not None else None
        return _if_separates(script, failing, fixed_whole)
    if name == NOT_EXECUTABLE.name:
        script = triggers.script_run_by_path(failing, fixed_whole)
        found = triggers.script_trigger(script) if script is not None else None
        return _if_separates(found, failing, fixed_whole)
    if name == PACKAGE_MANAGER.name:
        # every bare use of the manager that failed here: the project is another's
        shape = triggers.main_shape(failing)
        bare = triggers.leading_trigger(shape.exe) if shape is not None else None
        return _if_separates(bare, failing, fixed_whole)
    if name == PASSED_ON.name:
        flag = triggers.refused_option(finding.result.text, failing)
        given = triggers.before_dashes(base, flag) if flag is not None else None
        return _if_separates(given, failing, fixed_whole)
    if name == failures.UNKNOWN_OPTION:
        flag = triggers.option_named(finding.result.text, failing)
        if flag is not None:
            flagged = triggers.with_flag(base, flag)
            return flagged if not triggers.matches(flagged, fixed_whole) else None
        letter = triggers.clustered_option(finding.result.text, failing)
        if letter is not None:
            clustered = triggers.with_short_option(base, letter)
            return _if_separates(clustered, failing, fixed_whole)
    if name == failures.UNKNOWN_SUBCOMMAND:
        # The script exists, where the fix ran it: an option moved the command elsewhere.
        moved = triggers.value_flag_trigger(failing, fixed)
        if moved is not None and triggers.matches(moved, failing):
            return moved if not triggers.matches(moved, fixed_whole) else None
    missing = (
        triggers.missing_program(failing, finding.result.text)
        if name == failures.COMMAND_NOT_FOUND
        else None
    )
    shape = triggers.main_shape(call.command)
    if missing is not None and shape is not None and missing != shape.exe:
        # The interpreter or wrapper that is not there, whatever it was to run (``python`` of
        # ``python scripts/gen.py``, ``timeout`` of ``timeout 30 npm test``): first on the line,
        # or first in a later command of it.
        # (``$(nproc)``: the program may start a command the line substitutes)
        for bare in (triggers.first_trigger(missing), triggers.leading_trigger(missing)):
            if _separates(bare, call.command, fixed_whole):
                return bare
    pattern = triggers.command_trigger(failing, fixed or None)
    environment = name in _ENVIRONMENT_CLASSES
    # (a program not on PATH at all is not named anywhere in a command: where it starts one,
    # below)
    unnamed = pattern is not None and environment and triggers.is_bare_executable(pattern)
    if pattern is not None and not unnamed and not triggers.matches(pattern, fixed_whole):
        return pattern
    tight = triggers.tight_trigger(failing)
    if _separates(tight, failing, fixed_whole):
        return tight
    if (environment or finding.result.failure == ev.TIMEOUT) and not _fed(fixed, failing):
        # Run bare (from PATH, in the foreground) where the fix went through a virtual
        # environment, a runner or a ``timeout``; not where it fed the command its input
        # (``printf … | npx wrangler secret put``): how it was run did not change.
        bare_ways = (
            triggers.anchored(base),
            triggers.interpreter_trigger(failing),
            triggers.first_word_trigger(failing),
            # (after a set-up step: ``cd web && tsc``)
            triggers.leading_trigger(missing) if missing is not None else None,
        )
        for bare in bare_ways:
            if _separates(bare, failing, fixed_whole):
                return bare
    shape, fixed_shape = triggers.main_shape(failing), triggers.main_shape(fixed)
    if shape is not None and fixed_shape is not None and fixed_shape.exe == shape.exe:
        # What the fix added: a flag (``--offline``) or a plain word (``vitest run``).
        own = {w for seg in triggers.segments(failing) for w in seg}
        added = [
            w
            for seg in triggers.segments(fixed)
            for w in seg
            if w not in own and _ADDED_WORD.fullmatch(w)
        ]
        # (a command that did not end: with the flag that kept it running where the fix
        # dropped one, ``tail -f``, ``--watch``)
        for flag in shape.flags if timed_out else ():
            kept_running = triggers.with_flag(named_to, flag)
            if _separates(kept_running, failing, fixed_whole):  # (one the fix kept cannot)
                return kept_running
        for word in dict.fromkeys([*fixed_shape.flags, *added]):
            if word in shape.flags or word in triggers.NOISE_FLAGS or word in own:
                continue
            # (the flag after the program, or, a runner's, before it: ``uv run --group docs``)
            for pattern in (
                triggers.without_flag(named_to, word),
                triggers.without_flag_before(named_to, word),
            ):
                if _separates(pattern, failing, fixed_whole):
                    return pattern
    return None


def _fed(fixed: str, failing: str) -> bool:
    """Whether ``fixed`` pipes into the command ``failing`` ran."""
    shape = triggers.main_shape(failing)
    if shape is None:
        return False
    at = re.search(rf"(?<![\w.-]){re.escape(shape.exe)}(?![\w.-])", fixed)
    return at is not None and "|" in fixed[: at.start()]


def _no_terminal_trigger(failing: str, fixed: str, fixed_whole: str) -> str | None:
    """The command that wanted a terminal, with what the fix dropped (``docker run -it`` run
    with ``-i``) or without what it gave instead (``gh pr create`` without ``--fill``, ``git
    commit`` without ``-m``). The command is named to its action word, so
    the lesson of ``gh pr create`` does not come with ``gh pr view``."""
    # (a command without subcommands is named whole: ``ssh-keygen`` without ``-N``)
    action = triggers.action_or_whole(failing)
    shape, fixed_shape = triggers.main_shape(failing), triggers.main_shape(fixed)
    if action is None or shape is None or fixed_shape is None:
        return None
    added = [flag for flag in fixed_shape.flags if flag not in shape.flags]
    dropped = [flag for flag in shape.flags if flag not in fixed_shape.flags]
    # A flag dropped first: the one that asked for the terminal (``-t``) is the mistake, where
    # a flag the fix added in its place is no more than one way out.
    candidates: list[str | None] = [triggers.with_flag(action, flag) for flag in dropped]
    candidates += [triggers.without_flag(action, flag) for flag in added]
    # (an answer given before the command's own words: ``npx --yes create-vite``, ``git
    # --no-pager diff``)
    ahead = [flag for flag in added if triggers.option_ahead(fixed, flag)]
    candidates += [triggers.line_without_flag(action, flag) for flag in ahead]
    # A variable set in front that answers for the terminal (``GIT_SEQUENCE_EDITOR=true``),
    # with the flag the command kept that asked for it (``git rebase -i``) where there is one.
    kept = [triggers.with_flag(action, f) for f in shape.flags if f in fixed_shape.flags]
    for name in triggers.assignments(fixed):  # (one the failing call set too cannot separate)
        candidates += [triggers.without_assignment(base, name) for base in [*kept, action]]
    return next((p for p in candidates if _separates(p, failing, fixed_whole)), None)


def wrapper_refused(finding: Finding) -> bool:
    """Whether the wrapper the fix dropped refused the command as its subcommand (``rtk bun``:
    "unrecognized subcommand 'bun'"), rather than failing to run it: then running the command
    through a runner subcommand of the wrapper's (``rtk test bun``) is as good a way out, and
    the lesson is the same one."""
    if finding.wrapper is None or not finding.call.command:
        return False
    refused = triggers.refused_subcommand(finding.call.command, finding.result.text)
    if refused is None:
        return False
    segment, at = refused
    return (
        PurePosixPath(segment[0]).name == finding.wrapper[1] and segment[at] == finding.wrapper[2]
    )


def _wrapper_trigger(finding: Finding) -> str | None:
    """The wrapper the fix dropped, around the executable it wrapped (``rtk`` … ``bun``); for
    a fix that put the wrapper's runner subcommand in, the executable right after the wrapper
    (``rtk bun``); or, for a fix that added one, the executable run bare (``vitest`` first in
    its command)."""
    if finding.wrapper is None or finding.call.command is None or finding.fix is None:
        return None
    how, wrapper, exe = finding.wrapper
    failing, fixed = finding.call.command, finding.fix.command or ""
    if how == "dropped" and wrapper_refused(finding):
        pattern = triggers.runner_trigger(wrapper, exe)  # not ``rtk test bun``, another way out
    elif how == "dropped":
        pattern = triggers.wrapper_trigger(wrapper, exe)
    elif how == "inserted":  # (``wrapper`` is the wrapper and the runner word the fix put in)
        pattern = triggers.runner_trigger(wrapper.split()[0], exe)
    else:
        pattern = triggers.leading_trigger(exe, failing)
    return _if_separates(pattern, failing, fixed)


def _generic_trigger(
    finding: Finding, named: tuple[str, triggers.Shape] | None = None
) -> str | None:
    """For a failure no class knows, a pattern for what the failing call had and its fix did
    not: the piece of syntax the error quotes, or a flag the fix dropped that the error's own
    lines name. Never the mere absence of what the fix added: that fires on every plain call
    of the command (every ``go build`` without ``-tags``), unless the error itself asked for
    that flag (deno's "run again with the --allow-net flag", cargo's "Use the `--bin` option":
    the command, named to its action, without it). Nor a dropped flag the error says
    nothing of: the fix shows that the call worked without it this once, not that the flag was
    wrong (``git checkout -b`` of a branch that already existed, a focused test run that failed
    in a test it did not select), so the pattern would fire on every ordinary use of the flag;
    such a lesson is recalled at its error (:func:`_recallable`) or is none."""
    call, fix = finding.call, finding.fix
    assert call.command is not None and fix is not None
    if _flaky(finding):
        return None  # the run failed, not the call: nothing in the command line to warn about
    failing, fixed = call.command, fix.command or ""
    found = triggers.culprit_trigger(finding.result.text, failing, fixed)
    if found is None:
        shape = triggers.main_shape(fixed)
        if shape is None or (named is not None and named[1].exe != shape.exe):
            return None  # (the error named another command of the line: not this one's flag)
        segment = triggers.segment_of(failing, shape.exe, shape.sub)
        own = triggers.segment_of(fixed, shape.exe, shape.sub) or fixed
        if segment is None:
            return None
        action = triggers.action_or_whole(segment)
        letter = triggers.case_swapped(segment, own)
        if letter is not None:
            # ``scp -p 2222`` → ``scp -P 2222``: the one letter in the other case
            cased = triggers.with_flag(action, letter) if action else None
            return _if_separates(cased, failing, fixed)
        told = flag_it_named(finding)
        if told is not None and told[0] in ("added", "set"):
            if told[0] == "set" and action:
                # with a flag the error named too, which needed the variable (``-race``)
                name = told[1].split("=", 1)[0]
                flags = triggers.main_shape(segment)
                ways = [
                    triggers.with_flag(action, flag)
                    for flag in (flags.flags if flags is not None else ())
                    if _names_flag(finding.result.text, flag)
                ]
                unset = (triggers.without_assignment(way, name) for way in [*ways, action])
                asked = next((p for p in unset if _separates(p, failing, fixed)), None)
            else:
                asked = triggers.without_flag(action, told[1]) if action else None
            return _if_separates(asked, failing, fixed)
        changed = triggers.value_changed(segment, own)
        if changed is not None and _names_value(finding.result.text, changed[1]):
            # an option given another value, the error naming the old one (``--config
            # auto``: "Cannot create auto config …"): every call with the old value
            valued = triggers.value_changed_trigger(segment, *changed[:2])
            return _if_separates(valued, failing, fixed)
        if not _operands(own) <= _operands(segment):
            return None  # the fix changed what it worked on too: the flag may be innocent
        pattern = triggers.command_trigger(segment, own)
        base = triggers.base_trigger(segment)
        found = pattern if pattern != base else None  # only with a flag the fix dropped
        flag = triggers.dropped_flag(segment, own)
        if flag is None or not _names_flag(finding.result.text, flag):
            return None  # the error says nothing of the flag: it may be innocent
    return _if_separates(found, failing, fixed)


#: Words of a line that looked a name up and did not find it ("no bin target named `srv`",
#: "test target `api` not found"): a name guessed, not a way of calling.
_NOT_FOUND = kept_programs.compile(
    r"\bno\b|not found|unknown|(?:does ?n[o']t|not) exist|did you mean|could ?n[o']t find|"
    r"can ?n[o']t find|available",
    re.IGNORECASE,
)


def _names_value(output: str, value: str) -> bool:
    """Whether a line of the head of ``output`` names ``value`` as a word of its own, in any
    case, and not as a name it looked for and did not find."""
    word = re.compile(rf"(?<![\w/.-]){re.escape(value)}(?![\w/-])", re.IGNORECASE)
    return any(
        word.search(line) and not _NOT_FOUND.search(line) for line in output[:1500].splitlines()
    )


#: Options that turn a check off or push past it (``--no-verify``, ``--skip-checks``,
#: ``--force``): a way around the failure, never how the command is called here.
_PAST_A_CHECK = kept_programs.compile(r"^--?(?:no-|skip|ignore|disable|allow|force\b|f$)")


def tests_failed(output: str) -> bool:
    """Whether a run reported tests failing or an assertion: the code was tested and failed."""
    return bool(_TESTS_FAILED.search(output[:3000]))


def called_otherwise(failing: str, fixed: str, output: str) -> bool:
    """Whether a build or test run that failed before any test did (a module its build could
    not find, settings its collection could not load) worked with nothing changed but its
    options, added or given in place of others (``pytest --ds=config.settings.test``,
    ``xcodebuild -workspace App.xcworkspace`` for ``-project App.xcodeproj``): how the project
    is built or tested here. A run whose tests failed is the code's (a narrower run passing is
    no fix), and an option that only skips a check or forces past it is no way to call it."""
    if tests_failed(output):
        return False
    added = triggers.options_added(failing, fixed, with_values=True)
    if not added:
        swapped = triggers.options_swapped(failing, fixed)
        added = swapped[1] if swapped is not None else []
    if not added:
        # an option dropped that the error itself spoke of, in its words or its name
        # (``gradlew --offline`` → "No cached version … available for offline mode")
        dropped = triggers.options_added(fixed, failing)
        return bool(dropped) and all(_speaks_of(output, flag) for flag in dropped)
    return not any(_PAST_A_CHECK.match(word) for word in added)


def _speaks_of(output: str, flag: str) -> bool:
    """Whether ``output`` names the option ``flag`` as a thing of its own: its bare name as a
    word ("available for offline mode" of ``--offline``; never the option as the command line
    spelled it, which a runner echoes), or the option itself in a line stating the error. A
    name of four letters or fewer (``--dev``, ``--all``) is a word of every other output."""
    name = flag.lstrip("-")
    if len(name) < 5:
        return False
    bare = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])", re.IGNORECASE)
    return bool(bare.search(output)) or _names_flag(output, flag)


def recalled_by_its_class(finding: Finding) -> bool:
    """Whether a failure a class knows may be recalled at the line the class knows it by, when
    no trigger tells it from its fix: a call that wanted a terminal (:func:`_recallable`)."""
    return finding.cls is not None and finding.cls.name == failures.NO_TERMINAL


def _recallable(finding: Finding) -> bool:
    """Whether a failure no class knows, fixed by a call nothing in the command line tells from
    it (``git push origin`` then ``git push`` to a URL, a ``git apply`` of a hand-written patch
    then one of a generated patch), is still a lesson: one recalled when its error comes back.

    Only when the error is the command's own complaint about the call: it has lines that state
    an error; the end of the output, where a long run reports, is no test, build or lint
    failure; neither end names a one-off (a path that is not there, a permission); and the fix
    rewrote no file on its way (then the code was the problem, not the call); and when the error
    names one command of a pipeline, the fix still runs that command (a fix that dropped it
    tells nothing about how to call it). A fix that worked on another target (another URL,
    file, branch or query) says the first was wrong, not how to call the command: as in
    :func:`_generic_trigger`, such a failure was a fact of its target and yields nothing. Nor
    does a fix that only added how the output looks (``git status --short`` after ``fatal:
    unable to read …``): that is the same call working again.

    So is a call that wanted a terminal, where no pattern tells it from its fix (``gh run
    view`` asked which run, ``gh run view 8812345``): its error says what kind of mistake it
    was wherever it comes back, and the fix shows one way around it.
    """
    call, result, fix = finding.call, finding.result, finding.fix
    known = recalled_by_its_class(finding)
    if not (finding.generic or known) or fix is None or not result.text or not call.command:
        return False
    flaky = _flaky(finding)
    if not flaky and not _kept_target(call.command, fix.command or ""):
        return False
    added = triggers.options_added(call.command, fix.command or "")
    if added and triggers.NOISE_FLAGS.issuperset(added):
        return False  # (only how it prints changed: the same call working again, by chance)
    named = triggers.named_segment(call.command, result.text)
    if named is not None and all(
        shape.exe != named[1].exe for shape in triggers.shapes(fix.command or "")
    ):
        return False
    if not known and not own_error_lines(call, result.text):
        return False  # (a class's own line states the error where one is known)
    tail = result.text[-3000:]
    if (
        _WORK_FAILURE.search(tail)
        and not flaky
        and not called_otherwise(call.command, fix.command or "", result.text)
    ):
        return False
    for end in (result.text[:1500], result.text[-1500:]):
        cls = failures.mistake_class(end)
        # (a missing path is no one-off of the target where the call gave none of it: the
        # program's own file, :func:`.paths.not_given`)
        if (
            cls is not None
            and not cls.reusable
            and (cls.name != failures.MISSING_PATH or not not_given(finding))
        ):
            return False
    return not (
        fix.command and (_REWRITES.search(fix.command) or triggers.writes_a_file(fix.command))
    )


#: A test runner's tally of tests that failed (``1 failing``, ``2 failed``, ``Tests: 1 failed``).
_FAILED_TESTS = kept_programs.compile(r"\b\d+ (?:failed|failing)\b")
#: A run that reported tests failing, or an assertion or a test of its own failing (go's
#: ``--- FAIL:``): the code was tested and failed (:func:`tests_failed`).
_TESTS_FAILED = kept_programs.compile(
    _FAILED_TESTS.pattern + r"|AssertionError|--- FAIL:|^FAIL\b", re.MULTILINE
)


def _flaky(finding: Finding) -> bool:
    """Whether a failure no class knows is a test run whose failure the wider run then did not
    repeat: see :func:`flaky_run`. (A wider run that failed as well is no fix of it: a fix
    that got past a failure and then failed is only paired for a class of failure.)"""
    call, fix = finding.call, finding.fix
    if not finding.generic or fix is None:
        return False
    return flaky_run(call.command or "", fix.command or "", finding.result.text)


def flaky_run(failing: str, fixed: str, output: str) -> bool:
    """Whether ``failing`` was a test run that reported failed tests and ``fixed`` the same run
    made wider, nothing else changed (:func:`_wider_rerun`). With no file edited in between,
    the tests that failed ran again in the wider run and passed: the failure came and went
    (a timeout, a race), it was neither the change's nor the call's. The lesson is that such a
    failure is checked by a rerun, recalled when it comes back; the options the wider run
    dropped were innocent, so they are no trigger."""
    return bool(_FAILED_TESTS.search(output)) and _wider_rerun(failing, fixed)


def _wider_rerun(failing: str, fixed: str) -> bool:
    """Whether ``fixed`` is ``failing``'s main command with options dropped and nothing else:
    every word it keeps is in the same order, and every word it dropped is an option or the
    word right after one (its value, or what ``--`` passed on): ``pnpm test -- --grep "UI"``
    then ``pnpm test``, never ``pytest a.py b.py`` then ``pytest b.py`` (a narrower run)."""
    shape, again = triggers.main_shape(failing), triggers.main_shape(fixed)
    if shape is None or again is None:
        return False  # (another executable or subcommand is a word not kept, below)
    words, kept = _words_of(failing, shape), _words_of(fixed, again)
    if words is None or kept is None or len(kept) >= len(words):
        return False
    after_option = False
    for word in words:
        if kept and word == kept[0]:
            kept.pop(0)
            after_option = False
        elif word.startswith("-") or after_option:
            after_option = word.startswith("-")
        else:
            return False  # an operand dropped: the fix ran less, or something else
    return not kept


def _words_of(command: str, shape: triggers.Shape) -> list[str] | None:
    """The words of ``command``'s first simple command of ``shape``, quoted words kept whole."""
    found = triggers.segments_of(command, shape.exe, shape.sub)
    return list(found[0]) if found else None


def flag_it_named(finding: Finding) -> tuple[str, str] | None:
    """The option the error's own lines name that the fix added (npm's "retry this command
    with --force or --legacy-peer-deps", then ``--legacy-peer-deps``: ``("added", flag)``) or
    dropped (pip's "Can not perform a '--user' install": ``("dropped", flag)``), or the
    variable the error named that the fix set in front of the command (``("set",
    "CGO_ENABLED=1")``); else ``None``."""
    failing, fixed = finding.call.command, finding.fix.command if finding.fix else None
    shape = triggers.main_shape(failing) if failing else None
    fixed_shape = triggers.main_shape(fixed) if fixed else None
    if shape is None or fixed_shape is None:
        return None
    mine = [flag.split("=", 1)[0] for flag in shape.flags]
    theirs = [flag.split("=", 1)[0] for flag in fixed_shape.flags]
    for how, flags, other in (("added", theirs, mine), ("dropped", mine, theirs)):
        for name in flags:
            if name not in other and _names_flag(finding.result.text, name):
                return how, name
    # a variable the error asked for, set in front by the fix (``CGO_ENABLED=1 go test -race``)
    for name in triggers.assignments(fixed or ""):
        if _names_flag(finding.result.text, name):
            return "set", triggers.assignment(fixed or "", name)
    return None


def _names_flag(output: str, flag: str) -> bool:
    """Whether the lines of ``output`` that state the error name ``flag`` as it was spelled:
    the failure is about the flag (``Cannot use --check with --write``), not merely met while
    it was given. Only those lines: a runner echoes the command line it ran. A long option of
    several words may be named as the setting it sets (``--max-allowed-packet`` as
    ``'max_allowed_packet'``, MySQL's way)."""
    ways, name = [flag], flag.lstrip("-")
    if "-" in name:
        ways.append(name.replace("-", "_"))
    spelled = re.compile("|".join(rf"(?<![\w-]){re.escape(way)}(?![\w-])" for way in ways))
    return any(spelled.search(line) for line in error_lines(output))


#: A word of a sentence (``attribute,``), not a value, a path or a name with a ``_`` in it.
_PLAIN_WORD = kept_programs.compile(r"[A-Za-z][a-z'’-]*[,.:;]?")


def own_error_lines(call: ev.Event, text: str) -> tuple[str, ...]:
    """The lines of a failed call's output that state its error (:func:`error_lines`), or, in a
    short output with none, the line of a program the call ran that starts with its name: its
    own complaint, in no word of an error (``adb: more than one device/emulator``); or the one
    line it said, when that is a sentence of four words or more (``no main manifest
    attribute, in target/app.jar``)."""
    lines = error_lines(text)
    if lines or not call.command:
        return lines
    said = [" ".join(raw.split()) for raw in text.splitlines() if raw.strip()]
    if len(said) > 2:
        return ()
    if len(said) == 1 and sum(bool(_PLAIN_WORD.fullmatch(w)) for w in said[0].split()) >= 4:
        # all a failed call said, in words: its complaint ("no main manifest attribute, in …")
        return (redact_head(said[0], 200)[:200],)
    programs = triggers.programs_of(call.command)
    return tuple(
        redact_head(line, 200)[:200]
        for line in said
        if ": " in line and line.split(": ", 1)[0] in programs
    )


def set_in_front(finding: Finding) -> bool:
    """Whether the fix is the failing command with a variable set in front of it and nothing
    else, no file edited between (``CGO_ENABLED=1 go test ./...``): the machine's setting,
    :data:`.classes.ENV_SET`, where nothing else explains the failure."""
    call, fix = finding.call, finding.fix
    return (
        not finding.edited
        and fix is not None
        and bool(triggers.assignments_added(call.command or "", fix.command or ""))
    )


def _kept_target(failing: str, fixed: str) -> bool:
    """Whether the fix ran the failing command's main command on all it named: every word of
    that command that is no option is still in the fix's command of the same kind. Not counted
    as named: the program itself (``pg_dump`` run by another path) and the value of an option
    the fix dropped with it for another (``--region europe-west1`` gone where
    ``--configuration=staging`` came; an option only dropped, ``--bail 1``, keeps its value a
    thing named, and so does a value of several words, a query or a script). A query is
    still run when the fix put another statement before or after it, and the command when the
    fix ran another of its kind after it (``tofu workspace select -or-create x && tofu
    workspace show``)."""
    shape = triggers.main_shape(failing)
    if shape is None:
        return False
    failed = triggers.segments_of(failing, shape.exe, shape.sub)
    ran = triggers.segments_of(fixed, shape.exe, shape.sub)
    return bool(failed) and any(_keeps(failed[-1], own) for own in ran)


def _keeps(words: tuple[str, ...], own: tuple[str, ...]) -> bool:
    """Whether ``own``, a simple command of the fix, named all that ``words`` named (see
    :func:`_kept_target`); variables set in front are no thing named (``MIX_ENV=test mix
    credo`` → ``mix credo``)."""
    words, own = triggers.after_assignments(words), triggers.after_assignments(own)
    kept = {part for word in own[1:] if not word.startswith("-") for part in _statements(word)}
    options = {word.split("=", 1)[0] for word in own if word.startswith("-")}
    swapped = not options <= {word.split("=", 1)[0] for word in words}
    for at, word in enumerate(words[1:], 1):
        if word.startswith("-") or _statements(word) <= kept:
            continue
        before = words[at - 1]
        if " " in word or not (
            swapped and before.startswith("-") and "=" not in before and before not in options
        ):
            return False
    return True


def _statements(word: str) -> set[str]:
    """The statements of a query given as one word (``CREATE SECRET …; SELECT …``): a fix that
    put a statement before or after the failing query still ran it. A plain word is its own
    statement; a lone ``;`` (the end of a ``find -exec``) names nothing."""
    return {part.strip() for part in word.split(";") if part.strip()}


def _operands(segment: str) -> set[str]:
    """The words of a simple command that are no option: what it names and works on."""
    return {word for word in segment.split() if not word.startswith("-")}
