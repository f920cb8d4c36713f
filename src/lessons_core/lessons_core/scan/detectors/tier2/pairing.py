"""The pairing of a failure with its fix: the search of the window after a failed call for the
call that corrected it, the repeats on the way, and what was said in between.

What comes out is a :class:`.finding.Finding` with its fix, still unjudged (:mod:`.judging`).
"""

from __future__ import annotations

import re
import shlex

import msgspec

from lessons_core.compiler.render import HEADING, SHORT_FIX, SHORT_HEADING
from lessons_core.patterns import kept_programs
from lessons_core.scan import events as ev
from lessons_core.scan import scoring
from lessons_core.scan.detectors import failures, triggers
from lessons_core.scan.detectors.tier2.calls import (
    _EDIT_TOOLS,
    _FILE_TOOLS,
    _asks_for_help,
    _inserted,
    _key,
    _keys,
    _kind,
    _only_reads,
    _probes,
    _renamed,
    _same_input,
    _wrapped_inside,
    _wrapper_added,
    _wrapping,
)
from lessons_core.scan.detectors.tier2.classes import (
    _refused_arguments,
    gh_graphql_refused,
    runs_gh_command,
)
from lessons_core.scan.detectors.tier2.finding import RETRY_THRESHOLD, WINDOW, Finding
from lessons_core.scan.detectors.tier2.messages import _diagnoses, _first_sentence, _is_correction
from lessons_core.scan.detectors.tier2.remedies import (
    _cleared,
    _remedies,
    _step_taken,
    same_target,
    step_redone,
)

#: Tools where a failure saying "no such script/command" is fixed by another subcommand of the
#: same tool (``npm test`` → ``npm run test:unit``). Elsewhere (git, docker) another subcommand
#: is another task, not a correction.
FALLBACK_TOOLS = frozenset(
    {"npm", "pnpm", "yarn", "bun", "make", "just", "task", "mise", "cargo", "uv", "poetry", "pip"}
)
#: How many commands of other programs that worked, after a failure, may be its fix by doing
#: the same job on the same target: the next few that did more than look around (a ``grep``
#: of the manifest first is how the right program is found), not any later step that names
#: it again.
_OTHER_WAY_REACH = 2
_MISUSE = kept_programs.compile(
    r"missing script|unknown (?:command|subcommand|script|target)|no rule to make target|"
    r"no such (?:command|subcommand|task)|did you mean|not a valid command|is not a task",
    re.IGNORECASE,
)

#: Failures whose fix may itself fail for a reason of its own: a later call of the same kind
#: that no longer fails this way got past the mistake (``rtk bun run test`` refused, then
#: ``bun run test`` ran the tests, and some failed).
_GOT_PAST_CLASSES = frozenset(
    {
        failures.MISSING_PATH,
        failures.COMMAND_NOT_FOUND,
        failures.UNKNOWN_OPTION,
        failures.UNKNOWN_SUBCOMMAND,
        failures.SHELL_SYNTAX,
    }
)


def _link(events: list[ev.Event]) -> tuple[dict[int, ev.Event], dict[int, ev.Event], list[int]]:
    """Each result's call and each call's result, keyed by the event's identity, and where the
    findings may start (failed results, user text).

    A result belongs to the latest call before it with its call id, not to any call of that
    id: some models number their calls per message (``functions.bash:0`` again in every
    answer), so one id names many calls of a session, each followed by its own result.
    """
    open_calls: dict[str, ev.Event] = {}
    call_of: dict[int, ev.Event] = {}
    result_of: dict[int, ev.Event] = {}
    starts: list[int] = []
    for i, event in enumerate(events):
        kind = event.kind
        if kind == ev.TOOL_CALL:
            if event.call_id:
                open_calls[event.call_id] = event
        elif kind == ev.TOOL_RESULT:
            call = open_calls.get(event.call_id) if event.call_id else None
            if call is not None:
                call_of[id(event)] = call
                result_of.setdefault(id(call), event)
            if event.failure:
                starts.append(i)
        elif kind == ev.USER_TEXT:
            starts.append(i)
    return call_of, result_of, starts


def _follow(
    events: list[ev.Event],
    i: int,
    call: ev.Event,
    calls: dict[int, ev.Event],
    results: dict[int, ev.Event],
    consumed: set[int],
) -> Finding:
    """The failure at ``i`` with what came of it in the window: its fix, its repeats (marked
    ``consumed``), what was said. The fix is ``None`` when nothing fixed it, or when the same
    call simply worked on a second try (flaky, or made to work by something in between)."""
    failed = events[i]
    call = _failed_later(events, i, call) or call
    finding = Finding(call, failed)
    if failed.failure == ev.TIMEOUT:
        finding.signals.add(scoring.HANG_OR_TIMEOUT)
    key = _key(call)
    exe_key = None
    # (another subcommand may be the fix: after a misuse, or the one the error said to run)
    asked = bool(call.command) and len(key) == 3 and key[1] in FALLBACK_TOOLS
    named = asked and not _MISUSE.search(failed.text)
    if asked:
        exe_key = key[:2]
    fallback: ev.Event | None = None  # same executable, other subcommand: a weaker match
    fallback_at = fix_at = -1
    first = failures.mistake_class(failed.text)
    got_past = first is not None and first.name in _GOT_PAST_CLASSES
    inside = _wrapped_inside(call)
    refused = (
        triggers.refused_subcommand(call.command, failed.text)
        if call.command and first is not None and first.name == failures.UNKNOWN_SUBCOMMAND
        else None
    )
    gh = gh_graphql_refused(call, failed.text)
    script_run = ".py" in (call.command or "")
    taken = {id(failed)}  # the failures counted as this one's repeats
    edited_at: list[int] = []
    read_paths: set[str] = set()
    others = 0  # the commands of other programs that worked since the failure
    # The first of them that did the failed command's job on its target: the fix when no
    # corrected form of the command itself comes in the window (a weaker match, like
    # ``fallback``).
    other_way: tuple[ev.Event, int, str] | None = None
    for j in range(i + 1, min(len(events), i + 1 + WINDOW)):
        other = events[j]
        if (
            other.kind == ev.TOOL_RESULT
            and other.is_mistake
            and id(other) not in consumed
            and id(other) not in taken
        ):
            sibling = calls.get(id(other))
            if sibling is not None and sibling is not call and _key(sibling) == key:
                # a parallel call of the same kind, sent before this failure came back (a
                # later call's failure was counted, and consumed, when the call was met)
                finding.retries.append(other)
                taken.add(id(other))
                consumed.add(id(other))
        elif (
            other.kind == ev.USER_TEXT and finding.user_text is None and _is_correction(other.text)
        ):
            finding.user_text, finding.user_at = other.text, j
        elif other.kind == ev.ASSISTANT_TEXT and finding.diagnosis is None:
            if _diagnoses(other.text):
                finding.diagnosis, finding.diagnosis_at = _first_sentence(other.text), j
        elif other.kind == ev.TOOL_CALL:
            if (
                other.tool == "Read"
                and call.tool in _FILE_TOOLS
                and call.paths
                and call.paths[0] in other.paths
            ):
                finding.read_between = True
            if other.sidechain != call.sidechain:
                continue
            keys = _keys(other)
            if other.tool == "Read" and other.paths:
                read_paths.update(other.paths)
            wrap = _inserted(refused, other)
            if wrap is None and key not in keys:
                wrap = _wrapping(key, inside, other)
            elif wrap is None and key[1:] not in inside and first is None:
                # (what no class explains: ``Prepending `bundle exec` … may solve this``)
                wrap = _wrapper_added(call, other)
            same = key in keys or wrap is not None or _renamed(key, other)
            if not same and script_run and " -m " in (other.command or ""):
                # the script run as a module (``python3 app/cli.py`` → ``python3 -m app.cli``)
                same = triggers.as_module(call.command or "", other.command or "") is not None
            if same and gh is not None and not runs_gh_command(gh, other):
                same = False  # ``gh pr view`` after ``gh pr edit`` failed: another task
            if not same and _remedies(first, call, other, read_paths, results, failed.text):
                finding.fix, fix_at = other, j
                finding.signals.add(scoring.ERROR_THEN_SUCCESS)
                break
            if not same:
                if other.tool in _EDIT_TOOLS or triggers.edits_in_place(other.command or ""):
                    edited_at.append(j)
                # A call of another kind that worked, and did more than read how it is called,
                # may be the weaker fix: another subcommand, or another program on the target.
                res = results.get(id(other))
                worked = (
                    res is not None
                    and res.failure is None
                    and not _asks_for_help(other)
                    and not _probes(other, call)
                )
                if (
                    worked
                    and fallback is None
                    and exe_key is not None
                    and any(k[:2] == exe_key for k in keys)
                    and (not named or triggers.command_named(failed.text, other.command or ""))
                ):
                    fallback, fallback_at = other, j
                if (
                    worked
                    and other.command
                    and other_way is None
                    and others < _OTHER_WAY_REACH
                    and not _only_reads(other)  # (a look does no job: not counted)
                ):
                    others += 1
                    target = same_target(call, other)
                    if target is not None and other.escalated == call.escalated:
                        other_way = (other, j, target)
                continue
            res = results.get(id(other))
            if res is None:
                continue
            looked = (_asks_for_help(other) and not _asks_for_help(call)) or _probes(other, call)
            if res.failure is None and looked:
                # it read how the command is called: the corrected call comes next (unless
                # that was what failed: ``go run main.go --version`` → ``go run . --version``)
                continue
            if res.failure is None and _fuller_later(events, i, j, call, results):
                continue  # a look around (``docker compose -f x config``): the work comes next
            if res.failure is None:
                if _same_input(other, call):
                    step = _step_taken(failed.text, events, i, j, results, call)
                    cleared = None if step else _cleared(failed.text, events, i, j, results)
                    if step is None and cleared is None and not _refused_arguments(failed):
                        redone = step_redone(events, call, i, j, results)
                        if redone is not None:  # (one call between: no edit either)
                            # (the lesson is the earlier step's: it needed an option more)
                            earlier, again = redone
                            about = Finding(earlier, failed)
                            about.fix, about.later = again, call
                            about.signals.add(scoring.ERROR_THEN_SUCCESS)
                            return about
                        return finding  # the same call worked on a second try: no fix
                    finding.step = step  # it worked once the step its error named had run
                    finding.cleared = cleared  # or once the stale output it named was gone
                finding.fix, fix_at, finding.wrapper = other, j, wrap
                finding.signals.add(scoring.ERROR_THEN_SUCCESS)
                break
            if got_past and res.is_mistake and triggers.writes_a_file(other.command or ""):
                # it wrote a file on its way, then failed: what failed may be the new code, so
                # a later run that works is the witness (the failure's class is of the call,
                # not the code, so that edit explains nothing of it)
                continue
            if got_past and res.is_mistake and not _same_input(other, call):
                later = failures.mistake_class(res.text)
                if later is None or later is not first:
                    # The path is found now (the script, the command, the option); what failed
                    # next (the tests it ran) is another matter. Whether the first failure was
                    # the lesson is for the judge to say.
                    finding.fix, fix_at, finding.wrapper = other, j, wrap
                    finding.fix_failure = None if _found_nothing(res) else res
                    finding.signals.add(scoring.ERROR_THEN_SUCCESS)
                    break
            if res.is_mistake:
                finding.retries.append(res)
                taken.add(id(res))
                consumed.add(id(res))
                if edited_at:
                    finding.rerun.add(id(res))
            elif other.tool in _EDIT_TOOLS:
                edited_at.append(j)
    if len(finding.retries) >= RETRY_THRESHOLD:
        finding.signals.add(scoring.RETRY_LOOP)
    if finding.fix is None and fallback is not None:
        finding.fix, fix_at = fallback, fallback_at
        finding.signals.add(scoring.ERROR_THEN_SUCCESS)
    if finding.fix is None and other_way is not None:
        finding.fix, fix_at, finding.other_target = other_way
        finding.signals.add(scoring.ERROR_THEN_SUCCESS)
    if finding.fix is None:
        return finding
    finding.edited = any(j < fix_at for j in edited_at)
    # Only what was said before the fix explains it.
    if 0 <= finding.user_at < fix_at:
        finding.signals.add(scoring.USER_CORRECTION)
    else:
        finding.user_text = None
    if 0 <= finding.diagnosis_at < fix_at:
        finding.signals.add(scoring.SELF_DIAGNOSIS)
    else:
        finding.diagnosis = None
    return finding


def _failed_later(events: list[ev.Event], i: int, call: ev.Event) -> ev.Event | None:
    """The call narrowed to a later command of its ``&&`` chain, when that is the one that
    failed: the first call of the window that ran a later command of the chain ran none of its
    main command (``npm run build && npm publish`` failed, then ``npm pkg set … && npm
    publish``; ``git add … && git commit`` failed, then ``git -c user.email=… commit``). A
    ``cd`` in front stays in front. ``None`` when the chain's main command comes back first
    (the comparison is then with the whole line, as ever), or when the error names a program
    of the line other than the later command's (``cd: src: No such file or directory``)."""
    heads = triggers.chain_heads(call.command or "")
    if len(heads) < 2:
        return None
    main = _key(call)
    ran = {words[0] for words in heads} | {
        shape.exe for shape in triggers.shapes(call.command or "")
    }
    named = triggers.programs_named(events[i].text) & ran  # (not "fatal: …", "error: …")
    later: list[tuple[list[str], tuple[str, ...]]] = []
    for head in heads[1:]:
        shape = triggers.shape_of(head)
        if shape is not None and shape.exe not in triggers.SETUP_COMMANDS and named <= {shape.exe}:
            later.append((head, _kind(call.tool or "?", shape)))
    for other in events[i + 1 : i + 1 + WINDOW] if later else ():
        if other.kind != ev.TOOL_CALL or other.sidechain != call.sidechain or not other.command:
            continue
        keys = _keys(other)
        if main in keys:
            return None
        for head, kind in reversed(later):  # (the last of a kind is the one that failed)
            if kind in keys:
                lead = f"{shlex.join(heads[0])} && " if heads[0][0] == "cd" else ""
                return msgspec.structs.replace(call, command=lead + shlex.join(head))
    return None


def _fuller_later(
    events: list[ev.Event], i: int, j: int, call: ev.Event, results: dict[int, ev.Event]
) -> bool:
    """Whether a call after ``events[j]``, in the failure's window, worked and holds every
    word of the failing call (its program, subcommand and operands) where ``events[j]`` lacks
    one: ``docker compose -f compose.dev.yml config`` looked around, and ``docker compose -f
    compose.dev.yml up -d api``, the failed ``docker compose up -d api`` corrected, is the
    fix."""
    wanted = _operands(call.command or "")
    if not wanted or _holds(wanted, events[j].command or ""):
        return False
    for k in range(j + 1, min(len(events), i + 1 + WINDOW)):
        other = events[k]
        if other.kind != ev.TOOL_CALL or not other.command:
            continue
        res = results.get(id(other))
        if res is not None and res.failure is None and _holds(wanted, other.command):
            return True
    return False


def _holds(wanted: set[str], command: str) -> bool:
    """Whether ``command`` holds each of the ``wanted`` words, or a word that goes on from it
    (a query with a check put after it: ``LOAD DATA …; SELECT COUNT(*) FROM t``). Quotes in a
    word do not count: the shell took those the failing call left bare, which the fix kept in
    quotes of their own (``this["a"]`` → ``'this["a"]'``, ``"cd $ROOT"`` → ``'cd "$ROOT"'``),
    and a query's own quotes may change with the quotes around it (``-e "… = 'x'"`` → ``-e
    '… = "x"'``)."""
    words = {_unquoted(word) for word in _words(command)}
    return all(
        word in words or any(w.startswith(word) for w in words) for word in map(_unquoted, wanted)
    )


def _unquoted(word: str) -> str:
    return word.replace('"', "").replace("'", "")


def _operands(command: str) -> set[str]:
    """The words of ``command``'s main simple command that are not options."""
    shape = triggers.main_shape(command) if command else None
    found = triggers.segments_of(command, shape.exe, shape.sub) if shape is not None else []
    return {word for word in found[0] if not word.startswith("-")} if found else set()


def _words(command: str) -> set[str]:
    return {word for seg in triggers.segments(command) for word in seg}


def _found_nothing(result: ev.Event) -> bool:
    """Whether a result is a search that found nothing (``rg`` exits 1 and says nothing): it
    ran and matched no line. A failure of that kind is no mistake, and a fix of that kind did
    not fail for a reason of its own."""
    return result.exit_code == 1 and not result.text.strip()


#: A hook's deny as the agent records it: a stored lesson's text (its full form or its short
#: one), after at most a few words an agent puts before a hook's reason (Gemini CLI's "Tool
#: execution blocked: ").
_LESSON_DENY = kept_programs.compile(
    rf"\A[^\n]{{0,60}}?(?:{re.escape(HEADING)}|{re.escape(SHORT_HEADING)}[^\n]*{SHORT_FIX})"
)


def _stopped_by_a_lesson(result: ev.Event) -> bool:
    """Whether a failed result is a stored lesson's guard or nudge stopping the call: the
    lesson is kept already and did its work, so the call is no mistake to learn again, and the
    call the agent made instead no fix of one. Its text is the lesson's, so a scan that took it
    for a failure would learn the lesson from itself, or make a teammate's guard the user's
    own lesson."""
    head = result.text[:500]
    return SHORT_HEADING in head and _LESSON_DENY.search(head) is not None


def _release_others(finding: Finding, calls: dict[int, ev.Event], consumed: set[int]) -> None:
    """Give back the repeats of a finding that came to nothing and were another command than
    its call, or the same command run after a file was edited, so each is judged on its own;
    the same command again on the same code stays counted.

    A run that failed, then the code edited and the run made again, is the usual loop of work:
    the edit answered the first failure, and when the run fails anew its failure is its own
    (a focused test run that failed on the code, edited, and failed next on a test timing out
    that the wider run then passed)."""
    own = " ".join((finding.call.command or "").split())
    for repeat in finding.retries[1:]:
        other = calls.get(id(repeat))
        if other is None:
            continue
        if id(repeat) in finding.rerun or " ".join((other.command or "").split()) != own:
            consumed.discard(id(repeat))
