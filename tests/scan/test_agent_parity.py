"""The same mistake and fix, logged by each agent, teach the same lesson.

Pairing is agent-agnostic only if every reader hands it the same events: the command, the
error text (without the agent's report around it), the exit code. Each scenario here is one
common mistake and the call that fixed it, written in every supported agent's own format by
:mod:`tests.scan.agent_sessions`; the lesson Claude Code's session gives is the reference.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.scan.agent_sessions import AGENTS, session_events

from lessons_core.scan.detectors import corrections, tier2

#: (name, the failing command, what it printed, its exit code, the command that worked).
SCENARIOS = [
    ("missing interpreter", "python scripts/gen.py", "bash: python: command not found", 127,
     "python3 scripts/gen.py"),
    ("option in a cluster", "grep -rP 'v\\d+' src",
     "grep: invalid option -- P\nusage: grep [-abcDEFGHhIiLlnqRrsv] [-e pattern] [file ...]", 2,
     "grep -rE 'v[0-9]+' src"),
    ("script without its execute bit", "./scripts/release.sh --dry-run",
     "bash: ./scripts/release.sh: Permission denied", 126, "bash scripts/release.sh --dry-run"),
    ("needs root", "docker build -t app .",
     "permission denied while trying to connect to the Docker daemon socket at "
     "unix:///var/run/docker.sock: connect: permission denied", 1, "sudo docker build -t app ."),
    ("module missing from the bare interpreter", "python3 -m pytest -q",
     "/usr/bin/python3: No module named pytest", 1, ".venv/bin/python -m pytest -q"),
    ("no terminal", "gh pr create --base main",
     "must provide `--title` and `--body` (or `--fill` or `fill-first` or `--fillverbose`) "
     "when not running interactively", 1, "gh pr create --base main --fill"),
    ("option of the program it runs", "cargo test --test-threads=1",
     "error: unexpected argument '--test-threads' found\n\n"
     "  tip: to pass '--test-threads' as a value, use '-- --test-threads'", 1,
     "cargo test -- --test-threads=1"),
    ("glob the shell expanded", "find . -name *.py",
     "find: paths must precede expression: `b.py'\n"
     "find: possible unquoted pattern after predicate `-name'?", 1, "find . -name '*.py'"),
    ("unknown option", "pytest -n 4 tests",
     "ERROR: usage: pytest [options] [file_or_dir] [file_or_dir] [...]\n"
     "pytest: error: unrecognized arguments: -n\n  inifile: /w/app/pyproject.toml", 4,
     "pytest tests"),
    ("a hint after the error", "npm run lint",
     "npm error Missing script: \"lint\"\nnpm error\nnpm error Did you mean this?\n"
     "npm error   npm run lint:js\nHint: run `npm run` to list the scripts", 1,
     "npm run lint:js"),
    ("package under another name", "pip install opencv",
     "ERROR: Could not find a version that satisfies the requirement opencv (from versions: none)"
     "\nERROR: No matching distribution found for opencv", 1, "pip install opencv-python"),
    ("double-quoted program", 'awk "{print $2}" data.txt',
     "awk: cmd. line:1: {print }\nawk: cmd. line:1:        ^ syntax error", 2,
     "awk '{print $2}' data.txt"),
    ("a prompt without a terminal", "apt-get install jq",
     "Do you want to continue? [Y/n] Abort.", 1, "apt-get install -y jq"),
    ("a stage done by another program", "curl -s localhost:3000/health | jq .status",
     "bash: jq: command not found", 127, "curl -s localhost:3000/health | python3 -m json.tool"),
    ("a project in a folder below", "make test", "make: *** No rule to make target 'test'.  Stop.",
     2, "make -C backend test"),
    ("an ssh address with no key", "git clone git@github.com:acme/widgets.git",
     "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote.",
     128, "git clone https://github.com/acme/widgets.git"),
    ("an option another program has", "readlink -f ./build",
     "readlink: illegal option -- f\nusage: readlink [-n] [file ...]", 1, "realpath ./build"),
    ("an option that takes an argument", "sed -i 's/a/b/' app.conf",
     'sed: 1: "app.conf": invalid command code a', 1, "sed -i '' 's/a/b/' app.conf"),
    ("a step first", "terraform plan", "Error: Inconsistent dependency lock file", 1,
     "terraform init && terraform plan"),
    ("the command its error named", "npm ci",
     "npm ERR! Please update your lock file with `npm install` before continuing.", 1,
     "npm install"),
    ("a script run as a module", "python3 app/cli.py sync",
     "ImportError: attempted relative import with no known parent package", 1,
     "python3 -m app.cli sync"),
    ("a backtick in double quotes", 'git commit -m "Use `fetch` now"',
     "bash: fetch: command not found", 127, "git commit --amend -m 'Use `fetch` now'"),
    ("a wrapper its error named", "rake db:migrate",
     "Gem::LoadError: You have already activated rake 13.2.1, but your Gemfile requires rake"
     " 13.0.6. Prepending `bundle exec` to your command may solve this.", 1,
     "bundle exec rake db:migrate"),
]  # fmt: skip


def _lessons(agent: str, home: Path, scenario: tuple[str, str, str, int, str]):
    _, bad, error, code, good = scenario
    steps = [
        ("user", "tidy up the build"),
        ("run", bad, error, code),
        ("say", "That did not work; trying another way."),
        ("run", good, "done", 0),
    ]
    events = session_events(agent, home, steps)  # type: ignore[arg-type]
    return [(c.summary, c.trigger, c.fix, c.mistake) for c in tier2.detect(events)]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s[0] for s in SCENARIOS])
@pytest.mark.parametrize("agent", [a for a in AGENTS if a != "claude"])
def test_every_agent_learns_what_claude_code_learns(tmp_path, agent, scenario):
    reference = _lessons("claude", tmp_path / "claude", scenario)
    assert len(reference) == 1, reference  # (the scenario teaches something at all)
    assert _lessons(agent, tmp_path / agent, scenario) == reference


#: A user setting the agent right after a call that worked, and what the agent did next.
CORRECTIONS = [
    ("no, use pnpm here, we don't use npm", "npm install", "pnpm install"),
    ("don't run the whole suite, it takes twenty minutes; run the file's tests only",
     "pytest", "pytest tests/test_cart.py"),
    ("that's the wrong branch, it's called release/2.4", "git checkout release-2.4",
     "git checkout release/2.4"),
]  # fmt: skip


def _corrections(agent: str, home: Path, said: str, before: str, after: str):
    steps = [
        ("user", "get the project ready"),
        ("run", before, "done", 0),
        ("say", "Done."),
        ("user", said),
        ("run", after, "done", 0),
    ]
    events = session_events(agent, home, steps)  # type: ignore[arg-type]
    return [(c.summary, c.mistake, c.fix, c.tags) for c in corrections.detect(events)]


@pytest.mark.parametrize("case", CORRECTIONS, ids=[c[0][:24] for c in CORRECTIONS])
@pytest.mark.parametrize("agent", [a for a in AGENTS if a != "claude"])
def test_every_agent_hears_the_correction_claude_code_hears(tmp_path, agent, case):
    reference = _corrections("claude", tmp_path / "claude", *case)
    assert len(reference) == 1, reference
    assert _corrections(agent, tmp_path / agent, *case) == reference


#: Mistakes of the agents' own file tools, and the call that got past them.
FILE_SCENARIOS = [
    ("text not in the file", [
        ("edit", "/w/app/src/app.py", "colour = 1", "color = 1", "not-found"),
        ("read", "/w/app/src/app.py", None),
        ("edit", "/w/app/src/app.py", "colr = 1", "color = 1", None),
    ]),
    ("a file guessed where it is not", [
        ("read", "/w/app/src/hooks/use-list.ts", "missing"),
        ("read", "/w/app/src/ui/use-list.ts", None),
    ]),
]  # fmt: skip


@pytest.mark.parametrize("scenario", FILE_SCENARIOS, ids=[s[0] for s in FILE_SCENARIOS])
@pytest.mark.parametrize("agent", [a for a in AGENTS if a not in ("claude", "codex")])
def test_every_agent_learns_the_file_tools_lesson_claude_code_learns(tmp_path, agent, scenario):
    """(Codex edits by patch and reads through its shell: its lessons are its own.)"""
    _, steps = scenario

    def lessons(name: str):
        events = session_events(name, tmp_path / name, [("user", "fix the typo"), *steps])
        return [(c.summary, c.trigger, c.fix) for c in tier2.detect(events)]

    reference = lessons("claude")
    assert len(reference) == 1, reference
    assert lessons(agent) == reference
