"""The lesson's words: a judged finding written as a candidate, saying what went wrong, what
the fixing call changed, the error lines it is recalled at and the project it belongs to.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from lessons_core.models import Candidate, Config, Evidence
from lessons_core.patterns import kept_programs
from lessons_core.privacy import redact_head
from lessons_core.scan import events as ev
from lessons_core.scan import scoring
from lessons_core.scan.detectors import failures, triggers
from lessons_core.scan.detectors.failures import MistakeClass, error_lines, strip_tags
from lessons_core.scan.detectors.tier2.calls import _EDIT_TOOLS, looks
from lessons_core.scan.detectors.tier2.classes import (
    _ENVIRONMENT_CLASSES,
    CWD_DRIFT,
    EDIT_CAUSES,
    ENV_NOT_LOADED,
    ENV_SET,
    FOLDER_GIVEN,
    GH_GRAPHQL,
    OPERATOR_WORD,
    SANDBOX,
    STEP_REDONE,
    SUBPROJECT,
    SUDO_REDIRECT,
    UNKNOWN_SKILL,
    WRITE_ELSEWHERE,
    _refused_arguments,
    gh_graphql_refused,
    graphql_lines,
    unknown_skill,
)
from lessons_core.scan.detectors.tier2.drift import _cd_to_root
from lessons_core.scan.detectors.tier2.finding import NAME, Finding
from lessons_core.scan.detectors.tier2.messages import _one_line
from lessons_core.scan.detectors.tier2.recall import (
    _failure_time,
    _flaky,
    _recallable,
    _trigger,
    flag_it_named,
    own_error_lines,
    recalled_by_its_class,
    set_in_front,
    wrapper_refused,
)
from lessons_core.scan.intake import RECURS_TAG, scope_tag


def _head(call: ev.Event, error: str = "") -> str:
    """What was called, in a few words: ``git gc``, ``pytest``, ``Edit``; in a pipeline or a
    chain, the simple command the error names (``cat`` of ``sed … | cat -A``)."""
    named = triggers.named_segment(call.command, error) if call.command else None
    shape = named[1] if named is not None else None
    if shape is None and call.command:
        shape = triggers.main_shape(call.command)
    missing = triggers.missing_program(call.command, error) if call.command else None
    if shape is not None and missing is not None and missing != shape.exe:
        return missing  # (not on PATH: the interpreter or wrapper, not what it was to run)
    if shape is not None:
        return f"{shape.exe} {shape.sub}" if shape.sub else shape.exe
    return call.tool or "call"


def _describe_call(call: ev.Event, other: ev.Event | None = None) -> str:
    if call.command:
        return f"`{_quoted(call.command, other.command if other else None, 120)}`"
    if call.paths:
        return f"{call.tool} on {PurePosixPath(call.paths[0]).name or call.paths[0]}"
    return f"the {call.tool} call"


#: How much of a command is redacted and compared with the other call's (a few times more is
#: kept, :func:`redact_head`): a heredoc of megabytes is not flattened whole to find where two
#: commands part.
_COMPARED = 4000


def _quoted(command: str, other: str | None, limit: int) -> str:
    """``command`` on one line, cut to ``limit``: from its start, or, when it parts from
    ``other`` (the wrong call or its fix) past what the start would show, from a little before
    that point, so the quote shows what changed (a jq filter after a long URL) rather than the
    words both calls share."""
    if other is None:
        return _one_line(command, limit)
    text = " ".join(redact_head(command, _COMPARED).split())
    if len(text) <= limit:
        return text
    base = " ".join(redact_head(other, _COMPARED).split())
    parted = next(
        (i for i, (a, b) in enumerate(zip(text, base, strict=False)) if a != b),
        min(len(text), len(base)),
    )
    lead = limit // 4  # what the quote keeps before the change: the words it belongs to
    if text == base or parted <= limit - lead:
        return text[: limit - 1] + "…"
    width = limit - 2  # between the two ellipses
    if parted - lead + width <= len(text):
        start = parted - lead  # the change, with the words before it
        space = text.rfind(" ", start - lead, start)
        start = space + 1 if space >= 0 else start  # from a word's start when one is near
    else:
        start = len(text) - width  # a change near the end: the quote ends with the command
        space = text.find(" ", start, start + lead)
        start = space + 1 if space >= 0 else start
    end = start + width
    return "…" + text[start:end] + ("…" if end < len(text) else "")


#: A line that heads an error and says nothing of it: Python's traceback opens so.
_HEADINGS = frozenset(("Traceback (most recent call last):",))


def _gist(result: ev.Event, lines: tuple[str, ...]) -> str:
    """The error in one short line, without shell prefixes or markup (the line after a
    traceback's heading, which names the exception)."""
    said = [line for line in lines if line.strip() not in _HEADINGS] or lines
    text = said[0] if said else _one_line(strip_tags(result.text))
    text = _NOISE_PREFIX.sub("", text).strip()
    return _one_line(text, 120)


#: A line of an error that says what to do (``Consider enabling multiline mode with the
#: --multiline flag``, ``hint: …``, ``Did you mean …``): for a failure no class knows, the
#: command's own advice is the best words the lesson has.
_HINT_LINE = kept_programs.compile(
    r"^(?:hint|help|tip)\s*:|^(?:consider|did you mean|perhaps you meant|to fix|use `|"
    r"try (?:running|using|again with))\b",
    re.IGNORECASE,
)


def _hint(text: str, lines: tuple[str, ...]) -> str | None:
    """The first line of ``text`` that advises what to do, when it is not an error line the
    lesson quotes already."""
    for raw in strip_tags(text[:3000]).splitlines():
        line = " ".join(raw.split())
        if _HINT_LINE.match(line) and line not in lines:
            return _one_line(line, 160)
    return None


_NOISE_PREFIX = kept_programs.compile(
    r"^(?:Output:\s*|Error:\s*|(?:/usr)?(?:/bin/)?(?:ba|z)?sh: (?:-c: )?(?:line \d+: )?|"
    r"\(eval\):(?:\w+:)?\d+: )+"
)


def _refusal_lines(cls: MistakeClass, text: str) -> tuple[str, ...]:
    """The line of a tool's refusal that states it, without the tool's echo of the input (the
    text that was not found is one repository's code, not the mistake's words)."""
    lines = [" ".join(raw.split()) for raw in strip_tags(text).splitlines()]
    if cls.name == failures.BAD_PARAMETERS:
        # The line that names the parameter, where there is one: a Read refused for its
        # ``offset`` is not a Read refused for its ``limit``.
        for line in lines:
            if _MISSING_PARAMETER.search(line) or _TYPED_PARAMETER.search(line):
                return (redact_head(line, 200)[:200],)
    for line in lines:
        if line and cls.pattern.search(line):
            return (redact_head(line, 200)[:200],)
    return ()


def _candidate(finding: Finding, cfg: Config) -> Candidate | None:
    call, result, fix = finding.call, finding.result, finding.fix
    assert fix is not None
    trigger = _trigger(finding)
    if trigger is not None and call.command and not triggers.compiler_accepts(trigger):
        trigger = None  # a shape the manifest compiler would refuse is no trigger at all
    drift = finding.cls is CWD_DRIFT
    if (
        trigger is not None
        and call.command
        and not drift
        and not triggers.matches(trigger, call.command)
    ):
        trigger = None  # (built on one command of the line, it must still fire on the line)
    if finding.guessed is not None and trigger is None:
        return None  # no pattern for the wrong path that the right one does not match too
    bare = trigger is None or triggers.is_bare_executable(trigger)
    if call.command and bare and not _failure_time(finding):
        if not _recallable(finding):
            if not set_in_front(finding):
                return None  # nothing tells the wrong call from its fix: no lesson to deliver
            finding.cls = ENV_SET  # (but a variable set for it: the machine's, as in judging)
        trigger = None  # told by its error alone: recalled when that error comes back
    lines = own_error_lines(call, result.text) if result.text else ()
    cls = finding.cls
    refused = bool(call.command) and _refused_arguments(result)
    by_class = trigger is None and recalled_by_its_class(finding)
    if (_failure_time(finding) and not call.command) or by_class:
        # the line the class knows the refusal by: what recall at the failure matches
        assert cls is not None
        lines = _refusal_lines(cls, result.text) or lines
    elif refused:
        # The schema's complaint, whole: the key it names sits on a line of its own.
        lines = (_one_line(strip_tags(result.text), 200),)
    if finding.step is not None:
        step_line = tuple(
            redact_head(line, 200)[:200]
            for line in (" ".join(raw.split()) for raw in result.text.splitlines())
            if finding.step in line
        )[:1]  # the line that names the step: what failure-time recall matches, too
        lines = tuple(dict.fromkeys((*lines[:4], *step_line)))
    tool_name = call.tool or "call"
    head = tool_name if refused else _head(call, result.text)
    skill = unknown_skill(call, result.text) if cls is UNKNOWN_SKILL else None
    if skill is not None:
        head = f"{tool_name} `{skill}`"  # one lesson per skill name, never one for them all
    if cls is SUDO_REDIRECT:
        head = "sudo"  # (whatever it ran: the lesson is of sudo and the shell)
    if cls is OPERATOR_WORD and finding.fix is not None:
        head = _head(finding.fix)  # (the error names the piece after the cut, not the program)
    gh = gh_graphql_refused(call, result.text) if cls is GH_GRAPHQL else None
    if gh is not None:
        head = gh.command  # (``gh pr edit``, whatever else the command line did first)
        lines = graphql_lines(result.text) or lines
    words = _class_words(finding)  # what a pseudo-class's sentences name
    # The fix the quotes are compared with, where the lesson is what changed in the command;
    # a sandbox lesson is the permission, whatever else the rerun changed.
    partner = fix if cls is not SANDBOX else None
    wrapper = finding.wrapper
    if finding.rejected:
        mistake = f"{_describe_call(call)} was rejected by the user"
        summary = f"{head}: the user wanted another way"
    elif wrapper is not None and (cls is None or cls.name not in _ENVIRONMENT_CLASSES):
        how, name, exe = wrapper
        gist = _gist(result, lines)
        outer = name.split()[0]
        if how == "inserted" or (how == "dropped" and wrapper_refused(finding)):
            # One lesson whichever way out a session took (``bun`` alone, or ``rtk test
            # bun``): the mistake is the wrapper given the command as its subcommand.
            said = _describe_call(call, partner)
            runs = f", it runs other commands through one of its own (`{name}`)"
            mistake = (
                f"{said} failed: `{outer}` has no `{exe}` subcommand"
                f"{runs if how == 'inserted' else ''} (“{gist}”)"
            )
            summary = f"{exe}: `{outer}` has no `{exe}` subcommand"
        elif how == "dropped":
            said = _describe_call(call, partner)
            mistake = f"{said} failed: `{name}` could not run `{exe}` (“{gist}”)"
            summary = f"{exe}: run it without `{name}`"
        else:
            mistake = f"{_describe_call(call, partner)} failed run bare (“{gist}”)"
            summary = f"{exe}: run it through `{name}`"
    elif cls is not None:
        cls = EDIT_CAUSES.get(finding.edit_cause or "", cls)
        general = cls.mistake.format(
            tool=tool_name,
            dir=finding.drift_dir or finding.cleared or "",
            **words,
        )
        # (a gh command is quoted alone: what came before it in the line did not fail)
        named = f"`{_one_line(gh.segment, 120)}`" if gh is not None else None
        said = named or _describe_call(call, partner)
        failed = "" if cls is STEP_REDONE else " failed"  # (the step itself worked)
        mistake = f"{said}{failed}: {general} (“{_gist(result, lines)}”)"
        summary = f"{head}: {cls.title.format(**words)}"
    elif _flaky(finding):
        mistake = (
            f"{_describe_call(call)} failed (“{_gist(result, lines)}”), and the wider run "
            f"{_describe_call(fix)} then passed with nothing changed: a flaky failure, not one "
            "of the change"
        )
        summary = f"{head}: a failure the wider run did not repeat"
    elif result.failure in ev.MISTAKES:
        mistake = f"{_describe_call(call, partner)} failed (“{_gist(result, lines)}”)"
        hint = _hint(result.text, lines)
        if hint:
            mistake += f"; it said: “{hint}”"
        told = flag_it_named(finding) if result.failure != ev.TIMEOUT else None
        summary = (
            f"{head}: {_hung(call, fix) if result.failure == ev.TIMEOUT else _changed(call, fix)}"
        )
        if told is not None:
            how, flag = told
            way = f"not with `{flag}`" if how == "dropped" else f"give it `{flag}`"
            summary = f"{head}: {way}, as its error says"
        swapped = triggers.case_swapped(call.command or "", fix.command or "")
        if swapped is not None:
            summary = f"{head}: `{swapped.swapcase()}`, not `{swapped}`"
    else:
        mistake = f"{_describe_call(call)} was not what the user wanted"
        summary = f"{head}: the user corrected it"
    if finding.user_text:
        mistake += f"; the user said: “{_one_line(strip_tags(finding.user_text), 200)}”"
    mistake = mistake.rstrip(".") + "."
    fixed = _fix_text(finding, cls, tool_name, words)
    signals = set(finding.signals)
    if cls is not None:
        signals.add(scoring.KNOWN_MISTAKE)
    return Candidate(
        id="",
        tier=2,
        agent=call.agent,
        tool=call.tool,
        trigger=trigger,
        mistake=mistake,
        fix=fixed,
        summary=_one_line(summary, 100).rstrip("…"),
        tags=_tags(finding),
        confidence=scoring.confidence(signals, cfg.scoring),
        priority=scoring.priority(signals),
        evidence=tuple(
            Evidence(r.file, r.line, r.call_id or call.call_id, r.session_id)
            for r in finding.retries
        ),
        error_lines=lines,
        project=_project(finding),
        detector=NAME,
    )


def _changed(call: ev.Event, fix: ev.Event) -> str:
    """What a fix no class explains did that the failed call had not, in a few words: the
    options it added (``it worked with `--autostash```), dropped (``it worked without
    `--global```) or gave in place of others (``it worked with `-k`, not `-f```), the program
    run by another path, or other words it added with nothing taken away (``it worked with
    `run` added``); else that it needed another way."""
    failing, fixed = call.command or "", fix.command or ""
    if not (failing and fixed):
        return "needed another way"
    said = _changed_in(failing, fixed)
    shape = triggers.main_shape(failing)
    if said is None and shape is not None:
        # the lines differ in more than the command (a look after it: ``tofu workspace select
        # -or-create x && tofu workspace show``): what changed is in the fix's first command of
        # the kind, when that one was given all the failing one named, came first but for a
        # ``cd`` (a step in front, ``git config … && git status``, is what changed), was no
        # look (``(crontab -l; echo …) | crontab -`` changed more than ``-l``) and the fix
        # kept the failing line's other commands as they were
        mine = triggers.segments_of(failing, shape.exe, shape.sub)
        theirs = triggers.segments_of(fixed, shape.exe, shape.sub)
        if (
            mine
            and theirs
            and not looks(triggers.shape_of(list(theirs[0])), mine[-1])
            and set(triggers.operands_of(mine[-1])) <= set(triggers.operands_of(theirs[0]))
            and _first(fixed, theirs[0])
            and _kept_others(failing, fixed, mine[-1])
        ):
            said = _changed_in(" ".join(mine[-1]), " ".join(theirs[0]))
    return said or "needed another way"


def _first(command: str, words: tuple[str, ...]) -> bool:
    """Whether the simple command ``words`` comes first in ``command``, but for a ``cd``."""
    for one in triggers.segments(command):
        if tuple(one) == words:
            return True
        if one[0] != "cd":
            return False
    return False


def _kept_others(failing: str, fixed: str, words: tuple[str, ...]) -> bool:
    """Whether every simple command of ``failing`` but ``words`` is in ``fixed`` unchanged."""
    given = {tuple(one) for one in triggers.segments(fixed)}
    return all(tuple(one) in given for one in triggers.segments(failing) if tuple(one) != words)


def _changed_in(failing: str, fixed: str) -> str | None:
    """What :func:`_changed` says of two command lines, or ``None`` for nothing it can name."""
    added = triggers.options_added(failing, fixed, with_values=True)  # (variables in front too)
    if added:
        return f"it worked with `{_one_line(' '.join(added), 60)}`"
    dropped = triggers.options_added(fixed, failing, with_values=True)
    if dropped:
        return f"it worked without `{_one_line(' '.join(dropped), 60)}`"
    swapped = triggers.options_swapped(failing, fixed)
    if swapped is not None:
        gone, given = (_one_line(" ".join(words), 40) for words in swapped)
        return f"it worked with `{given}`, not `{gone}`"
    valued = triggers.value_changed(failing, fixed)
    if valued is not None:
        flag, old, new = valued
        return f"it worked with `{flag} {_one_line(new[0], 40)}`, not `{flag} {old}`"
    moved = triggers.program_moved(failing, fixed)
    if moved is not None:
        return f"it worked run as `{_one_line(moved, 60)}`"
    more = triggers.words_added(failing, fixed)  # (a subcommand, a target: not options alone)
    if more:
        return f"it worked with `{_one_line(' '.join(more), 60)}` added"
    return None


def _hung(call: ev.Event, fix: ev.Event) -> str:
    """A command that did not end, and the options that made it end, when the fix only added
    them (``it hung; it ended with `--no-pager```)."""
    failing, fixed = call.command or "", fix.command or ""
    added = triggers.options_added(failing, fixed, with_values=True) if failing and fixed else []
    return f"it hung; it ended with `{_one_line(' '.join(added), 60)}`" if added else "it hung"


#: Where a tool's schema error names the parameter it refused: a key it lacked (OpenCode's
#: ``Missing key at ["description"]``, Gemini's ``must have required property 'file_path'``)
#: or one of the wrong type (Claude Code's ``The parameter `offset` type is expected as
#: `number` …``, a zod issue's ``"expected": "number", … "path": ["offset"]``).
_MISSING_PARAMETER = kept_programs.compile(
    r"""Missing\s+key\s+at\s+\[\s*"([\w.-]+)"|required\s+property\s+'([\w.-]+)'|"""
    r"""required\s+parameter\s+`?([\w.-]+)`?\s+is\s+missing"""
)
_TYPED_PARAMETER = kept_programs.compile(
    r"""[Pp]arameter\s+`([\w.-]+)`\s+type\s+is\s+expected\s+as\s+`(\w+)`|"""
    r'"expected":\s*"(\w+)",[^\]]*?"path":\s*\[\s*"([\w.-]+)"'
)


def _parameters_named(error: str) -> str:
    """`` (`description` was missing)``, `` (`offset` must be a number)``: what a schema
    error says the call got wrong, for the fix to say; empty when it names no parameter."""
    said: list[str] = []
    head = error[:3000]
    for m in _MISSING_PARAMETER.finditer(head):
        said.append(f"`{next(g for g in m.groups() if g)}` was missing")
    for m in _TYPED_PARAMETER.finditer(head):
        name, kind = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        said.append(f"`{name}` must be a {kind}")
    unique = list(dict.fromkeys(said))[:3]
    return f" ({'; '.join(unique)})" if unique else ""


def _class_words(finding: Finding) -> dict[str, str]:
    """The words a pseudo-class's sentences name besides the tool: the program that did a
    failed command's job and what it did it on (``other``, ``target``:
    :data:`.classes.ANOTHER_WAY`), the path guessed and the one the file is at (``wrong``,
    ``right``, ``name``: :data:`.classes.GUESSED_PATH`), the package name a registry did not
    know and the one it publishes (``wrong``, ``right``: :data:`.classes.PACKAGE_NAME`)."""
    words = dict.fromkeys(
        (
            "other",
            "target",
            "wrong",
            "right",
            "name",
            "var",
            "folder",
            "flag",
            "later",
            "change",
            "mark",
        ),
        "",
    )
    words["step"] = _one_line(finding.step, 60) if finding.step else ""
    fix, target = finding.fix, finding.other_target
    if finding.later is not None and finding.later.command and fix is not None and fix.command:
        added = triggers.options_added(finding.call.command or "", fix.command)
        later = triggers.main_shape(finding.later.command)
        words.update(
            flag=" ".join(added),
            later=" ".join(filter(None, (later.exe, later.sub))) if later else "",
        )
    if finding.cls is ENV_NOT_LOADED:
        # the variable the error named, else the one the fix set (``GOCACHE=…``)
        said = triggers.missing_variable(finding.result.text)
        added = (
            triggers.assignments_added(finding.call.command or "", fix.command or "") if fix else []
        )
        words["var"] = said or (added[0].split("=", 1)[0] if added else "")
    if finding.cls is ENV_SET and fix is not None:
        added = triggers.assignments_added(finding.call.command or "", fix.command or "")
        words["setting"] = " ".join(added)
    if finding.cls is WRITE_ELSEWHERE and fix is not None:
        words["change"] = _changed(finding.call, fix)
    if finding.cls is SUBPROJECT or finding.cls is FOLDER_GIVEN:
        words["folder"] = finding.drift_dir or ""
    shape = triggers.main_shape(fix.command) if fix is not None and fix.command else None
    if target is not None and shape is not None:
        words.update(other=shape.exe, target=target)
    if finding.guessed is not None:
        wrong, right = finding.guessed
        words.update(wrong=wrong, right=right, name=PurePosixPath(wrong).name)
    if finding.stand_in is not None:
        words["other"] = finding.stand_in
        if finding.cls is OPERATOR_WORD:  # (the mark the shell cut the word at)
            words["mark"] = next(c for c in finding.stand_in if c in ";&|")
    if finding.option is not None:
        words["flag"] = finding.option
    if finding.renamed is not None:
        words.update(wrong=finding.renamed[0], right=finding.renamed[1])
    return words


def _tags(finding: Finding) -> tuple[str, ...]:
    """The candidate's tags: the tool's and the language's; for a guessed path or a project in
    a folder below, also the project it belongs to (when its folder is there to give an id);
    for a guessed path, the mark that holds it until the same guess comes back in another
    session."""
    call = finding.call
    tags = triggers.tags_for(call.tool, call.command, call.paths)
    if finding.guessed is None and finding.cls is not SUBPROJECT:
        return tags
    scope = scope_tag(_project(finding))
    waits = (RECURS_TAG,) if finding.guessed is not None else ()  # (where a file is: see paths)
    return (*tags, *waits, *([scope] if scope else []))


def _project(finding: Finding) -> str | None:
    """The project of the lesson: the call's, except that a call made from the subdirectory an
    earlier ``cd`` left the shell in belongs to the repository it drifted from."""
    project, moved, fix = finding.call.project, finding.drift_dir, finding.fix
    if not project or not moved or finding.cls is not CWD_DRIFT:
        return project
    project = project.rstrip("/") or project
    if fix is not None and _cd_to_root(fix):
        root = triggers.segments(fix.command or "")[0][1].rstrip("/")
        if project.startswith(root + "/"):
            return root  # the fix went back to the repository the shell had drifted from
    tail = "/" + moved.strip("/")
    if not moved.startswith((".", "/")) and project.endswith(tail):
        return project[: -len(tail)] or project
    return project


def _fix_text(
    finding: Finding, cls: MistakeClass | None, tool_name: str, words: dict[str, str]
) -> str:
    """What worked, from the fixing call: the command that ran, or the tool on the file; never
    the agent's prose around it."""
    fix = finding.fix
    assert fix is not None
    if fix.command:
        other = finding.call.command if cls is not SANDBOX else None
        quoted = _quoted(fix.command, other, 160)
        did = f"`{quoted}` worked"
        if finding.fix_failure is not None:
            later = finding.fix_failure
            gist = _gist(later, error_lines(later.text) if later.text else ())
            did = f"`{quoted}` got past it (and then failed for a reason of its own: “{gist}”)"
        wrapper = finding.wrapper
        if wrapper is not None and (cls is None or cls.name not in _ENVIRONMENT_CLASSES):
            how, name, exe = wrapper
            way = f"without `{name}`" if how == "dropped" else f"through `{name}`"
            if how == "inserted":
                way += f" (or without `{name.split()[0]}`)"
            elif wrapper_refused(finding):
                way += f" (or through a runner subcommand of `{name}`, if it has one)"
            worked = f"Run `{exe}` {way}: {did}"
        elif _flaky(finding):
            worked = f"Rerun `{_one_line(fix.command, 160)}` before looking for a cause: it passed"
        elif cls is None:
            worked = f"Run `{quoted}` instead"
        else:
            way = cls.fix.format(
                tool=tool_name,
                dir=finding.cleared or "",
                **words,
            )
            if cls.name == failures.BAD_PARAMETERS:
                way += _parameters_named(finding.result.text)
            worked = f"{way}: {did}"
    else:
        target = PurePosixPath(fix.paths[0]).name if fix.paths else ""
        on = f" on {target}" if target else ""
        generic = f"the {fix.tool or 'tool'} call{on} then worked"
        if cls is None:
            worked = generic
        else:
            way = cls.fix.format(tool=tool_name, **words)
            if cls.name == failures.BAD_PARAMETERS:
                way += _parameters_named(finding.result.text)
            worked = f"{way}; {generic}"
        if (
            finding.read_between
            and finding.call.tool in _EDIT_TOOLS
            and (cls is None or cls.name != failures.NOT_READ)
            and finding.edit_cause is None
        ):
            worked = f"Read the file again before the {tool_name}; {generic}"
        worked = worked[:1].upper() + worked[1:]
    # The agent's own words (``finding.diagnosis``) raise the confidence but stay out: what it
    # said it was doing is often narration, and the fix must be what the calls show.
    return worked.rstrip(".") + "."
