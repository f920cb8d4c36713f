"""Which calls are of one kind: what makes a later call the same call again, the same call
corrected, or the same command run through a wrapper (or without one).

The pairing, the user's corrections and the lesson's words all ask this of two calls, so it
lives below them.
"""

from __future__ import annotations

import shlex
from pathlib import PurePosixPath

from lessons_core.patterns import kept_programs
from lessons_core.scan import events as ev
from lessons_core.scan.detectors import triggers

_FILE_TOOLS = frozenset({"Read", "Edit", "Write", "MultiEdit", "NotebookEdit"})
_EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
#: Tools (and shell commands) that list a directory.
_LISTING_TOOLS = frozenset({"Glob", "LS", "list_directory"})
_LISTING_COMMANDS = frozenset({"ls", "find", "tree", "fd"})
#: Tools that search the project, and the shell commands that do the same job.
_SEARCH_TOOLS = _LISTING_TOOLS | {"Grep"}
_SEARCH_COMMANDS = _LISTING_COMMANDS | {"rg", "grep", "ag", "ack"}
#: Tools that steer the conversation rather than act on the project.
_META_TOOLS = frozenset(
    {"ExitPlanMode", "EnterPlanMode", "TodoWrite", "AskUserQuestion", "Agent", "Task"}
)
#: A shell command that rewrites a file in place (``sed -i``, ``perl -pi``, a script that
#: writes it): what an edit the edit tool kept refusing was done with instead. Not the
#: redirections that only join or drop output (``2>&1``, ``>&2``, ``>/dev/null``) or write a
#: scratch file in ``/tmp``.
_REWRITES = kept_programs.compile(
    r"\bsed\s+(?:-\w*\s+)*-i|\bperl\s+-\w*i|\.write(?:_text)?\(|writeFileSync|"
    r"(?<![\d&>])>>?(?![&>])\s*(?!/dev/|/tmp/)\S"
)

#: The package managers of JavaScript projects, which stand for one another
#: (:data:`.triggers.OTHER_NAMES`).
PACKAGE_MANAGERS = frozenset({"npm", "pnpm", "yarn", "bun"})


def other_manager(failing: str, fixed: str) -> str | None:
    """The package manager the fix ran the failing command's job with, where the failing call
    used another (``npm install`` fixed by ``pnpm install``), else ``None``."""
    shape, fixed_shape = triggers.main_shape(failing), triggers.main_shape(fixed)
    if shape is None or fixed_shape is None or shape.exe == fixed_shape.exe:
        return None
    if shape.exe in PACKAGE_MANAGERS and fixed_shape.exe in PACKAGE_MANAGERS:
        return fixed_shape.exe
    return None


def _exe(name: str) -> str:
    return triggers.program_kind(name)


def _kind(tool: str, shape: triggers.Shape) -> tuple[str, str, str]:
    """The kind of one simple command run by ``tool``: its program and subcommand."""
    return (tool, _exe(shape.exe), shape.sub or "")


def _key(call: ev.Event) -> tuple[str, ...]:
    """What makes two calls "the same kind of call"."""
    tool = call.tool or "?"
    if call.command:
        shape = triggers.main_shape(call.command)
        if shape is not None:
            return _kind(tool, shape)
        return (tool, call.command)
    if call.paths and tool in _FILE_TOOLS:
        # Editing a file and rewriting it whole are one kind of call: a Write can fix an Edit.
        return ("edit" if tool in _EDIT_TOOLS else tool, call.paths[0])
    return (tool,)


def _keys(call: ev.Event) -> set[tuple[str, ...]]:
    """The kinds of every simple command in a call (``a && b`` is both an ``a`` and a ``b``)."""
    if not call.command:
        return {_key(call)}
    tool = call.tool or "?"
    out = {_key(call)}
    for shape in triggers.shapes(call.command):
        out.add(_kind(tool, shape))
    return out


def _renamed(key: tuple[str, ...], call: ev.Event) -> bool:
    """Whether ``call`` runs the command of kind ``key`` under the other name a plugin of a CLI
    goes by: ``docker compose up`` is ``docker-compose up``, ``git-lfs pull`` is ``git lfs
    pull``. Which of the two a machine has differs, and the failing form corrected into the
    other is one call, not two tasks."""
    return any(
        tuple(shape.exe.split("-", 1)) == key[1:] or key[1:2] == (f"{shape.exe}-{shape.sub}",)
        for shape in triggers.shapes(call.command or "")
    )


def _same_input(a: ev.Event, b: ev.Event) -> bool:
    """Whether two calls are one call repeated: the same command (whatever reads its output at
    the end), run in the same directory with the same permissions (the same command escalated,
    or in another ``workdir``, is the fix of a sandbox refusal or of a wrong directory)."""
    if a.command or b.command:
        one, other = " ".join((a.command or "").split()), " ".join((b.command or "").split())
        if one != other and triggers.as_step(one, other) != triggers.as_step(other, one):
            return False  # (what reads its output at the end is no other command: ``| tail``)
        return a.cwd == b.cwd and a.escalated == b.escalated
    return False


def _wrapped_inside(call: ev.Event) -> dict[tuple[str, str], tuple[str, str]]:
    """What the failing call ran through a wrapper: ``(executable, subcommand)`` → ``(wrapper,
    executable as written)`` (empty for a call without one, the usual case). Of nested wrappers
    that run the same command (``fnm exec … corepack pnpm test``) the outermost is kept: a fix
    that dropped it may keep the inner one."""
    if not call.command:
        return {}
    inside: dict[tuple[str, str], tuple[str, str]] = {}
    for wrapper, shape in triggers.wrapped(call.command):
        inside.setdefault((_exe(shape.exe), shape.sub or ""), (wrapper, shape.exe))
    return inside


def _wrapping(
    key: tuple[str, ...], inside: dict[tuple[str, str], tuple[str, str]], other: ev.Event
) -> tuple[str, str, str] | None:
    """How ``other`` runs the failing call's command (``key``) through a wrapper, or without
    the one it had (``inside``, from :func:`_wrapped_inside`): ``("added", "pnpm", "vitest")``
    for ``vitest`` fixed by ``pnpm exec vitest``, ``("dropped", "rtk", "bun")`` for ``rtk bun
    run test`` fixed by ``bun run test``."""
    command = other.command
    if not command or len(key) != 3:
        return None
    if key[1] in command:  # (a substring test first: most calls hold no such word)
        for wrapper, shape in triggers.wrapped(command):
            if _kind(key[0], shape) == key:
                return ("added", wrapper, shape.exe)
    if inside:
        main = triggers.main_shape(command)
        if main is not None:
            found = inside.get((_exe(main.exe), main.sub or ""))
            if found is not None:
                return ("dropped", found[0], found[1])
    return None  # file tools: a retry of the same edit usually differs in its strings


def _wrapper_added(call: ev.Event, other: ev.Event) -> tuple[str, str, str] | None:
    """``("added", "bundle", "rake")`` for ``rake db:migrate`` fixed by ``bundle exec rake
    db:migrate``: the very same command line, run through a wrapper, nothing else changed. (Its
    key is the failing call's, so :func:`_wrapping`, asked only of other keys, misses it.)"""
    # (one simple command changed, ``cd app && npx serverless deploy``; not a step in front,
    # ``pip install x && pytest``) and it ends with all the failing one said
    changed = triggers.changed_segment(call.command or "", other.command or "")
    if changed is None:
        return None
    was, now = changed
    if now[-len(was) :] != was:
        return None
    layers = triggers.wrapped(shlex.join(now))  # (quoted: ``X="$(a b)" node s.mjs`` is no wrapper)
    return ("added", layers[0][0], layers[0][1].exe) if layers else None


def _inserted(
    refused: tuple[tuple[str, ...], int] | None, other: ev.Event
) -> tuple[str, str, str] | None:
    """How ``other`` ran what the failing call's wrapper refused as a subcommand (``refused``,
    from :func:`triggers.refused_subcommand`): through a runner subcommand of the wrapper's own
    put in before it, nothing else changed: ``("inserted", "rtk test", "bun")`` for ``rtk bun
    run test`` (``unrecognized subcommand 'bun'``) fixed by ``rtk test bun run test``, or
    ``("inserted", "uv run", "pytest")`` for ``uv pytest``. The wrapper stayed, so this is
    neither a wrapper added nor one dropped (:func:`_wrapping`)."""
    if refused is None or not other.command:
        return None
    segment, at = refused
    word = triggers.inserted_word(segment, at, other.command)
    if word is None:
        return None
    return ("inserted", f"{PurePosixPath(segment[0]).name} {word}", segment[at])


#: Flags and subcommands that only ask a command about itself.
_HELP_WORDS = frozenset({"--help", "--version", "help"})
#: Commands whose ``-h`` prints sizes for people rather than their help.
_HUMAN_SIZES = frozenset({"df", "du", "ls", "free", "sort"})


#: Options that make a command say what it would do or what there is, and do nothing
#: (``pytest --collect-only``, ``make -n``, ``terraform … --dry-run``): a look, like a help page.
_PROBES = frozenset({"--dry-run", "--collect-only", "--co", "--list", "--just-print"})
#: Programs whose one-letter option is such a look, where elsewhere it means something else
#: (``-n`` a count, a line number, ``--no-verify``; ``-l`` long, a login shell, a limit):
#: ``make -n`` runs nothing, ``crontab -l`` and ``unzip -l`` list what there is.
_SHORT_PROBES = {
    "make": "-n",
    "gmake": "-n",
    "rsync": "-n",
    "ansible-playbook": "-n",
    "crontab": "-l",
    "unzip": "-l",
}


def _probes(other: ev.Event, call: ev.Event) -> bool:
    """Whether ``other`` only looked at what its command would do or has (an option of
    :data:`_PROBES`, ``make -n``) where the failing ``call`` did the work: the corrected call
    is still to come."""
    shape = triggers.main_shape(other.command or "")
    if shape is None:
        return False
    failing = triggers.main_shape(call.command or "")
    if failing is None:
        return looks(shape)
    # Each run of the failing program must look: ``(crontab -l; echo …) | crontab -`` and
    # ``kubectl create … --dry-run=client -o yaml | kubectl apply -f -`` also do the work.
    runs = [s for s in triggers.shapes(other.command or "") if s.exe == failing.exe]
    return all(looks(one, failing.flags) for one in runs or [shape])


def looks(shape: triggers.Shape | None, had: tuple[str, ...] = ()) -> bool:
    """Whether the simple command ``shape`` only looks (an option of :data:`_PROBES` or
    :data:`_SHORT_PROBES`) by an option that ``had``, the failing call's words, did not give."""
    if shape is None:
        return False
    short = _SHORT_PROBES.get(shape.exe)
    probes = _PROBES | {short} if short else _PROBES
    return bool(set(shape.flags) & probes - set(had))


def _asks_for_help(call: ev.Event) -> bool:
    """Whether ``call`` only asked its command how it is called (``eval run --help``, ``gh
    help run``): a look at the manual, not a corrected form of what failed, which is the next
    call of the kind that does the work. ``-h`` asks only as the last word of its command:
    elsewhere it takes a value (``psql -h localhost``, ``ssh``'s host) or means something else
    (``df -h``), and such a call may well be the fix."""
    command = call.command or ""
    shape = triggers.main_shape(command) if command else None
    if shape is None:
        return False
    if _asks(shape) or _reads_and_asks(triggers.shapes(command)):
        return True
    if " help" in command and any(
        seg[-1] == "help" and len(seg) > 2
        for seg in triggers.segments_of(command, shape.exe, shape.sub)
    ):
        return True  # (``aws s3 cp help``: the manual of a subcommand's subcommand)
    if "-h" not in shape.flags or shape.exe in _HUMAN_SIZES:
        return False
    return any(seg[-1] == "-h" for seg in triggers.segments_of(command, shape.exe, shape.sub))


def _asks(shape: triggers.Shape) -> bool:
    """Whether a command asks its program for help or its version (``gh help``, ``--help``)."""
    return shape.sub == "help" or not _HELP_WORDS.isdisjoint(shape.flags)


def _reads_and_asks(shapes: tuple[triggers.Shape, ...]) -> bool:
    """Whether a line of several commands only reads and asks (``cat .tflint.hcl && tflint
    --version``): each reads a file or a listing, sets up (``cd``), or asks its program for
    help or its version, and one of them asks."""
    asks = [s for s in shapes if _asks(s)]
    return bool(asks) and all(
        s in asks or s.exe in _READS or s.exe in triggers.SETUP_COMMANDS for s in shapes
    )


#: Programs that only read or report: a call of one looked around and changed nothing a later
#: call could have needed.
#: (Not :data:`.remedies._LOOKS`, the programs that do not do a failed command's job: it holds
#: ``sed`` and ``awk``, which may rewrite a file, so a call of one may be the step itself.)
_READS = _LISTING_COMMANDS | {
    "cat", "head", "tail", "less", "grep", "egrep", "rg", "which", "type", "pwd", "echo", "wc",
    "file", "stat", "env", "printenv", "id", "whoami", "uname", "date", "du", "df", "ps",
    "readlink", "realpath",
}  # fmt: skip
#: The last word of a subcommand that only reads or reports (``git status``, ``docker context
#: ls``, ``alembic heads``, ``gradle projects``).
_READING_SUBS = frozenset(
    {"status", "diff", "log", "show", "branch", "remote", "list", "ls", "version", "info",
     "describe", "get", "ps", "heads", "current", "projects", "tasks", "showmigrations", "view",
     "inspect", "logs", "history", "whoami", "config"}
)  # fmt: skip


#: The verbs of a step that makes something a later command needs: installs, generates,
#: migrates, merges, logs in, switches (``dotnet tool restore``, ``alembic merge``, ``docker
#: context use``). Not "add": ``git add`` before a commit is the routine of every commit.
_SETUP_VERBS = frozenset(
    {"install", "restore", "build", "generate", "gen", "migrate", "merge", "init", "use",
     "login", "lock", "sync", "fetch", "pull", "push", "update", "upgrade", "compile", "create",
     "start", "up", "tidy", "download", "bootstrap", "prepare", "setup", "link", "trust",
     "activate", "switch", "seed", "apply", "vendor", "prebuild", "codegen"}
)  # fmt: skip


def _looks_around(call: ev.Event, failing: ev.Event) -> bool:
    """Whether ``call`` only looked around after ``failing`` failed: read a file or a listing,
    asked for help or a version, ran a dry run (:func:`_probes`), or a subcommand that reports
    (``git status``, ``alembic heads``). Such a call is no step the failing command needed,
    unless a verb of it makes something: ``alembic merge heads`` merges, though its operand is
    the name of a look."""
    if _only_reads(call) or _asks_for_help(call) or _probes(call, failing):
        return True
    verbs = _verbs(call.command or "")
    return not verbs.isdisjoint(_READING_SUBS) and verbs.isdisjoint(_SETUP_VERBS)


def _only_reads(call: ev.Event) -> bool:
    """Whether ``call`` ran a program that only reads or reports (:data:`_READS`), or a tool
    that only reads: no job of a command done, whatever its target (unlike a reporting
    subcommand, ``gh run view 28574 --log``, which may fetch what the failing call could not)."""
    shape = triggers.main_shape(call.command or "")
    if shape is None:
        return call.tool in _READING_TOOLS
    return shape.exe in _READS


def _verbs(command: str) -> set[str]:
    """What ``command``'s main simple command may be doing: the last word of its subcommand
    (after any ``:``, ``db:migrate:status``) and the first operand after it (``dotnet tool
    list``, ``alembic heads``), or the program's name when it has neither."""
    shape = triggers.main_shape(command)
    if shape is None:
        return set()
    seg = next(iter(triggers.segments_of(command, shape.exe, shape.sub)), ())
    names = [PurePosixPath(word).name for word in seg]
    after = seg[names.index(shape.exe) + 1 :] if shape.exe in names else seg[1:]
    operands = [word for word in after if not word.startswith("-")]
    sub = shape.sub.split() if shape.sub else []
    words = [*sub[-1:], *operands[len(sub) : len(sub) + 1]]
    return {word.split(":")[-1] for word in words} or {shape.exe}


#: The agents' own tools that only read.
_READING_TOOLS = _SEARCH_TOOLS | {"Read", "read_file", "glob"}
