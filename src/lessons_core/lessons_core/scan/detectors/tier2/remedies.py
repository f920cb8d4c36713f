"""What besides a corrected form of the call made a failure go away: the step its error named,
a generated folder deleted, or the other kind of call a tool's refusal asks for.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from lessons_core.patterns import kept_programs
from lessons_core.scan import events as ev
from lessons_core.scan.detectors import failures, triggers
from lessons_core.scan.detectors.failures import MistakeClass
from lessons_core.scan.detectors.tier2 import paths
from lessons_core.scan.detectors.tier2.calls import (
    _EDIT_TOOLS,
    _FILE_TOOLS,
    _LISTING_COMMANDS,
    _LISTING_TOOLS,
    _REWRITES,
    _SEARCH_COMMANDS,
    _SEARCH_TOOLS,
    _SETUP_VERBS,
    _key,
    _looks_around,
    _verbs,
)
from lessons_core.scan.detectors.tier2.classes import (
    GhTarget,
    cannot_start,
    gh_graphql_refused,
    unknown_skill,
)
from lessons_core.scan.detectors.tier2.finding import WINDOW

#: A step an error tells the user to run: ``Run "pnpm install"``, ``try `go mod tidy` ``.
_NAMED_STEP = kept_programs.compile(
    r"""\b(?:run|try|use|execute)\s+[`'"\u2018\u201c]([^`'"\u2019\u201d\n]{3,80})[`'"\u2019\u201d]""",
    re.IGNORECASE,
)
#: A step an error tells to run on a line of its own below a "run …:" (Rails' "To resolve this
#: issue, run:" over ``bin/rails db:migrate``; a box's ``║  npx playwright install  ║``).
_STEP_BELOW = kept_programs.compile(
    r"\brun\b[^:\n]{0,80}:[ \t\u2502\u2551]*\n(?:[ \t\u2502\u2551]*\n)*[ \t\u2502\u2551]+"
    r"([A-Za-z][\w./:-]*(?:[ \t]+[^\s\u2502\u2551]+){0,6})",
    re.IGNORECASE,
)
#: A command of two words or more an error quotes, in whatever words it asks for it ("consider
#: downloading the target with `rustup target add x86_64-unknown-linux-musl`"): taken for the
#: step only where a call between starts with it.
_QUOTED_COMMAND = kept_programs.compile(
    r"""[`'"\u2018\u201c]([A-Za-z][\w./:@+-]*(?:[ \t]+[^\s`'"\u2019\u201d]+){1,8})"""
    r"""[`'"\u2019\u201d]"""
)
#: A part of a named step a usage line shows as optional (``poetry lock [--no-update]``).
_OPTIONAL = kept_programs.compile(r"\s*\[[^\]\n]*\]")


def _step_taken(
    error: str, events: list[ev.Event], i: int, j: int, results: dict[int, ev.Event], call: ev.Event
) -> str | None:
    """The step a failure's text told the agent to run (``Run "pnpm install"``) when a call
    between the failure (``i``) and the same command working (``j``) ran it and worked; or,
    where the text names no command, the one call between whose action it names in words
    ("you must first push the current branch": ``git push``; "commit or stash them": ``git
    stash``); or, where it names nothing, the one call between that made something
    (:func:`_only_step`). A command the text only quotes, in whatever words ("consider
    downloading the target with `rustup target add …`"), is the step where a call between
    starts with it."""
    head = error[:2000]
    named = [" ".join(_OPTIONAL.sub("", m.group(1)).split()) for m in _NAMED_STEP.finditer(head)]
    named += [" ".join(m.group(1).split()) for m in _STEP_BELOW.finditer(head)]
    quoted = [" ".join(m.group(1).split()) for m in _QUOTED_COMMAND.finditer(head)]
    for k in range(i + 1, j):
        other = events[k]
        if other.kind != ev.TOOL_CALL or not other.command:
            continue
        res = results.get(id(other))
        if res is None or res.failure is not None:
            continue
        command = " ".join(other.command.split())
        for step in named:
            if _runs(step, command):
                return step
        if not quoted:
            continue
        starts = [" ".join(seg) for seg in triggers.segments(other.command)]
        for step in quoted:
            if any(seg.startswith(step) and _runs(step, seg) for seg in starts):
                return step
    if not named:
        return _step_in_words(error, events, i, j, results, call) or _only_step(
            events, i, j, results, call
        )
    return _only_step(events, i, j, results, call)  # (its advice not taken: ``pip install``)


def _runs(step: str, command: str) -> bool:
    """Whether ``command`` runs the named ``step`` as whole words: ``npm install`` is not run
    by ``pnpm install``, nor ``go mod tidy`` by ``go mod tidy-check``."""
    edge = r"[\w./@-]"
    return re.search(rf"(?<!{edge}){re.escape(step)}(?!{edge})", command) is not None


def _between(events: list[ev.Event], i: int, j: int, call: ev.Event) -> list[ev.Event]:
    """The calls between ``call``'s failure at ``i`` and the same command working at ``j``,
    without those that only looked around (:func:`.calls._looks_around`)."""
    return [e for e in events[i + 1 : j] if e.kind == ev.TOOL_CALL and not _looks_around(e, call)]


def _only_step(
    events: list[ev.Event], i: int, j: int, results: dict[int, ev.Event], call: ev.Event
) -> str | None:
    """The one call that made something (:data:`_SETUP_VERBS`: ``dotnet tool restore``, ``alembic
    merge heads``, ``docker context use rootless``) between the failure at ``i`` and the same
    command working at ``j``, where nothing else but looking around happened: the step the
    command needed, though its error did not name it. A call that made nothing (a ``sleep``, a
    ``ping``) before a retry that worked tells of a flaky failure, no step."""
    between = _between(events, i, j, call)
    if len(between) != 1 or not between[0].command:
        return None
    (step,) = between
    res = results.get(id(step))
    if res is None or res.failure is not None:
        return None
    command = step.command or ""
    if _verbs(command).isdisjoint(_SETUP_VERBS):
        return None
    return triggers.as_step(command, call.command or "")


def step_redone(
    events: list[ev.Event], call: ev.Event, i: int, j: int, results: dict[int, ev.Event]
) -> tuple[ev.Event, ev.Event] | None:
    """The earlier call that the one call between ``call``'s failure at ``i`` and the same
    command working at ``j`` ran again with an option more, and that call: ``git stash``
    (which left the untracked files), then ``git checkout main`` refused for them, ``git stash
    -u``, and the checkout worked. What the failing command needed was that option, not a fix
    of its own. Both are of one program (a ``pytest -x`` before a second ``git commit`` is no
    step the commit needed)."""
    between = [e for e in events[i + 1 : j] if e.kind == ev.TOOL_CALL]
    if len(between) != 1 or not between[0].command:
        return None
    (again,) = between
    if _key(again)[:2] != _key(call)[:2]:
        return None
    res = results.get(id(again))
    if res is None or res.failure is not None:
        return None
    for k in range(i - 1, max(-1, i - WINDOW), -1):
        before = events[k]
        if before.kind != ev.TOOL_CALL or not before.command or _key(before) != _key(again):
            continue
        worked = results.get(id(before))
        if worked is None or worked.failure is not None:
            return None
        added = triggers.options_added(before.command, again.command or "")
        return (before, again) if added else None
    return None


#: Words before the action an error asks for ("must first push", "commit or stash them").
_ASKING = r"\b(?:first|please|must|need to|needs to|should|or)"


def _step_in_words(
    error: str, events: list[ev.Event], i: int, j: int, results: dict[int, ev.Event], call: ev.Event
) -> str | None:
    """The only command that ran between the failure and the same command working, when the
    error asks for its subcommand in words ("must first push", "commit or stash them"): its
    executable and subcommand. More than one call between, and which of them made the
    difference is a guess; a word the error merely mentions (a check that lists files not
    formatted, then a ``format`` run) asks for nothing."""
    between = _between(events, i, j, call)
    if len(between) != 1:
        return None
    (step,) = between
    res = results.get(id(step))
    shape = triggers.main_shape(step.command) if step.command else None
    if res is None or res.failure is not None or shape is None or not shape.sub:
        return None
    action = shape.sub.split()[-1]
    asked = rf"{_ASKING}\s+(?:\w+\s+)??{re.escape(action)}\b"
    if len(action) < 4 or re.search(asked, error[:2000], re.I) is None:
        return None
    return f"{shape.exe} {shape.sub}"


#: A path an error names: words with a slash in them (``.next/dev/types/validator.ts(17,62)``).
_ERROR_PATH = kept_programs.compile(r"[\w.@~+-]*(?:/[\w.@+-]+)+")


def _cleared(
    error: str, events: list[ev.Event], i: int, j: int, results: dict[int, ev.Event]
) -> str | None:
    """The folder a call after a failure (``i``) deleted, up to the command working (``j``, which
    may do it itself: ``rm -rf .next && tsc``), when the error named a file inside it: generated
    output the error came from (a type error in ``.next/types/``), not the project's sources."""
    paths = {m.group(0).rstrip(".:") for m in _ERROR_PATH.finditer(error[:2000])}
    if not paths:
        return None
    for k in range(i + 1, j + 1):
        other = events[k]
        if other.kind != ev.TOOL_CALL or not other.command or "rm" not in other.command:
            continue
        res = results.get(id(other))
        if res is None or res.failure is not None:
            continue
        for seg in triggers.segments(other.command):
            if not seg or seg[0] != "rm":
                continue
            for word in seg[1:]:
                folder = _removed_folder(word)
                if folder and any(_inside(path, folder) for path in paths):
                    return folder
    return None


def _removed_folder(word: str) -> str | None:
    """The folder an ``rm`` argument names, or ``None`` for a flag, a glob or a folder so wide
    (``.``, ``/``, ``~``) that everything is inside it."""
    if word.startswith("-") or any(c in word for c in "*?[$"):
        return None
    folder = word.rstrip("/")
    folder = folder[2:] if folder.startswith("./") else folder
    if folder in ("", ".", "..", "~") or folder.startswith("../"):
        return None
    return folder


def _inside(path: str, folder: str) -> bool:
    """Whether ``path`` (from an error, relative or absolute) lies under ``folder`` (an ``rm``
    argument, relative or absolute): the file itself deleted is not a folder cleared."""
    path = path[2:] if path.startswith("./") else path
    if path.startswith(folder + "/") or f"/{folder}/" in path:
        return True
    if folder.startswith("/") and not path.startswith("/"):
        head = path.split("/", 1)[0]
        return folder.endswith("/" + head) and "/" in path
    return False


#: The classes of a failed command that another kind of call can remedy.
_COMMAND_REMEDIES = frozenset({failures.AUTHENTICATION, failures.SHELL_SYNTAX})


def _remedies(
    cls: MistakeClass | None,
    call: ev.Event,
    other: ev.Event,
    read_paths: set[str],
    results: dict[int, ev.Event],
    error: str = "",
) -> bool:
    """Whether ``other`` (another kind of call) is what the failure's own words ask for: a
    search through the shell after a search tool could not start, the command a skill that
    does not exist is named for, a listing after reading a directory, an edit of a file read
    after "File has not been read", the repository reached by its URL after git could not
    authenticate to it, the file a query string the shell refused asked for, fetched another
    way, the pull request a gh command failed on through a GraphQL query of its own, reached
    through ``gh api``, the project's own task the failed command is named for (``error`` is
    the failure's text)."""
    res = results.get(id(other))
    if res is None or res.failure is not None:
        return False  # only a call that worked remedies anything
    if call.command and other.command and triggers.project_task(call.command, other.command):
        return True  # the project's own task of that name (``pnpm lint`` for ``next lint``)
    if (
        call.command
        and other.command
        and triggers.task_that_ran(call.command, other.command, res.text)
    ):
        return True  # a task of the project's that printed the command at work
    if call.tool in _SEARCH_TOOLS and cannot_start(call, error):
        return _searched_in_shell(other)
    skill = unknown_skill(call, error)
    if skill is not None:
        return _did_by_hand(skill, other)
    target = gh_graphql_refused(call, error)
    if target is not None:
        return through_gh_api(target, other)
    if call.command and other.command and cls is not None and cls.name == failures.UNKNOWN_OPTION:
        # the same operands handed to another program that has the option's job
        return triggers.option_stand_in(call.command, other.command, error) is not None
    missing_one = cls is not None and cls.name == failures.COMMAND_NOT_FOUND
    if call.command and other.command and missing_one:
        # the program run by a task of the project's (``make lint-docker``)
        missing = triggers.missing_program(call.command, error)
        return missing is not None and _ran_for_it(missing, other.command, res.text)
    if cls is None or (call.command and cls.name not in _COMMAND_REMEDIES):
        return False
    if call.command:
        if cls.name == failures.SHELL_SYNTAX:
            return _fetched_otherwise(error, other)
        return _reached_remote(call, other)
    if cls.name == failures.IS_DIRECTORY:
        if other.tool in _LISTING_TOOLS:
            return True
        shape = triggers.main_shape(other.command) if other.command else None
        return shape is not None and shape.exe in _LISTING_COMMANDS
    if cls.name == failures.MISSING_PATH:
        # The same file looked up where it really is (:mod:`.paths`).
        return (
            other.tool in _FILE_TOOLS
            and bool(call.paths)
            and bool(other.paths)
            and paths.alike(call.paths[0], other.paths[0])
        )
    if cls.name == failures.NOT_READ:
        return other.tool in _EDIT_TOOLS and bool(other.paths) and other.paths[0] in read_paths
    if cls.name in (failures.STALE_TEXT, failures.AMBIGUOUS_TEXT) and other.command and call.paths:
        # The edit the tool kept refusing, made by a command that rewrites the same file.
        name = PurePosixPath(call.paths[0]).name
        named = call.paths[0] in other.command or ("." in name and name in other.command)
        return named and _REWRITES.search(other.command) is not None
    return False


def _ran_for_it(missing: str, command: str, output: str) -> bool:
    """Whether ``command`` ran the program the shell could not find another way: a task of the
    project's runner that printed it at work (``make lint-docker`` echoing ``docker run …
    hadolint/hadolint < Dockerfile``). The lesson is where the project keeps the tool
    (``hadolint`` is not installed; ``make lint-docker`` runs it). A container run of it
    (``docker run … hadolint/hadolint``) is a wrapper put around it, found as such."""
    shape = triggers.main_shape(command)
    if shape is None or shape.exe not in triggers.TASK_RUNNERS:
        return False
    word = re.compile(rf"\b{re.escape(missing)}\b")
    return any(word.search(line) and "not found" not in line for line in output.splitlines()[:40])


def _searched_in_shell(other: ev.Event) -> bool:
    """Whether ``other`` did a search tool's job through the shell (``ls``, ``find``, ``rg``,
    ``git ls-files``): what is left once the tool itself cannot start. Another tool, the same
    one among them, is no way around a tool that is broken."""
    if not other.command:
        return False
    for shape in triggers.shapes(other.command):
        if shape.exe in _SEARCH_COMMANDS:
            return True
        if shape.exe == "git" and shape.sub in ("ls-files", "grep"):
            return True
    return False


def _did_by_hand(skill: str, other: ev.Event) -> bool:
    """Whether ``other`` ran, in the shell, the command a skill that does not exist is named
    for: ``git commit`` (through a wrapper or not) after ``Unknown skill: commit``. A command
    that does not name it is the next step of the task, not the skill's job."""
    if not other.command or skill not in other.command:
        return False
    shapes = [*triggers.shapes(other.command), *(s for _w, s in triggers.wrapped(other.command))]
    return any(skill in (shape.exe, shape.sub) for shape in shapes)


#: A REST endpoint of one pull request or issue (``repos/o/r/pulls/1533``, ``/repos/{owner}/
#: {repo}/issues/7/comments``): the collection and the number.
_GH_ENDPOINT = kept_programs.compile(r"^/?repos/[^/\s]+/[^/\s]+/(pulls|issues)/(\d+)(?:/|$)")


def through_gh_api(target: GhTarget, other: ev.Event) -> bool:
    """Whether ``other`` is a ``gh api`` call on the pull request or issue ``target`` named: the
    same number, in a REST collection that holds that kind of resource (``gh pr edit 1533``
    then ``gh api repos/o/r/pulls/1533 -X PATCH``). Another number is another task."""
    if not other.command or "gh" not in other.command:
        return False
    for seg in triggers.segments(other.command):
        if len(seg) < 3 or PurePosixPath(seg[0]).name != "gh" or seg[1] != "api":
            continue
        for word in seg[2:]:
            m = _GH_ENDPOINT.match(word)
            if m and m.group(1) in target.collections and m.group(2) == target.number:
                return True
    return False


#: git's subcommands that talk to a remote repository.
_REMOTE_SUBCOMMANDS = frozenset({"fetch", "pull", "push", "ls-remote", "clone"})
#: A remote given by its address rather than by a name (``origin``).
_REMOTE_URL = kept_programs.compile(r"^(?:[a-z][\w+.-]*://|[\w.-]+@[\w.-]+:)\S")


def _reached_remote(call: ev.Event, other: ev.Event) -> bool:
    """Whether ``other``, from the same directory, reached a remote that ``call`` could not
    authenticate to, by an address ``call`` did not give (``git fetch origin`` refused for want
    of an SSH key, then ``git ls-remote https://…`` answered): which subcommand talks to the
    remote does not matter, how the remote is reached does. The subcommand may well differ:
    the agent looks up what it needs another way once the configured remote failed."""
    if not other.command or other.cwd != call.cwd:
        return False
    if not _talks_to_remote(triggers.main_shape(call.command or "")):
        return False
    given = (call.command or "").split()
    for words in triggers.segments(other.command):
        if _talks_to_remote(triggers.shape_of(words)) and any(
            _REMOTE_URL.match(w) and w not in given for w in words
        ):
            return True
    return False


def _talks_to_remote(shape: triggers.Shape | None) -> bool:
    return shape is not None and shape.exe == "git" and shape.sub in _REMOTE_SUBCOMMANDS


#: The word zsh refused to run a command with (``zsh:1: no matches found: a.yml?ref=main``).
_REFUSED_WORD = kept_programs.compile(r"no matches found: (\S+)")


def _fetched_otherwise(error: str, other: ev.Event) -> bool:
    """Whether ``other`` names the file that the query string the shell refused asked for
    (``repos/o/r/contents/ci/a.yml?ref=main``, then a raw URL ending ``ci/a.yml``): the
    command never ran, and the agent reached the same file another way. Its folder and name
    must both be in ``other``: a call on another file is the next task. A glob meant for files
    (``*.md``) is judged by its fix's folder instead (:func:`.triggers.glob_trigger`)."""
    m = _REFUSED_WORD.search(error[:1500])
    if m is None or not other.command or not triggers.query_string(m.group(1)):
        return False
    path = m.group(1).split("?", 1)[0].rstrip("/")
    parts = [part for part in path.split("/") if part]
    if len(parts) < 2 or not any(c.isalpha() for c in parts[-1]):
        return False
    named = re.escape("/".join(parts[-2:]))
    return re.search(rf"(?<![\w.-]){named}(?![\w.-])", other.command) is not None


#: What splits a word into the parts a target is named by: a URL's or a path's segments, a
#: query's keys and values.
_PART_BREAKS = kept_programs.compile(r"[/?&=#,\s]+")
#: A part that names one thing rather than a kind of thing: an id (``24871``) or a name with
#: inner punctuation (``wrangler:check``, ``cyspbot.toml``, ``feat-login``).
_DISTINCT = kept_programs.compile(r"\d{3,}|(?=[\w:.@+-]*[A-Za-z])[\w@+-]+[:._][\w:.@+-]+")


#: Programs that look at a target without doing anything with it: reading the file a command
#: was given, or searching for the name it failed on, is a step towards a fix, not one.
_LOOKS = _SEARCH_COMMANDS | {
    "cat", "head", "tail", "less", "more", "wc", "stat", "file", "echo", "printf", "sed", "awk",
    "which", "type", "test", "[", "true", "jq", "sort", "diff", "cut", "tr", "xxd", "od",
}  # fmt: skip


#: What moves, copies or makes files, run on its own or through ``git`` (``git mv a.js
#: a.cjs``): it readies the target for a command, and does no command's job.
_FILE_CHORES = frozenset({"mv", "cp", "ln", "rm", "mkdir", "touch", "chmod", "chown"})


def _target_parts(command: str) -> set[str]:
    """The parts of a command's operands that name what it worked on: no executable, no
    option (an option's value counts: ``--run-id=24871``)."""
    out: set[str] = set()
    for seg in triggers.segments(command):
        for word in seg[1:]:
            if word.startswith("-"):
                if "=" not in word:
                    continue
                word = word.split("=", 1)[1]
            out.update(part for part in _PART_BREAKS.split(word) if _DISTINCT.fullmatch(part))
    return out


def _programs(command: str) -> set[str]:
    """The programs a command line runs, set-up steps (``cd``) aside."""
    return {s.exe for s in triggers.shapes(command) if s.exe not in triggers.SETUP_COMMANDS}


def same_target(call: ev.Event, other: ev.Event) -> str | None:
    """The part of ``call``'s command that ``other``, a command of another program, names too
    (``24871`` for ``curl …/actions/runs/24871/logs`` then ``gh run view 24871 --log``): the
    same thing reached another way, else ``None``."""
    if not call.command or not other.command:
        return None
    theirs = triggers.main_shape(other.command)
    if (
        theirs is None
        or theirs.exe in _LOOKS
        or _FILE_CHORES.intersection((theirs.exe, theirs.sub))
    ):
        return None
    ran = _programs(call.command)
    if ran & _programs(other.command):
        return None  # a program the failed line ran, run again: another form of the same call
    shared = _target_parts(call.command) & _target_parts(other.command)
    return min(shared, key=lambda part: (-len(part), part)) if shared else None
