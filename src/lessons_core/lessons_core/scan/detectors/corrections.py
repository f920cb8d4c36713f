"""The correction detector: a user telling the agent it was wrong, and what to do instead.

A user who writes "no, use pnpm", "don't push to main", "that's not the branch, it's called …"
or declines a call with "use the HTTPS URL, CI has no SSH key" has stated a rule the agent broke;
the next session in the same place will break it again unless it is kept. Such a message needs
no failing call before it, so this detector is apart from the failure → fix pairing of
:mod:`lessons_core.scan.detectors.tier2`: every typed user message (and every reason given for a
declined call) is judged by :func:`lessons_core.hot.corrections.correction`, the very function
the hook uses at prompt time, so the scanner and the live prompt agree on what a correction is.

The candidate carries the user's words (redacted) as the rule, what the agent did before as the
mistake, and the agent's next call, when there is one before the user speaks again, as the fix.
It has no trigger: nothing in a future call tells the broken rule from the many right calls, so
the lesson comes back through prompt-time recall by its words. It is scoped to the project (a
``scope:<project id>`` tag, lifted into the lesson's scope when it is promoted) when the words
name a thing of the project — a path, a file, a branch, a host, a name in backticks — and the
project's directory is there to give its id; global when they name none ("don't use sudo with
pip").

Not corrections: the first message of a session (there is nothing yet to correct) and a
sub-agent's task (the parent agent wrote it). A reply to a question the agent just asked is
judged as an answer: its opening "no" answers the question, and only words that set the agent
right ("that's not the branch", "check again on …") make it a correction.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import PurePosixPath
from typing import Any

from lessons_core.hot import corrections
from lessons_core.models import Candidate, Config, Evidence
from lessons_core.privacy import redact_head
from lessons_core.scan import events as ev
from lessons_core.scan import scoring
from lessons_core.scan.intake import scope_tag

NAME = "corrections"
#: How many events after a correction are searched for the agent's next call.
WINDOW = 20
#: How far back the agent's last words are searched for a question it asked the user.
_QUESTION_TAIL = 200


def detect(
    events: Sequence[ev.Event], *, config: Config | None = None, **_: Any
) -> Iterable[Candidate]:
    """A candidate for every user message, or reason for a declined call, that corrects the
    agent."""
    cfg = config or Config()
    sessions: dict[str | None, list[ev.Event]] = {}
    for event in events:
        if not event.sidechain and event.kind != ev.COMPACTION:
            sessions.setdefault(event.session_id, []).append(event)
    for session in sessions.values():
        yield from _session(session, cfg)


def _session(events: list[ev.Event], cfg: Config) -> Iterator[Candidate]:
    acted = False  # the agent did something since the session began
    last_call: ev.Event | None = None
    rejected: ev.Event | None = None  # a declined call no other call followed yet
    last_said = ""  # the agent's words since the user last spoke
    for i, event in enumerate(events):
        kind = event.kind
        if kind == ev.TOOL_CALL:
            acted, last_call, rejected, last_said = True, event, None, ""
        elif kind == ev.ASSISTANT_TEXT:
            acted = True
            last_said = event.text
        elif kind == ev.TOOL_RESULT:
            if event.failure == ev.REJECTED:
                rejected = event
        elif kind == ev.USER_TEXT:
            if rejected is not None:
                words = corrections.correction(event.text, rejected=True)
                cited = rejected
                rejected = None  # one reason per declined call
            elif acted:
                words = corrections.correction(event.text, answer=_asked(last_said))
                cited = event
            else:
                words = None
            if words and states_rule(words):
                yield _candidate(events, i, cited, last_call, words, cfg)
            last_said = ""


def _asked(said: str) -> bool:
    """Whether the agent's last words end with a question to the user: the reply answers it."""
    return "?" in said.rstrip()[-_QUESTION_TAIL:]


def _next_call(events: list[ev.Event], i: int) -> ev.Event | None:
    for other in events[i + 1 : i + 1 + WINDOW]:
        if other.kind == ev.USER_TEXT:
            return None
        if other.kind == ev.TOOL_CALL:
            return other
    return None


def _one_line(text: str, limit: int) -> str:
    text = " ".join(redact_head(text, limit).split())  # redact, then cut: a cut token leaks
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _describe(call: ev.Event) -> str:
    if call.command:
        return f"`{_one_line(call.command, 120)}`"
    target = f" on {PurePosixPath(call.paths[0]).name}" if call.paths else ""
    return f"{call.tool or 'a tool call'}{target}"


#: Characters that, inside a word, make it a thing of one project: a path, a file, a branch, a
#: host, an identifier.
_PROJECT_MARKS = "/._#:"
#: Abbreviations that hold a dot and name nothing.
_NOT_NAMES = frozenset(("e.g", "i.e", "etc", "vs"))


def names_project_thing(words: str, marks: str = _PROJECT_MARKS) -> bool:
    """Whether the correction names something of this project (a path, a file name, a branch,
    a host, a name in backticks, an identifier) rather than a general rule ("don't use sudo
    with pip"); ``marks`` are the characters that make a word such a name."""
    for word in words.split():
        if "`" in word:
            return True
        word = word.strip("\"'()[]{},;!?").rstrip(".").lower()
        if word in _NOT_NAMES:
            continue
        if any(mark in word[1:-1] for mark in marks) or _folder(word):
            return True
    return False


#: The marks of a place or a way of running: a path, a file, a host, a branch. A name of code
#: alone (``parse_header``, ``order_items``) is what a correction of the work in hand points
#: at ("I meant parse_header"), so it makes no rule on its own.
_PLACE_MARKS = "/.#:"


def _folder(word: str) -> bool:
    """``gen/``, ``src/``: a folder named with its slash."""
    return len(word) > 2 and word.endswith("/") and word[:-1].replace("-", "").isalnum()


#: Words that make a correction a rule for every session, not a choice of the work in hand:
#: "always", "never", "next time", "we use", "in this repo", "keep forgetting", "again", and
#: what the agent should do itself ("test it yourself") …
_GENERAL = re.compile(
    r"\b(?:always|never|ever|every|anymore|next time|from now on|going forward|in the future|"
    r"in general|by default|each time|whenever|remember|again|throughout|everywhere|"
    r"went over this|as discussed|third time|keep (?:forgetting|adding|doing|"
    r"using|creating|making)|we (?:use|don't|dont|do not|always|never|test|moved|squash|prefer|"
    r"keep|run|deploy|build)|our|in this (?:repo|codebase|project|org|team)|"
    r"on this (?:box|machine|server|host)|(?:is|it's|its) called|i prefer|i'd prefer|"
    # how the user wants the agent to work: "ask me before you delete anything"
    r"ask me (?:before|first)|check with me|without asking|by hand|"
    # a habit to drop: "stop using cat", "stop adding type: ignore"
    r"stop \w+ing|"
    # how the agent works: "test it yourself", "check it yourself"
    r"yourself|"
    # a fact of the project that changed: "CocoaPods was removed", "that flag is deprecated"
    r"no longer|deprecated|(?:was|were|got|has been|have been) (?:removed|dropped|replaced))\b"
)
#: Words that point at the piece of work in hand ("I meant the other function", "wrong file, I
#: wanted you to edit user_service.go"): a correction so pointed sets that piece right, though
#: it names a file or a branch, unless it says more (:data:`_GENERAL`). A reminder ("don't
#: forget the aria-label") and a place left out of an edit ("you missed one, there's a third
#: call site") are of the work in hand too: they finish it, and say nothing of how work is done.
#: So are a typo pointed out and "this change" or "this fix" (where this one piece goes, what it
#: needs).
_IN_HAND = re.compile(
    r"\b(?:i meant|i wanted|i was (?:talking|asking) about|the other (?:one|function|file|method)|"
    r"the other `|the one in\b|"
    r"wrong (?:file|function|method|class|line|one|test|branch of)|the one (?:i|to)|"
    r"(?:don't|dont|do not) forget|missed (?:one|a spot|a few|some|two|three)|"
    r"this (?:change|fix)|typo)\b"
)
#: The words of an engineer's tools and ways of working: a correction that names one is about
#: how the work is done (which package manager, which branch, how tests run), which the next
#: session needs too; one that names none is about what the work makes ("make the button blue",
#: "the total should include tax"). Common English words are left out (``make``, ``go``,
#: ``find``, ``type``, ``root``, ``lock``, ``settings``).
_WORKING_WORDS = frozenset(
    {
        # version control and review
        "git", "gh", "hub", "commit", "commits", "committing", "branch", "branches", "rebase",
        "merge", "merging", "push", "pushing", "pr", "prs", "submodule", "submodules",
        "changelog", "release", "releases",
        # packages and environments
        "npm", "pnpm", "yarn", "bun", "npx", "node", "deno", "pip", "pip3", "uv", "uvx",
        "poetry", "pdm", "venv", "virtualenv", "conda", "lockfile", "package", "packages",
        "dependency", "dependencies", "deps", "requirements", "pinned", "monorepo", "turbo",
        "nx", "workspace", "workspaces", "cargo", "rust", "python", "python3", "java", "gradle",
        "maven", "env", "dotenv", "sudo",
        # checks
        "ci", "pipeline", "test", "testing", "tests", "suite", "e2e", "pytest", "jest",
        "vitest", "mocha", "playwright", "cypress", "mock", "mocks", "mocking", "fixture",
        "fixtures", "cassettes", "lint", "linter", "linters", "formatter", "fmt", "ruff",
        "flake8", "black", "isort", "mypy", "pyright", "eslint", "prettier", "biome", "tsc",
        "typescript", "tabs", "spaces", "indentation",
        # running and shipping
        "docker", "compose", "podman", "kubectl", "helm", "k8s", "kubeconfig", "terraform",
        "makefile", "deploy", "deployment", "staging", "prod", "production", "sandbox",
        "permissions", "ssh", "https", "url", "urls", "port", "ports", "localhost", "api",
        "server", "host",
        "endpoint", "endpoints", "bucket", "buckets", "s3", "aws", "gcloud", "azure",
        # data, configuration, code conventions
        "db", "database", "postgres", "mysql", "sqlite", "redis", "migration", "migrations",
        "alembic", "utc", "timezone", "config", "secret", "secrets", "vault", "1password",
        "logger", "logging", "logs", "stdout", "stderr", "exports", "generated", "proto",
        "protobuf", "codegen",
        # the shell's tools
        "rg", "grep", "sed", "awk", "curl", "wget",
    }
)  # fmt: skip
#: A value of the work in hand: a number (``9464``, ``15%``, ``1.4.2``, ``#872``), words in
#: quotes (``'Copy link'``) or one name in backticks (``REDIS_URL``).
_VALUE = r"(?:(?<![\w.#])#?\d[\d.,:%]*[a-z]{0,3}\b|'[^']+'|\"[^\"]+\"|`[^`\s]+`)"
#: One value set right against the one the agent wrote: "15%, not 10%", "`REDIS_URL` not
#: `REDIS_HOST`", "should be 1.4.2, you left it at 1.4.1", "not `user_id`, … on
#: `account_id`". Such a correction sets one value of the piece in hand; the next session
#: has no use for it unless it says more (:data:`_GENERAL`). A value a thing runs on ("the dev
#: server is on port 5173 not 3000", "the project is on 3.5 not 4") is a fact of the place.
_SWAPPED = re.compile(
    rf"(?<!\bon )(?<!\bon port )(?<!\bon version ){_VALUE}[,;]?\s+not\s+{_VALUE}|"
    rf"\byou (?:wrote|left it at|put|typed|set it to)\s+{_VALUE}|"
    rf"^(?:no,?\s+)?not\s+{_VALUE}[,;]"
)
#: A step asked for once more ("check the ticket again", "run it again"): the work in hand,
#: not a habit that came back ("you ran the formatter on everything again").
_ONCE_MORE = re.compile(
    r"\b(?:check|look|try|run|read|test|verify|retry|restart|start|build)\b(?:\s+\S+){0,3}?"
    r"\s+again\b"
)
_TOKEN = re.compile(r"[a-z0-9][a-z0-9_.+#-]*")
#: An option (``--format``) or a variable set (``HEADLESS=1``), as a word of the message.
_OPTION_OR_VARIABLE = re.compile(r"--?[a-z][\w-]+|[A-Z][A-Z0-9_]{2,}=\S*")


def states_rule(words: str) -> bool:
    """Whether a correction states what a later session could use, rather than a choice of the
    work in hand: words of generality ("always", "we use", "next time"), a thing of the project
    (:func:`names_project_thing`), an option or a variable (``--format``, ``HEADLESS=1``), or a
    word of the engineer's tools and ways of working (:data:`_WORKING_WORDS`). "No, make the
    button blue" and "that's wrong, the total should include tax" are corrections, and
    one-offs: they set right this piece of work, not how any work is done."""
    lowered = words.lower().replace("\u2019", "'")
    if _GENERAL.search(_ONCE_MORE.sub(" ", lowered)):
        return True
    if _IN_HAND.search(lowered) or _SWAPPED.search(lowered):
        return False
    if names_project_thing(words, _PLACE_MARKS):
        return True
    if any(_OPTION_OR_VARIABLE.fullmatch(word) for word in words.split()):
        return True
    return any(token.rstrip(".") in _WORKING_WORDS for token in _TOKEN.findall(lowered))


def _candidate(
    events: list[ev.Event],
    i: int,
    cited: ev.Event,
    before: ev.Event | None,
    words: str,
    cfg: Config,
) -> Candidate:
    user = events[i]
    said = _one_line(words, 240)
    if cited.kind == ev.TOOL_RESULT and before is not None:
        mistake = f"The user declined {_describe(before)} and said: “{said}”"
    elif before is not None:
        mistake = f"The user corrected the agent after {_describe(before)}: “{said}”"
    else:
        mistake = f"The user corrected the agent: “{said}”"
    fix = f"Do as the user said: “{said}”"
    nxt = _next_call(events, i)
    if nxt is not None:
        fix += f"; the agent then ran {_describe(nxt)}"
    scope = scope_tag(user.project) if names_project_thing(words) else None
    tags = [scope] if scope else []
    signals = {scoring.USER_CORRECTION}
    return Candidate(
        id="",
        tier=2,
        agent=user.agent,
        tool=None,
        trigger=None,
        mistake=mistake.rstrip(".") + ".",
        fix=fix.rstrip(".") + ".",
        summary=_one_line(words, 100).rstrip("…"),
        tags=tuple(tags),
        confidence=scoring.confidence(signals, cfg.scoring),
        priority=scoring.priority(signals),
        evidence=(Evidence(cited.file, cited.line, cited.call_id, cited.session_id),),
        project=user.project,
        detector=NAME,
    )
