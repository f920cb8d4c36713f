"""Turn a failing tool call into a trigger that fires on the *kind* of call, not the literal one.

A lesson about ``pytest tests/test_x.py -k slow`` must come back for ``pytest -x other/``; a
lesson about ``git push --force`` must not fire for every ``git status``. So a shell trigger keeps
the executable, the subcommand of tools that have them, and a flag that distinguishes the failing
call from its fix, and drops paths, values and quoting. File tools get a glob on the extension.
"""

from __future__ import annotations

import difflib
import functools
import itertools
import re
from collections.abc import Callable, Collection, Sequence
from pathlib import PurePosixPath

from lessons_core.patterns import kept_programs

#: Tools whose first positional argument selects what they do.
SUBCOMMAND_TOOLS = frozenset(
    {
        # version control and review
        "git", "gh", "glab", "tea", "hub", "jj", "hg", "svn", "git-lfs", "pre-commit",
        # tasks, packages and builds
        "make", "gmake", "just", "task", "rake", "mise", "asdf", "npm", "pnpm", "pnpx", "yarn",
        "bun", "deno", "npx-tsc", "nx", "turbo", "lerna", "cargo", "rustup", "go", "pip", "pip3",
        "pipx",
        "uv", "poetry", "pdm", "hatch", "rye", "pixi", "conda", "mamba", "micromamba", "pyenv",
        "nvm", "fnm", "volta", "gem", "bundle", "rbenv", "composer", "mvn", "mvnw", "gradle",
        "gradlew", "sbt", "lein", "dotnet", "mix", "rebar3", "cabal", "stack", "ghcup", "opam",
        "dune", "nimble", "zig", "swift", "bazel", "bazelisk", "buck2", "pants", "conan", "vcpkg",
        "meson", "nix",
        # frameworks, sites and mobile
        "rails", "artisan", "symfony", "django-admin", "flask", "celery", "wp", "drush", "alembic",
        "prisma",
        "drizzle-kit", "sequelize", "goose", "atlas", "flyway", "liquibase", "dbmate", "buf", "ng",
        "next", "nuxi", "vite", "astro", "hugo", "jekyll", "mkdocs", "quarto", "flutter", "dart",
        "expo", "eas", "pod", "fastlane", "adb", "xcrun", "platformio", "pio", "tlmgr",
        # containers, clusters and systems
        "docker", "docker-compose", "podman", "buildah", "skopeo", "crane", "cosign", "crictl",
        "ctr", "kubectl", "helm", "helmfile", "kustomize", "minikube", "kind", "k3d", "eksctl",
        "argocd", "flux", "istioctl", "skaffold", "tilt", "oc", "systemctl", "launchctl",
        "loginctl", "timedatectl", "hostnamectl", "nmcli", "tmux", "apt", "apt-get", "brew",
        "snap", "flatpak", "dnf", "yum", "apk", "zypper", "port",
        # clouds, infrastructure and secrets
        "aws", "gcloud", "gsutil", "bq", "az", "doctl", "flyctl", "fly", "heroku", "wrangler",
        "vercel", "netlify", "firebase", "supabase", "sam", "cdk", "cdktf", "serverless", "sls",
        "terraform", "tofu", "terragrunt", "pulumi", "packer", "vagrant", "nomad", "consul",
        "vault", "op", "ansible-galaxy", "ansible-vault", "circleci", "stripe", "rclone", "restic",
        "borg", "openssl",
    }
)  # fmt: skip
#: Tools whose ``run`` names a script: the script is part of what the command is.
SCRIPT_RUNNERS = frozenset({"npm", "pnpm", "yarn", "bun", "mise", "deno", "pixi"})
#: Words in front of the real executable.
_PREFIXES = frozenset({"sudo", "time", "env", "nohup", "command", "exec", "nice", "doas"})
#: Options of those prefixes that take a value (``sudo -u deploy``, ``nice -n 10``).
_PREFIX_VALUE_FLAGS = frozenset({"-u", "-g", "-n"})
#: Runners whose next word is the real executable.
_RUNNERS = frozenset({"npx", "uvx", "bunx", "pnpx", "pipx", "corepack"})
#: A runner's options that take the next word (the package to fetch, its index or Python), and
#: those of an environment manager's ``run`` (``uv run --group docs``, ``poetry run -C sub``).
_RUNNER_VALUE_FLAGS = frozenset(
    {"-p", "--package", "--from", "--with", "--python", "--index", "--group", "--only-group",
     "--extra", "--directory", "--project", "--env-file", "--with-requirements",
     "--with-editable", "--index-url", "--extra-index-url", "-C", "-P", "-e", "--environment",
     "--manifest-path"}
)  # fmt: skip
#: Programs that load an env file and run the command after their ``--``.
_ENV_LOADERS = frozenset({"dotenv", "dotenvx", "env-cmd"})
#: Environment managers whose ``run``/``exec`` subcommand runs the real executable.
_RUN_TOOLS = frozenset({"uv", "poetry", "pipenv", "pdm", "rye", "hatch", "bundle", "pixi"})
#: Segments that set up rather than do the work.
SETUP_COMMANDS = _SETUP = frozenset(
    {"cd", "export", "source", ".", "set", "echo", "true", "printf", "sleep", "pushd", "popd"}
)
_PYTHONS = kept_programs.compile(r"^python(?:\d(?:\.\d+)?)?$")
#: Interpreters other than Python's that a script is handed to (``node build.js``).
_INTERPRETERS = frozenset({"node", "ruby", "php", "perl", "bash", "sh", "zsh"})
#: An interpreter's options that take the next word (``python -W error x.py``, ``node -r
#: dotenv/config app.js``), and those after which no script comes (the code is given inline).
_INTERPRETER_VALUE_FLAGS = frozenset({"-W", "-X", "-r", "--require", "--import", "--loader"})
_INLINE_CODE = frozenset({"-c", "-e", "-p", "--eval", "--print", "-m"})
_ASSIGNMENT = kept_programs.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
#: Global options that take a value before the subcommand (``git -C dir push``).
_VALUE_FLAGS = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--prefix", "--cwd", "-f",
     # options a CLI takes before its subcommand, naming where or on what it works
     # (``kubectl --context prod get``, ``gh -R o/r pr view``); not the names many CLIs give
     # options of their subcommands too (``--filter``), whose value may be a word the error
     # names
     "--context", "--namespace", "--kubeconfig", "-R", "--manifest-path",
     "--project-directory"}
)  # fmt: skip
_MAVEN_VALUE_FLAGS = frozenset(
    {"-pl", "--projects", "-P", "--activate-profiles", "-s", "--settings", "-rf",
     "--resume-from", "-T", "--threads"}
)  # fmt: skip
#: A tool's own short global options that take a value before the subcommand (``adb -s
#: emulator-5554 install``, ``kubectl -n web get pods``): short names mean other things to other
#: tools (``make -n`` takes none), so they are read for their tool alone.
_TOOL_VALUE_FLAGS = {
    "adb": frozenset({"-s", "-t", "-H", "-P"}),
    "kubectl": frozenset({"-n", "-s"}),
    "helm": frozenset({"-n"}),
    "docker": frozenset({"-H", "-c", "-l"}),
    "podman": frozenset({"-c"}),
    "tmux": frozenset({"-L", "-S"}),
    "aws": frozenset({"--profile", "--region", "--endpoint-url"}),
    "gcloud": frozenset({"--project", "--account", "--configuration"}),
    # the module, profile or settings of a Maven run; the package of a pnpm or npm workspace
    "mvn": _MAVEN_VALUE_FLAGS,
    "mvnw": _MAVEN_VALUE_FLAGS,
    "pnpm": frozenset({"--filter", "-F", "--dir", "-w", "--workspace"}),
    "npm": frozenset({"-w", "--workspace"}),
    # the application a Flask or Celery command runs (``flask --app inventory routes``)
    "flask": frozenset({"--app", "-A", "--env-file", "-e"}),
    "celery": frozenset({"--app", "-A", "--broker", "-b", "--workdir", "--config"}),
}
#: Flags about output, not behaviour: never what distinguishes a mistake from its fix. (``-y``
#: and ``--yes`` are behaviour: they answer a prompt a call waited on.)
NOISE_FLAGS = _NOISE_FLAGS = frozenset(
    {
        "-q",
        "-qq",
        "-v",
        "-vv",
        "-vvv",
        "--quiet",
        "--verbose",
        "--color",
        "--no-color",
        "-h",
        "--help",
        "--tb",
        "-s",
        "--no-header",
        "--json",
        "--porcelain",
        "--short",
        "--oneline",
        "-hide_banner",  # (ffmpeg's build banner)
    }
)
_OPERATORS = frozenset({"&&", "||", ";", "|", "&", ";;", "|&", "(", ")"})

LANG_BY_EXT = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".go": "go",
    ".rs": "rust",
    ".rb": "ruby",
    ".java": "java",
    ".kt": "kotlin",
    ".swift": "swift",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cs": "csharp",
    ".php": "php",
    ".sh": "shell",
    ".sql": "sql",
    ".md": "markdown",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".html": "html",
    ".css": "css",
}
LANG_BY_EXE = {
    "python": "python",
    "pytest": "python",
    "pip": "python",
    "pip3": "python",
    "uv": "python",
    "poetry": "python",
    "ruff": "python",
    "mypy": "python",
    "node": "javascript",
    "npm": "javascript",
    "pnpm": "javascript",
    "yarn": "javascript",
    "bun": "javascript",
    "vitest": "javascript",
    "jest": "javascript",
    "tsc": "typescript",
    "go": "go",
    "golangci-lint": "go",
    "cargo": "rust",
    "rustc": "rust",
    "ruby": "ruby",
    "bundle": "ruby",
    "rails": "ruby",
    "mvn": "java",
    "mvnw": "java",
    "gradle": "java",
    "gradlew": "java",
    "dotnet": "csharp",
}


#: Commands without quotes, escapes or substitutions split fast, without shlex.
_PLAIN = kept_programs.compile(r"""^[^'"\\`$]*$""")
#: A plain command's tokens as ``shlex`` reads them: runs of punctuation and words. ``2>&1`` is
#: the words ``2``, ``>&`` and ``1`` of its command, not a ``1`` run in the background.
_PLAIN_TOKENS = kept_programs.compile(r"[();<>|&]+|[^\s();<>|&]+")

#: One token of a quoted command as ``shlex`` (POSIX mode, punctuation characters, split on
#: whitespace only) reads it: a run of punctuation, a comment (dropped up to the end of its
#: line), or a word made of plain characters, quoted strings and escapes. ``shlex`` reads
#: character by character in Python, which for a long command (a heredoc, a script passed to
#: ``-c``) costs milliseconds; this is one regex pass.
#: The repeats are possessive: each alternative begins with a character no other takes, so
#: giving a character back never helps a match, and a word with an unclosed quote
#: (``echo "aaaa…``) would otherwise backtrack exponentially in its length.
_SHELL_TOKEN = kept_programs.compile(
    r"""[ \t\r\n]++
      | (?P<punct>[();<>|&]++)
      | \#[^\n]*+\n?
      | (?P<word>(?:[^ \t\r\n'"\\();<>|&\#]++|'[^']*+'|"(?:[^"\\]++|\\[\s\S])*+"|\\[\s\S])++)""",
    re.VERBOSE,
)
_WORD_PART = kept_programs.compile(
    r"""'([^']*+)'|"((?:[^"\\]++|\\[\s\S])*+)"|\\([\s\S])|([^'"\\]++)"""
)
#: Inside double quotes a backslash escapes only ``"`` and itself; before anything else it stays.
_DOUBLE_QUOTED_ESCAPE = kept_programs.compile(r'\\(["\\])')


def _tokens(command: str) -> list[str]:
    if _PLAIN.match(command):
        return _PLAIN_TOKENS.findall(command)
    fast = _quoted_tokens(command)
    if fast is not None:
        return fast
    import shlex  # only for what it refuses (an unclosed quote, a trailing backslash)

    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        return list(lexer)
    except ValueError:
        return command.split()


def _quoted_tokens(command: str) -> list[str] | None:
    """``shlex``'s tokens of ``command``, or ``None`` where it would complain (an unclosed
    quote, a trailing backslash): the caller then asks ``shlex`` itself."""
    out: list[str] = []
    pos = 0
    for m in _SHELL_TOKEN.finditer(command):
        if m.start() != pos:
            return None
        pos = m.end()
        if m.group("punct"):
            out.append(m.group("punct"))
        elif (word := m.group("word")) is not None:
            if "'" in word or '"' in word or "\\" in word:
                word = "".join(_unquote(part) for part in _WORD_PART.finditer(word))
            out.append(word)
    return out if pos == len(command) else None


def _unquote(part: re.Match[str]) -> str:
    single, double, escaped, plain = part.groups()
    if single is not None:
        return single
    if double is not None:
        return _DOUBLE_QUOTED_ESCAPE.sub(r"\1", double)
    return escaped if escaped is not None else plain


@functools.lru_cache(maxsize=4096)
def _segments(command: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(s) for s in _split(command))


#: Programs that, last in a pipeline or a list, only cut what the command before printed or
#: tell of it (``2>&1 | tail -30``, ``; echo "exit: $?"``, ``&& wc -l out.txt``, ``&& ls
#: dist``, ``; exit ${PIPESTATUS[0]}``). Not ``grep`` or ``cat`` as such: their options fail
#: too (``| cat -A`` on a Mac), and a search is part of what was asked (:func:`_looks_at_result`
#: says when one only looks).
_OUTPUT_ONLY = frozenset({"tail", "head", "echo", "printf", "wc", "ls", "exit"})
#: Redirections that only join or drop what a command prints (``2>&1``, ``>/dev/null``).
_DROPPED_OUTPUT = frozenset({"/dev/null", "1", "2", "&1", "&2"})
#: The redirections :func:`_bare` looks at.
_REDIRECTIONS = frozenset({">", ">>", ">&", "&>", "2>"})


def _bare(segment: tuple[str, ...]) -> tuple[str, ...]:
    """A simple command without the redirections that only join or drop its output, and
    without a ``timeout 300`` in front of it (after the variables it sets)."""
    at = next((i for i, word in enumerate(segment) if not _ASSIGNMENT.match(word)), 0)
    limited = segment[at : at + 1] in (("timeout",), ("gtimeout",)) and len(segment) > at + 2
    if limited and segment[at + 1][:1].isdigit():
        segment = segment[:at] + segment[at + 2 :]
    if _REDIRECTIONS.isdisjoint(segment):
        return segment
    out: list[str] = []
    words = iter(segment)
    for word in words:
        if word in _REDIRECTIONS and (target := next(words, "")):
            if target in _DROPPED_OUTPUT:
                if out and out[-1] in ("1", "2"):
                    out.pop()  # (the ``2`` of ``2>&1``)
                continue
            out += [word, target]
            continue
        out.append(word)
    return tuple(out)


@functools.lru_cache(maxsize=1024)
def _pair_segments(
    before: str, again: str
) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]:
    """The simple commands of two command lines as an agent writes them around the work:
    without a ``cd`` in front that both have, without what only reads their output at the end
    (``2>&1 | tail -30``, ``; echo "exit: $?"``), without redirections that only join or drop
    it, and without a time limit put in front (``timeout 300``). ``cd app && npm test 2>&1 |
    tail -5`` and ``cd app && npm test --silent`` differ by ``--silent`` alone."""
    mine, theirs = list(_segments(before)), list(_segments(again))
    while len(mine) > 1 and len(theirs) > 1 and mine[0] == theirs[0] and mine[0][0] == "cd":
        mine, theirs = mine[1:], theirs[1:]
    for words in (mine, theirs):
        while len(words) > 1 and (
            PurePosixPath(words[-1][0]).name in _OUTPUT_ONLY
            or _looks_at_result(words[-1])
            or _drops_lines(words[-1])
        ):
            words.pop()
        if len(words) > 1:
            words[:] = [seg for seg in words if not _cuts_its_input(seg)] or words
    return tuple(_bare(seg) for seg in mine), tuple(_bare(seg) for seg in theirs)


#: What ``git`` only shows: a look at the work after it (``bun install && git status``).
_GIT_LOOKS = frozenset({"status", "diff", "log", "show"})


def _looks_at_result(words: tuple[str, ...]) -> bool:
    """A look at what the command before made, last on the line: a search of files (``grep -c
    BEGIN out.pem``: a pattern and a file, so not a filter of the output before it), a ``cat``
    of a file, or what ``git`` only shows (``git status --short``)."""
    program = PurePosixPath(words[0]).name
    given = [word for word in words[1:] if not word.startswith("-")]
    if program in ("grep", "rg"):
        return len(given) >= 2 and not _REDIRECTIONS.intersection(words)
    if program == "cat":
        return (
            bool(given) and len(given) == len(words) - 1 and not _REDIRECTIONS.intersection(words)
        )
    return program == "git" and _git_verb(words) in _GIT_LOOKS


def _drops_lines(words: tuple[str, ...]) -> bool:
    """A ``grep -v`` last on the line (``2>&1 | grep -vE ' (INFO|WARN) '``): it only leaves the
    noise out of what the command before printed. A ``grep`` that keeps lines is left in: its
    status tells whether they were there. (Given a file as well, it is a look at the result.)"""
    return PurePosixPath(words[0]).name == "grep" and any(
        word == "--invert-match" or (word[:1] == "-" and word[1:2] != "-" and "v" in word)
        for word in words[1:]
    )


def _cuts_its_input(words: tuple[str, ...]) -> bool:
    """A ``tail`` or ``head`` given no file (``tail -1``, ``head -n 20``): it only cuts what the
    command before it printed, wherever it stands (``docker builder prune -af | tail -1 &&
    docker build .``). An ``echo`` in the middle may be another command's input (``echo y |
    …``), so only a trailing one is left out."""
    return PurePosixPath(words[0]).name in ("tail", "head") and all(
        word[:1] in ("-", "+") or word.isdigit() for word in words[1:]
    )


#: A ``cd`` in front of a command line, and what only cuts or tells of its output at the end
#: (:data:`_OUTPUT_ONLY`), as :func:`as_step` leaves them out.
_LEADING_CD = re.compile(r"\s*cd\s+[^\s;&|]+\s*&&\s*")
_TRAILING_READ = re.compile(
    rf"(?:\s*(?:2>&1|>\s*/dev/null)|\s*(?:\||;|&&)\s*(?:{'|'.join(sorted(_OUTPUT_ONLY))})"
    r"\b[^|;&]*)+\s*$"
)


@functools.lru_cache(maxsize=1024)
def as_step(command: str, beside: str) -> str:
    """``command`` as a step to name in a lesson: without the ``cd`` in front that ``beside``
    (the failing call) has too, and without what only reads its output at the end (``cd app &&
    go mod tidy 2>&1 | tail -3`` beside ``cd app && go test`` is ``go mod tidy``)."""
    step = " ".join(command.split())
    lead = _LEADING_CD.match(step)
    if lead is not None and " ".join(beside.split()).startswith(lead.group(0)):
        step = step[lead.end() :]
    return _TRAILING_READ.sub("", step) or step


def segments(command: str) -> list[list[str]]:
    """The simple commands of a command line (split at ``&&``, ``||``, ``;``, ``|``)."""
    return [list(s) for s in _segments(command)]


def _split(command: str) -> list[list[str]]:
    """The simple commands of a command line (split at ``&&``, ``||``, ``;``, ``|``).

    A line break ends a command as ``;`` does; the newline is kept before the ``;`` so that a
    comment (a ``#`` line) still ends with its line rather than swallowing every command after
    it. A heredoc's text is one word of the command it is given to, after its ``<<``: it is
    what the command reads, not commands of the line."""
    bodies: list[str] = []
    if "<<" in command and "\n" in command:
        command, bodies = _cut_heredocs(command)
    out: list[list[str]] = [[]]
    for tok in _tokens(command.replace("\n", "\n;")):
        if tok in _OPERATORS or (tok and set(tok) <= set("&|;()")):
            if out[-1]:
                out.append([])
            continue
        if bodies and tok.startswith(_HEREDOC_MARK):
            tok = bodies[int(tok[len(_HEREDOC_MARK) :])]
        out[-1].append(tok)
    return [s for s in out if s]


#: A heredoc's operator and its delimiter, quoted or not (``<<'EOF'``, ``<<-END``); not a
#: here-string (``<<<``).
_HEREDOC = kept_programs.compile(r"(?<![<\w])<<(-?)[ \t]*(['\"]?)([A-Za-z_][\w.-]*)\2")
#: What stands for a heredoc's text while the line is split: a plain word no command has.
_HEREDOC_MARK = "__heredoc_text_"


def _cut_heredocs(command: str) -> tuple[str, list[str]]:
    """``command`` with each heredoc's text, up to the line of its delimiter, taken out and a
    mark put in its delimiter's place, and those texts in order."""
    out: list[str] = []
    bodies: list[str] = []
    pos = 0
    while (m := _HEREDOC.search(command, pos)) is not None:
        start = command.find("\n", m.end())
        if start < 0:
            break
        tabs = r"\t*" if m.group(1) else ""
        end_line = re.compile(rf"^{tabs}{re.escape(m.group(3))}[ \t]*$", re.MULTILINE)
        end = end_line.search(command, start + 1)
        out.append(command[pos : m.start()])
        out.append(f"<< {_HEREDOC_MARK}{len(bodies)}{command[m.end() : start]}\n")
        bodies.append(command[start + 1 : end.start() if end else len(command)])
        pos = end.end() if end else len(command)
    out.append(command[pos:])
    return "".join(out), bodies


class Shape:
    """The parts of a simple command a trigger is made of."""

    __slots__ = ("exe", "flags", "sub")

    def __init__(self, exe: str, sub: str | None, flags: tuple[str, ...]) -> None:
        self.exe = exe
        self.sub = sub
        self.flags = flags

    def __repr__(self) -> str:
        return f"Shape({self.exe!r}, {self.sub!r}, {self.flags!r})"


#: A script an interpreter runs (``python build.py``), a subcommand's name, a flag.
_SCRIPT = kept_programs.compile(r"\.(?:py|js|mjs|cjs|rb|php|pl|sh|zsh)$")
_GLOB_CHARS = frozenset("*?[")
_SUBCOMMAND = kept_programs.compile(r"[A-Za-z][\w:.-]*")
_FLAG = kept_programs.compile(r"^--?[A-Za-z]|^-[0-9]$")
#: Whether a text starts and ends with a word character (:func:`_word`).
_WORD_START = kept_programs.compile(r"\w")
_WORD_END = kept_programs.compile(r"\w$")


def is_interpreter(name: str) -> bool:
    """Whether ``name`` is a program a script is handed to (``python3.12``, ``node``, ``bash``):
    pairing reads ``python build.py`` as the script, and a script run by its path that failed
    may be handed to one instead."""
    return bool(_PYTHONS.match(name)) or name in _INTERPRETERS


def shape_of(tokens: list[str]) -> Shape | None:
    """Executable, subcommand and flags of one simple command, after prefixes and runners."""
    i = 0
    while i < len(tokens) and (_ASSIGNMENT.match(tokens[i]) or tokens[i] in _PREFIXES):
        i += 1
        # the prefix's own options (``sudo -E``, ``sudo -u deploy``, ``nice -n 10``)
        while i < len(tokens) and tokens[i].startswith("-"):
            i += 2 if tokens[i] in _PREFIX_VALUE_FLAGS else 1
    if i < len(tokens) and tokens[i] in ("timeout", "gtimeout"):  # (Homebrew's name for it)
        i += 2 if i + 1 < len(tokens) and tokens[i + 1][:1].isdigit() else 1
    if i >= len(tokens):
        return None
    exe = PurePosixPath(tokens[i]).name or tokens[i]
    rest = tokens[i + 1 :]
    runner_flags: list[str] = []
    if exe in _RUNNERS and rest:
        # past the runner's own options (``npx --yes create-vite``; ``npx -p pkg bin``), which
        # still count among the command's flags
        at = _past_options(rest, 0)
        runner_flags += rest[:at]
        if at < len(rest):
            exe, rest = PurePosixPath(rest[at]).name, rest[at + 1 :]
    if exe in _ENV_LOADERS and "--" in rest:  # ``dotenv -e .env.local -- prisma migrate``
        after = rest[rest.index("--") + 1 :]
        if after:
            exe, rest = PurePosixPath(after[0]).name, after[1:]
    if exe in _RUN_TOOLS and len(rest) >= 2 and rest[0] in ("run", "exec"):
        # past the tool's own options (``uv run --with pkg --frozen pytest``, ``poetry run -C
        # sub pytest``), which still count among the command's flags, as a runner's do
        at = _past_options(rest, 1)  # (``uv run -- pytest``: ``--`` is passed over as one)
        if at < len(rest) and not rest[at].startswith("-"):
            runner_flags += rest[1:at]
            exe, rest = PurePosixPath(rest[at]).name, rest[at + 1 :]
    if _PYTHONS.match(exe) and len(rest) >= 2 and rest[0] == "-m":
        exe, rest = rest[1], rest[2:]
    script = False
    if is_interpreter(exe) and rest:
        # past the interpreter's own options (``node --inspect app.js``, ``bash -x deploy.sh``),
        # which still count among the command's flags
        at = 0
        while at < len(rest) and rest[at].startswith("-") and rest[at] not in _INLINE_CODE:
            at += 2 if rest[at] in _INTERPRETER_VALUE_FLAGS else 1
        # (a pattern of files, ``node --test 'test/**/*.test.js'``, is no script it runs)
        if at < len(rest) and _SCRIPT.search(rest[at]) and not _GLOB_CHARS & set(rest[at]):
            runner_flags += rest[:at]
            exe, rest, script = PurePosixPath(rest[at]).name, rest[at + 1 :], True
    sub = None
    if exe in SUBCOMMAND_TOOLS or script:
        takes_value = False
        own = _TOOL_VALUE_FLAGS.get(exe, frozenset())
        for tok in rest:
            if takes_value:
                takes_value = False
                continue
            if tok in _VALUE_FLAGS or tok in own:
                takes_value = True
                continue
            if not tok.startswith("-"):
                # (a subcommand quoted with its arguments, ``sbt "testOnly a.Spec"``, is still
                # that subcommand)
                word = next(iter(tok.split()), tok)
                sub = word if _SUBCOMMAND.fullmatch(word) else None
                break
        if sub in ("run", "run-script", "exec") and exe in SCRIPT_RUNNERS:
            # ``npm run lint`` and ``npm run build`` are different commands.
            after = [t for t in rest[rest.index(sub) + 1 :] if not t.startswith("-")]
            if after and _SUBCOMMAND.fullmatch(after[0]):
                sub = f"{sub} {after[0]}"
    flags = tuple(
        dict.fromkeys(t.split("=", 1)[0] for t in (*runner_flags, *rest) if _FLAG.match(t))
    )
    return Shape(exe, sub, flags)


def _past_options(words: list[str], at: int) -> int:
    """Where the command a runner or an environment manager runs starts in ``words``: past the
    options from ``at`` on and the values of those in :data:`_RUNNER_VALUE_FLAGS`, the last
    word never passed over."""
    while at < len(words) - 1 and words[at].startswith("-"):
        at += 2 if words[at] in _RUNNER_VALUE_FLAGS else 1
    return at


@functools.lru_cache(maxsize=4096)
def shapes(command: str) -> tuple[Shape, ...]:
    """The shapes of every simple command of a command line (cached: detectors ask often)."""
    return tuple(s for s in (shape_of(list(seg)) for seg in _segments(command)) if s is not None)


@functools.lru_cache(maxsize=4096)
def main_shape(command: str) -> Shape | None:
    """The shape of the command that does the work (set-up segments like ``cd`` are skipped)."""
    found = shapes(command)
    for shape in found:
        if shape.exe not in _SETUP:
            return shape
    return found[0] if found else None


#: Words between a wrapper and the command it runs (``mise exec --``, ``pnpm exec``, ``uv run``).
_WRAPPER_WORDS = frozenset({"exec", "run", "x", "dlx", "--"})
#: Shells whose ``-c`` argument is a command line of its own.
_SHELLS = frozenset({"bash", "sh", "zsh"})
_EXE_NAME = kept_programs.compile(r"[A-Za-z][\w.+-]*")
#: Commands whose arguments name other commands without running them (``which bash``), or
#: take them as text to look for or print (``ls node_modules/.bin | grep -i eslint``).
_NAMES_COMMANDS = frozenset(
    {"which", "type", "whereis", "whatis", "man", "help", "hash", "apropos", "info", "tldr",
     "alias", "unalias", "kill", "pkill", "pgrep", "killall", "ps", "brew", "apt", "apt-get",
     "grep", "egrep", "fgrep", "rg", "ag", "ack", "echo", "printf", "ls", "find", "fd"}
)  # fmt: skip


@functools.lru_cache(maxsize=4096)
def wrapped(command: str) -> tuple[tuple[str, Shape], ...]:
    """Each simple command of ``command`` that runs another through a wrapper, as the wrapper's
    name and the shape of what it runs.

    A wrapper is a first word followed only by options and ``exec``/``run``/``--`` before the
    command it runs: ``rtk bun run test``, ``mise exec -- pytest``, ``fnm exec --using=20 pnpm
    test``, ``pnpm exec vitest``, and ``bash -lc 'pytest -x'``. The command inside counts when
    it has words of its own or is a known tool (``npm test`` does not wrap a ``test``): a
    failing call and one that adds or drops a wrapper around the same command are the same
    kind of call, and the wrapper is what changed. Wrappers nest (``corepack pnpm exec
    vitest``): each layer is one more wrapper, and the innermost names the command run.
    """
    out: list[tuple[str, Shape]] = []
    for seg in _segments(command):
        if len(seg) < 2:
            continue
        first = PurePosixPath(seg[0]).name
        if first in _SETUP or first in _NAMES_COMMANDS or _ASSIGNMENT.match(seg[0]):
            continue  # (``JAVA_HOME=/usr/lib/jvm/java-21 mvn``: a variable, not a wrapper)
        if first in _SHELLS and len(seg) >= 3 and seg[1] in ("-c", "-lc", "-ic"):
            out.extend((first, shape) for shape in shapes(seg[2]))
            continue
        words = list(seg)
        while True:
            layer = _wrapped_layer(words)
            if layer is None:
                break
            out.append((PurePosixPath(words[0]).name, layer[1]))
            words = layer[0]
    return tuple(out)


def _wrapped_layer(seg: list[str]) -> tuple[list[str], Shape] | None:
    """The words a wrapper (``seg``'s first word) runs and their shape, or ``None`` when it
    wraps nothing (``npm test`` does not wrap a ``test``)."""
    if len(seg) < 2:
        return None
    first = PurePosixPath(seg[0]).name
    i = 1
    while i < len(seg) and (seg[i] in _WRAPPER_WORDS or _FLAG.match(seg[i])):
        i += 1
    if i == 1 and "/" in seg[1]:
        return None  # (``mv scripts/a.js scripts/a.cjs``: a path right after it is an operand)
    inner = list(_bare(tuple(seg[i:])))  # (``2>/dev/null`` is no word of its own)
    if not inner or not _EXE_NAME.fullmatch(PurePosixPath(inner[0]).name):
        return None
    name = PurePosixPath(inner[0]).name
    if len(inner) < 2 and name not in COMMON_EXECUTABLES and name not in LANG_BY_EXE:
        return None
    shape = shape_of(inner)
    if shape is None or shape.exe == first:
        return None
    return inner, shape


def segments_of(command: str, exe: str, sub: str | None) -> list[tuple[str, ...]]:
    """The simple commands of ``command`` whose executable and subcommand are ``exe`` and
    ``sub``, in order, each as its words (a quoted word whole)."""
    found = []
    for seg in _segments(command):
        shape = shape_of(list(seg))
        if shape is not None and shape.exe == exe and (shape.sub or "") == (sub or ""):
            found.append(seg)
    return found


@functools.lru_cache(maxsize=1024)
def segment_of(command: str, exe: str, sub: str | None) -> str | None:
    """The last simple command of ``command`` whose executable and subcommand are ``exe`` and
    ``sub``, its words joined by spaces: in ``a && b && c`` the later parts ran only when the
    earlier ones worked, so the last one of a kind is the one that failed."""
    found = segments_of(command, exe, sub)
    return " ".join(found[-1]) if found else None


#: A line of an error that starts with the name of the program that wrote it (``cat: illegal
#: option -- A``, ``jq: error (at <stdin>:3)``), after a shell's own prefix.
_NAMED_PROGRAM = kept_programs.compile(
    r"^[ \t]*(?:(?:/usr)?(?:/bin/)?(?:ba|z)?sh: (?:-c: )?(?:line \d+: )?)?"
    r"(?:[\w.~-]*/)*([\w][\w.+-]*): ",
    re.MULTILINE,
)


def chain_heads(command: str) -> list[list[str]]:
    """The first simple command of each part of a line joined by ``&&`` alone, without the
    redirections that only join or drop its output (a part may pipe into others: ``npm run
    build 2>&1 | tail -4 && npm publish`` has ``npm run build`` and ``npm publish``): each
    later part ran only once the earlier ones had worked. ``[]`` for a line with another list
    operator (``;``, ``||``, ``&``), a subshell or more than one line, where what ran after
    what is not so plain."""
    if "&&" not in command or "\n" in command.strip():
        return []
    parts: list[list[str]] = [[]]
    for tok in _tokens(command):
        if tok == "&&":
            parts.append([])
        elif tok in _OPERATORS and tok != "|":
            return []
        else:
            parts[-1].append(tok)
    heads = [list(_bare(tuple(part[: part.index("|")] if "|" in part else part))) for part in parts]
    return heads if all(heads) else []


def programs_named(error: str) -> set[str]:
    """The words the head of ``error`` starts a line with as a program does (``cd`` of ``cd:
    src: No such file or directory``; ``fatal`` too, which the caller sets against the
    programs of its command line)."""
    return {m.group(1) for m in _NAMED_PROGRAM.finditer(error[:1500])}


def named_segment(command: str, error: str) -> tuple[str, Shape] | None:
    """The simple command of a pipeline or chain that the error names, when it is not the main
    one: ``sed -n 1p f | cat -A`` told ``cat: illegal option -- A`` failed in ``cat``, and a
    lesson on ``sed`` would fire on every ``sed``. ``None`` when the error names no program
    of the command line (a set-up step like ``cd`` does not count), or names its main one."""
    found = shapes(command)
    if len(found) < 2:
        return None
    exes = {shape.exe for shape in found if shape.exe not in _SETUP}
    for m in _NAMED_PROGRAM.finditer(error[:1500]):
        name = m.group(1)
        if name not in exes:
            continue
        main = main_shape(command)
        if main is None or main.exe == name:
            return None
        for seg in reversed(_segments(command)):  # the last of a kind is the one that failed
            shape = shape_of(list(seg))
            if shape is not None and shape.exe == name:
                return " ".join(seg), shape
    return None


def wrapper_trigger(wrapper: str, exe: str) -> str:
    """A pattern for ``exe`` run through ``wrapper`` in one simple command."""
    return _word(wrapper) + _GAP + _word(exe)


def runner_trigger(wrapper: str, exe: str) -> str:
    """A pattern for ``exe`` given to ``wrapper`` as its subcommand, only options between
    (``rtk bun``, not ``rtk test bun``: the runner subcommand in between is the fix)."""
    return _word(wrapper) + r"(?:\s+-\S+)*\s+" + _word(exe)


def refused_subcommand(command: str, error: str) -> tuple[tuple[str, ...], int] | None:
    """The simple command of ``command`` whose first word refused the word after it (its
    options aside) as a subcommand, and where that word is: the one ``error`` quotes
    (``rtk bun run test`` told ``unrecognized subcommand 'bun'``). The error is the class of an
    unknown subcommand; the quote tells which word of the line it was about."""
    head = error[:600]
    for seg in _segments(command):
        first = PurePosixPath(seg[0]).name
        if first in _SETUP or _ASSIGNMENT.match(first):
            continue
        at = next((i for i in range(1, len(seg)) if not seg[i].startswith("-")), None)
        if at is None or not _EXE_NAME.fullmatch(seg[at]) or seg[at] == first:
            continue
        if re.search(rf"[\"'`\u2018\u201c]{re.escape(seg[at])}[\"'`\u2019\u201d]", head):
            return seg, at
    return None


def inserted_word(segment: tuple[str, ...], at: int, command: str) -> str | None:
    """The one word ``command`` put into ``segment`` right before its word at ``at``, all else
    the same (``rtk test bun run test`` for ``rtk bun run test``: ``test``), else ``None``.
    The word is a plain subcommand name, never an option or a path."""
    for seg in _segments(command):
        if (
            len(seg) != len(segment) + 1
            or seg[:at] != segment[:at]
            or seg[at + 1 :] != segment[at:]
        ):
            continue
        if _SUBCOMMAND.fullmatch(seg[at]):
            return seg[at]
    return None


def first_trigger(exe: str) -> str:
    """A pattern for ``exe`` as the command line's first word (``^\\s*\\bfmtcheck\\b``)."""
    return anchored(_word(exe))


def leading_trigger(exe: str, command: str | None = None) -> str:
    """A pattern for ``exe`` as the first word of a simple command: run bare, not through a
    wrapper or runner (``vitest`` but not ``pnpm exec vitest``). Where ``command`` hands it to
    a program, an interpreter or a runner, it is run bare when that program comes first (``perl
    script/send.pl`` but not ``carton exec -- perl script/send.pl``; ``npx playwright`` but not
    ``xvfb-run -a npx playwright``)."""
    for seg in segments_of(command, exe, None) if command else ():
        words = [word for word in seg if not _ASSIGNMENT.match(word)]
        first = PurePosixPath(words[0]).name if words else exe
        if first != exe:  # (the program it was handed to)
            return rf"(?:^|[;&|(])\s*{_word(first)}{_GAP}{_word(exe)}"
    return rf"(?:^|[;&|(])\s*{_word(exe)}"


#: A short fragment an error message quotes (``the literal "\\n" is not allowed``).
_QUOTED = kept_programs.compile(
    r"""["'`\u2018\u201c]([^"'`\u2019\u201d\s]{2,8})["'`\u2019\u201d]"""
)
#: What makes a quoted fragment syntax rather than a name: anything but letters, digits,
#: ``_``, ``.``, ``/``, ``-`` and spaces (a misspelt branch or path is a one-off fact).
_SYNTAX_CHAR = kept_programs.compile(r"[^\w./\s-]")


def culprit_trigger(error: str, failing: str, fixed: str) -> str | None:
    r"""A pattern for the piece of syntax the error quotes, when the failing command holds it and
    its fix does not: ``rg`` told ``the literal "\n" is not allowed`` gives ``\brg\b.*\\n``.
    The fragment is short and not a name (a misspelt branch or file is a one-off fact), and the
    executable is that of the simple command holding it."""
    for m in _QUOTED.finditer(error[:1500]):
        fragment = m.group(1)
        if not _SYNTAX_CHAR.search(fragment) or fragment not in failing or fragment in fixed:
            continue
        for seg in _segments(failing):
            shape = shape_of(list(seg))
            if shape is not None and shape.exe not in _SETUP and any(fragment in w for w in seg):
                return _word(shape.exe) + ".*" + _escape(fragment)
    return None


#: A quoted argument that starts with a dash, not after ``-e`` or ``--``: a pattern or text the
#: command reads as an option.
_DASH_ARGUMENT = r"""(?<!\s-e)(?<!\s--)\s["']-"""
#: The same, with the first word of the quoted text (:func:`dash_argument_trigger`); the quote
#: need not close within it (``"-don't"``, a quote left open).
_QUOTED_DASH = kept_programs.compile(r"""(?<!\s-e)(?<!\s--)\s["'](-[^\s"']*)""")


#: A word whose last part is ``...`` (``./...``, ``pkg/...``): the ``go`` command's pattern.
_PATTERN_PATH = r"""\s(?:[^\s|;&'"]*/)?\.\.\.(?![^\s|;&])"""
_PACKAGE_PATTERN = re.compile(r"(?:[^\s/]*/)*\.\.\.")


def package_pattern(word: str) -> bool:
    """Whether ``word`` is a package pattern of the ``go`` command (``./...``, ``pkg/...``,
    ``...``): "every package below", which no other tool reads as a path."""
    return _PACKAGE_PATTERN.fullmatch(word) is not None


#: The go subcommands that build what they are given: a package, or files taken as one.
_GO_BUILDS = frozenset({"run", "build", "test", "vet", "install"})


def go_files_given(failing: str, fixed: str) -> bool:
    """Whether ``failing`` gave the ``go`` command ``.go`` files where its fix, the same
    subcommand, gave a package (``go run main.go`` → ``go run .``): files are built alone,
    without the rest of their package."""
    was, now = main_shape(failing), main_shape(fixed)
    if was is None or now is None or was.exe != "go" or now.exe != "go" or was.sub != now.sub:
        return False
    if was.sub not in _GO_BUILDS:
        return False
    mine, theirs = _words_of(failing, was), _words_of(fixed, now)
    files = [word for word in operands_of(mine) if word.endswith(".go")]
    packages = operands_of(theirs)[1:]  # (after the subcommand)
    return bool(files) and bool(packages) and not any(word.endswith(".go") for word in packages)


def go_files_trigger(command: str) -> str | None:
    """A pattern for the ``go`` subcommand of ``command`` given a ``.go`` file."""
    shape, tight = main_shape(command), tight_trigger(command)
    if shape is None or shape.exe != "go" or tight is None:
        return None
    return tight.removesuffix(r"(?![\w:.-])") + _GAP + r"\s[^\s|;&]+\.go(?![\w.-])"


def pattern_path_trigger(failing: str, fixed: str) -> str | None:
    """A pattern for a package pattern given to a command that took it for a path (``gofmt -l
    ./...``), when its fix has none."""
    return _segment_trigger(
        failing, fixed, _PATTERN_PATH, lambda seg: any(package_pattern(w) for w in seg[1:])
    )


#: A word in quotes that holds a ``*``: a glob the shell was told to leave alone.
_QUOTED_GLOB = r"""\s(?:'[^'\s]*\*|"[^"\s]*\*)"""


def quoted_glob(failing: str, error: str) -> str | None:
    """The glob ``failing`` gave a command in quotes (``node --test 'test/**/*.test.js'``) when
    the error names it, so the command looked for a path of that name: the pattern, else
    ``None``. (Whether the fix gave it none is for the trigger to tell.)"""
    if "*" not in failing:
        return None  # (most commands hold no glob: nothing to look for)
    head = error[:1500]
    for seg in _segments(failing):
        for word in seg[1:]:
            if "*" in word and in_quotes(word, failing) and word in head:
                return word
    return None


def option_joined(failing: str, fixed: str) -> str | None:
    """The option ``failing`` gave its value as the next word that ``fixed`` joined to it with
    ``=`` (``valgrind --leak-check full`` → ``--leak-check=full``), nothing else changed: the
    joined word (the first, where several were), else ``None``. Some programs read an option's
    value only after ``=`` (valgrind's all, GNU's optional ones such as ``--color``)."""
    mine, theirs = _pair_segments(failing, fixed)
    if len(mine) != len(theirs):
        return None
    joined: list[str] = []
    for was, now in zip(mine, theirs, strict=True):
        at = 0
        for word in now:
            if at < len(was) and word == was[at]:
                at += 1
            elif (
                at + 1 < len(was)
                and was[at].startswith("--")
                and word == f"{was[at]}={was[at + 1]}"
            ):
                joined.append(word)
                at += 2
            else:
                return None
        if at != len(was):
            return None
    return joined[0] if joined else None


def option_joined_trigger(failing: str, fixed: str, option: str) -> str | None:
    """A pattern for the program of ``failing`` given ``option`` (``--leak-check=full``'s
    name) with its value as the next word, when ``fixed`` is not."""
    name = option.split("=", 1)[0]
    tail = rf"\s{_escape(name)}\s+[^\s-]"
    return _segment_trigger(failing, fixed, tail)


def bare_glob(failing: str, fixed: str) -> str | None:
    """The glob ``failing`` gave bare that ``fixed`` gave in quotes, so that the program, not
    the shell, read it (``ffmpeg … -i renders/*.png`` → ``ffmpeg … -i 'renders/*.png'``), the
    rest the same but for flags of how the output reads; else ``None``."""
    if "*" not in failing:
        return None  # (most commands hold no glob: nothing to look for)
    mine, theirs = _pair_segments(failing, fixed)
    if len(mine) != len(theirs) or any(
        [w for w in was if w not in NOISE_FLAGS] != [w for w in now if w not in NOISE_FLAGS]
        for was, now in zip(mine, theirs, strict=True)
    ):
        return None
    return next(
        (
            word
            for words in mine
            for word in words
            if "*" in word and not in_quotes(word, failing) and in_quotes(word, fixed)
        ),
        None,
    )


def bare_glob_trigger(failing: str, fixed: str) -> str | None:
    """A pattern for the program of ``failing`` given a bare glob (not one in quotes)."""
    return _segment_trigger(failing, fixed, _BARE_GLOB)


#: A word with a ``*`` that no quote opens: the shell's to expand.
_BARE_GLOB = r"""\s[^\s'"|;&]*\*"""


#: A word, or the end of one (an option's value, ``--file=C:\\x.md``), that holds a backslash
#: before a letter or digit, as written in a command line: a Windows path (``C:\\Users\\ana``)
#: or a regex escape (``\\d+``). (Only given bare does the error name it without them.)
_BACKSLASHED_WORD = kept_programs.compile(
    r"""[^\s'"`|;&()<>\\=]*(?:\\[A-Za-z0-9][^\s'"`|;&()<>\\]*)+"""
)
#: The same as a trigger's tail: after the program, such a word.
_BARE_BACKSLASH = r"""\s[^\s'"`|;&\\]*\\[A-Za-z0-9]"""


def eaten_backslashes(failing: str, error: str) -> str | None:
    """The word ``failing`` gave bare with backslashes in it when the error names it as the
    shell read it, without them (``cd C:\\Users\\ana`` → ``C:Usersana: No such file or
    directory``): the shell took each backslash for an escape and dropped it, so the word is
    one to quote, else ``None``."""
    if "\\" not in failing:
        return None  # (most commands hold no backslash: nothing to look for)
    head = error[:1500]
    for m in _BACKSLASHED_WORD.finditer(failing):
        word = m.group()
        read = re.sub(r"\\(.)", r"\1", word)
        if len(read) >= 3 and read in head:
            return word
    return None


def eaten_backslash_trigger(failing: str, fixed: str) -> str | None:
    """A pattern for the program of ``failing`` given a word with a backslash bare."""
    return _segment_trigger(failing, fixed, _BARE_BACKSLASH)


def in_quotes(word: str, command: str) -> bool:
    """Whether ``command`` gives ``word`` whole in single or double quotes: a word the shell
    was told to leave alone, so any glob in it reached the program as written."""
    return f"'{word}'" in command or f'"{word}"' in command


def quoted_glob_trigger(failing: str, fixed: str) -> str | None:
    """A pattern for a glob in quotes given to the command that took it for a path, when its
    fix gave it none."""
    return _segment_trigger(failing, fixed, _QUOTED_GLOB)


def _segment_trigger(
    failing: str,
    fixed: str,
    tail: str,
    holds: Callable[[tuple[str, ...]], bool] = lambda seg: True,
    gap: str | None = None,
) -> str | None:
    """The pattern of the first simple command of ``failing`` that ``holds``: its program, then
    ``tail`` anywhere before the command ends (across ``gap``, :data:`_GAP` unless given), when
    it matches ``failing`` and not ``fixed`` (the trigger names what separates the two), else
    ``None``."""
    for seg in _segments(failing):
        shape = shape_of(list(seg))
        if shape is None or not holds(seg):
            continue
        pattern = _word(shape.exe) + (gap or _GAP) + tail
        if matches(pattern, failing) and not matches(pattern, fixed):
            return pattern
    return None


def dash_argument_trigger(failing: str, fixed: str) -> str | None:
    """A pattern for a quoted argument starting with ``-`` (``rg "- name"``, ``grep '-x'``),
    which the command parsed as an option, when the fix has none."""
    if "'-" not in failing and '"-' not in failing:
        return None  # (most commands hold no such argument: no pattern to build)
    shape = main_shape(failing)
    if shape is None:
        return None
    pattern = _word(shape.exe) + _GAP + _DASH_ARGUMENT
    if not matches(pattern, failing) or matches(pattern, fixed):
        return None
    for m in _QUOTED_DASH.finditer(failing):
        text = m.group(1)
        # A quoted ``--word`` is an option written in quotes as often as a pattern: it was a
        # pattern only when the fix kept it, marked as one (``-e "--no-cache"``, ``-- "--x"``).
        if not text.startswith("--") or _marked(text, fixed):
            return pattern
    return None


def _marked(text: str, fixed: str) -> bool:
    """Whether ``fixed`` passes ``text`` after ``-e``, ``--`` or ``--regexp``."""
    marks = r"(?:\s-e|\s--|\s--regexp)(?:\s+|=)[\"']?"
    return re.search(marks + re.escape(text), fixed) is not None


#: An unquoted word holding a glob character (zsh stops at one that matches nothing): ``*``,
#: ``?``, ``[`` (``pip install .[dev]``), or ``^``, which zsh's ``extendedglob`` reads as a
#: negation (``git show HEAD^``, ``magick … -resize 1200x630^``).
_SHELL_GLOB_WORD = r"""\s[^\s'"|;&]*[*?\[^]"""
_SHELL_GLOB_CHARS = frozenset("*?[^")
#: A ``?`` that opens a query string (``contents/a.yml?ref=main``): a glob character meant
#: literally, never a pattern for files.
_QUERY = kept_programs.compile(r"\?[\w.-]+=")


def query_string(word: str) -> bool:
    """Whether ``word``'s glob character is the ``?`` of a query string (``path?ref=main``):
    a word the shell must be told to leave alone, not a file pattern that found nothing."""
    return _QUERY.search(word) is not None


def glob_trigger(failing: str, fixed: str) -> str | None:
    """A pattern for an unquoted glob in the command the shell refused (``no matches found``),
    when the fix looked in the same folder without one: a fix that went to look elsewhere
    says the glob was a probe that found nothing, not a mistake. A query string's ``?`` was
    never a probe: any fix without an unquoted glob character answers it."""

    def mistaken(seg: tuple[str, ...]) -> bool:
        globbed = [
            w for w in seg[1:] if not _SHELL_GLOB_CHARS.isdisjoint(w) and not w.startswith("-")
        ]
        probes = [w for w in globbed if not query_string(w)]
        folders = [w.rsplit("/", 1)[0] for w in probes if "/" in w]
        return bool(globbed) and not (
            len(probes) == len(globbed) and folders and not any(f and f in fixed for f in folders)
        )

    return _segment_trigger(failing, fixed, _SHELL_GLOB_WORD, mistaken) or _segment_trigger(
        failing, fixed, _SHELL_GLOB_WORD, mistaken, _UNQUOTED_GAP
    )  # (the fix quoted the words around it too: ``adb shell 'ls /sdcard/*.jpg'``)


#: Anything up to the end of the simple command, no quote opened on the way: what follows is
#: still the shell's to read (a word after ``'ls -l`` is the quoted string's).
_UNQUOTED_GAP = r"[^|;&\n'\"]*?"


#: Anything up to the end of the simple command (``|``, ``;``, ``&`` or a newline end it).
_GAP = r"[^|;&\n]*?"


def _escape(text: str) -> str:
    """``re.escape`` without the needless escaping of ``-`` (patterns stay readable)."""
    return re.escape(text).replace("\\-", "-")


def _word(text: str) -> str:
    """``\\bword\\b`` where the ends are word characters, look-arounds otherwise."""
    esc = _escape(text)
    left = r"\b" if _WORD_START.match(text) else r"(?<![\w./-])"
    right = r"\b" if _WORD_END.search(text) else r"(?![\w-])"
    return f"{left}{esc}{right}"


def command_trigger(failing: str, fix: str | None = None) -> str | None:
    """A regex for commands like ``failing``: executable, subcommand and a distinguishing flag.

    The flag is one the failing call used and the fix dropped (``pip install --user`` fixed by
    ``pip install``); when the fix is a different executable altogether no flag is needed.
    """
    shape = main_shape(failing)
    if shape is None:
        return None
    pattern = _word(shape.exe)
    if shape.sub:
        # One bounded-by-segment gap, never a repeated group: the compiler refuses nested
        # repeats (they can backtrack for seconds in the hook).
        # The subcommand's words are joined by one space, a fixed width: a variable one right
        # after the gap could trade characters with it (polynomial: the hook would see only the
        # start of a command).
        words = shape.sub.split()
        pattern += _GAP + " ".join(
            [_word(words[0]), *(_escape(w) + r"\b" for w in words[1:-1]), _word(words[-1])]
            if len(words) > 1
            else [_word(words[0])]
        )
    flag = dropped_flag(failing, fix) if fix else None
    if flag is not None:
        pattern += rf"(?={_GAP}\s{_escape(flag)}(?:[\s=]|$))"
    return pattern


def dropped_flag(failing: str, fix: str) -> str | None:
    """The first flag of ``failing``'s main command that the fix, the same executable, left out
    (neither a global option that moves the command elsewhere nor a noise flag)."""
    shape, fixed = main_shape(failing), main_shape(fix)
    if shape is None or fixed is None or fixed.exe != shape.exe:
        return None
    for flag in shape.flags:
        if flag not in fixed.flags and flag not in _VALUE_FLAGS and flag not in _NOISE_FLAGS:
            return flag
    return None


def value_flag_trigger(failing: str, fixed: str) -> str | None:
    """The command with a global option and its value that the fix dropped, where they moved
    it elsewhere (``npm --prefix ui test`` in a package without that script, fixed by ``npm
    test`` from the root): the option, the value and the subcommand together, never the
    command alone."""
    shape, fixed_shape = main_shape(failing), main_shape(fixed)
    if shape is None or fixed_shape is None or fixed_shape.exe != shape.exe:
        return None
    segment = segment_of(failing, shape.exe, shape.sub)
    words = segment.split() if segment else []
    for flag in shape.flags:
        if flag not in _VALUE_FLAGS or flag in fixed_shape.flags:
            continue
        values = _flag_values(words, flag)
        if not values:
            continue
        value = values[0]
        pattern = rf"{_word(shape.exe)}{_GAP}\s{_escape(flag)}[\s=]{_escape(value)}(?![\w/.-])"
        if shape.sub:
            pattern += _GAP + r"\s" + _escape(shape.sub.split()[0]) + r"\b"
        if compiler_accepts(pattern):
            return pattern
    return None


def value_changed(failing: str, fixed: str) -> tuple[str, str, list[str]] | None:
    """The option of the main command whose value the fix gave otherwise, both lines running
    the same program: ``("--to", "pdf", ["webpdf"])`` of ``jupyter nbconvert --to pdf`` →
    ``--to webpdf``, ``("--config", "auto", ["p/python", "rules.yml"])`` of ``semgrep scan
    --config auto`` → ``--config p/python --config rules.yml``. ``None`` when no option kept
    its name and lost its value."""
    shape, fixed_shape = main_shape(failing), main_shape(fixed)
    if shape is None or fixed_shape is None or fixed_shape.exe != shape.exe:
        return None
    mine = ((), *segments_of(failing, shape.exe, shape.sub))[-1]
    theirs = ((), *segments_of(fixed, fixed_shape.exe, fixed_shape.sub))[-1]
    for flag in shape.flags:
        if not flag.startswith("--") or flag in _NOISE_FLAGS:
            continue  # (a short option's next word may be an operand: ``-x file``)
        old, new = _flag_values(mine, flag), _flag_values(theirs, flag)
        gone = [value for value in old if value not in new]
        if gone and new and not set(new) <= set(old):
            return flag, gone[0], [value for value in new if value not in old]
    return None


def value_changed_trigger(failing: str, flag: str, old: str) -> str | None:
    """The program of ``failing`` with the value ``old`` of ``flag`` that the fix gave otherwise
    (:func:`value_changed`): ``semgrep`` with ``--config auto`` (or ``--config=auto``), which
    the program with any other value does not match."""
    shape = main_shape(failing)
    if shape is None:
        return None
    pattern = rf"{_word(shape.exe)}{_GAP}\s{_escape(flag)}[\s=]['\"]?{_escape(old)}(?![\w/.-])"
    return pattern if compiler_accepts(pattern) else None


def _flag_values(words: Sequence[str], flag: str) -> list[str]:
    """Every value given to ``flag`` among ``words`` (``--config a --config=b``), in order."""
    values = []
    for i, word in enumerate(words):
        if word == flag and i + 1 < len(words) and not words[i + 1].startswith("-"):
            values.append(words[i + 1])
        elif word.startswith(flag + "=") and len(word) > len(flag) + 1:
            values.append(word[len(flag) + 1 :])
    return values


def path_trigger(path: str) -> str | None:
    """A glob for files like ``path``: its extension anywhere, or its exact name."""
    p = PurePosixPath(path.replace("\\", "/"))
    if not p.name:
        return None
    if p.suffix and p.stem:
        return f"**/*{p.suffix}"
    return f"**/{p.name}"


def tags_for(tool: str | None, command: str | None, paths: tuple[str, ...] = ()) -> tuple[str, ...]:
    """``tool:<executable or tool>`` and ``lang:<language>`` tags."""
    tags: list[str] = []
    lang = None
    if command:
        shape = main_shape(command)
        if shape is not None:
            tags.append(f"tool:{shape.exe.lower()}")
            lang = LANG_BY_EXE.get(shape.exe.lower())
            if lang is None and _PYTHONS.match(shape.exe):
                lang = "python"
    elif tool:
        tags.append(f"tool:{tool.lower()}")
    for path in paths:
        lang = lang or LANG_BY_EXT.get(PurePosixPath(path).suffix.lower())
    if lang:
        tags.append(f"lang:{lang}")
    return tuple(tags)


#: Executables nearly every session runs: a trigger that is one of them alone fires on every
#: call of it, so it must say more (a subcommand, a flag, an anchor).
COMMON_EXECUTABLES = frozenset(
    {
        "ls", "cat", "grep", "rg", "sed", "awk", "find", "head", "tail", "wc", "echo", "cd",
        "git", "python", "python3", "node", "npm", "npx", "pnpm", "yarn", "bun", "uv", "pip",
        "pip3", "pytest", "ruff", "mypy", "make", "go", "cargo", "docker", "bash", "sh", "zsh",
        "curl", "mkdir", "rm", "cp", "mv", "touch", "chmod", "tree", "diff", "sort", "xargs",
        "jq", "tsc", "eslint", "prettier", "gh", "mise", "just", "deno", "java", "ruby",
    }
)  # fmt: skip


def is_bare_executable(pattern: str | None) -> bool:
    """Whether ``pattern`` is nothing but one executable's word (``\\bls\\b``)."""
    if not pattern:
        return False
    m = re.fullmatch(r"(?:\\b|\(\?<!\[\\w\./-\]\))(.+?)(?:\\b|\(\?!\[\\w-\]\))", pattern)
    if m is None:
        return False
    return re.fullmatch(r"[\w.+-]+", m.group(1).replace("\\", "")) is not None


def matches(pattern: str, command: str) -> bool:
    """Whether a command trigger fires for ``command`` (as the hook would search it)."""
    try:
        return re.search(pattern, command) is not None
    except re.error:
        return False


#: The option a "no such option" message names (``unknown option `dry-run'``, ``unrecognized
#: arguments: --foo``, ``unknown flag: --bar``, ``flag provided but not defined: -baz``); getopt
#: spells it after `` -- `` (``cat: illegal option -- A``, ``invalid option -- 'A'``), Biome's
#: parser names it first, in backticks (``--apply is not expected in this context``).
_NAMED_OPTION = kept_programs.compile(
    r"(?:unknown (?:shorthand )?(?:option|flag|argument|cli config)|"
    r"unrecognized (?:option|arguments?)|no such option|invalid option|"
    r"flag provided but not defined|unexpected argument|"
    r"illegal option)[:\s]*(?:--?\s?)?[`'\"]?(?P<name>-{0,2}[A-Za-z][\w-]*)|"
    r"[`'\"](?P<before>--?[A-Za-z][\w-]*)[`'\"] is not expected in this context|"
    # BSD find (a Mac's): ``find: -printf: unknown primary or operator``
    r"(?P<primary>-[A-Za-z][\w-]*): unknown primary or operator|"
    # a console library's: ``The option "--no-dev" does not exist``
    r"""\bthe (?:option )?["'`](?P<console>--?[A-Za-z][\w-]*)["'`] (?:option )?does not exist""",
    re.IGNORECASE,
)
#: The groups of :data:`_NAMED_OPTION` that may hold the option's name.
_OPTION_GROUPS = ("name", "before", "primary", "console")


def _option_group(m: re.Match[str]) -> str:
    """The group of a :data:`_NAMED_OPTION` match that holds the option's name."""
    return next(group for group in _OPTION_GROUPS if m.group(group))


def option_named(error: str, command: str) -> str | None:
    """The flag of ``command`` that ``error`` says does not exist, spelled as in the command."""
    m = _NAMED_OPTION.search(error)
    if m is None:
        return None
    name = m.group(_option_group(m)).lstrip("-")
    shape = main_shape(command)
    flags = shape.flags if shape is not None else ()
    for flag in flags:
        if flag.lstrip("-") == name:
            return flag
    for shape in shapes(command):
        for flag in shape.flags:
            if flag.lstrip("-") == name:
                return flag
    return None


#: One-letter options, alone or in a cluster (``-rP``, ``-la``), the last one's value a bare
#: ``-`` for standard output or input (``-qO-``): never a long option.
_SHORT_CLUSTER = kept_programs.compile(r"-[A-Za-z0-9]+-?")


def clustered_option(error: str, command: str) -> str | None:
    """The one-letter option ``error`` refuses when ``command`` gives it only inside a cluster
    of them (``P`` of ``grep -rP`` on a BSD grep, ``r`` of ``sed -nr`` on macOS), or ``None``.
    The lesson is about the letter, in whatever cluster the next call puts it."""
    m = _NAMED_OPTION.search(error)
    if m is None or option_named(error, command) is not None:
        return None
    found = _refused_cluster(m, command)
    return found[0] if found is not None else None


def _refused_cluster(m: re.Match[str], command: str) -> tuple[str, str] | None:
    """The one letter a :data:`_NAMED_OPTION` match names and the cluster of one-letter
    options of ``command``'s main command that holds it (``q`` and ``-qO-`` of ``… wget -qO-
    …``), as written; else ``None``."""
    letter = m.group(_option_group(m)).lstrip("-")
    if len(letter) != 1:
        return None
    shape = main_shape(command)
    flags = shape.flags if shape is not None else ()
    cluster = next((f for f in flags if _SHORT_CLUSTER.fullmatch(f) and letter in f[1:]), None)
    return (letter, cluster) if cluster is not None else None


def refused_option(error: str, command: str) -> str | None:
    """The option of ``command`` that ``error`` refuses, as written: by its name, or the
    cluster that holds the one letter the error names (``-qO-`` for ``unknown shorthand flag:
    'q' in -qO-``)."""
    named = option_named(error, command)
    m = _NAMED_OPTION.search(error) if named is None else None
    found = _refused_cluster(m, command) if m is not None else None
    return named or (found[1] if found is not None else None)


def with_short_option(base: str, letter: str) -> str | None:
    """``base`` carrying the one-letter option ``letter``, alone or in a cluster (``-P``,
    ``-rP``, ``-Pr``), in its segment (``None`` when the compiler would refuse the pattern)."""
    pattern = rf"{base}(?={_GAP}\s-[A-Za-z0-9]*{_escape(letter)}[A-Za-z0-9]*(?:[\s=]|$))"
    return pattern if compiler_accepts(pattern) else None


def passed_on(command: str, flag: str) -> bool:
    """Whether ``command`` hands ``flag`` on after a ``--`` (``cargo test -- --nocapture``):
    to the program the command runs, not to the command."""
    for seg in _segments(command):
        words = list(seg)
        if "--" in words:
            after = words[words.index("--") + 1 :]
            if any(word.split("=", 1)[0] == flag for word in after):
                return True
    return False


def before_dashes(base: str, flag: str) -> str | None:
    """``base`` carrying ``flag`` in its segment before any ``--``: the option given to the
    command rather than handed on (``None`` when the compiler would refuse the pattern)."""
    pattern = rf"{base}(?=(?:(?!\s--\s)[^|;&\n])*?\s{_escape(flag)}(?:[\s=]|$))"
    return pattern if compiler_accepts(pattern) else None


def option_from_elsewhere(error: str, command: str) -> bool:
    """Whether ``error`` refuses an option ``command`` does not hold: one a configuration file
    added (pytest's ``addopts`` naming ``--cov`` where pytest-cov is missing), which nothing
    in the command line shows."""
    m = _NAMED_OPTION.search(error)
    if m is None:
        return False
    at = m.start(_option_group(m))
    dashed = error[at : at + 1] == "-" or error[at - 1 : at] == "-"  # (the dashes may be left
    # out of the name, ``--cov`` read as ``cov``)
    return dashed and option_named(error, command) is None


def with_flag(base: str, flag: str) -> str:
    """``base`` (an executable/subcommand pattern) required to carry ``flag`` in its segment.

    A subcommand of several words (``npm run build``) makes the segment-bounded form
    polynomial for the compiler; it then takes the ``.*`` form, whose trailing look-ahead the
    compiler rewrites to be tried once, on the first match.
    """
    bounded = rf"{base}(?={_GAP}\s{_escape(flag)}(?:[\s=]|$))"
    if compiler_accepts(bounded):
        return bounded
    return rf"{base.replace(_GAP, '.*')}(?=.*\s{_escape(flag)}(?:[\s=]|$))"


def without_flag(base: str, flag: str) -> str:
    """``base`` on a command line that does not carry ``flag`` after it (what the fix added).

    Written with ``.*`` rather than the segment-bounded gap: the compiler rewrites a trailing
    ``(?!.*X)`` to be tried once, on the last match, while a gap before a negative look-ahead
    would make the hook's search quadratic in the command's length (and the hook would match
    it against the start of a command only). A one-letter option counts in a cluster too:
    ``git commit -am 'x'`` gives ``-m``.
    """
    given = f"-[A-Za-z]*{_escape(flag[1])}" if _SHORT_FLAG.fullmatch(flag) else _escape(flag)
    return rf"{base.replace(_GAP, '.*')}(?!.*\s{given}(?:[\s=]|$))"


_SHORT_FLAG = kept_programs.compile(r"-[A-Za-z]")


def without_flag_before(base: str, flag: str) -> str | None:
    """``base`` in a simple command that carries ``flag`` nowhere, before the program either:
    a runner's option the fix added (``uv run --group docs mkdocs``), which
    :func:`without_flag` would look for after the program only (``None`` when the compiler
    would refuse the pattern)."""
    pattern = rf"(?:^|[;&|(])(?![^;&|\n]*\s{_escape(flag)}(?:[\s=]|$))[^;&|\n]*?{base}"
    return pattern if compiler_accepts(pattern) else None


_SINGLE_QUOTED = kept_programs.compile(r"'([^'\n]*)'")


def single_quoted(failing: str, fixed: str) -> str | None:
    """The argument ``fixed`` put in single quotes where ``failing`` had it in double quotes the
    shell reads into (a ``$``, a backtick, a history ``!``, an inner ``"``), nothing else
    changed but options added (``git commit --amend``, once the first commit went in with a
    mangled message); else ``None``. Double quotes the fix put inside, which the single ones
    pass on, may be new (``ssh host "cd $ROOT/app"`` → ``ssh host 'cd "$ROOT/app"'``: the
    variable is now the remote shell's)."""
    for m in _SINGLE_QUOTED.finditer(fixed):
        inner = m.group(1)
        if not ("$" in inner or '"' in inner or "`" in inner or "!" in inner):
            continue
        for was in dict.fromkeys((inner, inner.replace('"', ""))):
            swapped = fixed[: m.start()] + f'"{was}"' + fixed[m.end() :]
            if swapped == failing or options_added(failing, swapped):
                return inner
    return None


def bare_key(failing: str, fixed: str) -> str | None:
    """The word ``failing`` left bare with a quoted key in brackets (``this["audit-logs"]``),
    whose quotes the shell removed, that ``fixed`` gave whole in single quotes, nothing else
    changed; else ``None``."""
    for m in _SINGLE_QUOTED.finditer(fixed):
        inner = m.group(1)
        if _BRACKET_KEY.search(inner) and fixed[: m.start()] + inner + fixed[m.end() :] == failing:
            return inner
    return None


#: A key in quotes inside brackets (``this["audit-logs"]``, ``.env['HOME']``).
_BRACKET_KEY = kept_programs.compile(r"""\[["']""")


def bare_key_trigger(command: str) -> str | None:
    """``command``'s program given a bare word with a quoted key in brackets."""
    shape = main_shape(command)
    return _given(_word(shape.exe) if shape is not None else None, r"""[^\s'"|;&]+\[["']""")


def double_quoted_trigger(command: str) -> str | None:
    """The main command of ``command`` given a double-quoted word the shell reads into: one
    holding a ``$`` after other text (``"{print $2}"``; not ``"$FILE"``, which is meant), a
    backtick not escaped (``"use `fetch`"`` runs ``fetch``), a ``!`` before a word (an
    interactive shell's history), or an inner ``"`` that ends it before a word goes on."""
    shape = main_shape(command)
    base = base_trigger(command)
    if shape is None or base is None:
        return None
    pattern = rf"{base}{_GAP}\s\"(?:[^\"\n]+\$|[^\"\n]*(?<!\\)`|[^\"\n]*![\w-]|[^\"\n]*\"[^\s|;&)])"
    return pattern if compiler_accepts(pattern) else None


def case_swapped(failing: str, fixed: str) -> str | None:
    """The one-letter option ``failing`` gave that ``fixed`` gave in the other case instead,
    nothing else changed (``-p`` of ``scp -p 2222 …`` → ``scp -P 2222 …``); else ``None``."""
    mine, theirs = main_shape(failing), main_shape(fixed)
    if mine is None or theirs is None or (mine.exe, mine.sub) != (theirs.exe, theirs.sub):
        return None
    dropped = [flag for flag in mine.flags if flag not in theirs.flags]
    added = [flag for flag in theirs.flags if flag not in mine.flags]
    if len(dropped) != 1 or len(added) != 1:
        return None
    if added[0] != dropped[0].swapcase() or failing.replace(dropped[0], added[0]) != fixed:
        return None
    return dropped[0]


def option_ahead(command: str, flag: str) -> bool:
    """Whether ``flag`` stands before the command's own words in ``command``: an option of the
    runner in front of it (``--yes`` of ``npx --yes create-vite``) or of the program before
    its subcommand (``--no-pager`` of ``git --no-pager diff``)."""
    for words in _segments(command):
        shape = shape_of(list(words)) if flag in words[1:] else None
        if shape is None:
            continue
        names = [PurePosixPath(word).name for word in words]
        at = names.index(shape.exe) if shape.exe in names else 0
        if shape.sub is not None and shape.sub.split()[0] in words[at + 1 :]:
            at = words.index(shape.sub.split()[0], at + 1)
        return flag in words[1:at]
    return False


#: The name an error suggests in place of one it does not know: "did you mean 'unit_tests'?",
#: cargo's "Did you mean `build`?", gh's "Did you mean this?\n\tpr", git's "The most similar
#: command is\n\tstatus".
_SUGGESTED = kept_programs.compile(
    r"(?:did you mean(?: this| one of these)?\??|most similar commands? (?:is|are))[\s:]*"
    r"[`'\"]?([\w.:/@+-]+)",
    re.IGNORECASE,
)


def took_suggestion(failing: str, fixed: str, error: str) -> bool:
    """Whether ``fixed`` is ``failing`` with one word swapped for the name ``error`` suggested
    in its place (``--target unit_test`` → ``unit_tests``, ninja's "did you mean
    'unit_tests'?"): a slip of the keys, which the tool itself set right; the fix may run more
    after it (``… && ./build/tests/unit_tests``)."""
    mine = _segments(failing)
    swapped = _one_word(_one_segment(mine, _segments(fixed)[: len(mine)]))
    if swapped is None:
        return False
    suggested = {m.group(1).rstrip(".?'\"`") for m in _SUGGESTED.finditer(error[:3000])}
    return swapped[1] in suggested


def _swapped_word(failing: str, fixed: str) -> tuple[str, str] | None:
    """The one word ``fixed`` wrote otherwise, as each wrote it, when nothing else of the two
    lines differs; else ``None``."""
    return _one_word(changed_segment(failing, fixed))


def _one_word(
    changed: tuple[tuple[str, ...], tuple[str, ...]] | None,
) -> tuple[str, str] | None:
    """The one word of a changed simple command written otherwise, as each wrote it, when
    the rest of it is the same; else ``None``."""
    if changed is None or len(changed[0]) != len(changed[1]):
        return None
    words = [(m, t) for m, t in zip(*changed, strict=True) if m != t]
    return words[0] if len(words) == 1 else None


def changed_segment(failing: str, fixed: str) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The one simple command of ``failing`` that ``fixed`` wrote otherwise, as each wrote it,
    when the two lines hold as many and the rest are the same; else ``None``."""
    return _one_segment(_segments(failing), _segments(fixed))


def _one_segment(
    mine: tuple[tuple[str, ...], ...], theirs: tuple[tuple[str, ...], ...]
) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The one simple command of ``mine`` that ``theirs`` holds otherwise, when both hold as
    many and the rest are the same; else ``None``."""
    if len(mine) != len(theirs):
        return None
    changed = [(m, t) for m, t in zip(mine, theirs, strict=True) if m != t]
    return changed[0] if len(changed) == 1 else None


def run_through(failing: str, fixed: str) -> bool:
    """Whether ``fixed`` is ``failing`` run through something in front of it (``uv run``,
    ``poetry run``, ``npx``, ``bundle exec``) or by the relative path of the project's own
    copy (``.venv/bin/pytest``), with nothing else changed."""
    changed = changed_segment(failing, fixed)
    if changed is None or not changed[0]:
        return False
    was, now = changed
    if len(now) > len(was) and now[len(now) - len(was) :] == was:
        # (a variable set in front is no environment, nor are more privileges)
        return not _ASSIGNMENT.match(now[0]) and now[0] not in _PRIVILEGED
    return (
        len(now) == len(was)
        and now[1:] == was[1:]
        and "/" in now[0]
        and not now[0].startswith(("/", "~"))  # (a program elsewhere on the machine is not)
        and PurePosixPath(now[0]).name == was[0]
    )


def backgrounded(failing: str, fixed: str) -> bool:
    """Whether ``fixed`` is ``failing`` sent to the background (``… &``, with ``nohup`` in
    front or its output sent to a file), and nothing else changed."""
    bare = re.sub(r"^\s*nohup\s+", "", fixed.strip())
    if not bare.endswith("&"):
        return False
    bare = re.sub(r"\s*(?:[12]?>>?\s*\S+|2>&1|&>\s*\S+)", "", bare[:-1]).strip()
    return bare == failing.strip()


def in_foreground(base: str) -> str | None:
    """``base`` where no lone ``&`` after it sends the command to the background (``&&`` and a
    redirection's ``2>&1``, ``&>`` do not), or ``None`` when the compiler would refuse the
    pattern."""
    pattern = rf"{base.replace(_GAP, '.*')}(?![^;|\n]*?(?<![&>])&(?![&>\d]))"
    return pattern if compiler_accepts(pattern) else None


def line_without_flag(base: str, flag: str) -> str | None:
    """``base`` on a command line that does not carry ``flag`` anywhere, before it as well:
    what a fix gave a runner in front of the command (``npx --yes create-vite``) or the program
    before its subcommand (``git --no-pager diff``). ``None`` when the compiler would refuse
    the pattern."""
    pattern = rf"^(?![^\n]*\s{_escape(flag)}(?:[\s=]|$))[^\n]*?{base}"
    return pattern if compiler_accepts(pattern) else None


def without_assignment(base: str, name: str) -> str | None:
    """``base`` on a command line that does not set the variable ``name`` (what the fix put in
    front of the command: ``GIT_SEQUENCE_EDITOR=true git rebase -i``), or ``None`` when the
    compiler would refuse the pattern."""
    pattern = rf"^(?![^\n]*\b{_escape(name)}=)[^\n]*?{base}"
    return pattern if compiler_accepts(pattern) else None


def after_assignments(segment: tuple[str, ...]) -> tuple[str, ...]:
    """A simple command from its program on, without the variables set in front of it."""
    return tuple(itertools.dropwhile(_ASSIGNMENT.match, segment))


def assignments(command: str) -> list[str]:
    """The variables the simple commands of ``command`` set for themselves (``CI`` of ``CI=1 npm
    test``), in order."""
    return [
        word.split("=", 1)[0]
        for seg in _segments(command)
        for word in itertools.takewhile(_ASSIGNMENT.match, seg)
    ]


def assignments_added(before: str, again: str) -> list[str]:
    """The ``NAME=value`` words ``again`` sets in front of ``before``'s one simple command that
    ``before`` did not, when that is all that differs (``GOCACHE=/tmp/go`` of ``go test`` →
    ``GOCACHE=/tmp/go go test``); else ``[]``."""
    mine, theirs = _pair_segments(before, again)
    if len(mine) != 1 or len(theirs) != 1:
        return []
    was = list(itertools.takewhile(_ASSIGNMENT.match, mine[0]))
    now = list(itertools.takewhile(_ASSIGNMENT.match, theirs[0]))
    if mine[0][len(was) :] != theirs[0][len(now) :] or not set(was) <= set(now):
        return []
    return [word for word in now if word not in was]


def assignment_moved(before: str, again: str) -> tuple[str, bool] | None:
    """The variable ``again`` sets on the other side of its program than ``before`` did, the
    rest unchanged, and whether it became an argument: ``("VERSION", True)`` of ``VERSION=v2
    make package`` → ``make package VERSION=v2`` (make's own assignment beats the environment,
    an argument beats both); ``("DEBUG", False)`` of ``npm test DEBUG=1`` → ``DEBUG=1 npm
    test`` (an operand is no setting). ``None`` otherwise."""
    mine, theirs = _pair_segments(before, again)
    if len(mine) != 1 or len(theirs) != 1:
        return None
    for was, now, to_argument in ((mine[0], theirs[0], True), (theirs[0], mine[0], False)):
        front = list(itertools.takewhile(_ASSIGNMENT.match, was))
        rest = was[len(front) :]
        for word in front:
            kept = tuple(w for w in front if w != word)
            at = now.index(word) if word in now else 0
            if rest and at > len(kept) and now[:at] + now[at + 1 :] == (*kept, *rest):
                return word.split("=", 1)[0], to_argument
    return None


def assignment_trigger(command: str, name: str, in_front: bool) -> str | None:
    """A pattern for ``command``'s program given ``NAME=`` in front of it (``in_front``), past
    any other assignments, or among its arguments; ``None`` where ``command`` has no program."""
    shape = main_shape(command)
    if shape is None:
        return None
    setting = rf"\b{_escape(name)}=[^\s;&|]*"
    if in_front:
        return setting + rf"\s+(?:[A-Za-z_]\w*=[^\s;&|]*\s+)*{_word(shape.exe)}"
    return _word(shape.exe) + _GAP + r"\s" + setting


def assignment(command: str, name: str) -> str:
    """``NAME=value`` as ``command`` sets it in front of a command (the name alone if not)."""
    for words in _segments(command):
        for word in itertools.takewhile(_ASSIGNMENT.match, words):
            if word.startswith(f"{name}="):
                return word
    return name


def anchored(pattern: str) -> str:
    """``pattern`` only as the first word of the command line: the executable run bare, from
    PATH, rather than through a virtual environment or a runner (``uv run``, ``npx``)."""
    return rf"^\s*{pattern}"


def tight_trigger(command: str) -> str | None:
    """Executable and subcommand as adjacent words, the subcommand ending there: ``npm test``
    but not ``npm run test:unit``. ``None`` when the command has no subcommand."""
    shape = main_shape(command)
    if shape is None or not shape.sub:
        return None
    words = [shape.exe, *shape.sub.split()]
    return _word(words[0]) + "".join(rf"\s+{_escape(w)}" for w in words[1:]) + r"(?![\w:.-])"


def whole_trigger(command: str) -> str | None:
    """The main command of ``command`` as its words were written, where it has no subcommand
    but options or operands (``dpkg-buildpackage -us -uc -S``): the very run a task of the
    project's does; ``None`` for a program named alone."""
    shape = main_shape(command)
    if shape is None or shape.sub:
        return None
    words = _words_of(command, shape)
    if len(words) < 2:
        return None
    return _word(shape.exe) + "".join(rf"\s+{_escape(w)}" for w in words[1:]) + r"(?![^\s|;&])"


def action_or_whole(command: str) -> str | None:
    """:func:`action_trigger`, or the command named whole where it has no subcommand
    (``ssh-keygen``)."""
    return action_trigger(command) or base_trigger(command)


#: Subcommands whose next word is what they act on, not an action of theirs (``apt-get
#: install jq``: the lesson is about installing, whatever the package).
_OPERAND_VERBS = frozenset({"install", "i", "add", "remove", "uninstall", "purge", "upgrade"})
#: Those of them that install what they name.
_INSTALL_VERBS = _OPERAND_VERBS - {"remove", "uninstall", "purge"}


def action_trigger(command: str) -> str | None:
    """Executable, subcommand and the action word after it, adjacent, the last one ending
    there: ``gh pr create`` but not ``gh pr view``; ``git commit`` alone where no plain word
    follows the subcommand. ``None`` when the command has no subcommand."""
    tight = tight_trigger(command)
    shape = main_shape(command)
    if tight is None or shape is None or shape.sub is None or " " in shape.sub:
        return tight
    found = segments_of(command, shape.exe, shape.sub)
    words = list(found[-1]) if found else []
    at = words.index(shape.sub) + 1 if shape.sub in words else len(words)
    action = words[at] if at < len(words) else ""
    if _SUBCOMMAND.fullmatch(action) and shape.sub not in _OPERAND_VERBS:
        return tight.removesuffix(r"(?![\w:.-])") + rf"\s+{_escape(action)}(?![\w:.-])"
    return tight


def first_word_trigger(command: str) -> str | None:
    """The command line's first word as its first word (``^\\s*\\bpython\\b``): a script run
    by the bare interpreter rather than the project's (``uv run python x.py``)."""
    seg = _segments(command)
    if not seg or not seg[0]:
        return None
    word = PurePosixPath(seg[0][0]).name or seg[0][0]
    if word in _SETUP or not re.fullmatch(r"[\w.+-]+", word):
        return None
    return first_trigger(word)


#: The program a shell could not find, in each shell's words: bash's ``python: command not
#: found``, zsh's ``command not found: python``, dash's ``python: not found``, Go's ``exec:
#: "python": executable file not found``.
_NOT_FOUND = kept_programs.compile(
    r"command not found: ([\w.+-]+)|([A-Za-z_][\w.+-]*): command not found(?!: )|"
    r"([A-Za-z_][\w.+-]*): not found$|\"([\w.+-]+)\": executable file not found",
    re.MULTILINE,
)


#: A program name's version (``-17`` of ``clang-format-17``, ``3.12`` of ``python3.12``):
#: what the names of one program's versions differ by. A digit alone ends names of their own
#: (``md5``, ``base64``): ``python3``'s kind is in :data:`OTHER_NAMES`.
_VERSIONED = re.compile(r"-\d+(?:\.\d+)*$|(?<=[a-z])\d+\.\d+$")


def unversioned(name: str) -> str:
    """``name`` without its version (``clang-format`` of ``clang-format-17``)."""
    return _VERSIONED.sub("", name)


#: Executables that stand for one another (``pip3`` failing is corrected by a ``pip`` that
#: works in the right environment; Debian installs ``fd`` and ``bat`` under other names).
OTHER_NAMES = {
    "pip3": "pip",
    "python3": "python",
    "pytest-3": "pytest",
    "nodejs": "node",
    "fdfind": "fd",
    "batcat": "bat",
    # GNU's tools as Homebrew installs them on a Mac, beside the system's BSD ones.
    **{
        "g" + name: name
        for name in (
            "make",
            "sed",
            "tar",
            "date",
            "xargs",
            "grep",
            "find",
            "awk",
            "readlink",
            "stat",
            "timeout",
            "split",
            "du",
        )
    },
    # A build tool's own script in the project, which fetches and runs the version it wants.
    "mvnw": "mvn",
    "gradlew": "gradle",
    # A project is managed with one package manager; the others refuse its lock file or its
    # ``workspace:`` versions, and the same command through the right one is the fix.
    "pnpm": "npm",
    "yarn": "npm",
    "bun": "npm",
}


def program_kind(name: str) -> str:
    """The program ``name`` is a name of, whatever its version (``pip`` of ``pip3``,
    ``clang-format`` of ``clang-format-17``)."""
    return unversioned(OTHER_NAMES.get(name, name))


#: Programs that run a project's tasks and print what each runs at work (``make`` echoes its
#: recipe, ``npm run`` its script behind a ``>``).
TASK_RUNNERS = frozenset(
    {"make", "just", "task", "rake", "tox", "nox", "npm", "pnpm", "yarn", "bun", "mise"}
)


def project_task(failing: str, fixed: str) -> str | None:
    """The project's own way to run the subcommand ``failing`` ran, that ``fixed`` took in its
    place, as the fix wrote it up to the subcommand; else ``None``. Three forms count: a task
    runner's task of that name (``pnpm lint`` for ``npx next lint``, ``make test`` for ``go
    test ./...``); the runner's ``run`` or ``task`` of a name it also has a subcommand for
    (``bun run test`` for ``bun test``, which starts Bun's own test runner); and another
    program given the very subcommand and arguments (``python manage.py makemessages -l de``
    for ``django-admin makemessages -l de``). Two runners' tasks of one name are no such thing:
    ``npm test`` and ``make test`` are two tasks."""
    shape, task = main_shape(failing), main_shape(fixed)
    if shape is None or task is None or not shape.sub or not task.sub:
        return None
    words = _words_of(fixed, task)
    if task.exe in TASK_RUNNERS:
        name = task.sub.split()[-1]  # (``run lint`` of ``npm run lint``)
        own = shape.exe == task.exe and task.sub in (f"run {name}", f"task {name}")
        if (shape.exe in TASK_RUNNERS and not own) or name != shape.sub:
            return None
        return _written_up_to(words, name)
    if shape.exe in TASK_RUNNERS or shape.sub != task.sub:
        return None
    if program_kind(shape.exe) == program_kind(task.exe):
        return None  # (another name of the same program: ``pip3`` → ``pip``)
    if _names_program(words, shape.exe):
        return None  # (the program itself, run another way: a wrapper's lesson)
    sub = shape.sub.split()[0]
    ran = _words_of(failing, shape)
    if sub not in words or sub not in ran or ran[ran.index(sub) :] != words[words.index(sub) :]:
        return None  # (not the same job: other arguments)
    return _written_up_to(words, sub)


def _words_of(command: str, shape: Shape) -> tuple[str, ...]:
    """The words of ``command``'s first simple command of ``shape`` (none where it has none)."""
    return next(iter(segments_of(command, shape.exe, shape.sub)), ())


def _written_up_to(words: tuple[str, ...], name: str) -> str | None:
    """``words`` up to ``name``, as the fix wrote them (``pnpm run lint``); ``None`` where
    ``name`` is not among them."""
    return " ".join(words[: words.index(name) + 1]) if name in words else None


def _names_program(words: tuple[str, ...], exe: str) -> bool:
    """Whether one of ``words`` is the program ``exe``, by name or path: the program itself,
    run through another (``mise exec -- hugo``)."""
    return any(PurePosixPath(word).name == exe for word in words)


def other_version(failing: str, fixed: str) -> str | None:
    """The program ``fixed`` ran in place of ``failing``'s, another version of it, the rest of
    the line the same (``clang-format-17`` for ``clang-format``, the version the project's CI
    pins; ``python3.12`` for ``python3``; ``gmake`` for ``make``, the GNU build a Mac installs
    beside its own under a ``g`` name); else ``None``."""
    for was, now in zip(*_pair_segments(failing, fixed), strict=False):
        if not was or not now:
            continue  # (a command of a redirection alone: ``2>&1``)
        old, new = PurePosixPath(was[0]).name, PurePosixPath(now[0]).name
        versioned = _VERSIONED.search(old) or _VERSIONED.search(new)
        # (``python3`` and ``python3.12`` are one program; ``pip3`` and ``pip`` one name)
        same = unversioned(old).rstrip("0123456789") == unversioned(new).rstrip("0123456789")
        gnu = new == "g" + old  # (``gsed``, ``gtar``, ``gmake`` beside ``sed``, ``tar``, ``make``)
        if old != new and was[1:] == now[1:] and ((versioned and same) or gnu):
            return new
    return None


def other_subcommand(failing: str, fixed: str) -> str | None:
    """The subcommand of the same program that ``fixed`` gave ``failing``'s arguments to, as
    the fix wrote it up to them (``vcpkg add port`` for ``vcpkg install fmt spdlog`` →
    ``vcpkg add port fmt spdlog``; ``yarn add`` for ``yarn install lodash``): the job is that
    subcommand's, whatever the first one is for. ``None`` where the arguments are no operand
    (``npm test --watch`` → ``npm run dev --watch`` is another job) or changed, or where the
    fix ran the command itself again after the other (``git pull origin main && git push
    origin main``: a step first)."""
    mine, theirs = _pair_segments(failing, fixed)
    shape = shape_of(list(mine[0])) if len(mine) == 1 and mine[0] else None
    if shape is None or not shape.sub or shape.sub not in mine[0]:
        return None
    tail = mine[0][mine[0].index(shape.sub) + 1 :]
    if not operands_of(("", *tail)) or mine[0] in theirs:
        return None  # (the command itself run again after the other: a step first)
    for now in theirs:
        other = shape_of(list(now)) if now else None
        if other is None or not other.sub or other.sub == shape.sub:
            continue
        first = other.sub.split()[0]
        if unversioned(other.exe) != unversioned(shape.exe) or first not in now:
            continue
        rest = now[now.index(first) + 1 :]
        extra = len(rest) - len(tail)
        if 0 <= extra <= 1 and rest[extra:] == tail:  # (one word more at most: ``add port``)
            return " ".join(
                (PurePosixPath(now[0]).name, *now[now.index(first) : len(now) - len(tail)])
            )
    return None


def _given(head: str | None, word: str) -> str | None:
    """``head`` (a pattern for a program, or a program and its subcommand), then, in its simple
    command, a word that starts as ``word`` does; ``None`` where there is no head."""
    return head + _GAP + r"\s" + word if head is not None else None


def operand_given_trigger(command: str) -> str | None:
    """A pattern for ``command``'s program and subcommand, adjacent, then a word that is no
    option before the command ends (``vcpkg install fmt``, not ``vcpkg install`` alone)."""
    # (a redirection is no operand: ``2>&1``)
    return _given(tight_trigger(command), r"(?!-|\d*[<>])[^\s|;&<>]")


def task_that_ran(failing: str, fixed: str, output: str) -> str | None:
    """The project's task ``fixed`` ran that printed ``failing``'s command at work (``make
    deploy-staging`` echoing ``nomad job run -var-file=… deploy/api.nomad.hcl`` for ``nomad job
    run deploy/api.nomad.hcl``), as the fix wrote it up to the task's name; else ``None``. The
    echo says the task is how this project runs it, whatever the task is called. The echo
    names the command's subcommand too, or, where it has none, every word of it
    (``dpkg-buildpackage -us -uc -S``): a program's banner (``hugo v0.139.3 …``) starts with
    its name alone. A runner handed the program itself (``mise exec -- hugo``) wraps it."""
    shape, task = main_shape(failing), main_shape(fixed)
    if shape is None or task is None or not task.sub:
        return None
    words = _words_of(fixed, task)
    if (
        shape.exe in TASK_RUNNERS
        or task.exe not in TASK_RUNNERS
        or _names_program(words, shape.exe)
    ):
        return None
    said = [shape.exe, *(shape.sub.split() if shape.sub else _words_of(failing, shape)[1:])]
    if len(said) < 2:
        return None  # (the program's name alone: a banner's first word too)
    echo = re.compile(r"^[ \t]*(?:[+>$][ \t]+)?" + r"\s+".join(_word(w) for w in said))
    if not any(echo.match(line) for line in output.splitlines()[:40]):
        return None
    return _written_up_to(words, task.sub.split()[-1])


def programs_of(command: str) -> set[str]:
    """The programs the simple commands of ``command`` start, by name (``adb`` of
    ``/usr/bin/adb install``)."""
    return {PurePosixPath(words[0]).name for words in _segments(command)}


def missing_program(command: str, error: str) -> str | None:
    """The program ``error`` says the shell could not find, when a simple command of
    ``command`` starts with it (``python`` of ``python scripts/gen.py``, ``timeout`` of
    ``timeout 30 npm test``): the word the lesson is about, whatever it runs."""
    firsts = programs_of(command)
    for m in _NOT_FOUND.finditer(error[:1500]):
        name = next(group for group in m.groups() if group)
        if name in firsts and name not in _SETUP:
            return name
    return None


def stand_in(failing: str, fixed: str, error: str) -> str | None:
    """The program that ``fixed`` runs where ``failing`` ran the program the error says is not
    on PATH, the rest of the line unchanged (``json.tool`` of ``curl … | python3 -m
    json.tool`` for ``curl … | jq .x``), or ``None``. A fix that still names the missing
    program anywhere is none: it found the program, not another; nor is another name of it."""
    missing = missing_program(failing, error)
    if missing is None:
        return None
    if any(PurePosixPath(word).name == missing for seg in _segments(fixed) for word in seg):
        return None
    changed = changed_segment(failing, fixed)
    if changed is None or not changed[0]:
        return None  # (the one changed is the stage the missing program started)
    was, now = changed
    if was[1:] == now[1:] or "-".join(PurePosixPath(w).name for w in now[:2]) == missing:
        # the same arguments to another name of it (``python`` → ``python3``), or a CLI's
        # plugin by its other name (``docker-compose`` → ``docker compose``)
        return None
    shape = shape_of(list(now))
    if shape is None or shape.exe in _SETUP:
        return None
    if shape.exe in TASK_RUNNERS and shape.sub:
        return f"{shape.exe} {shape.sub}"  # a task of the project's: the task is the way
    return shape.exe


def option_stand_in(failing: str, fixed: str, error: str) -> tuple[str, str] | None:
    """The option ``error`` says ``failing``'s program does not have, and the program (or
    subcommand) ``fixed`` ran instead on the same operands, the rest of the line unchanged
    (``("-f", "realpath")`` of ``readlink -f ./build`` → ``realpath ./build`` on a Mac; ``date
    -d …`` → ``gdate -d …``; ``("--fix", "ruff check")`` of ``ruff format --fix .`` → ``ruff
    check --fix .``); else ``None``."""
    flag = option_named(error, failing)
    if flag is None:
        return None
    changed = changed_segment(failing, fixed)
    if changed is None:
        return None
    was, now = (shape_of(list(words)) for words in changed)
    if was is None or now is None or now.exe in _SETUP or flag not in was.flags:
        return None
    mine, theirs = operands_of(changed[0]), operands_of(changed[1])
    if was.exe != now.exe:
        return (flag, now.exe) if mine == theirs else None
    # the same program: another subcommand, its first word that is no option (and reads as
    # one: grep's changed pattern is none)
    if not mine or not theirs or mine[0] == theirs[0] or mine[1:] != theirs[1:]:
        return None
    if not (_SUBCOMMAND.fullmatch(mine[0]) and _SUBCOMMAND.fullmatch(theirs[0])):
        return None
    return flag, f"{now.exe} {theirs[0]}"


def empty_value_added(failing: str, fixed: str) -> str | None:
    """The option after which ``fixed`` put an empty argument, nothing else changed (``-i`` of
    ``sed -i 's/a/b/' f`` → ``sed -i '' 's/a/b/' f``: BSD ``sed`` reads the next word as the
    backup suffix); else ``None``."""
    changed = changed_segment(failing, fixed)
    if changed is None:
        return None
    was, now = changed
    if "" not in now:
        return None
    at = now.index("")
    if at == 0 or not _FLAG.match(now[at - 1]) or now[:at] + now[at + 1 :] != was:
        return None
    return now[at - 1]


def empty_value_trigger(command: str, flag: str) -> str | None:
    """``command``'s program given ``flag`` followed by anything but an empty argument."""
    base = base_trigger(command)
    if base is None:
        return None
    pattern = rf"""{base}(?={_GAP}\s{_escape(flag)}\s+(?!''|"")\S)"""
    return pattern if compiler_accepts(pattern) else None


def verb_trigger(command: str) -> str | None:
    """``command``'s program with its first word that is no option (``ruff format``): what a
    program without known subcommands is asked to do."""
    base = base_trigger(command)
    shape = main_shape(command)
    found = segments_of(command, shape.exe, shape.sub) if shape is not None else ()
    operands = operands_of(found[0]) if found else []
    if base is None or not operands:
        return None
    return rf"{base}{_GAP}\s{_escape(operands[0])}(?![\w.-])"


#: Files given by the set: a glob, a command's output, ``xargs`` or ``find -exec``.
_FILE_SET = kept_programs.compile(r"\*|\$\(|`|\bxargs\b|\s-exec\b")


def folder_given(failing: str, fixed: str, error: str) -> str | None:
    """The folder ``failing`` gave its program that ``error`` names and its fix no longer gave,
    the program the same (``src/`` of ``ormolu --mode inplace src/`` → ``ormolu --mode inplace
    $(git ls-files '*.hs')``): a program that takes files, not a folder to walk. The fix gave
    it files by the set (a glob, a command's output, ``xargs``); one file of the folder read
    next was a look around it (``cat docs`` → ``cat docs/README.md``). Else ``None``."""
    shape, again = main_shape(failing), main_shape(fixed)
    if shape is None or again is None or shape.exe != again.exe:
        return None
    if not _FILE_SET.search(fixed):
        return None
    head = error[:1500]
    fix_words = {word.rstrip("/") for seg in _segments(fixed) for word in seg}
    for seg in segments_of(failing, shape.exe, shape.sub):
        for word in operands_of(seg):
            name = word.rstrip("/")
            said = re.search(rf"(?<![\w./-]){re.escape(name)}/?(?![\w.-])", head)
            if name and name not in fix_words and said is not None:
                return word
    return None


def folder_trigger(failing: str, folder: str) -> str | None:
    """A pattern for ``failing``'s program given ``folder`` (with a trailing ``/`` or without)
    as a word of its own."""
    shape = main_shape(failing)
    if shape is None:
        return None
    name = _escape(folder.rstrip("/"))
    return _word(shape.exe) + _GAP + rf"\s{name}/?(?![^\s;&|)])"


def operands_of(words: tuple[str, ...]) -> list[str]:
    """The words of a simple command after its program that are no option."""
    return [word for word in words[1:] if not word.startswith("-")]


#: An error saying an environment variable the command needs is not set: Prisma's and
#: python-dotenv's words, Python's ``KeyError`` on ``os.environ``, and the usual "X is not set",
#: "missing environment variable X". A name of capitals, digits and ``_`` only.
_MISSING_VARIABLE = kept_programs.compile(
    r"[Ee]nvironment variable not found: (?P<a>[A-Z][A-Z0-9_]{2,})|"
    r"KeyError: '(?P<b>[A-Z][A-Z0-9_]{2,})'|"
    r"\b(?P<c>[A-Z][A-Z0-9]*_[A-Z0-9_]+)(?: environment variable)? (?:is not set|is not defined|"
    r"must be set|is required|is missing)|"
    r"[Mm]issing (?:required )?(?:environment|env) variables?:? [`'\"]?(?P<d>[A-Z][A-Z0-9_]{2,})"
)
#: A command that loads an env file (a shell's ``source``, one of :data:`_ENV_LOADERS`, an
#: ``--env-file``), or a shell that exports what it sources.
_LOADS_ENV = kept_programs.compile(
    r"(?:^|[;&|(])\s*(?:source|\.)\s+\S|"
    rf"(?:^|[;&|(]|\s)(?:{'|'.join(sorted(_ENV_LOADERS))})\s|"
    r"--env-file\b|\bset\s+-a\b"
)


def missing_variable(error: str) -> str | None:
    """The environment variable ``error`` says is not set (``DATABASE_URL`` of Prisma's
    "Environment variable not found: DATABASE_URL"), or ``None``."""
    m = _MISSING_VARIABLE.search(error[:3000])
    return next(group for group in m.groups() if group) if m else None


def loads_variable(failing: str, fixed: str, name: str) -> bool:
    """Whether ``fixed`` sets ``name`` or loads an env file where ``failing`` did neither: the
    variable was there all along, for a shell that read it."""
    assigned = kept_programs.compile(rf"(?:^|[\s;&|(]){_escape(name)}=")
    if assigned.search(failing) or _LOADS_ENV.search(failing):
        return False
    return bool(assigned.search(fixed) or _LOADS_ENV.search(fixed))


def options_added(before: str, again: str, *, with_values: bool = False) -> list[str]:
    """The options ``again`` gives that ``before``, the same one simple command, did not, when
    that is all that differs (``-u`` of ``git stash`` → ``git stash -u``); else ``[]``. With
    ``with_values`` an added option may bring the word after it as its value (``docker run
    --platform linux/arm64``), or be a variable given as an argument (``make install
    PREFIX=~/.local``), which is what a summary tells; a trigger has no use for them."""
    mine, theirs = _pair_segments(before, again)
    if len(mine) != 1 or len(theirs) != 1:
        return []
    added = [word for word in theirs[0] if word not in mine[0]]
    gone = [word for word in mine[0] if word not in theirs[0]]
    if not added or gone:
        return []
    # (with values, a make-style ``PREFIX=~/.local`` after the command is one too)
    flags = [bool(_FLAG.match(w) or (with_values and _ASSIGNMENT.match(w))) for w in theirs[0]]
    given = {
        word
        for i, word in enumerate(theirs[0])
        if flags[i] or (with_values and i and flags[i - 1] and theirs[0][i - 1] in added)
    }
    return added if all(word in given for word in added) else []


def words_added(before: str, again: str) -> list[str]:
    """The words ``again``, the same one simple command, added to ``before`` with nothing of it
    taken away or put in another order (``npx vitest`` → ``npx vitest run``: ``["run"]``;
    ``dotnet test`` → ``dotnet test Orders.sln``), in their order; else ``[]``."""
    mine, theirs = _pair_segments(before, again)
    if len(mine) != 1 or len(theirs) != 1:
        return []
    left = iter(mine[0])
    want = next(left, None)
    added = []
    for word in theirs[0]:
        if word == want:
            want = next(left, None)
        else:
            added.append(word)
    return added if want is None else []


def options_swapped(before: str, again: str) -> tuple[list[str], list[str]] | None:
    """The options (with their values) ``before``, one simple command, gave and ``again``
    gave in their place, when that is all that differs (``kubectl apply -f dir/`` → ``-k
    dir``: ``(["-f"], ["-k"])``); a folder's closing slash is no difference."""
    mine, theirs = _pair_segments(before, again)
    if len(mine) != 1 or len(theirs) != 1:
        return None
    was = [word.rstrip("/") or word for word in mine[0]]
    now = [word.rstrip("/") or word for word in theirs[0]]
    gone = [word for word in was if word not in now]
    added = [word for word in now if word not in was]
    if not gone or not added or not (_options_only(was, gone) and _options_only(now, added)):
        return None
    return gone, added


def _options_only(words: list[str], changed: list[str]) -> bool:
    """Whether the words of ``changed`` stand together in ``words`` (one place changed, not
    a command rearranged: ``cmake --build build -j8`` is no ``cmake -S . -B build``), each
    an option or the value right after one that changed too."""
    where = [i for i, word in enumerate(words) if word in changed]
    if where != list(range(where[0], where[0] + len(where))):
        return False
    for at, word in enumerate(words):
        if word not in changed or _FLAG.match(word):
            continue
        if not (at and words[at - 1] in changed and _FLAG.match(words[at - 1])):
            return False
    return True


def program_moved(before: str, again: str) -> str | None:
    """The program as ``again`` ran it, by another path, where nothing else differs from
    ``before``: ``pg_dump …`` → ``/opt/homebrew/opt/postgresql@16/bin/pg_dump …`` (the one
    first on PATH was not the one this needed)."""
    mine, theirs = _pair_segments(before, again)
    if len(mine) != 1 or len(theirs) != 1 or not mine[0] or not theirs[0]:
        return None
    was, now = mine[0][0], theirs[0][0]
    if was == now or PurePosixPath(was).name != PurePosixPath(now).name:
        return None
    return now if mine[0][1:] == theirs[0][1:] else None


#: Commands that change a file's mode or owner.
_FILE_MODES = frozenset({"chmod", "chown", "chgrp"})
#: Programs that edit a file in place given ``-i`` (alone, with a suffix, in a cluster, or
#: spelled out: ``sed -i``, ``sed -i.bak``, ``perl -pi``, ``sed --in-place``), and programs
#: that only write files. A cluster that opens with perl's ``-M`` or ``-I`` names a module or
#: a folder (``-MList::Util``), whose letters are no flags.
_IN_PLACE = frozenset({"sed", "gsed", "perl", "ruby"})
_WRITERS = frozenset({"tee", "patch", "apply_patch", "truncate", "dd", "black", "isort", "rustfmt"})
#: Options that make a formatter or a linter rewrite the files it is given (``prettier --write``,
#: ``eslint --fix``, ``gofmt -w``, ``rubocop -A``), and formatters' subcommands that always do
#: (``ruff format``, ``cargo fmt``, ``go fmt``, ``terraform fmt``).
_REWRITE_FLAGS = frozenset({"--write", "--fix", "--fix-only", "--autocorrect", "--autocorrect-all"})
_GO_FORMATTERS = frozenset({"gofmt", "goimports", "gofumpt"})
_FORMAT_VERBS = frozenset({"format", "fmt"})
_IN_PLACE_FLAG = kept_programs.compile(r"-(?![MmI])[A-Za-z]*i\S*|--in-place(=\S*)?")


#: What ``git`` does that changes the files of the working tree (``git stash``, ``git switch
#: main``, ``git pull``): a run that then worked ran other code.
_GIT_TREE_MOVES = frozenset(
    {"stash", "switch", "checkout", "pull", "reset", "merge", "rebase", "cherry-pick", "revert",
     "restore", "apply", "am", "worktree"}
)  # fmt: skip


def moves_the_tree(step: str) -> bool:
    """Whether a step changes the code it is run in front of: a file written, edited or
    deleted (:func:`_writes_file`, ``rm``), or the working tree moved by ``git`` (another
    branch, the changes stashed or pulled)."""
    for words in _segments(step):
        program = PurePosixPath(words[0]).name
        if _writes_file(words) or program == "rm":
            return True
        if program == "git" and _git_verb(words) in _GIT_TREE_MOVES:
            return True
    return False


def _git_verb(words: tuple[str, ...]) -> str | None:
    """The subcommand of a ``git`` call, past its own options (``git -C app switch``)."""
    rest = iter(words[1:])
    for word in rest:
        if word in ("-C", "-c"):
            next(rest, None)
        elif not word.startswith("-"):
            return word
    return None


def writes_a_file(command: str) -> bool:
    """Whether a simple command of ``command`` edits or writes a file (:func:`_writes_file`):
    ``goimports -w x.go && go build`` changed the code before it built."""
    return any(_writes_file(words) for words in _segments(command) if words)


#: Programs that apply a patch to the files it names.
_PATCHERS = frozenset({"patch", "apply_patch"})
_EDITS_IN_PLACE = re.compile(rf"\b(?:{'|'.join(sorted(_IN_PLACE | _PATCHERS))})\b")


def edits_in_place(command: str) -> bool:
    """Whether a simple command of ``command`` edits a file where it is (``sed -i``, ``perl
    -pi -e``, ``patch``, a script handed to Python that rewrites a source): the shell's way of
    changing the code, as an Edit is."""
    if not _EDITS_IN_PLACE.search(command) and not _CODE_WRITES.search(command):
        return False  # (most calls name none of these programs: no need to split the line)
    return any(_in_place(words) for words in _segments(command) if words)


def _in_place(words: tuple[str, ...]) -> bool:
    """Whether a simple command edits a file where it is: ``sed -i``, ``perl -pi``, a patch,
    or code given to an interpreter inline (``-c`` or a heredoc) that writes a file."""
    program = PurePosixPath(words[0]).name
    if program in _PATCHERS:
        return True
    if is_interpreter(program) and any(_CODE_WRITES.search(word) for word in words[1:]):
        return True
    return program in _IN_PLACE and any(_IN_PLACE_FLAG.fullmatch(w) for w in words[1:])


#: Code that writes a file: Python's ``open(p, "w").write(…)`` and ``Path.write_text``,
#: Node's ``writeFileSync``, Ruby's ``File.write``.
_CODE_WRITES = kept_programs.compile(
    r"\.write(?:_text|_bytes)?\(|\bwriteFileSync\(|\bFile\.write\b"
)


#: Where output written is no change of the code: a device, or a scratch file in ``/tmp``
#: (``circleci config process … > /tmp/processed.yml``).
_SCRATCH = ("/dev/", "/tmp/")  # noqa: S108 (prefixes compared; no file is made)


def _writes_file(words: tuple[str, ...]) -> bool:
    """Whether a simple command edits or writes a file: in place (``sed -i``), through a
    redirection to a file (not ``/dev/null`` or a scratch file in ``/tmp``), by code handed to
    an interpreter that writes one, or by a program that only writes files; ``git
    apply``, ``git checkout --`` and ``git restore`` put back or change the code too."""
    program = PurePosixPath(words[0]).name
    if program in _WRITERS or _REWRITE_FLAGS.intersection(words[1:]):
        return True
    if (program in _GO_FORMATTERS and "-w" in words) or (program == "rubocop" and "-A" in words):
        return True
    if len(words) > 1 and words[1] in _FORMAT_VERBS and "--check" not in words:
        return True  # (``ruff format --check`` only reads)
    if _in_place(words):
        return True
    if program == "git" and len(words) > 1 and words[1] in ("apply", "restore", "checkout"):
        return words[1] != "checkout" or "--" in words
    return any(
        w in (">", ">>") and not nxt.startswith(_SCRATCH)
        for w, nxt in zip(words, (*words[1:], ""), strict=True)
    )


def command_named(error: str, fixed: str) -> str | None:
    """The command ``fixed`` ran, up to its first option (``npm install``), when ``error``
    named it as the one to run, quoted or after "run", "use" or "try" (npm's "Please update
    your lock file with `npm install`"); else ``None``. Two or three of its words, the most the
    error named (yarn's "consider using 'yarn dlx'" of ``yarn dlx serve``): a program's name
    alone is said by many errors that do not ask for it."""
    shape = main_shape(fixed)
    found = segments_of(fixed, shape.exe, shape.sub) if shape is not None else ()
    if not found:
        return None
    words = list(itertools.takewhile(lambda w: not w.startswith("-"), found[0]))
    for n in range(min(3, len(words)), 1, -1):
        said = r"\s+".join(_escape(w) for w in words[:n])
        asked = rf"""(?:[`'"]|\b(?:run|use|try|with)\s+){said}(?![\w.-])"""
        if re.search(asked, error[:3000], re.IGNORECASE):
            return " ".join(words[:n])
    return None


def step_named(error: str, step: str) -> bool:
    """Whether ``error`` asked for the last command of ``step`` by two of its first words,
    quoted or after "run", "use" or "try" (``Please run "prisma generate"`` of ``npx prisma
    generate``), as :func:`command_named` reads an error."""
    found = _segments(step)
    words = list(itertools.takewhile(lambda w: not w.startswith("-"), found[-1] if found else ()))
    for first, second in itertools.pairwise(words[:4]):
        said = rf"{_escape(first)}\s+{_escape(second)}"
        if re.search(
            rf"""(?:[`'"]|\b(?:run|use|try)\s+(?:the\s+command\s+)?){said}(?![\w.-])""",
            error[:3000],
            re.IGNORECASE,
        ):
            return True
    return False


def step_makes_named(error: str, step: str) -> bool:
    """Whether ``error`` names a file or folder the ``step`` names, by a path of two parts or
    more (``database/database.sqlite`` of ``touch database/database.sqlite``, in "Database file
    at path [/srv/app/database/database.sqlite] does not exist"): what failed was the step not
    yet taken."""
    head = error[:3000]
    for words in _segments(step):
        for word in words[1:]:
            path = word.strip("./")
            if "/" in path and len(path) >= 5 and not word.startswith("-") and path in head:
                return True
    return False


def _in_front(failing: str, fixed: str) -> tuple[tuple[str, ...], ...]:
    """The simple commands ``fixed`` ran in front of ``failing``, which it then ran unchanged
    (:func:`_pair_segments` compares them); ``()`` when it did not run ``failing`` so."""
    mine, theirs = _pair_segments(failing, fixed)
    if not mine or len(theirs) <= len(mine) or theirs[len(theirs) - len(mine) :] != mine:
        return ()
    return theirs[: len(theirs) - len(mine)]


def step_first(failing: str, fixed: str, error: str = "") -> str | None:
    """The commands ``fixed`` ran in front of ``failing``, which it then ran unchanged
    (``npm install`` of ``npm install && npm run build``; ``terraform init`` of ``terraform
    init && terraform plan``): a step the command needed first. ``None`` when nothing was put in
    front, or when what was is a move to a folder or a change of the environment (``cd``,
    ``source``, ``export``), which other rules read, or a change of a file's mode or owner
    (``chmod +x``): that stays with the file, so the step is not needed again; nor an edit of a
    file (``sed -i``, ``> file``, ``patch``): that was a change of the code, unless ``error``,
    the failing call's, asked for the step (``Run the command biome migrate`` of ``npx biome
    migrate --write``, :func:`step_named`). A ``cd`` both lines start with and what reads the
    output at the end are no part of either (:func:`_pair_segments`)."""
    # (a look in front, ``git diff --stat && actionlint``, is no step; nor the failing command
    # itself, as the shell gives its words: ``redis-cli --pattern 'session:*' | head && …``
    # ran the corrected call first)
    ran = set(_segments(failing))
    before = [w for w in _in_front(failing, fixed) if not _looks_at_result(w) and w not in ran]
    if not before or any(
        words[0] in SETUP_COMMANDS or words[0] in _FILE_MODES or _ASSIGNMENT.match(words[0])
        for words in before
    ):
        return None
    step = _as_written(before, failing, fixed)
    if any(_writes_file(words) for words in before) and not step_named(error, step):
        return None
    return step


def _as_written(before: Sequence[tuple[str, ...]], failing: str, fixed: str) -> str:
    """The simple commands ``before``, joined by ``&&``; where ``fixed`` piped one into the next
    in front of ``failing``, as it wrote them (``yes | sdkmanager --licenses > /dev/null``)."""
    at = fixed.find(failing.strip())
    head = fixed[:at].rstrip() if at > 0 else ""
    for joint in ("&&", ";") if "|" in head else ():
        if head.endswith(joint):
            head = head.removesuffix(joint).rstrip()
            if len(_segments(head)) == len(before):  # (not where the command was found inside)
                return head
    return " && ".join(" ".join(words) for words in before)


def env_loaded_first(failing: str, fixed: str) -> str | None:
    """The env file ``fixed`` loaded in front of ``failing``, which it then ran unchanged
    (``source .envrc`` of ``source .envrc && uv run airflow dags test …``; ``set -a && .
    ./.env && set +a`` whole): the project keeps settings there that the agent's shell never
    read. ``None`` when anything else came in front, or the file activates a virtual
    environment (another rule reads that)."""
    before = _in_front(failing, fixed)
    loads = [w for w in before if w[0] in ("source", ".")]
    if not loads or any("activate" in PurePosixPath(w[-1]).name for w in loads):
        return None
    if any(w not in loads and w[0] != "set" for w in before):  # (``set -a``: export all)
        return None
    return _as_written(before, failing, fixed)


def subfolder_run(failing: str, fixed: str) -> str | None:
    """The folder ``fixed`` went into to run ``failing`` unchanged (``backend`` of ``cd backend
    && go test ./...``), or ``None``: a relative folder below this one, nothing else changed.
    A line that went into the project first went into the folder below it (``cd /p/app && vagrant
    ssh`` → ``cd /p/app/deploy/vagrant && vagrant ssh``: ``deploy/vagrant``)."""
    mine, theirs = _segments(failing), _segments(fixed)
    if (
        len(mine) == len(theirs) > 1
        and mine[1:] == theirs[1:]
        and len(mine[0]) == len(theirs[0]) == 2
        and mine[0][0] == theirs[0][0] == "cd"
    ):
        top, below = mine[0][1].rstrip("/"), theirs[0][1].rstrip("/")
        return below.removeprefix(top + "/") if below.startswith(top + "/") else None
    if len(theirs) != len(mine) + 1 or len(theirs[0]) != 2:
        return None
    verb, folder = theirs[0]
    if verb != "cd" or folder.startswith(("/", "~", "$", "-", "..")) or folder in (".", "./"):
        return None
    folder = folder.removeprefix("./").rstrip("/")
    if theirs[1:] != mine and not _pointed_there(mine, theirs[1:], folder):
        return None
    return folder


def _pointed_there(
    mine: tuple[tuple[str, ...], ...], theirs: tuple[tuple[str, ...], ...], folder: str
) -> bool:
    """Whether ``theirs`` is ``mine`` but for one option that pointed a command at ``folder``,
    dropped once the command ran there (``cargo build --manifest-path firmware/Cargo.toml`` →
    ``cd firmware && cargo build``): the option did not do what running there does."""
    changed = _one_segment(mine, theirs)
    value = _option_dropped(*changed) if changed is not None else None
    if value is None:
        return False
    value = value.removeprefix("./")
    return value.rstrip("/") == folder or value.startswith(folder + "/")


def _option_dropped(
    words: tuple[str, ...], rest: tuple[str, ...], names: Collection[str] | None = None
) -> str | None:
    """The value of the option of ``words`` (one of ``names``, where given) that, taken out with
    its value, leaves ``rest`` (``backend`` of ``make -C backend test`` and ``make test``); else
    ``None``."""
    for at, word in enumerate(words[1:], 1):
        name, eq, value = word.partition("=")
        if not name.startswith("-") or (names is not None and name not in names):
            continue
        if words[:at] + words[at + (1 if eq else 2) :] == rest:
            return value if eq else " ".join(words[at + 1 : at + 2])
    return None


#: A tool's words for a folder that holds no project of its kind: Go's, pip's, cargo's, npm's,
#: dotnet's.
_NO_PROJECT_HERE = kept_programs.compile(
    r"no Go files in|go\.mod file not found|does not appear to be a Python project|"
    r"could not find `Cargo\.toml`|ENOENT[^\n]*package\.json|Could not read package\.json|"
    r"MSB1003",
)


#: Options that run a command as if from another folder, by program (make's and git's ``-C``,
#: npm's ``--prefix``, yarn's and bun's ``--cwd``, pnpm's ``--dir``, terraform's ``-chdir=``).
#: Only theirs: ``tar -C`` and ``pip --prefix`` say where to put files, not where a project is.
_FOLDER_OPTIONS = {
    "make": {"-C", "--directory"},
    "gmake": {"-C", "--directory"},
    "just": {"-d", "--working-directory"},
    "git": {"-C"},
    "npm": {"--prefix", "-C"},
    "pnpm": {"--dir", "-C"},
    "yarn": {"--cwd"},
    "bun": {"--cwd"},
    "terraform": {"-chdir"},
    "uv": {"--directory", "--project"},
}


def _folder_option(seg: tuple[str, ...], fix: tuple[str, ...]) -> str | None:
    """The folder ``fix`` gave one of :data:`_FOLDER_OPTIONS` where ``seg`` was otherwise the
    same command (``make -C backend test`` of ``make test``)."""
    options = _FOLDER_OPTIONS.get(PurePosixPath(fix[0]).name, set()) if fix else set()
    return _option_dropped(fix, seg, options) or None


def subfolder_operand(failing: str, fixed: str, error: str) -> str | None:
    """The folder below this one that ``fixed`` pointed ``failing`` at, where the error said
    this folder holds no project (``cmd/app`` of ``go build`` → ``go build ./cmd/app`` after
    "no Go files in"; ``backend`` of ``pip install -e .`` → ``pip install -e ./backend``), or
    ``None``: one ``.`` (or Go's ``./...``) made the folder, the folder given where the call
    gave none, or given to an option that runs the command from there (``make -C backend``),
    nothing else changed."""
    changed = changed_segment(failing, fixed)
    if changed is None:
        return None
    seg, fix = changed
    given = _folder_option(seg, fix)  # (the option says so itself, whatever the error said)
    if given is not None:
        folder = given
    elif not _NO_PROJECT_HERE.search(error[:3000]):
        return None
    elif len(fix) == len(seg) + 1 and fix[:-1] == seg:
        folder = fix[-1]  # given where the call named none
        if not folder.startswith("./"):
            return None
    elif len(fix) == len(seg):
        swapped = [(m, t) for m, t in zip(seg, fix, strict=True) if m != t]
        if len(swapped) != 1 or swapped[0][0] not in (".", "./", "./..."):
            return None
        folder = swapped[0][1]
        if swapped[0][0] == "./..." and not folder.endswith("/..."):
            return None  # (Go's pattern of every package here, made one of a folder below)
    else:
        return None
    folder = folder.removeprefix("./").removesuffix("/...").rstrip("/")
    parts = folder.split("/")
    if not folder or any(p in ("", ".", "..") or not re.fullmatch(r"[\w.@+-]+", p) for p in parts):
        return None
    return folder


#: Words that run the rest of a command with more privileges.
_PRIVILEGED = frozenset({"sudo", "doas"})


def sudo_redirect(failing: str, fixed: str) -> str | None:
    """The file a command run through ``sudo`` wrote by the shell's ``>`` (which runs as the
    user, not as root), that the fix wrote through ``sudo tee`` (``sudo echo x >
    /etc/sysctl.d/60.conf`` → ``echo x | sudo tee /etc/sysctl.d/60.conf``); else ``None``."""
    teed = {
        words[-1]
        for words in _segments(fixed)
        if len(words) > 2 and words[0] in _PRIVILEGED and words[1] == "tee"
    }
    for words in _segments(failing):
        if not words or words[0] not in _PRIVILEGED:
            continue
        for at, word in enumerate(words[:-1]):
            if word in (">", ">>") and words[at + 1] in teed:
                return words[at + 1]
    return None


#: A command run through ``sudo`` or ``doas`` that writes a file by the shell's ``>`` or
#: ``>>`` at an absolute path outside ``/tmp``, ``/dev`` and the home folders.
SUDO_REDIRECT = (
    r"(?:^|[;&|(])\s*(?:sudo|doas)\s[^|;&\n]*?(?<![\d&>])>>?(?![&>])\s*"
    r"(?!/tmp/|/dev/|/home/|/Users/)/"
)


def through_sudo(failing: str, fixed: str) -> bool:
    """Whether ``fixed`` is ``failing`` with ``sudo`` (or ``doas``) put in front of the command
    that does the work, and nothing else changed."""
    shape = main_shape(failing)
    if shape is None:
        return False
    mine = segments_of(failing, shape.exe, shape.sub)
    theirs = segments_of(fixed, shape.exe, shape.sub)
    if not mine or not theirs:
        return False
    seg, fix = mine[-1], theirs[-1]
    at = 0
    while at < len(fix) and (fix[at] in _PRIVILEGED or (at and _FLAG.match(fix[at]))):
        at += 1
    return at > 0 and tuple(fix[at:]) == tuple(seg)


def script_run_by_path(failing: str, fixed: str) -> str | None:
    """The script ``failing`` ran by its path (``./scripts/release.sh``) that ``fixed`` handed
    to an interpreter instead (``bash scripts/release.sh``), or ``None``. (A script made
    executable with ``chmod +x`` stays so: that fix is a one-off.)"""
    handed = any(len(seg) >= 2 and is_interpreter(PurePosixPath(seg[0]).name) for seg in
                 _segments(fixed))  # fmt: skip
    for seg in _segments(failing) if handed else ():
        if seg and _SCRIPT.search(seg[0]):
            return seg[0]
    return None


def as_module(failing: str, fixed: str) -> tuple[str, str] | None:
    """The script path ``failing`` handed to Python and how ``fixed`` ran it instead, as a
    module, the rest of the line unchanged (``("app/cli.py", "python3 -m app.cli")`` of
    ``python3 app/cli.py --help`` → ``python3 -m app.cli --help``): a script that imports its
    own package runs only as a module. ``None`` otherwise."""
    changed = changed_segment(failing, fixed)
    if changed is None:
        return None
    was, now = changed
    if not was or not _PYTHONS.match(PurePosixPath(was[0]).name):
        return None
    script = next((w for w in was[1:] if w.endswith(".py") and not w.startswith("-")), None)
    if script is None or "-m" not in now:
        return None
    at = now.index("-m")
    module = now[at + 1] if at + 1 < len(now) else ""
    path = script.removeprefix("./").removesuffix(".py")
    if "/" not in path or module != path.replace("/", "."):
        return None  # (a script at the top has no package to import)
    rest = list(was)
    rest.remove(script)
    return (script, f"{was[0]} -m {module}") if [*now[:at], *now[at + 2 :]] == rest else None


def as_module_trigger(script: str) -> str:
    """Python handed the script at ``script`` by its path (with or without ``./``), its own
    options before it: the run that cannot import the script's package."""
    path = _escape(script.removeprefix("./"))
    return rf"\bpython[\d.]*(?:\s+-\S+)*\s+(?:\./)?{path}(?![\w.-])"


def script_trigger(path: str) -> str:
    """A pattern for the script at ``path`` run by its path, first in a simple command, with or
    without a leading ``./`` or folder (``bash release.sh`` does not fire it)."""
    name = PurePosixPath(path).name
    return rf"(?:^|[;&|(])\s*(?:[\w.~-]*/)*{_escape(name)}(?![\w.-])"


def interpreter_trigger(command: str) -> str | None:
    """The bare interpreter first on the line, running the module it ran here
    (``^\\s*\\bpython3\\b`` followed by ``pytest`` in ``python3 -m pytest``): the module is
    the program that lacked the project's packages, and the lesson is not about every use of
    the interpreter (``python3 --version``). A script keeps the interpreter's own trigger
    (:func:`first_word_trigger`): every script of the project needs its packages. ``None``
    where no module is run."""
    seg = _segments(command)
    first, base = first_word_trigger(command), base_trigger(command)
    if first is None or base is None or "-m" not in seg[0][1:2]:
        return None
    pattern = rf"{first}(?={_GAP}{base})"
    return pattern if compiler_accepts(pattern) else None


def base_trigger(command: str) -> str | None:
    """Executable and subcommand of ``command``'s main simple command, no flag."""
    shape = main_shape(command)
    if shape is None:
        return None
    return command_trigger(command, None)


#: Characters the shell reads as syntax inside an unquoted path (route groups ``app/(auth)/``,
#: dynamic segments ``[id]`` under zsh).
_SYNTAX_IN_PATH = {"(": r"\(", "[": r"\["}


def space_quoted(failing: str, fixed: str) -> str | None:
    """The word with a space that ``fixed`` quoted (or escaped) where ``failing`` gave it
    unquoted, split by the shell, nothing else changed (``docs/API Reference.md`` of ``git add
    docs/API Reference.md`` → ``git add "docs/API Reference.md"``); else ``None``. Double
    quotes the fix put inside, for the program that reads the word, may be new (``--vars
    {day: 2024-06-01}`` → ``--vars '{day: "2024-06-01"}'``); the word is given as the failing
    call wrote it. A word with a pattern in it (``*.jpg``) was quoted for the pattern, which
    the shell would have expanded, not for its spaces."""
    changed = changed_segment(failing, fixed)
    if changed is None:
        return None
    was, now = changed
    for at, quoted in enumerate(now):
        if any(mark in quoted for mark in "*?["):
            continue
        for word in dict.fromkeys((quoted, quoted.replace('"', ""))):
            parts = word.split()
            if len(parts) > 1 and [*now[:at], *parts, *now[at + 1 :]] == list(was):
                return word
    return None


#: A word with a ``;``, ``&`` or ``|`` inside, none of them doubled (``platforms;android-35``,
#: ``warn|error``; not ``make&&make``).
_OPERATOR_WORD = re.compile(r"[^\s;&|'\"]+[;&|][^\s;&|'\"]+(?:[;&|][^\s;&|'\"]+)*")


def operator_quoted(failing: str, fixed: str) -> str | None:
    """The word with a ``;``, ``&`` or ``|`` inside that ``fixed`` quoted where ``failing``
    gave it bare, which the shell cut there, nothing else changed (``sdkmanager
    platforms;android-35`` → ``sdkmanager "platforms;android-35"``); else ``None``."""
    if fixed.replace('"', "").replace("'", "") != failing:
        return None
    for m in re.finditer(r"([\"'])([^\"']+)\1", fixed):
        if _OPERATOR_WORD.fullmatch(m.group(2)):
            return m.group(2)
    return None


def operator_word_trigger(command: str) -> str | None:
    """A pattern for ``command``'s program (as its quoted fix named it) given a bare word with a
    ``;``, ``&`` or ``|`` inside (``sdkmanager platforms;android-34``; not ``sdkmanager
    "platforms;android-34"``)."""
    shape = main_shape(command)
    if shape is None:
        return None
    return _given(leading_trigger(shape.exe), _OPERATOR_WORD.pattern)


def space_path_trigger(path: str) -> str:
    """``path`` given unquoted, so split at its spaces (not ``"a b"``, not ``a\\ b``)."""
    words = r"\s+".join(_escape(part) for part in path.split())
    return rf"(?:^|\s){words}(?![\w.-])"


def unquoted_path_trigger(failing: str) -> str | None:
    """A pattern for an unquoted path holding ``(`` or ``[`` after a slash, when ``failing``
    has one: the pattern needs the path's word to start unquoted, so the quoted fix does not
    fire it."""
    for esc in _SYNTAX_IN_PATH.values():
        pattern = rf"(?:^|\s)[\w./@~-]*/{esc}"
        if matches(pattern, failing):
            return pattern
    return None


def parenthesised_word_trigger(command: str) -> str | None:
    """A pattern for ``command``'s program given a bare word that opens ``(`` after a name
    (``rdeps(//...,`` of a query language, ``kind(rule, …)``), where the shell reads the
    parenthesis as its own syntax; the quoted word of the fix does not fire it."""
    shape = main_shape(command)
    pattern = _given(_word(shape.exe) if shape is not None else None, r"[\w.-]+\(")
    return pattern if pattern is not None and matches(pattern, command) else None


#: A ``cd`` into a relative directory at the top of a command line (not inside a subshell).
RELATIVE_CD = r"(?:^|&&|;)\s*cd\s+[\w.-]"


def top_level_cd(command: str) -> str | None:
    """The relative directory a command line ``cd``s into for good (not inside ``( … )``)."""
    stripped = command.lstrip()
    if stripped.startswith("("):
        return None
    for seg in _segments(command):
        if len(seg) >= 2 and seg[0] == "cd":
            target = seg[1]
            if target.startswith(("/", "~", "$", "-")):
                return None
            return target
    return None


@functools.lru_cache(maxsize=1024)
def compiler_accepts(pattern: str) -> bool:
    """Whether the manifest compiler's structural safety check accepts ``pattern``: some
    combinations of the shapes above (a subcommand, then a flag's absence) are polynomial.

    The timing probe is left to the build that takes a promoted lesson's pattern into a
    manifest (intake does not time Tier 2's triggers either: they wait for review). An
    acceptance is remembered (:mod:`~lessons_core.scan.trigger_checks`), and one with its
    timing, in this scan or an earlier one, passes the structural rules too.
    """
    from lessons_core.scan import trigger_checks

    return trigger_checks.structural_problem(pattern) is None


#: A package registry's words for a name it does not publish: pip's, npm's (its 404 and
#: "not in this registry"), yarn's, pnpm's, cargo's, gem's, apt's and Homebrew's.
_NOT_IN_REGISTRY = kept_programs.compile(
    r"No matching distribution found for|404 Not Found - GET https?://registry|"
    r"is not in (?:this|the npm) registry|Couldn't find package|ERR_PNPM_FETCH_404|"
    r"could not find `[^`]+` in registry|Could not find a valid gem|Unable to locate package|"
    r"No available formula with the name",
    re.IGNORECASE,
)
#: Install options that take the next word (a requirements file, an index, a target folder):
#: that word is no package.
_INSTALL_VALUE_FLAGS = frozenset(
    {"-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-i", "--index-url",
     "--extra-index-url", "-t", "--target", "--prefix", "--registry", "-f", "--find-links"}
)  # fmt: skip
#: Where a package's name ends and its version or extras begin (``x==1.2``, ``x@^2``,
#: ``x[cli]``; an npm scope's leading ``@`` is part of the name).
_VERSION_PART = kept_programs.compile(r"(?<=.)(?:[<>=!~@\[;]|$).*")
_PACKAGE_NAME = kept_programs.compile(r"@?[A-Za-z0-9][\w.+/-]*")


def _packages(command: str) -> tuple[tuple[str, ...], str, str] | None:
    """The packages the install command of ``command`` names, without versions, with its
    executable and subcommand; ``None`` when its main command installs nothing."""
    shape = main_shape(command)
    if shape is None or shape.sub not in _INSTALL_VERBS:
        return None
    found = segments_of(command, shape.exe, shape.sub)
    if not found:
        return None
    words = list(found[-1])
    names: list[str] = []
    takes_value = False
    for word in words[words.index(shape.sub) + 1 :]:
        if takes_value or word.startswith("-"):
            takes_value = not takes_value and word in _INSTALL_VALUE_FLAGS
            continue
        name = _VERSION_PART.sub("", word)
        if _PACKAGE_NAME.fullmatch(name):
            names.append(name)
    return tuple(names), shape.exe, shape.sub


def package_renamed(failing: str, fixed: str, error: str) -> tuple[str, str] | None:
    """The package name a registry does not publish and the one the fix installed in its place
    (``opencv`` and ``opencv-python`` of ``pip install``; ``fd`` and ``fd-find`` of ``apt-get
    install``): the same install command, one name swapped, the error naming the first as
    unknown. ``None`` for anything else (an index not updated yet installs the same name)."""
    if not _NOT_IN_REGISTRY.search(error[:3000]):
        return None
    before, after = _packages(failing), _packages(fixed)
    if before is None or after is None or before[1:] != after[1:]:
        return None
    gone = [n for n in before[0] if n not in after[0]]
    new = [n for n in after[0] if n not in before[0]]
    if len(gone) != 1 or len(new) != 1 or gone[0].lower() not in error[:3000].lower():
        return None
    return None if _mistyped(gone[0], new[0]) else (gone[0], new[0])


#: How a word was typed amiss (:func:`retyped`): two neighbouring letters the wrong way round,
#: or a letter or two of a name.
KEYS, LETTERS = "keys", "letters"


def retyped(failing: str, fixed: str) -> str | None:
    """How ``fixed`` typed anew the one word ``failing`` had amiss, nothing else changed:
    :data:`KEYS`, two neighbouring letters put back in their order (``make tset`` → ``make
    test``, ``--epcohs``), a slip whatever the word and whatever the error said; or
    :data:`LETTERS`, a letter or two of a name (``thirdparty/libuv`` → ``third_party/libuv``, a
    check name cut short), a slip when no class of error tells more (a script a letter off,
    ``npm run tests``, may be this project's to remember). Else ``None``. Short of letters put
    back in order, a program is another program (``make`` → ``gmake``) and an option another
    option (``-xzf`` → ``-xf``, ``-p`` → ``-P``), though its value may be retyped; a number
    changed alone is another thing (``py311`` → ``py312``, a port), and a sign changed is
    another form (``httpx@0.27`` → ``httpx==0.27``)."""
    changed = _one_segment(*_pair_segments(failing, fixed))
    word = _one_word(changed)
    if changed is None or word is None:
        return None
    wrong, right = word
    if _keys_swapped(wrong, right):
        return KEYS
    if wrong == changed[0][0]:
        return None  # (another program, ``make`` → ``gmake``)
    if wrong.startswith("-"):
        (name, _, wrong), (other, _, right) = wrong.partition("="), right.partition("=")
        if name != other:
            return None
    # What lies between the two words' common start and common end: a letter or two of a
    # word most of which is the same (not ``_mistyped``'s sequence match: it costs too much
    # on every changed word, and swapped letters are told apart above)
    head = _common_start(wrong, right)
    tail = _common_start(wrong[head:][::-1], right[head:][::-1])
    was, now = wrong[head : len(wrong) - tail], right[head : len(right) - tail]
    if (
        max(len(was), len(now)) > 2
        or abs(len(wrong) - len(right)) > 1  # (``yaml`` and ``pyyaml`` are two names)
        or 2 * (head + tail) < 0.8 * (len(wrong) + len(right))
    ):
        return None  # (another value: three letters of a long word, ``abc123``)
    amiss = was + now
    return LETTERS if _NAME_CHARS.fullmatch(amiss) and not amiss.isdigit() else None


#: What a name is typed of: a sign changed (``#``, ``@``, ``:``) is another form of the word.
_NAME_CHARS = kept_programs.compile(r"[\w./-]+")


def _common_start(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` start with alike."""
    pairs = enumerate(zip(a, b, strict=False))
    return next((i for i, (x, y) in pairs if x != y), min(len(a), len(b)))


def _keys_swapped(was: str, now: str) -> bool:
    """Whether ``now`` is ``was`` with two neighbouring letters put back in their order."""
    at = [i for i, (a, b) in enumerate(zip(was, now, strict=False)) if a != b]
    return (
        len(was) == len(now) >= 3
        and len(at) == 2
        and at[1] == at[0] + 1
        and was[at[0]] == now[at[1]]
        and was[at[1]] == now[at[0]]
    )


def _mistyped(wrong: str, right: str) -> bool:
    """Whether ``wrong`` is ``right`` with a letter or two typed amiss (``reqeusts``): a slip of
    this call, not a name to remember. A name one or two characters shorter or longer is a real
    other one (``yaml`` and ``pyyaml``; ``fd`` and ``fd-find``)."""
    close = difflib.SequenceMatcher(None, wrong.lower(), right.lower()).ratio() >= 0.8
    return abs(len(wrong) - len(right)) <= 1 and close


#: What, changed inside one word, makes it the same thing written in another form: a separator
#: or a sign (``file.py:88`` → ``file.py::test_refund``, ``Class#method`` → ``Class.method``,
#: ``requests@2.31`` → ``requests==2.31``). A change of letters, digits, ``_``, ``.``, ``-`` or
#: ``/`` alone names another thing or place (``src/util.ts`` → ``src/lib/util.ts``); a ``$``
#: or a backtick is the shell's to expand, not the tool's form.
_FORM_CHAR = kept_programs.compile(r"[^\w./\s$`-]")
#: The longest word read for its form: a path, a test's id, a package with its version; the
#: comparison costs the square of the length, and a word this long is a script.
_LONGEST_FORM = 200
#: The thing both forms name, in front of the change: three letters or digits at least.
_SAME_THING = kept_programs.compile(r"[A-Za-z0-9]{3}")


def argument_form(failing: str, fixed: str) -> tuple[str, str, str] | None:
    """The word ``failing`` gave in a form its command does not take, the form ``fixed`` gave
    it in, nothing else changed, and a pattern of the wrong form (``tests/x.py:88`` and
    ``tests/x.py::test_refund``: ``\\w:\\d+`` followed by the word's end); else ``None``.

    The two must name the same thing before the one place they differ, and differ there by a
    separator or a sign, not by a name or a folder (a guessed path) nor by what was cut off (a
    narrower run)."""
    swapped = _swapped_word(failing, fixed)
    if swapped is None:
        return None
    was, now = swapped
    if len(was) > _LONGEST_FORM or len(now) > _LONGEST_FORM:
        return None  # (a script or a heredoc handed over as one word, no argument's form)
    ops = difflib.SequenceMatcher(None, was, now, autojunk=False).get_opcodes()
    changes = [op for op in ops if op[0] != "equal"]
    if len(changes) != 1 or changes[0][0] == "delete":
        return None
    _, start, end, new_start, new_end = changes[0]
    changed = was[start:end] + now[new_start:new_end]
    if "/" in changed or " " in changed or not _FORM_CHAR.search(changed):
        return None  # (a folder, a word more, or no sign at all: another thing named)
    if not _SAME_THING.search(was[:start]):
        return None
    if was.startswith("-") and "=" not in was[:start]:
        return None  # (an option itself written otherwise: the option classes' business)
    while start and _FORM_CHAR.match(was[start - 1]):
        start -= 1  # (the separator in front belongs to the form: the ``:`` of ``:88``)
    form = was[start:end]
    if not _FORM_CHAR.search(form):
        return None  # (what the fix added is the form; the wrong word has none to look for)
    left = r"\w" if start and _WORD_CHAR.match(was[start - 1]) else ""
    right = r"\w" if end < len(was) and _WORD_CHAR.match(was[end]) else ""
    ends = "" if end < len(was) else r"""(?=$|[\s'"])"""
    shape = "".join(
        r"\d+" if part.isdigit() else r"\w+" if _WORD_CHAR.match(part) else _escape(part)
        for part in _FORM_PARTS.findall(form)
    )
    return was, now, left + shape + right + ends


_WORD_CHAR = kept_programs.compile(r"\w")
#: A word's runs of word characters, and each other character alone.
_FORM_PARTS = kept_programs.compile(r"\w+|\W")


def argument_form_trigger(command: str, form: str) -> str | None:
    """``command``'s executable and subcommand given a word of the wrong ``form`` (a pattern
    from :func:`argument_form`); ``None`` when the compiler would refuse it."""
    base = base_trigger(command)
    if base is None:
        return None
    pattern = rf"{base}(?={_GAP}{form})"
    return pattern if compiler_accepts(pattern) else None


#: A repository's address over SSH (``git@github.com:o/r.git``, ``ssh://git@host/o/r``) and
#: over HTTPS (``https://github.com/o/r.git``): group ``host`` and ``path``.
_SSH_URL = kept_programs.compile(
    r"^(?:ssh://)?[\w.-]+@(?P<host>[\w.-]+\.[a-z]{2,})(?::\d+)?[:/](?P<path>[^\s:]+)$"
)
_HTTPS_URL = kept_programs.compile(r"^https://(?P<host>[\w.-]+\.[a-z]{2,})/(?P<path>\S+)$")


#: A URL's scheme, at the start of a word (``oci://``, ``s3://``, ``git+https://``).
_SCHEME = kept_programs.compile(r"[a-z][a-z0-9+.-]*://")
#: An address without its scheme: a host with a dot in its name, then a path
#: (``ghcr.io/acme/charts/api``); not a repository's chart (``bitnami/nginx``).
_HOST_PATH = r"[\w-]+(?:\.[\w-]+)+/"


def _prefix_added(failing: str, fixed: str, prefix: re.Pattern[str]) -> tuple[str, str] | None:
    """What ``fixed`` put in front of the one word ``failing`` gave otherwise, of the form of
    ``prefix``, nothing else changed, and that word; else ``None``."""
    swapped = _swapped_word(failing, fixed)
    if swapped is None:
        return None
    was, now = swapped
    m = prefix.match(now)
    return (m.group(), was) if m is not None and now[m.end() :] == was else None


def scheme_added(failing: str, fixed: str) -> str | None:
    """The scheme ``fixed`` put in front of the address ``failing`` gave without one, nothing
    else changed (``oci`` of ``helm pull ghcr.io/acme/charts/api`` → ``helm pull
    oci://ghcr.io/acme/charts/api``): the command reads the bare address as something else
    (a repository's name); else ``None``."""
    added = _prefix_added(failing, fixed, _SCHEME)
    if added is None or not matches(_HOST_PATH, added[1]):
        return None
    return added[0][: -len("://")]


#: A registry's host and path in front of a short name (``docker.io/library/`` of
#: ``docker.io/library/postgres:16``).
_REGISTRY = kept_programs.compile(r"[\w-]+(?:\.[\w-]+)+(?::\d+)?/(?:[\w.-]+/)*")


def registry_added(failing: str, fixed: str) -> tuple[str, str] | None:
    """The short name ``failing`` gave and the full one ``fixed`` gave in its place, a
    registry's host and path put in front, nothing else changed (``postgres:16`` →
    ``docker.io/library/postgres:16``, where Podman resolves no short names); else ``None``."""
    added = _prefix_added(failing, fixed, _REGISTRY)  # (its path taken whole: no ``/`` left)
    return (added[1], added[0] + added[1]) if added is not None else None


def short_name_trigger(command: str, name: str) -> str | None:
    """A pattern for ``command``'s program and subcommand given the short name ``name`` as a
    word of its own (``podman run … postgres:16``; not ``docker.io/library/postgres:16``)."""
    return _given(tight_trigger(command), rf"{_escape(name)}(?![^\s|;&])")


def host_path_trigger(command: str) -> str | None:
    """A pattern for ``command``'s program and subcommand given an address without a scheme
    (``helm pull ghcr.io/…``; not ``helm pull oci://ghcr.io/…``)."""
    return _given(tight_trigger(command), _HOST_PATH)


def unexported(failing: str, fixed: str) -> str | None:
    """The variable ``failing`` set in a simple command of its own, before the command that
    needed it (``MLFLOW_TRACKING_URI=https://…; mlflow runs list``), which the shell keeps to
    itself, and ``fixed`` exported or set in front of a command; else ``None``."""
    alone = [  # (set in a simple command of assignments only, with a command after it)
        word.split("=", 1)[0]
        for seg in _segments(failing)[:-1]
        if seg and all(_ASSIGNMENT.match(word) for word in seg)
        for word in seg
    ]
    handed: set[str] = set()  # what the fix exported, or set in front of a command
    for now in _segments(fixed):
        set_here = [word.split("=", 1)[0] for word in now if _ASSIGNMENT.match(word)]
        if now[:1] == ("export",):
            handed.update(set_here)
        elif now and _ASSIGNMENT.match(now[0]) and len(set_here) < len(now):
            handed.add(set_here[0])
    return next((name for name in alone if name in handed), None)


def unexported_trigger(name: str) -> str:
    """A pattern for ``name`` set in a simple command of its own, before another (``X=1;``,
    ``X="a b" &&``): not ``export X=1``, not ``X=1 cmd``."""
    value = r"""(?:"[^"]*"|'[^']*'|[^\s;&|'"])*"""
    return rf"(?:^|[;&|(])\s*{_escape(name)}={value}\s*(?:;|&&)"


def name_for_path(failing: str, fixed: str) -> str | None:
    """The name ``fixed`` gave where ``failing`` gave the path of the file that defines it,
    nothing else changed (``acme/tap/acme-cli`` for ``Formula/acme-cli.rb``, ``brew audit``
    taking formulae by name): the file's name without its suffix ends the name; else
    ``None``."""
    swapped = _swapped_word(failing, fixed)
    if swapped is None:
        return None
    was, now = (PurePosixPath(word) for word in swapped)
    if not was.suffix or now.suffix or was.stem != now.name or was.name == now.name:
        return None
    return swapped[1]


def file_given_trigger(failing: str, fixed: str) -> str | None:
    """A pattern for ``failing``'s program and subcommand given a file of the suffix of the
    path ``fixed`` gave a name for (``brew audit Formula/x.rb``; not ``brew audit
    acme/tap/x``)."""
    swapped = _swapped_word(failing, fixed)
    suffix = PurePosixPath(swapped[0]).suffix if swapped is not None else ""
    if not suffix:
        return None
    return _given(tight_trigger(failing), r"[^\s|;&]*" + _escape(suffix) + r"(?![\w.-])")


def ssh_to_https(failing: str, fixed: str) -> str | None:
    """The host whose repository ``fixed`` reached over HTTPS where ``failing`` gave its SSH
    address, nothing else changed (``git clone git@github.com:o/r.git`` → ``git clone
    https://github.com/o/r.git``): no SSH key here. Else ``None``."""
    swapped = _swapped_word(failing, fixed)
    if swapped is None:
        return None
    ssh, https = _SSH_URL.match(swapped[0]), _HTTPS_URL.match(swapped[1])
    if ssh is None or https is None or ssh["host"] != https["host"]:
        return None
    same = ssh["path"].removesuffix(".git") == https["path"].removesuffix(".git")
    return ssh["host"] if same else None


def ssh_url_trigger(command: str, host: str) -> str | None:
    """``command``'s program given any SSH address of ``host`` (``git clone git@host:…``, ``git
    submodule add ssh://git@host/…``: no key here for any of them), never its HTTPS one."""
    shape = main_shape(command)
    if shape is None:
        return None
    address = rf"(?:ssh://)?[\w.-]+@{_escape(host)}[:/]"
    pattern = rf"\b{_escape(shape.exe)}\b(?={_GAP}\s{address})"
    return pattern if compiler_accepts(pattern) else None


def package_trigger(command: str, name: str) -> str | None:
    """The install command of ``command`` naming ``name`` as a package (with a version or not),
    and not a longer name that starts with it (``opencv`` but not ``opencv-python``)."""
    found = _packages(command)
    if found is None:
        return None
    installs = r"\b(?:install|i|add)\b"  # (``npm i`` is ``npm install``)
    exe = rf"\b{_escape(found[1])}\b"
    pattern = rf"{exe}{_GAP}{installs}{_GAP}(?<![\w@/.-]){_escape(name)}(?![\w/.+-])"
    return pattern if compiler_accepts(pattern) else None
