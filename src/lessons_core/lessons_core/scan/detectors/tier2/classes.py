"""The pseudo-classes Tier 2 adds to :mod:`lessons_core.scan.detectors.failures`, and the sets
of classes its stages share.

A pseudo-class never matches an error's text (its pattern is ``(?!)``): the judging gives it to
a pair when what happened between the failure and its fix, not the error's words, shows what
went wrong (an earlier ``cd``, the sandbox, a step the error named).
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import NamedTuple

from lessons_core.patterns import kept_programs
from lessons_core.privacy import redact_head
from lessons_core.scan import events as ev
from lessons_core.scan.detectors import edit_causes, failures, triggers

#: Classes where the tool, not a shell, refused the call: the lesson is about the tool.
_TOOL_REFUSALS = frozenset(
    {
        failures.NOT_READ,
        failures.STALE_TEXT,
        failures.AMBIGUOUS_TEXT,
        failures.RELATIVE_PATH,
        failures.IS_DIRECTORY,
        failures.UNKNOWN_TOOL,
        failures.BAD_PARAMETERS,
        failures.TOO_LARGE,
        failures.SUBSTITUTION_BLOCKED,
    }
)
#: The pseudo-class of a tool of the agent's own that could not start the program it runs
#: (Claude Code's Glob spawns a search binary from the CLI's install, which an update under the
#: running session removed): the call was fine, the tool is broken until the CLI restarts, and
#: the shell did the same search. Nothing in the call tells it from the same call once the CLI
#: has restarted, so the lesson is recalled at the error (:data:`FAILURE_TIME_CLASSES`).
TOOL_CANNOT_START = failures.MistakeClass(
    "tool_cannot_start",
    r"(?!)",
    "search with the shell while the tool cannot start",
    "the {tool} could not start the program it runs (the agent's CLI was updated or moved"
    " under the running session), so every call of it fails the same way",
    "Do the same search through the shell (`ls`, `find`, `rg`) for the rest of the session,"
    " or restart the CLI",
)
#: A tool's own words that it could not start a program: Bun's ``ENOENT: no such file or
#: directory, posix_spawn '…'``, Node's ``spawn … ENOENT``.
_SPAWN_FAILED = kept_programs.compile(r"\bENOENT\b[^\n]{0,80}\bposix_spawn\b|\bspawn \S+ ENOENT\b")


def cannot_start(call: ev.Event, error: str) -> bool:
    """Whether ``call``, a tool's call that runs no command (a Glob, a Grep), failed with
    ``error`` because the tool could not start the program it runs: the tool is broken, not
    the call (:data:`TOOL_CANNOT_START`). A command's output saying so is about what the
    command ran."""
    head = error[:1500]
    return not call.command and "ENOENT" in head and _SPAWN_FAILED.search(head) is not None


#: The pseudo-class of a skill the agent asked for by a name the project does not define
#: (``Unknown skill: commit``), whose job it then did with the shell (``git commit``). The call
#: carries no name a hook sees before it runs, so the lesson is recalled at the refusal, which
#: names the skill (:data:`FAILURE_TIME_CLASSES`).
UNKNOWN_SKILL = failures.MistakeClass(
    "unknown_skill",
    r"(?!)",
    "no such skill here, do its job in the shell",
    "no skill of that name is defined in this project",
    "Call a skill only when it is listed as available; otherwise run the commands it stands"
    " for in the shell",
)
#: A tool's refusal of a skill name it does not know, and the name (``plugin:name`` counts by
#: its last part).
_UNKNOWN_SKILL = kept_programs.compile(r"\bUnknown skill:\s*/?(?:[\w.-]+:)*([\w.-]+)")


def unknown_skill(call: ev.Event, error: str) -> str | None:
    """The skill ``call``, a tool's call that runs no command, was refused for with ``error``
    because no skill of that name is defined (:data:`UNKNOWN_SKILL`), else ``None``."""
    if call.command or "nknown skill" not in error[:500]:
        return None
    m = _UNKNOWN_SKILL.search(error[:500])
    return m.group(1) if m else None


#: The pseudo-class of a ``gh`` command on a pull request or issue that failed on a GraphQL
#: query of gh's own (``GraphQL: Projects (classic) is being deprecated …
#: (repository.pullRequest.projectCards)``: the field an older gh asks for whatever it was told
#: to change), fixed by a ``gh api`` call on the same number through the REST API. The same
#: ``gh pr edit`` works with another gh or on another repository, so the lesson is recalled at
#: the error (:data:`_COMMAND_FAILURE_TIME`).
GH_GRAPHQL = failures.MistakeClass(
    "gh_graphql",
    r"(?!)",
    "use `gh api` when it fails on a GraphQL query of its own",
    "gh failed on a GraphQL query of its own (a field GitHub has retired or refuses here),"
    " not on the change it was asked for",
    "Make the same change through the REST API with `gh api repos/OWNER/REPO/pulls/NUMBER`"
    " (`issues/NUMBER` for an issue) and the method and fields it needs",
)
#: The pseudo-class of a command that failed on what it was pointed at, whose job another
#: program then did on the same target (``curl`` of a run's logs refused, ``gh run view`` of that
#: run; ``node --run check`` failed, ``corepack pnpm run check`` worked). The failing command
#: line is an ordinary one, so the lesson is recalled at the error (:data:`_COMMAND_FAILURE_TIME`).
ANOTHER_WAY = failures.MistakeClass(
    "another_way",
    r"(?!)",
    "`{other}` did the job on `{target}`",
    "the command could not do its job on `{target}` here, and `{other}` then did it",
    "Do it with `{other}`",
)
#: The pseudo-class of a program this machine does not have whose job another program then did
#: (``md5sum`` → ``md5``, ``sha256sum`` → ``shasum -a 256`` on a Mac): a fact of the machine,
#: recalled before any line that starts the missing program (:func:`.recall._trigger`).
ANOTHER_PROGRAM = failures.MistakeClass(
    "another_program",
    r"(?!)",
    "not on PATH here; `{other}` does its job",
    "the command is not on PATH on this machine, and `{other}` then did its job",
    "Use `{other}`",
)
#: The pseudo-class of a program that failed where another version of it, the rest of the line
#: the same, worked (``clang-format`` → ``clang-format-17``, the version the project's CI pins,
#: whose configuration keys the older one does not know): recalled before the bare name.
OTHER_VERSION = failures.MistakeClass(
    "other_version",
    r"(?!)",
    "run it as `{other}` here",
    "the version on PATH failed where `{other}`, another version of it, worked",
    "Run `{other}`",
)
#: The pseudo-class of a subcommand given arguments that another subcommand of the program
#: then took, nothing edited between (``vcpkg install fmt`` → ``vcpkg add port fmt`` in
#: manifest mode, ``yarn install lodash`` → ``yarn add lodash``): the job is the other's,
#: recalled before the first one given an operand.
OTHER_SUBCOMMAND = failures.MistakeClass(
    "other_subcommand",
    r"(?!)",
    "`{other}` does this",
    "the subcommand refused what it was given, and `{other}` then took the same arguments",
    "Run `{other}` with those arguments",
)
#: The pseudo-class of a command run through ``sudo`` that wrote a file by the shell's ``>``,
#: refused, then written through ``sudo tee``: the shell opens the file as the user before
#: ``sudo`` runs. A fact of every shell, recalled before such a line.
SUDO_REDIRECT = failures.MistakeClass(
    "sudo_redirect",
    r"(?!)",
    "it does not reach the shell's `>`; write through `sudo tee`",
    "the shell opened `{other}` for the `>` as the user, before `sudo` ran the command",
    "Pipe the output into `sudo tee {other}` (`sudo tee -a` to append)",
)
#: The pseudo-class of a command whose job the project's own task of the same name then did
#: (``npx next lint`` → ``pnpm lint``, ``go test ./...`` → ``make test``), nothing edited
#: between: the project's way of running it, recalled before the bare command.
PROJECT_TASK = failures.MistakeClass(
    "project_task",
    r"(?!)",
    "this project runs it as `{other}`",
    "the command failed where the project's own task of that name, `{other}`, worked",
    "Run `{other}`: the project's task sets up what the bare command lacks",
)
#: The pseudo-class of an option the program refused here whose job another program then did on
#: the same operands (``readlink -f`` → ``realpath``, ``date -d`` → ``gdate -d`` on a Mac): a
#: fact of the machine, before any call of the program with that option.
OPTION_STAND_IN = failures.MistakeClass(
    "option_stand_in",
    r"(?!)",
    "no `{flag}` here; `{other}` does its job",
    "the program has no such option on this machine, and `{other}` then did the job",
    "Use `{other}`",
)
#: The pseudo-class of an option that takes a value here, given one only by the fix, an empty
#: one (``sed -i 's/a/b/' f`` → ``sed -i '' 's/a/b/' f``: BSD ``sed`` took the script for the
#: backup suffix): a fact of the machine, before any call of the program with the option bare.
OPTION_VALUE = failures.MistakeClass(
    "option_value",
    r"(?!)",
    "`{flag}` takes an argument here (`{flag} ''`)",
    "the option takes an argument on this machine, so it took the next word for its own",
    "Give `{flag}` its argument, an empty one (`{flag} ''`)",
)
#: The pseudo-class of a package the registry does not publish under the name the agent gave,
#: installed under another (``pip install opencv`` → ``opencv-python``, ``apt-get install fd``
#: → ``fd-find``): a fact of the registry, before any install that names it.
PACKAGE_NAME = failures.MistakeClass(
    "package_name",
    r"(?!)",
    "`{wrong}` is published as `{right}`",
    "the registry has no package named `{wrong}`; what was meant is published as `{right}`",
    "Install `{right}`",
)
#: The pseudo-class of an argument the command did not take in the form it was given, which
#: then worked written another way, nothing else changed (``pytest tests/x.py:88`` →
#: ``pytest tests/x.py::test_refund``, gradle's ``--tests 'Cls#method'`` → ``'Cls.method'``):
#: a fact of the tool's syntax, before any call that writes the wrong form again.
ARG_FORM = failures.MistakeClass(
    "arg_form",
    r"(?!)",
    "write `{right}`, not `{wrong}`",
    "the command does not take `{wrong}` in that form",
    "Write it as `{right}`",
)
#: The pseudo-class of a repository's SSH address that failed where its HTTPS address then
#: worked, nothing else changed (``git clone git@github.com:o/r.git`` → ``https://…``): no SSH
#: key here, or SSH blocked; a fact of the machine, before any command given an SSH address of
#: that host.
SSH_URL = failures.MistakeClass(
    "ssh_url",
    r"(?!)",
    "the HTTPS address, not SSH (no SSH key here)",
    "the repository's SSH address could not be reached from here (no key, or SSH blocked), and"
    " its HTTPS address then worked",
    "Give the repository's HTTPS address (`https://HOST/OWNER/REPO.git`)",
)
#: The words of an option refused by the command run bare that the same command accepted run
#: through the project's environment (``pytest -n auto`` "unrecognized arguments: -n", then
#: ``uv run pytest -n auto``): the option is a plugin's, which only that environment has. An
#: environment lesson, as a module missing from the bare interpreter is.
PLUGIN_ELSEWHERE = failures.MistakeClass(
    failures.MODULE_NOT_FOUND,
    r"(?!)",
    "run it in the project's environment, which has the plugin for its options",
    "the command run bare refused an option that a plugin of the project's environment gives",
    "Run it through the project's environment",
)
#: The pseudo-class of an argument the shell changed inside double quotes, which the same
#: command single-quoted then ran as written (``awk "{print $2}"`` → ``awk '{print $2}'``;
#: ``python3 -c "… open("a.json") …"``): the shell expands ``$`` there, and an inner ``"`` ends
#: the quotes.
DOUBLE_QUOTED = failures.MistakeClass(
    "double_quoted",
    r"(?!)",
    'single-quote it; in double quotes the shell reads `$`, backticks and `"`',
    "the shell expanded `$…` or ran a backticked word inside a double-quoted argument, or an"
    ' inner `"` ended the quotes early, so the command got other text than was written',
    "Put the argument in single quotes (the shell leaves what is inside them as written)",
)
#: The pseudo-class of a word left bare with a quoted key in brackets, which the same command
#: took once the whole word was in single quotes (``terraform state show
#: module.x.this["audit-logs"]`` reached terraform as ``this[audit-logs]``): the shell removes
#: quotes inside a bare word.
BARE_KEY = failures.MistakeClass(
    "bare_key",
    r"(?!)",
    'single-quote the whole word; the shell drops the quotes of `["key"]`',
    "the shell removed the quotes inside a word left bare, so the command got the key without them",
    "Put the whole word in single quotes",
)
#: gh's report of a GraphQL error, at the start of a line.
_GRAPHQL_ERROR = kept_programs.compile(r"(?m)^GraphQL: \S")
#: The resource a ``gh`` subcommand works on and the REST collections that hold it: a pull
#: request is an issue too (its comments and labels live under ``issues/N``).
_GH_COLLECTIONS = {"pr": ("pulls", "issues"), "issue": ("issues",)}


class GhTarget(NamedTuple):
    """What a ``gh pr|issue`` command worked on: ``gh pr edit`` and ``1533``, and the simple
    command as written."""

    command: str
    number: str
    collections: tuple[str, ...]
    segment: str


def gh_graphql_refused(call: ev.Event, error: str) -> GhTarget | None:
    """The ``gh pr …`` or ``gh issue …`` command of ``call``, given a number, that failed with
    ``error`` because a GraphQL query of gh's own did (:data:`GH_GRAPHQL`), else ``None``."""
    if not call.command or "gh" not in call.command or "GraphQL:" not in error[:1500]:
        return None
    if _GRAPHQL_ERROR.search(error[:1500]) is None:
        return None
    for seg in triggers.segments(call.command):
        if len(seg) < 4 or PurePosixPath(seg[0]).name != "gh" or seg[1] not in _GH_COLLECTIONS:
            continue
        number = next((w.lstrip("#") for w in seg[3:] if not w.startswith("-")), "")
        if number.isdigit():
            return GhTarget(f"gh {seg[1]} {seg[2]}", number, _GH_COLLECTIONS[seg[1]], " ".join(seg))
    return None


def runs_gh_command(target: GhTarget, other: ev.Event) -> bool:
    """Whether ``other`` runs the gh command ``target`` names (``gh pr edit``). ``gh pr view``
    is of the same kind by executable and subcommand, but it reads what the edit was to change:
    a look before the change is made another way, not a corrected form of the edit."""
    want = target.command.split()
    for seg in triggers.segments(other.command or ""):
        if len(seg) >= 3 and [PurePosixPath(seg[0]).name, seg[1], seg[2]] == want:
            return True
    return False


def graphql_lines(error: str) -> tuple[str, ...]:
    """gh's GraphQL error lines (``GraphQL: … (repository.pullRequest.projectCards)``): what
    failure-time recall matches a :data:`GH_GRAPHQL` lesson by. The usual error lines miss
    them, for they hold no word of failing."""
    return tuple(
        redact_head(line, 200)[:200]
        for line in (" ".join(raw.split()) for raw in error[:1500].splitlines())
        if _GRAPHQL_ERROR.match(line)
    )[:2]


#: Refusals whose cause the call itself does not show: the file was not read yet in this
#: session, it changed since, the text to replace occurs twice in it, or a path is relative
#: (a path glob cannot tell a relative path from an absolute one). Before the call runs nothing
#: tells the wrong call from the many right ones, so a trigger on the tool or on the file's
#: extension would fire on every edit of every ``.py`` file. Such a lesson is as narrow as its
#: mistake only at the refusal itself: it carries no trigger, the refusal's own words as its
#: error line, and comes back through failure-time recall (``intake.to_lesson`` gives a detected
#: lesson without a trigger no tool gate either). So is a tool that could not start at all,
#: and a skill the project does not define.
#: The pseudo-class of a command not permitted to write where it wanted (a sandbox's walls, a
#: system folder), that worked called so that it wrote where it may: an option or a variable
#: added (``npm install -g --prefix ~/.local``, ``make install PREFIX=~/.local``) or one
#: dropped (``git config --global``). A fact of where the agent runs, told by what changed;
#: recalled at the error, since the same call works elsewhere.
WRITE_ELSEWHERE = failures.MistakeClass(
    "write_elsewhere",
    r"(?!)",
    "not permitted there; {change}",
    "it was not permitted to write where it wanted (a sandbox's walls, or a folder of the"
    " system or of another user)",
    "Call it so that it writes where it may ({change})",
)
FAILURE_TIME_CLASSES = frozenset(
    {
        failures.NOT_READ,
        failures.STALE_TEXT,
        failures.AMBIGUOUS_TEXT,
        failures.RELATIVE_PATH,
        failures.TOO_LARGE,
        failures.BAD_PARAMETERS,  # a parameter of the wrong type or missing, on any file
        TOOL_CANNOT_START.name,
        UNKNOWN_SKILL.name,
    }
)
#: The pseudo-class of a path that failed because an earlier ``cd`` moved the shell.
CWD_DRIFT = failures.MistakeClass(
    "cwd_drift",
    r"(?!)",
    "the working directory stayed where an earlier cd left it",
    "the shell was still in the directory an earlier `cd {dir}` moved it to, so a relative"
    " path or `cd` no longer pointed where the agent meant",
    "Use absolute paths (or `cd` inside a subshell) instead of relying on the working directory",
)
#: The pseudo-class of a command the sandbox kept from what it needed, fixed by the same
#: command run with escalated permissions (Codex's ``sandbox_permissions``).
SANDBOX = failures.MistakeClass(
    "sandbox",
    r"(?!)",
    "ask for escalated permissions",
    "the agent's sandbox kept the command from what it needed (the network, a port, files"
    " outside the workspace), so it failed until it ran with escalated permissions",
    "Run it with escalated sandbox permissions (`sandbox_permissions: require_escalated`)",
)
#: The pseudo-class of relative paths given from the wrong working directory: the call's
#: ``workdir`` was another folder than the one its paths are relative to.
WORKDIR_DRIFT = failures.MistakeClass(
    "workdir_drift",
    r"(?!)",
    "run it from the folder its paths are relative to",
    "the call ran in `{dir}`, where its relative paths do not exist",
    "Set the working directory the paths are relative to, or give paths from the one set",
)
#: The pseudo-class of a quoted argument starting with ``-`` that the command took for an
#: option (``rg "- name"``): the class of an unknown option, said of what really went wrong.
DASH_ARGUMENT = failures.MistakeClass(
    "dash_argument",
    r"(?!)",
    "a pattern starting with `-` is read as an option",
    "a pattern or text argument starting with `-` was read as an option",
    "Put `--` (or `-e`) before a pattern argument that starts with `-`",
)
#: The pseudo-class of an option meant for the program a command runs (``cargo test
#: --test-threads=1``: the test binary's, not cargo's), refused by the command itself and
#: handed on by the fix after ``--``.
PASSED_ON = failures.MistakeClass(
    "passed_on",
    r"(?!)",
    "an option of the program it runs goes after `--`",
    "an option meant for the program the command runs was given to the command itself, which"
    " refused it",
    "Pass it after `--`, which hands what follows to the program the command runs",
)
#: The pseudo-class of a project managed with another package manager than the one the
#: failing call used (``npm install`` refusing ``workspace:*`` versions, ``pnpm install``
#: working): a fact of the project, which its lesson comes back for at every bare use of the
#: one that failed there.
PACKAGE_MANAGER = failures.MistakeClass(
    "package_manager",
    r"(?!)",
    "the project uses another package manager",
    "the project is managed with another package manager, whose lock file, workspace versions"
    " or scripts this one does not take",
    "Use the project's package manager (the one its lock file is for)",
)
#: The pseudo-class of a command refused for want of privileges that then worked through
#: ``sudo`` (the Docker socket, the system's package manager): a fact of the machine. Which
#: of a program's calls need them the error says, not the command line, so it is recalled at
#: the error.
NEEDS_ROOT = failures.MistakeClass(
    "needs_root",
    r"(?!)",
    "it needs root here",
    "the command was refused for want of privileges on this machine",
    "Run it through `sudo`",
)
#: The pseudo-class of a script run by its path that the file's mode does not let run, which
#: then ran through its interpreter.
NOT_EXECUTABLE = failures.MistakeClass(
    "not_executable",
    r"(?!)",
    "the script is not executable",
    "the script was run by its path, and the file is not executable",
    "Run it through its interpreter (or make it executable with `chmod +x`)",
)
#: The pseudo-class of a command that needed an environment variable the agent's shell did not
#: set, which then worked with the variable given or the project's env file loaded
#: (``dotenv -e .env.local -- prisma migrate dev``). Whether a line loads it the command line
#: shows, but not whether the shell had it already: recalled at the error.
ENV_NOT_LOADED = failures.MistakeClass(
    "env_not_loaded",
    r"(?!)",
    "`{var}` is not set in the agent's shell",
    "it needs `{var}`, which the agent's shell does not set",
    "Give it the variable, or load the project's env file first",
)
#: The pseudo-class of a command that worked once a variable was set in front of it, nothing
#: else changed and no file edited between (``CGO_ENABLED=1 go test ./...``, ``JAVA_HOME=…
#: ./gradlew test``): this machine's default did not suit the project, whatever the failure
#: read like (every test of a run failing the same way). Whether the shell sets it already the
#: command line does not show: recalled at the error.
ENV_SET = failures.MistakeClass(
    "env_set",
    r"(?!)",
    "run it with `{setting}`",
    "it failed with this machine's default and worked with `{setting}` set for it",
    "Set `{setting}` in front of the command",
)
#: The pseudo-class of a command that failed where it was run and worked, unchanged, run from a
#: folder below (``cd backend && go test ./...``): that folder holds the project it works on
#: (a Go module, a crate, a package of a monorepo), a fact of this project. The command line
#: does not show which folder a shell is in: recalled at the error.
SUBPROJECT = failures.MistakeClass(
    "subproject",
    r"(?!)",
    "run it in `{folder}`, where its project is",
    "the command ran where its project is not: it lives in `{folder}`",
    "Run it from `{folder}`",
)
#: The pseudo-class of a step that worked but left undone what a later command needed, which
#: worked once the step ran again with an option more (``git stash`` leaves untracked files,
#: ``git checkout`` refuses to overwrite them, ``git stash -u``). The lesson is the step's, and
#: comes before it runs without the option (its words: :func:`.lesson._candidate`).
STEP_REDONE = failures.MistakeClass(
    "step_redone",
    r"(?!)",
    "give it `{flag}`: `{later}` needed it",
    "it worked, but left undone what `{later}` needed, which worked once it ran with `{flag}`",
    "Run it with `{flag}`",
)
#: The pseudo-class of a command that needed another step first, which its error named
#: (``Run "pnpm install"``), or which was the one call between that made something (``dotnet
#: tool restore``): the step ran, and the same command then worked.
PREREQUISITE = failures.MistakeClass(
    "prerequisite",
    r"(?!)",
    "run `{step}` first",
    "the command needed `{step}` to run first",
    "Run `{step}` first, then the command again",
)
#: The pseudo-class of a command that needed a step first, which the fix ran in front of it on
#: the same line (``npm install && npm run build``, ``terraform init && terraform plan``,
#: ``uv venv && uv pip install x``), the command itself unchanged: recalled at its error, since
#: once the step is done the same command works.
STEP_FIRST = failures.MistakeClass(
    "step_first",
    r"(?!)",
    "run `{step}` first",
    "the command needed `{step}` to run first",
    "Run `{step}` first, then the command",
)
#: The pseudo-class of a Python script run by its path that failed, and then worked run as a
#: module (``python3 app/cli.py`` → ``python3 -m app.cli``): a script that imports its own
#: package ("attempted relative import with no known parent package", "No module named
#: 'app'") finds it only so. Its trigger is the same script handed to Python again.
AS_MODULE = failures.MistakeClass(
    "as_module",
    r"(?!)",
    "run it as a module, `{other}`",
    "the script imports its own package, which Python sets up only for a module run with `-m`",
    "Run `{other}` rather than the script's path",
)
#: The pseudo-class of a variable set in a simple command of its own before the command that
#: needed it (``X=1; cmd``), which the shell keeps to itself, then exported or set in front of
#: the command, which worked: met each time the variable is set so again, its trigger.
NOT_EXPORTED = failures.MistakeClass(
    "not_exported",
    r"(?!)",
    "export `{flag}`; set on its own, it stays in the shell",
    "`{flag}` was set in the shell but not exported, so the command did not see it",
    "`export {flag}=…` first, or set it in front of the command",
)
#: The pseudo-class of an address given without the scheme its command needs, which then
#: worked with it, nothing else changed (``helm pull ghcr.io/acme/charts/api`` → ``oci://…``):
#: met each time the address is written bare again, its trigger.
SCHEME_ADDED = failures.MistakeClass(
    "scheme_added",
    r"(?!)",
    "give the address with `{other}://` in front",
    "an address was given without its scheme, so the command read it as something else",
    "Write `{other}://` before the address",
)
#: The pseudo-class of a file's path given where the command takes the name the file
#: defines, which then worked, nothing else changed (``brew audit Formula/acme-cli.rb`` →
#: ``brew audit acme/tap/acme-cli``): met each time a file of that kind is given again.
NAME_FOR_PATH = failures.MistakeClass(
    "name_for_path",
    r"(?!)",
    "give it the name (`{other}`), not the file's path",
    "the command takes a name, not the path of the file that defines it",
    "Give the name, `{other}`",
)
#: The pseudo-class of a short name given where the command wants the full one, with its
#: registry, which then worked, nothing else changed (``podman run postgres:16`` →
#: ``docker.io/library/postgres:16``): met each time the short name is given again.
FULL_NAME = failures.MistakeClass(
    "full_name",
    r"(?!)",
    "give `{wrong}` by its full name, `{right}`",
    "the command does not resolve the short name `{wrong}`",
    "Give the full name, `{right}`",
)
#: The pseudo-class of a word with a space given unquoted, which the shell split, and then
#: worked quoted, nothing else changed: a path (the file keeps its name) or an expression
#: (``pytest -k test_login and not slow``), met each time it is written again, its trigger.
SPACED_PATH = failures.MistakeClass(
    "spaced_path",
    r"(?!)",
    "quote `{other}`, it holds a space",
    "a word with a space was given unquoted, so the shell split it into several",
    "Quote it (or escape its spaces)",
)
#: The pseudo-class of a glob given bare, which the shell expanded into the files it matched
#: before the program could read it as its pattern (``ffmpeg -pattern_type glob -i
#: renders/*.png``), and then worked quoted, nothing else changed but how the output reads: met
#: each time the program is given a bare glob again, its trigger.
EXPANDED_GLOB = failures.MistakeClass(
    "expanded_glob",
    r"(?!)",
    "quote `{other}`, or the shell expands it before the program reads it",
    "a glob meant for the program was given unquoted, so the shell expanded it into files",
    "Quote the pattern",
)
#: The pseudo-class of a word holding a ``;``, ``&`` or ``|`` given unquoted, which the shell
#: read as its own (``sdkmanager platforms;android-35`` ran ``android-35`` as a command,
#: ``grep -E warn|error log.txt`` piped), and then worked quoted, nothing else changed: met each
#: time such a word is given bare again, its trigger.
OPERATOR_WORD = failures.MistakeClass(
    "operator_word",
    r"(?!)",
    "quote `{other}`, the shell cuts a command at its `{mark}`",
    "a word holding `{mark}` was given unquoted, so the shell ended the command there",
    "Quote it",
)
#: The pseudo-class of an option given its value as the next word, which the program refused,
#: and then worked with the two joined by ``=``, nothing else changed (``valgrind --leak-check
#: full``): met each time the option is given a separate value again, its trigger.
OPTION_JOINED = failures.MistakeClass(
    "option_joined",
    r"(?!)",
    "write `{other}`: the option takes its value after `=`",
    "an option was given its value as the next word, which the program does not read",
    "Join the value to the option with `=`",
)
#: The pseudo-class of a word holding backslashes given unquoted, which the shell read as
#: escapes and dropped (``cd C:\\Users\\ana`` looked for ``C:Usersana``), the error naming the
#: word as the shell read it: met each time such a word is given bare again, its trigger.
EATEN_BACKSLASH = failures.MistakeClass(
    "eaten_backslash",
    r"(?!)",
    "quote `{other}` in single quotes, or the shell drops its backslashes",
    "a word with backslashes was given unquoted, so the shell read them as escapes and "
    "dropped them",
    "Quote it in single quotes (or write its path with `/`)",
)
#: The pseudo-class of a command whose error named another command of the same program to run
#: instead, which then worked (npm's "`npm ci` can only install packages when your
#: package.json and package-lock.json are in sync. Please update your lock file with `npm
#: install`"): recalled at that error, since the same command works again once the state it
#: complained of is gone.
ERROR_NAMED = failures.MistakeClass(
    "error_named",
    r"(?!)",
    "`{other}` instead, as its error says",
    "its error named the command to run instead, `{other}`",
    "Run `{other}`, as the error says",
)
#: The pseudo-class of a failure in generated output gone stale (``.next/types/x.ts`` after an
#: upgrade): a call deleted the folder the error named a file in, and the command then worked.
STALE_OUTPUT = failures.MistakeClass(
    "stale_output",
    r"(?!)",
    "delete the stale generated folder and run it again",
    "the error was in a generated file under `{dir}` left from an earlier build, not in the"
    " project's own sources",
    "Delete `{dir}` so it is generated afresh, then run the command again",
)
#: The pseudo-class of a path the agent guessed where the project keeps the file elsewhere
#: (:mod:`.paths`): a lesson of that project once the same guess comes back in another session.
GUESSED_PATH = failures.MistakeClass(
    "guessed_path",
    r"(?!)",
    "`{name}` is at `{right}`",
    "the path `{wrong}` was guessed, and this project keeps `{name}` at `{right}`",
    "Look for `{name}` at `{right}` in this project",
)
#: The pseudo-class of a package pattern taken for a path: ``gofmt -l ./...`` looked for a
#: file named ``...`` (only the ``go`` command expands it), and ``gofmt -l .`` worked.
PATTERN_PATH = failures.MistakeClass(
    "pattern_path",
    r"(?!)",
    "it takes folders, not a `./...` pattern",
    "the command took the package pattern `./...` for a path and looked for a file of that"
    " name: only the `go` command expands `...`",
    "Give it a folder (`.`) or the files instead",
)
#: The pseudo-class of ``.go`` files given to the go command where the package was meant (``go
#: run main.go`` → ``go run .``, told "undefined: loadConfig"): files are built alone, without
#: the rest of their package.
GO_FILES = failures.MistakeClass(
    "go_files",
    r"(?!)",
    "give it the package (`.`), not its files",
    "given `.go` files, the go command built those alone, without the rest of their package",
    "Give it the package: `.` or its import path",
)
#: The pseudo-class of a glob in quotes that a command took for a path: ``node --test
#: 'test/**/*.test.js'`` looked for a file of that name (Node 20 expands no pattern), and ``node
#: --test test/`` worked. Quotes keep the pattern from the shell; only some programs expand one.
QUOTED_GLOB = failures.MistakeClass(
    "quoted_glob",
    r"(?!)",
    "it does not expand a glob in quotes",
    "the command was given a glob in quotes, which the shell left as it was, and took it for a"
    " path",
    "Give it the folder or the files, or the pattern unquoted for the shell to expand",
)
#: The pseudo-classes of a variable given on the wrong side of its program, nothing else
#: changed: set in front, where the program's own assignment beats the environment (``VERSION=v2
#: make package`` → ``make package VERSION=v2``), or given as an argument, which the program took
#: for an operand (``npm test DEBUG=1`` → ``DEBUG=1 npm test``).
AS_ARGUMENT = failures.MistakeClass(
    "assignment_as_argument",
    r"(?!)",
    "give `{flag}=` as an argument, not in the environment",
    "`{flag}` set in the environment did not reach it (its own assignment wins over the"
    " environment); given as an argument, it did",
    "Put `{flag}=…` after the command",
)
IN_FRONT = failures.MistakeClass(
    "assignment_in_front",
    r"(?!)",
    "set `{flag}=` in front of it, not as an argument",
    "it took `{flag}=…` for an operand, not a setting; set in front of the command, it worked",
    "Put `{flag}=…` in front of the command",
)
#: The pseudo-class of a folder given to a program that takes files (``ormolu --mode inplace
#: src/``: "inappropriate type (is a directory)"), which worked given the files by the set
#: (``$(git ls-files '*.hs')``, a glob): the program does not walk folders.
FOLDER_GIVEN = failures.MistakeClass(
    "folder_given",
    r"(?!)",
    "it takes files, not a folder",
    "it was given the folder `{folder}`, which it does not walk",
    "Give it the files: a glob, or a list such as `git ls-files`' output",
)
#: The words of a shell refusal whose word was a glob meant for files (``ls plans/*-PLAN.md``)
#: that matched none: zsh stops the command where bash passes the word on, and quoting it, the
#: cure for a word the shell misread (:data:`failures.SHELL_SYNTAX`), would only look for a
#: file named with a ``*``.
UNMATCHED_GLOB = failures.MistakeClass(
    failures.SHELL_SYNTAX,
    r"(?!)",
    "a glob that matches no file stops zsh",
    "an unquoted glob matched no file, and zsh stops the whole command then (bash passes the"
    " word on as written), so nothing ran",
    "Look in the folder first (list it, or `find` the files) rather than globbing for files"
    " that may not exist; quoting the glob would look for a file named with the `*`",
)
#: The words of a refused edit whose fix shows why its text was not found
#: (:mod:`..edit_causes`), in place of the general ones of :data:`failures.STALE_TEXT`: one
#: title per cause, so the intake merges the sessions of one cause and keeps causes apart.
EDIT_CAUSES = {
    edit_causes.INDENTATION: failures.MistakeClass(
        failures.STALE_TEXT,
        r"(?!)",
        "copy the leading tabs or spaces of the lines to replace",
        "the text to replace had other leading whitespace than the file (tabs for spaces, or"
        " one level of indentation too many or too few on its lines), so the {tool} was"
        " refused",
        "Copy the lines to replace from a fresh Read, counting their leading tabs or spaces,"
        " or anchor the text on a unique fragment without the indentation",
    ),
    edit_causes.OLDER_VERSION: failures.MistakeClass(
        failures.STALE_TEXT,
        r"(?!)",
        "read the lines again after editing the file",
        "the text to replace was written from an older version of the file: an earlier edit"
        " in this session had already changed it since it was last read, so the {tool} was"
        " refused",
        "Read the lines again after each edit of the file and copy the text to replace from"
        " that Read",
    ),
    edit_causes.RETYPED: failures.MistakeClass(
        failures.STALE_TEXT,
        r"(?!)",
        "copy long lines instead of retyping them",
        "a long line of the text to replace was retyped with characters dropped or changed,"
        " so the {tool} was refused",
        "Copy long lines from a fresh Read instead of retyping them, or replace a shorter"
        " unique fragment of the line",
    ),
}
#: Pseudo-classes whose lesson is recalled when the failure happens: nothing in the command
#: line tells the wrong working directory from the right one, nor a command run too early
#: from the same command run after its step.
#: Nor does a command that could not authenticate: the same ``git push origin`` works where a
#: key is loaded, so only the refusal tells the lesson is due. Nor a gh command that failed on
#: its own GraphQL query: the same ``gh pr edit`` works with another gh or on another repository.
_COMMAND_FAILURE_TIME = frozenset(
    {
        WORKDIR_DRIFT.name,
        PREREQUISITE.name,
        STEP_FIRST.name,
        ERROR_NAMED.name,
        STALE_OUTPUT.name,
        failures.AUTHENTICATION,
        failures.NO_NETWORK,
        # (what one agent's shell refuses another runs: a trigger on ``$(`` would come with
        # every such command of every agent)
        failures.SUBSTITUTION_BLOCKED,
        GH_GRAPHQL.name,
        ANOTHER_WAY.name,
        NEEDS_ROOT.name,
        ENV_NOT_LOADED.name,
        ENV_SET.name,
        SUBPROJECT.name,
        WRITE_ELSEWHERE.name,
    }
)
#: Classes whose fix is running the command through the project's environment.
_ENVIRONMENT_CLASSES = frozenset(
    {failures.COMMAND_NOT_FOUND, failures.MANAGED_ENVIRONMENT, failures.MODULE_NOT_FOUND}
)
#: Output of a test, build or lint run that failed on the code, not on the call: a rerun that
#: worked with other arguments ran other code (fewer tests, another file), it did not fix a
#: misuse of the command. Node's coded ``TypeError [ERR_…]`` is how it was run (a ``.ts`` file
#: given to plain ``node``), not the code; so are its words for a module of the other kind (ES
#: ``import`` run as CommonJS, ``require`` in an ES module, a top-level ``await`` outside one).
_WORK_FAILURE = kept_programs.compile(
    # (not a CLI's own "Error: UPGRADE FAILED: …", helm's; go's "--- FAIL: TestX" is a run's)
    r"\b\d+ (?:failed|failing|errors?)\b|\bTests?:\s|AssertionError|\bFAIL(?:ED)?\b(?!: )|"
    r"--- FAIL:|"
    r"error TS\d+|error\[E\d+\]|:\d+:\d+: error|"
    r"SyntaxError(?!: Cannot use import statement outside a module|: await is only valid in)|"
    r"TypeError(?! \[ERR_)|"
    r"ReferenceError(?!: require is not defined in ES module scope)|"
    r"NameError|AttributeError|panic:|Traceback \(most recent call last\)",
)


#: What a shell tool refuses in a call before running anything.
_SHELL_TOOL_REFUSALS = frozenset({failures.BAD_PARAMETERS, failures.SUBSTITUTION_BLOCKED})


def _refused_arguments(result: ev.Event) -> bool:
    """Whether the tool refused a call's arguments before running anything (OpenCode's bash
    tool without its required ``description``, Gemini CLI's shell given a command holding
    ``$(…)``): the same command with the arguments right is its fix, not a flaky second try,
    and for the first nothing in the command line shows the mistake."""
    if result.failure != ev.VALIDATION:
        return False
    cls = failures.mistake_class(result.text)
    return cls is not None and cls.name in _SHELL_TOOL_REFUSALS
