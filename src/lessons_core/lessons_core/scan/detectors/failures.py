"""Sort failed tool results into the agent's mistakes and everyone else's decisions.

Every agent reports "this call did not work" for very different reasons: the command exited
non-zero, the tool rejected malformed input, the user said no, a permission rule blocked it, the
call hung. Only the first few are mistakes worth a lesson; the others would teach the agent to
avoid things the user merely declined that day. Every agent's reader calls these helpers so all
agents classify alike; what only one agent says lives in that adapter's ``failures`` module.
"""

from __future__ import annotations

import functools
import re

from lessons_core.patterns import kept_programs
from lessons_core.privacy import redact_head
from lessons_core.scan import events as ev

# The failure classes, as pattern sources (caseless): they are only ever searched together, in
# :data:`_ANY_CLASS_LOWER` (or :func:`_any_class`), so compiling each alone would be wasted.
_REJECTED = (
    r"doesn't want to (?:proceed|take this action)|tool use was rejected|User rejected|"
    r"patch rejected by user|\[Operation Cancelled\]|User cancelled"
)
_DENIED = (
    r"requires approval|was blocked\. For security|haven't granted it yet|"
    r"sandbox denied|not allowed by (?:the )?(?:sandbox|policy)|approval policy|"
    r"Permission to use \S+ has been denied|specified a rule which prevents you from using"
)
_INTERRUPTED = (
    r"\[Request interrupted|Interrupted by user|Sibling tool call errored|"
    r"turn_aborted|was cancelled|Request cancelled"
)
_TIMEOUT = (
    r"timed out|timeout (?:after|exceeded|of \d)|Command killed.*timeout|deadline exceeded|"
    r"after exceeding (?:the )?timeout"
)
_VALIDATION = (
    r"<tool_use_error>|File has not been read yet|File does not exist|String to replace not found|"
    r"Found \d+ matches of the string to replace|Path does not exist|Path must be absolute|"
    r"not found in registry|0 occurrences found for old_string|apply_patch verification failed|"
    r"InputValidationError|Invalid tool parameters|EISDIR|tool was called with invalid arguments|"
    r"before overwriting it\. Use the Read tool|modified since it was last read|"
    r"File has been unexpectedly modified|"
    r"oldString not found|Could not find oldString|multiple matches for oldString|"
    r"Could not find an exact match for 'old_string'|unsupported call: |unavailable tool '|"
    r"\" not found\. Did you mean one of|^Tool '[^']+' does not exist|"
    r"has not been read in this session"
)
#: Harnesses state why a call failed at the start of its result; the rest is command output.
HEAD = 500

#: Lines of an error output worth remembering for failure-time recall.
_ERROR_LINE = kept_programs.compile(
    r"error|fail|not found|no such|denied|traceback|exception|cannot|can't|invalid|undefined|"
    r"fatal|missing|refus(?:ed|ing)|rejected|unable|could(?:n't| not)\b|unknown|timed out|"
    r"no match(?:es|ing)\b|^\W*abort(?:ing)?\b|"
    r"ERR!|E\d{3,4}\b|"
    r"not (?:allowed|supported|permitted)|unsupported|unrecognized|unexpected|illegal|"
    r"\bexit code\b|\baborted\b|does(?:n't| not) exist|(?-i:\bERR_[A-Z][A-Z0-9_]{2,})|"
    r"injection detected|already exists|"
    # an option that cannot stand alone ("flag '--no-password' requires the '--insecure' flag",
    # "option --output requires an argument")
    r"""--?[A-Za-z][\w-]*['"`]? require|"""
    # what a run looked for and did not find ("No valid code signing certificates were found",
    # "No test files found, exiting with code 1")
    r"\bno\b[^.:\n]{0,60}\b(?:were|was) found\b|^\W*no\b[^.:\n]{0,60}\bfound\b|"
    # a line a CLI marks as its failure ("X Pull request #512 is not mergeable: …", "✖ You
    # must sign in …"), "file format not recognized", a run the tool called off
    r"(?-i:^[Xx✖✘×]\s+[A-Z])|\bnot recogni[sz]ed\b|\bcancell?ed\b|"
    # the levels Go's logrus writes short (``FATA[0001] trying to reuse blob …``)
    r"(?-i:^(?:FATA|ERRO|PANI)\[)|"
    r"exceed(?:ed|ing|s) (?:the |its )?timeout",
    re.IGNORECASE,
)
#: A test runner's line for a test that passed (``✔ keeps load errors in-tree``): a word such
#: as "errors" in a test's name says nothing failed, and quoted as the error it hides the one
#: that did.
_PASSED_LINE = kept_programs.compile(r"^(?:[✓✔√]|PASS\b)")
#: A warning (``▲ [WARNING] Missing secrets``, ``npm WARN …``, ``warning: …``): output the run
#: went on from. It is kept after the lines that say what stopped the run, so the first error
#: line, which a lesson quotes, is the error.
_WARNING_LINE = kept_programs.compile(r"^\W*(?:npm\s+)?\[?warn(?:ing)?\b", re.IGNORECASE)
#: A frame of a stack trace (Node's ``at getFinalError (file:///…/pnpm.mjs:34109:14)``, Java's
#: ``at a.B.c(B.java:12)``, Python's ``File "x.py", line 3, in f``): where the error passed,
#: not what it was, though a function's name may hold the word ``Error``. Kept after the lines
#: that say what went wrong, with the warnings.
_FRAME_LINE = kept_programs.compile(
    r"^(?:at\s+\S.*(?::\d+(?::\d+)?\)?|\((?:native|<anonymous>)\))$|File \"[^\"]+\", line \d+)"
)
#: A runner's tally (``1 failing``, ``Found 2 errors.``, ``3 tests failed``): it says how many
#: failed, not what; kept after the lines that do, with the warnings.
_TALLY_LINE = kept_programs.compile(
    r"^\W*(?:found\s+)?\d+\s+(?:\w+\s+)?(?:failing|failed|failures?|errors?)\b\W*",
    re.IGNORECASE,
)
#: A usage line (``ERROR: usage: pytest [options] [file_or_dir]``, argparse's and pytest's
#: first line before the error itself): how the command is called, the same for every error it
#: gives; kept after the line that says what was wrong.
_USAGE_LINE = kept_programs.compile(r"^\W*(?:error:\s*)?usage:", re.IGNORECASE)
#: Terminal colour and cursor codes: a coloured error's words are the same without them.
_ANSI = kept_programs.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


#: The classes in the order they win when several match.
_PRIORITY = (ev.REJECTED, ev.DENIED, ev.INTERRUPTED, ev.TIMEOUT, ev.VALIDATION)
#: All class patterns in one, so a text is scanned once.
_CLASSES = tuple(
    zip(_PRIORITY, (_REJECTED, _DENIED, _INTERRUPTED, _TIMEOUT, _VALIDATION), strict=True)
)
_ANY_CLASS: re.Pattern[str] | None = None


def _any_class() -> re.Pattern[str]:
    """All class patterns in one, caseless (compiled on first use: only non-ASCII texts)."""
    global _ANY_CLASS
    if _ANY_CLASS is None:
        _ANY_CLASS = kept_programs.compile(
            "|".join(f"(?P<{kind}>{source})" for kind, source in _CLASSES), re.IGNORECASE
        )
    return _ANY_CLASS


def _lower_literals(pattern: str) -> str:
    """``pattern`` with its literal letters lowercased and its escapes (``\\S``, ``\\d``) kept."""
    out: list[str] = []
    escaped = False
    for char in pattern:
        out.append(char if escaped else char.lower())
        escaped = not escaped and char == "\\"
    return "".join(out)


#: The same alternation, case-sensitive, for lowercased ASCII text: on ASCII a caseless match is
#: a match of the lowercased text, and the regex engine runs several times faster without
#: ``IGNORECASE`` (error texts are read for every failed call of a scan).
_ANY_CLASS_LOWER = kept_programs.compile(
    "|".join(f"(?P<{kind}>{_lower_literals(source)})" for kind, source in _CLASSES)
)


#: A piece of text every alternative of every class contains, lowercased: a text holding none
#: of them matches no class, which a few substring searches tell faster than the alternation
#: (most failed commands say nothing the classes look for). ``test_failures`` keeps it whole.
_LITERALS = (
    "doesn't want to", "rejected", "cancel", "approval", "was blocked", "granted", "sandbox",
    "not allowed by", "permission to use", "interrupt", "sibling", "turn_aborted", "timed out",
    "timeout", "deadline exceeded", "<tool_use_error>", "not been read", "does not exist",
    "to replace", "must be absolute", "in registry", "occurrences found", "verification failed",
    "inputvalidationerror", "invalid tool parameters", "eisdir", "invalid arguments",
    "prevents you from using", "overwriting", "last read", "oldstring", "exact match for 'old_",
    "unexpectedly modified", "unsupported call", "unavailable tool", "\" not found. did you mean",
)  # fmt: skip
#: The characters a caseless match equates with an ASCII letter where ``str.lower`` gives no
#: such letter: the dotless i and the long s (left as they are), the dotted capital I (two
#: characters once lowered) and the Kelvin sign. In a text without them, the ASCII letters of
#: ``text.lower()`` are exactly those a caseless match could meet.
_FOLDS = frozenset("\u0130\u0131\u017f\u212a")


def _lowered_exactly(text: str) -> str | None:
    """``text.lower()`` when a case-sensitive match of lowercased patterns on it is a caseless
    match on ``text`` (no character of :data:`_FOLDS` in it), else ``None``."""
    if text.isascii() or _FOLDS.isdisjoint(text):
        return text.lower()
    return None


@functools.lru_cache(maxsize=2048)
def class_of(head: str) -> str | None:
    """The failure class the first characters of a failure text name, if any.

    Remembered for the process: the same error text recurs across a scan's sessions (a file
    edited before it was read, a command not found), and a text that names a class runs the
    whole alternation.
    """
    low = _lowered_exactly(head)
    if low is not None:
        for literal in _LITERALS:
            if literal in low:
                break
        else:
            return None
        found = {m.lastgroup for m in _ANY_CLASS_LOWER.finditer(low)}
    else:
        found = {m.lastgroup for m in _any_class().finditer(head)}
    for kind in _PRIORITY:
        if kind in found:
            return kind
    return None


def classify_text(text: str) -> str | None:
    """Classify a failure text known to be a failure, without agent specifics (adapters add
    their own, e.g. an exit code stated in their words, in their ``failures`` module)."""
    return class_of(text[:HEAD])


@functools.lru_cache(maxsize=2048)
def error_lines(text: str, limit: int = 5) -> tuple[str, ...]:
    """The lines of an output that state the error, whitespace collapsed and colour codes
    dropped, each ≤ 200 chars: the lines that say what stopped the run first, then warnings
    and tallies; never a passed test's line.

    Remembered for the process: the same error recurs across a scan's sessions, and the
    detectors ask for the lines of one failure more than once.
    """
    out: list[str] = []
    after: list[str] = []
    seen: set[str] = set()
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    for raw in text.splitlines():
        line = " ".join(strip_tags(raw).split())
        if not line or len(line) < 4 or line in seen or line.isalpha():
            continue  # (a lone word, ``missing``, names a test suite or a heading, no error)
        if line.startswith(("Exit code", "Chunk ID", "Wall time", "Original token count")):
            continue
        if _ERROR_LINE.search(line) and not _PASSED_LINE.match(line):
            seen.add(line)
            kept = redact_head(line, 200)[:200]  # redact first: a cut token leaks
            aside = (
                _WARNING_LINE.match(line)
                or _TALLY_LINE.match(line)
                or _FRAME_LINE.match(line)
                or _USAGE_LINE.match(line)
            )
            (after if aside else out).append(kept)
            if len(out) >= limit:
                break
    return tuple([*out, *after][:limit])


# -- mistake classes ---------------------------------------------------------------------------


class MistakeClass:
    """A kind of failure a person recognises as the agent's own mistake, said in general terms.

    ``mistake`` and ``fix`` are sentences for a lesson (``{tool}`` is the tool's name);
    ``reusable`` is false for one-off facts of one repository (a file that was not where the
    agent looked), which teach nothing the next time.

    The pattern is compiled on first use: a class is tried only when the ones before it did not
    match, and compiling all of them when the module is imported cost a scan of a few new lines
    several milliseconds.
    """

    __slots__ = ("_compiled", "_lowered", "fix", "mistake", "name", "reusable", "source", "title")

    def __init__(
        self, name: str, pattern: str, title: str, mistake: str, fix: str, *, reusable: bool = True
    ) -> None:
        self.name = name
        self.source = pattern
        self._compiled: re.Pattern[str] | None = None
        self._lowered: re.Pattern[str] | None = None
        self.title = title
        self.mistake = mistake
        self.fix = fix
        self.reusable = reusable

    @property
    def pattern(self) -> re.Pattern[str]:
        """The pattern, caseless."""
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = kept_programs.compile(self.source, re.IGNORECASE)
        return compiled

    @property
    def lowered(self) -> re.Pattern[str]:
        """The pattern with its letters lowercased, case-sensitive: on a lowercased text that
        holds none of :data:`_FOLDS`, it matches where :attr:`pattern` matches the text, and
        runs several times faster (the engine skips ahead by first characters only when it
        need not fold case)."""
        compiled = self._lowered
        if compiled is None:
            compiled = self._lowered = kept_programs.compile(_lower_literals(self.source))
        return compiled


NOT_READ = "not_read"
STALE_TEXT = "stale_text"
AMBIGUOUS_TEXT = "ambiguous_text"
RELATIVE_PATH = "relative_path"
IS_DIRECTORY = "is_directory"
UNKNOWN_TOOL = "unknown_tool"
BAD_PARAMETERS = "bad_parameters"
COMMAND_NOT_FOUND = "command_not_found"
UNKNOWN_OPTION = "unknown_option"
UNKNOWN_SUBCOMMAND = "unknown_subcommand"
SHELL_SYNTAX = "shell_syntax"
MANAGED_ENVIRONMENT = "managed_environment"
MISSING_PATH = "missing_path"
TOO_LARGE = "too_large"
AUTHENTICATION = "authentication"
NO_TERMINAL = "no_terminal"
SUBSTITUTION_BLOCKED = "substitution_blocked"
NOT_PERMITTED = "not_permitted"
NO_NETWORK = "no_network"
MODULE_NOT_FOUND = "module_not_found"

#: The classes, most specific first (the first that matches the head of the output wins).
MISTAKE_CLASSES = (
    MistakeClass(
        NOT_READ,
        r"File has not been read yet|must (?:first )?read (?:(?:the|this) )?file|"
        r"modified since it was last read|File has been unexpectedly modified|"
        r"has not been read in this session",
        "read the file before changing it",
        "the {tool} was refused because the file had not been read in this session",
        "Read the file first, then repeat the {tool}",
    ),
    MistakeClass(
        AMBIGUOUS_TEXT,
        r"Found \d+ matches of the string to replace|\b(?:[2-9]|\d\d+) occurrences found for "
        r"old_string|Expected \d+ occurrences? but found \d+|multiple matches for oldString|"
        r"^Multiple matches found$",
        "make the text to replace unique",
        "the text to replace occurs several times in the file, so the {tool} was refused",
        "Include enough surrounding lines to make the text unique (or replace every occurrence"
        " on purpose)",
    ),
    MistakeClass(
        STALE_TEXT,
        r"String to replace not found|\b0 occurrences found for old_string|"
        r"could not find (?:the )?(?:text|string) to replace|apply_patch verification failed|"
        r"Failed to find expected lines|does not match the file|oldString not found|"
        r"Could not find oldString|Could not find an exact match for 'old_string'|"
        r"^No match found$",
        "copy the text to replace from the file as it is now",
        "the text to replace did not match the file as it is now (it was changed, or typed from"
        " memory with other whitespace), so the {tool} was refused",
        "Read the lines again and copy the text to replace exactly, indentation included",
    ),
    MistakeClass(
        RELATIVE_PATH,
        r"Path must be absolute|must be an absolute path|absolute path (?:is )?required",
        "give the tool an absolute path",
        "the {tool} was given a relative path and refused it",
        "Pass an absolute path (the project directory joined with the relative one)",
    ),
    MistakeClass(
        IS_DIRECTORY,
        r"EISDIR|illegal operation on a directory|\bIs a directory\b",
        "list a directory instead of reading it",
        "the {tool} was pointed at a directory, which it cannot read",
        "List the directory (ls or a glob) and read the files in it",
    ),
    MistakeClass(
        TOO_LARGE,
        r"exceeds maximum allowed (?:tokens|size)|File content \(\d[\d,.]* ?\w*\) exceeds|"
        r"file is too large to read|use offset and limit parameters",
        "read a large file in parts",
        "the {tool} was refused: the file is larger than the tool reads at once",
        "Read it in parts with offset and limit (or search it for the lines needed first)",
    ),
    MistakeClass(
        SUBSTITUTION_BLOCKED,
        r"Command injection detected: command substitution|"
        r"command substitution (?:using|syntax)[^\n]{0,80}(?:not allowed|blocked)",
        "this agent's shell refuses command substitution",
        "the {tool} refused the command because it holds command substitution (`$(…)`,"
        " backticks, `<(…)`), which this agent's shell tool blocks",
        "Run the inner command first and put its output in literally (or pass a file)",
    ),
    MistakeClass(
        UNKNOWN_TOOL,
        r"not found in registry|No such tool available|Unknown tool\b|unsupported call: |"
        r"unavailable tool '|\" not found\. Did you mean one of|^Tool '[^']+' does not exist",
        "call tools by their registered names",
        "the {tool} call used a tool name the agent does not have",
        "Use one of the registered tool names",
    ),
    MistakeClass(
        BAD_PARAMETERS,
        r"InputValidationError|Invalid tool parameters|required parameter \S+ is missing|"
        r"An unexpected parameter|params must have required property|"
        r"is not a valid parameter|missing required (?:field|argument|parameter)|"
        r"tool was called with invalid arguments|^\"[\w.]+\": Required\b",
        "call the tool with its own parameter names",
        "the {tool} call was refused: its parameters did not match the tool's schema",
        "Call the tool with the parameter names and types it documents",
    ),
    MistakeClass(
        COMMAND_NOT_FOUND,
        r"command not found|is not recognized as an internal or external command|"
        r"executable file not found|No such file or directory \(os error 2\).*spawn|"
        r"Failed to spawn: |"
        r"^\S*: (?:\d+: \S+: )?not found$",
        "the command is not on PATH",
        "the executable is not on PATH in this shell",
        "Run it the way the project provides it",
    ),
    MistakeClass(
        UNKNOWN_OPTION,
        r"unknown option|unrecognized (?:option|arguments?)|no such option|invalid option|"
        r"unknown primary or operator|"
        r"unknown (?:shorthand )?flag|flag provided but not defined|unexpected argument|"
        r"illegal option|unknown argument|unrecognized flag|is not expected in this context|"
        # npm's, for an option it was given before a script's own: ``Unknown cli config "--fix"``
        r"unknown cli config|"
        # a console library's words (Symfony's, poetry's): ``The option "--no-dev" does not
        # exist``, ``The "--foo" option does not exist.``
        r"""\b[Tt]he (?:option )?["'`]--?[A-Za-z][\w-]*["'`] (?:option )?does not exist""",
        "an option the command does not have",
        "the command was given an option it does not have",
        "Drop or replace the option",
    ),
    MistakeClass(
        UNKNOWN_SUBCOMMAND,
        r"missing script|unknown (?:command|subcommand|script|target)|"
        r"no rule to make target|no such (?:command|subcommand|task|script)|is not a task|"
        r"not a valid command|is not a \S+ command|unrecognized (?:sub)?command|"
        r"script not found|invalid choice",
        "a subcommand or script that does not exist",
        "the command named a subcommand or script that does not exist here",
        "Use one that exists",
    ),
    MistakeClass(
        SHELL_SYNTAX,
        r"syntax error near unexpected token|unexpected EOF while looking for matching|"
        r"no matches found|parse error near|bad substitution|unterminated quoted string|"
        # find given a glob the shell expanded to several files before find could see it
        r"paths must precede expression|possible unquoted pattern",
        "quote words the shell would read as syntax",
        "the shell read part of an unquoted word as syntax (parentheses, brackets or a glob in a"
        " path) and never ran the command",
        "Quote such paths (single quotes keep them literal)",
    ),
    MistakeClass(
        MODULE_NOT_FOUND,
        r"ModuleNotFoundError|No module named|Cannot find module ['\"][^./]|"
        r"ERR_MODULE_NOT_FOUND|cannot load such file",
        "run it in the project's environment",
        "the interpreter that ran it does not have the project's packages",
        "Run it through the project's environment",
    ),
    MistakeClass(
        MANAGED_ENVIRONMENT,
        r"externally-managed-environment|externally managed",
        "install into a virtual environment",
        "the system Python refused a package install (externally managed environment)",
        "Install into the project's virtual environment (or, where the system's Python is"
        " meant, say so with `--break-system-packages`)",
    ),
    MistakeClass(
        AUTHENTICATION,
        # Before "permission denied": an SSH key refused is a credential this place lacks, not
        # a file the command may not touch.
        r"Permission denied \(publickey|Host key verification failed|"
        r"Authentication failed for|could not read Username for|terminal prompts disabled|"
        r"Bad credentials|\b401 Unauthorized|HTTP 401\b|requires authentication|"
        r"not logged in|authentication required|gh auth login|no password supplied|"
        r"password authentication failed for user|Access denied for user|"
        # a database server that knows no user of the name the client took from the shell
        r"FATAL:\s+role \"[^\"]+\" does not exist|"
        # cloud CLIs without a signed-in account or profile
        r"Unable to locate credentials|do not currently have an active account selected",
        "authenticate the way this place can",
        "the call could not authenticate from where it ran (no SSH key, token or login it"
        " could use)",
        "Use the credentials this environment has (an HTTPS remote with the CLI's credential"
        " helper, a token, a client that is logged in)",
    ),
    MistakeClass(
        NO_TERMINAL,
        # After "authentication": git's "terminal prompts disabled" is a credential it lacks.
        # Before "missing path": git's ``cannot run vi: No such file or directory`` is the
        # editor it wanted to open, not a path the call named.
        r"when not running interactively|unable to start editor|problem with the editor|"
        r"Waiting for your editor|input device is not a TTY|\bnot a (?:tty|terminal)\b|"
        r"Inappropriate ioctl for device|requires an interactive|"
        r"non-interactive mode|cannot prompt|interactive (?:terminal|prompt) (?:is )?required|"
        # a prompt that read the end of its input: apt's and npx's question, git's editor,
        # ssh-keygen's passphrase
        r"Do you want to continue\? \[Y/n\] Abort|Ok to proceed\? \(y\)|"
        r"npm (?:error|ERR!) canceled|Terminal is dumb, but EDITOR unset|\bno tty\b|"
        # a pager that found no terminal to page on
        r"terminal is not fully functional",
        "it wanted a terminal this shell does not have",
        "the command wanted a terminal, to prompt or to open an editor, and the shell it ran in"
        " has none",
        "Pass on the command line what it would ask for (a message, the values it prompts for,"
        " a flag that answers yes or fills them in, an editor that needs none such as"
        " `GIT_EDITOR=true`), and ask for no terminal (`-t`)",
    ),
    MistakeClass(
        NO_NETWORK,
        # a name the resolver could not look up, a network not reached: where the agent runs
        # (a sandbox, a machine offline), not the command
        r"Could not resolve host|Temporary failure in name resolution|"
        r"getaddrinfo (?:ENOTFOUND|EAI_AGAIN)|\bdns error\b|Name or service not known|"
        r"nodename nor servname provided|Network is unreachable",
        "no network where it ran",
        "the command needed the network, which the place it ran in could not reach",
        "Work from what is here (an offline flag, the local cache or index), or ask for network"
        " access",
    ),
    MistakeClass(
        NOT_PERMITTED,
        r"operation not permitted|permission denied|EACCES|read-only file system",
        "not permitted here",
        "the command was not permitted where it ran",
        "Run it where it is allowed",
        reusable=False,
    ),
    MistakeClass(
        MISSING_PATH,
        r"No such file or directory|File does not exist|Path does not exist|"
        r"file or directory not found|cannot find the path|ENOENT|does not exist|"
        r"cannot access|can't open file|^File not found: |"
        # git's word for a revision or path it does not know (``HEAD~1`` of a first commit)
        r"unknown revision or path not in the working tree",
        "a path that is not there",
        "the call named a path that does not exist",
        "Find the path first",
        reusable=False,
    ),
)
_BY_NAME = {c.name: c for c in MISTAKE_CLASSES}


def mistake_class(text: str) -> MistakeClass | None:
    """The first class whose pattern matches the head of a failure output, or ``None``."""
    return _mistake_class(text[:1500])


@functools.lru_cache(maxsize=2048)
def _mistake_class(head: str) -> MistakeClass | None:
    """Remembered per head: Tier 2 asks about every failure, and again about each later failure
    in its window, and a scan meets the same error texts over and over."""
    low = _lowered_exactly(head)
    if low is not None:
        for cls in MISTAKE_CLASSES:
            if cls.lowered.search(low):
                return cls
        return None
    for cls in MISTAKE_CLASSES:
        if cls.pattern.search(head):
            return cls
    return None


def mistake_class_named(name: str) -> MistakeClass:
    """The class called ``name`` (one of the constants above)."""
    return _BY_NAME[name]


_TAGS = kept_programs.compile(r"</?(?:tool_use_error|shell_metadata|bash_metadata)>")


def strip_tags(text: str) -> str:
    """``text`` without a ``<tool_use_error>`` wrapper, or the ``<shell_metadata>`` one OpenCode
    and Kilo put round their note on a killed command (markup, not words)."""
    return _TAGS.sub("", text)
