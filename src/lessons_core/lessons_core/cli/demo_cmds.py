"""``lessons demo``: the whole pipeline, end to end, on the data that ships with the package.

It drives the real commands and the real hook process exactly as a user and an agent would —
``lessons add``, ``lessons scan``, ``lessons list``, then an installed adapter's hook
fed its agent's payloads — against a scratch ``LESSONS_HOME`` (the embedded SQLite store), so
trying it never touches the user's own lessons. Each step prints what happened; the demo fails
loudly if a step does not behave as the product promises, which makes it a smoke test as well as
a tour.

The agent's part comes from the first installed adapter (by name) whose ``AgentSpec.demo``
returns a module with ``sample_transcripts()``, ``pre_tool(session, transcript, cwd, command)``
and ``session_start(session, cwd)`` (payloads), ``denial(answer)`` and ``context(answer)``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

import click

from lessons_core.errors import LessonsError

SESSION = "demo-session-0001"
#: Every line of the demo fits a terminal this wide; long text wraps between words.
WIDTH = 100


def _data(name: str) -> Path:
    return Path(str(resources.files("lessons_core") / "data" / name))


@contextmanager
def _home(keep: Path | None) -> Iterator[Path]:
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        yield keep
        return
    tmp = Path(tempfile.mkdtemp(prefix="lessons-demo-"))
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class Demo:
    """Runs commands against one scratch home and checks what they print."""

    def __init__(self, home: Path, cwd: Path, agent: Any = None, hook_module: str = "") -> None:
        self.home = home
        self.cwd = cwd
        self.agent = agent
        self.hook_module = hook_module
        self.env = dict(os.environ)
        self.env.update(
            LESSONS_HOME=str(home / "data"),
            LESSONS_STATE_DIR=str(home / "state"),
        )
        self.env.pop("LESSONS_HOOK_LOG", None)
        # The session-start hook would otherwise start a background scan of the user's real
        # transcripts into this scratch store.
        import attrs

        from lessons_core.config import save_config
        from lessons_core.models import Config

        (home / "data").mkdir(mode=0o700, parents=True, exist_ok=True)
        save_config(home / "data", attrs.evolve(Config(), auto_scan=False))

    def lessons(self, *args: str) -> str:
        cmd = [sys.executable, "-m", "lessons_core", *args]
        done = subprocess.run(cmd, env=self.env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise LessonsError(f"`lessons {' '.join(args)}` failed:\n{done.stderr.strip()}")
        return done.stdout

    def hook(self, payload: dict[str, Any]) -> dict[str, Any] | None:
        cmd = [sys.executable, "-I", "-m", self.hook_module]
        done = subprocess.run(
            cmd,
            env=self.env,
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise LessonsError(f"the hook exited {done.returncode}: {done.stderr.strip()}")
        out = done.stdout.strip()
        return json.loads(out) if out else None

    def pre_tool(self, command: str) -> dict[str, Any] | None:
        transcript = self.home / "transcript.jsonl"
        return self.hook(self.agent.pre_tool(SESSION, transcript, self.cwd, command))


def _step(number: int, title: str) -> None:
    click.echo("")
    click.secho(f"{number}. {title}", bold=True)


def _say(text: str, indent: int = 3, hang: int = 0) -> None:
    """Print ``text`` wrapped to :data:`WIDTH` between words (a long path stays whole)."""
    import textwrap

    lead = " " * indent
    for line in textwrap.wrap(
        text,
        width=WIDTH,
        initial_indent=lead,
        subsequent_indent=lead + " " * hang,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [""]:
        click.echo(line)


def _term(word: str, meaning: str) -> None:
    """One line (wrapped if need be) explaining a word the demo uses."""
    _say(f"({word}: {meaning})", indent=3, hang=1)


def _short(text: str, width: int) -> str:
    """``text`` on one line of at most ``width`` characters, cut between words with " …"."""
    import textwrap

    return textwrap.shorten(" ".join(text.split()), width=width, placeholder=" …")


def _verdict(agent: Any, answer: dict[str, Any] | None) -> tuple[str, str]:
    if answer is None:
        return "allowed, nothing to add", ""
    reason = agent.denial(answer)
    if reason is not None:
        return "DENIED", reason
    return "allowed, with a lesson attached to the result", agent.context(answer)


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip() and not line.startswith("<!--"):
            return _short(line, WIDTH - 8)
    return ""


@click.command()
@click.option(
    "--home",
    type=click.Path(file_okay=False, path_type=Path),
    help="Keep the demo's store and manifest in this directory (default: a temporary one).",
)
def demo(home: Path | None) -> None:
    """Run the whole pipeline on the bundled sample, in a scratch home.

    Imports the starter catalogue into the embedded SQLite store, mines the sample transcripts
    for new lessons, compiles the manifest, then plays an agent's tool calls through the real
    hook process and shows what the agent would see.
    """
    from lessons_core.plugins.manager import Plugins

    agents = Plugins.load().agents()
    shown = next((agents[name] for name in sorted(agents) if agents[name].demo), None)
    agent = shown.demo() if shown is not None and shown.demo is not None else None

    with _home(home) as base:
        project = base / "project"
        project.mkdir(exist_ok=True)
        run = Demo(base, project, agent, shown.hook_module if shown is not None else "")
        click.secho("lessons demo", bold=True)
        _say(f"scratch LESSONS_HOME: {base / 'data'}")

        _step(1, "Add the starter catalogue to the embedded store")
        added = run.lessons("add", str(_data("starter-lessons.jsonl")), "--json").splitlines()
        _say(f"{len(added)} lessons added; the manifest was rebuilt")
        _term("store", "the SQLite database lessons.db in LESSONS_HOME, the data directory")
        _term("WAL", "SQLite's write-ahead log: the hooks can read while a command writes")
        _term("manifest", "lesson-manifest.json, the lessons' triggers compiled for the hooks")

        if agent is None or shown is None:
            _step(2, "Mining and delivery")
            _say("no installed agent adapter ships a demo: pip install 'lessons[<agent>]'")
            _next_step(agents)
            return

        _step(2, f"Mine the sample transcripts ({shown.title} session with a failure and a fix)")
        scan = run.lessons("scan", str(agent.sample_transcripts()), "--json")
        found = [json.loads(line) for line in scan.splitlines() if line.strip()]
        for cand in found:
            tier = "#lesson block" if cand.get("tier") == 1 else "heuristic"
            lead = f"[{tier}, {cand.get('status')}] "
            _say(lead + _short(str(cand.get("mistake", "")), 200), hang=len(lead))
        _say(f"{len(found)} candidates; #lesson blocks that pass intake become lessons at once")
        _term("#lesson block", "a lesson the agent writes itself, invited at session start")
        _term("candidate", "a proposed lesson; heuristic ones wait for `lessons review`")
        _term("intake", "the checks a candidate passes first: length, secrets, duplicates")

        _step(3, "What the store holds now")
        for line in run.lessons("list", "--json").splitlines():
            lesson = json.loads(line)
            lead = f"[{lesson['type']}, priority {lesson['priority']}] "
            _say(f"{lead}{lesson['summary']}  ({lesson['slug']})", hang=len(lead))

        _step(4, f"Play {shown.title} tool calls through the real hook process")
        _term("hook", "the command the agent runs around each tool call; it reads the manifest")
        calls = [
            ("git push --force origin main", "a guard: every matching call is denied"),
            ("pytest tests/test_cart.py", "a hint: delivered with the tool result"),
            ("pytest tests/test_cart.py -x", "the same lesson again: at most once a session"),
            ('rm -rf "$BUILD_DIR/"', "a nudge: the first matching call is stopped"),
            ('rm -rf "$BUILD_DIR/"', "the retry of a nudged call goes through"),
            ('git commit -m "undo git push --force origin main"', "quoted text fires no guard"),
        ]
        outcomes = []
        for command, why in calls:
            verdict, text = _verdict(agent, run.pre_tool(command))
            outcomes.append(verdict)
            _say(f"$ {command}")
            _say(f"-> {verdict}   ({why})", indent=5, hang=3)
            if text:
                _say(_first_line(text), indent=8)

        context = agent.context(run.hook(agent.session_start("demo-session-0002", project)))
        _step(5, "A new session starts")
        _say(
            f"{len(context.encode())} bytes of session-start context: the #lesson protocol "
            "and the protocol and directive lessons, within the 4 KB budget"
        )
        _term("budget", "the most bytes the hooks add at once, so lessons never crowd the work")

        expected = ["DENIED", "allowed, with", "allowed, nothing", "DENIED", "allowed", "allowed"]
        if not all(got.startswith(want) for got, want in zip(outcomes, expected, strict=True)):
            raise LessonsError(f"the hook did not behave as the demo expects: {outcomes}")
        click.echo("")
        click.secho("Every step behaved as expected.", fg="green")
        _next_step(agents)


def _next_step(agents: Any) -> None:
    click.echo("")
    click.secho("Next step: give your own agent its memory", bold=True)
    names = sorted(agents) or ["<agent>"]
    others = f"    (or {', '.join(names[1:])})" if len(names) > 1 else ""
    _say(f"lessons install {names[0]}{others}: registers the hooks, creates the store")
    _say("lessons doctor            checks that everything is in place")
