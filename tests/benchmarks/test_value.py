"""The counting of ``benchmarks/value.py`` on a small project written here, with known answers.

The replay is the real one (the hook runner with Claude Code's adapter, a SQLite store); only
the catalogue, the two sessions and their labels are made up, so each figure can be worked out
by hand: one repeat met by its lesson before the failing call, one at it, one missed, a later
failure that repeats nothing earlier left out of the ceiling, and one lesson delivered about
nothing labelled.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmark_scripts import load
from lessons_core import services
from lessons_core.models import Lesson, LessonType, Triggers

REPO = Path(__file__).resolve().parents[2]


value = load("value_benchmark", REPO / "benchmarks" / "value.py")

#: The earlier session's file sorts after the later one's: the order must come from the time.
EARLIER = "ffffffff-0000-4000-8000-00000000aaaa"
LATER = "00000000-0000-4000-8000-00000000bbbb"

VENV = {
    "mistake": "Bare pytest ran the system interpreter, which lacks the project's packages.",
    "fix": "Run the suite as .venv/bin/python -m pytest.",
    "trigger": "A bare pytest command in a project with a virtualenv.",
}
DOCKER = {
    "mistake": "docker compose up in the foreground blocked the shell until it timed out.",
    "fix": "Start it detached with docker compose up -d and read docker compose logs.",
    "trigger": "docker compose up without -d.",
}
FORCE = {
    "mistake": "A plain force push overwrote a collaborator's commits on the shared branch.",
    "fix": "Push with --force-with-lease.",
    "trigger": "git push --force to a shared branch.",
}
TABS = {
    "mistake": "The Go source is indented with tabs and gofmt rejected the spaces.",
    "fix": "Indent Go code with tabs, then gofmt -w.",
    "trigger": "gofmt -l reporting a Go file.",
}


class Transcript:
    """A Claude Code session written line by line, as Claude Code records one."""

    def __init__(self, corpus: Path, session: str, day: int, agent: str | None = None) -> None:
        # A sub-agent (``agent``) writes a file of its own under its parent's session id.
        name = f"agent-{agent}" if agent else session
        self.path = corpus / "claude" / "acme__widgets" / f"{name}.jsonl"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.session = session
        self.day = day
        self.agent = agent
        self.lines: list[str] = []

    def _line(self, kind: str, message: dict[str, Any]) -> int:
        record = {
            "parentUuid": None,
            "isSidechain": self.agent is not None,
            **({"agentId": self.agent} if self.agent else {}),
            "userType": "external",
            "cwd": "/srv/dev/widgets",
            "sessionId": self.session,
            "version": "2.1.33",
            "type": kind,
            "uuid": f"{self.session[:8]}-{len(self.lines):04d}",
            "timestamp": f"2026-03-{self.day:02d}T10:{len(self.lines):02d}:00.000Z",
            "message": message,
        }
        self.lines.append(json.dumps(record))
        self.path.write_text("\n".join(self.lines) + "\n", encoding="utf-8")
        return len(self.lines)

    def prompt(self, text: str) -> None:
        self._line("user", {"role": "user", "content": text})

    def run(
        self, call_id: str, command: str, output: str, *, failed: bool = False, **extra: Any
    ) -> int:
        """A Bash call and its result; ``extra`` adds to the call's input."""
        tool_input = {"command": command, **extra}
        use = {"type": "tool_use", "id": call_id, "name": "Bash", "input": tool_input}
        self._line("assistant", {"id": f"msg_{call_id}", "role": "assistant", "content": [use]})
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": output}
        if failed:
            result["is_error"] = True
        return self._line("user", {"role": "user", "content": [result]})

    def label(self, corpus: Path, call_id: str, line: int, lesson: dict[str, str]) -> Any:
        return value.capture_eval().Label(
            agent="claude",
            file=self.path.relative_to(corpus).as_posix(),
            line=line,
            call_id=call_id,
            tool="Bash",
            kind="error",
            reusable=True,
            fixed_by={"call_id": f"{call_id}-fix", "line": line + 2},
            lesson=lesson,
            note="made up for the test",
            corpus="real",
        )


def _lesson(n: int, pattern: str, summary: str, mistake: str, remediation: str) -> Lesson:
    return Lesson(
        id=f"01VALUETEST{n:015d}",
        slug=f"value-test-{n}",
        type=LessonType.HINT,
        triggers=Triggers(tool_names=("Bash",), command_patterns=(pattern,)),
        priority=6,
        summary=summary,
        mistake=mistake,
        remediation=remediation,
    )


CATALOGUE = [
    _lesson(
        1,
        r"^docker\b",
        "Start docker compose detached",
        "docker compose up blocks the terminal until it is stopped.",
        "Use docker compose up -d and read the logs with docker compose logs.",
    ),
    _lesson(
        2,
        r"^pytest\b",
        "Run the tests with the project's virtualenv",
        "Bare pytest runs the system interpreter, which lacks the project's packages.",
        "Use .venv/bin/python -m pytest.",
    ),
    _lesson(
        3,
        r"^npm\b",
        "Install with the lockfile",
        "npm install rewrote package-lock.json.",
        "Use npm ci to install exactly what package-lock.json pins.",
    ),
]


def _project(tmp_path: Path) -> tuple[Path, list[Any], dict[tuple[str, str], list[Any]]]:
    """The two sessions of one project, their labels, and the project's sessions in order."""
    corpora = tmp_path / "corpora"
    corpus = corpora / "real"
    later = Transcript(corpus, LATER, day=2)
    earlier = Transcript(corpus, EARLIER, day=1)
    labels = [
        earlier.label(
            corpus,
            "toolu_e1",
            earlier.run("toolu_e1", "pytest", "E   No module named 'x'", failed=True),
            VENV,
        ),
        earlier.label(
            corpus,
            "toolu_e2",
            earlier.run("toolu_e2", "docker compose up", "timed out", failed=True),
            DOCKER,
        ),
        earlier.label(
            corpus,
            "toolu_e3",
            earlier.run("toolu_e3", "git push --force", "rejected", failed=True),
            FORCE,
        ),
    ]
    later.prompt("Ship the release notes.")
    later.run("toolu_l0", "docker ps", "CONTAINER ID   IMAGE")  # the docker lesson comes here
    labels.append(
        later.label(
            corpus,
            "toolu_l1",
            later.run("toolu_l1", "pytest -x", "E   No module named 'x'", failed=True),
            VENV,
        )
    )
    labels.append(
        later.label(
            corpus,
            "toolu_l2",
            later.run("toolu_l2", "docker compose up", "timed out", failed=True),
            DOCKER,
        )
    )
    labels.append(
        later.label(
            corpus,
            "toolu_l3",
            later.run("toolu_l3", "git push --force origin main", "rejected", failed=True),
            FORCE,
        )
    )
    later.run("toolu_l4", "npm ci", "added 12 packages")  # the npm lesson: about nothing labelled
    labels.append(
        later.label(
            corpus, "toolu_l5", later.run("toolu_l5", "gofmt -l .", "main.go", failed=True), TABS
        )
    )
    again = later.run("toolu_l6", "docker compose up", "timed out", failed=True)
    labels.append(later.label(corpus, "toolu_l6", again, DOCKER))  # the docker mistake again
    return corpora, labels, value.reusable(labels)


def _home(
    tmp_path: Path, name: str, lessons: list[Lesson], corpora: Path, corpus: str = "real"
) -> tuple[dict[str, str], Any, list[Any]]:
    """A home whose store holds ``lessons`` (its manifest built), the agents' plugins, and the
    sessions of the one project under ``corpora``."""
    env = value.noise().make_home(tmp_path, name)
    with services.session(env) as sess:
        sess.store.add_lessons(lessons)
        sess.rebuild_manifest()
        agents = sess.plugins.agents()
    (sessions,) = value.sessions_of(corpora, [corpus], agents, {}).values()
    return env, agents, sessions


def _eager(
    env: dict[str, str],
    sessions: list[Any],
    lessons: int,
    by_file: Any,
    corpora: Path,
    scratch: Path,
    *rest: Any,
) -> Any:
    """The eager variant's figures of replaying ``sessions`` (``rest``: window, sub-agent rule)."""
    learned = value.Learned({"eager": env}, pending=lessons, held=0)
    return value.measure_project(sessions, learned, by_file, corpora, scratch, *rest)["eager"]


def _measure(tmp_path: Path, window: int) -> Any:
    corpora, _labels, by_file = _project(tmp_path)
    env, _agents, sessions = _home(tmp_path, f"home-{window}", CATALOGUE, corpora)
    assert [s.key for s in sessions] == [EARLIER, LATER]
    scratch = tmp_path / f"replay-{window}"
    return _eager(env, sessions, len(CATALOGUE), by_file, corpora, scratch, window)


def test_a_repeat_is_caught_before_at_or_missed_and_a_lesson_about_nothing_is_noise(
    tmp_path: Path,
) -> None:
    figures = _measure(tmp_path, window=20)

    assert (figures.sessions_learned, figures.sessions_replayed) == (1, 1)
    assert figures.calls == 7
    assert figures.prompts == 1
    assert figures.labelled == 5
    assert figures.ceiling == 4  # the gofmt failure repeats nothing of the earlier session
    assert figures.before == 2  # docker, twice: its lesson came with `docker ps`
    assert figures.before_again == 1  # the second time, after a docker failure already
    assert figures.at_before_it_ran == 1  # pytest: its hint came with the failing call
    assert figures.at_after_it_failed == 0
    assert [name.rsplit("#", 1)[1] for name in figures.missed] == [
        "toolu_l3 (no lesson about it learned)"
    ]
    assert figures.missed_unlearned == 1
    venv = repr("Run the tests with the project's virtualenv")
    docker = "'Start docker compose detached' for 'docker compose up without -d.'"
    again = "before, 6 calls earlier (before), with an earlier failure of its kind"
    assert [name.split("#", 1)[1] for name in figures.caught] == [
        f"toolu_l1 (at, before it ran): {venv} for {VENV['trigger']!r}",
        f"toolu_l2 (before, 2 calls earlier (before)): {docker}",
        f"toolu_l6 ({again}): {docker}",
    ]
    assert figures.deliveries == 3  # docker, pytest, npm: each once in the session
    assert (figures.before_a_call, figures.after_a_call, figures.on_prompt) == (3, 0, 0)
    assert figures.relevant == 2  # npm's is about nothing labelled
    result = figures.as_json()
    assert result["catches"] == 3
    assert result["caughtShare"] == 0.75
    assert result["beforeShare"] == round(2 / 3, 3)
    assert result["deliveriesPer100"] == round(300 / 7, 2)
    assert result["relevantShare"] == round(2 / 3, 3)


def test_relevance_looks_only_as_far_ahead_as_the_window(tmp_path: Path) -> None:
    """The docker lesson comes two calls before its failure: with a window of one call it is
    no longer relevant, though it still caught the failure before it happened."""
    figures = _measure(tmp_path, window=1)

    assert figures.deliveries == 3
    assert figures.relevant == 1
    assert figures.before == 2


def _event(session: str, call_id: str) -> str:
    """A labelled event of the test project, as the hand verdicts name it."""
    return f"real/claude/acme__widgets/{session}.jsonl#{call_id}"


def test_hand_verdicts_decide_over_the_lesson_rule_both_ways(tmp_path: Path) -> None:
    """A verdict on record decides whether a later event repeats an earlier one and whether a
    lesson is about an event, whichever way the lesson rule would go; a pair with no verdict
    goes by the rule and is counted as such."""
    corpora, _labels, by_file = _project(tmp_path)
    env, _agents, sessions = _home(tmp_path, "home-judged", CATALOGUE, corpora)
    docker = "Start docker compose detached"
    relevance = value.Relevance(
        verdicts={
            (docker, _event(LATER, "toolu_l2")): False,  # the rule says yes
            ("Install with the lockfile", _event(LATER, "toolu_l5")): True,  # no
        },
        repeated={
            _event(LATER, "toolu_l3"): None,  # the rule says it repeats toolu_e3
            _event(LATER, "toolu_l5"): _event(EARLIER, "toolu_e1"),
        },
    )
    learned = value.Learned({"eager": env}, pending=len(CATALOGUE), held=0)
    figures = value.measure_project(
        sessions, learned, by_file, corpora, tmp_path / "replay", 20, "own", relevance
    )["eager"]

    assert figures.ceiling == 4  # the force push left out, the gofmt failure counted in
    caught = {name.split("#", 1)[1].split(" ", 1)[0] for name in figures.caught}
    # docker's first failure is not its lesson's by the verdict; its second still is, by the
    # rule; gofmt is caught before by the npm lesson, said to be about it
    assert caught == {"toolu_l1", "toolu_l5", "toolu_l6"}
    assert figures.relevant == 3  # npm's is now about the gofmt failure, within the window
    assert (docker, _event(LATER, "toolu_l6")) in relevance.by_rule
    assert ("(repeats)", _event(LATER, "toolu_l3")) in relevance.judged
    assert (docker, _event(LATER, "toolu_l2")) in relevance.judged
    assert (docker, _event(LATER, "toolu_l2")) not in relevance.by_rule


def test_the_hand_verdicts_on_record_load_and_name_their_events() -> None:
    """The verdicts kept with the labels load, and every event they name is a labelled one."""
    relevance = value.Relevance.load()
    labels = value.capture_eval().load_labels(value.LABELS)
    events = {f"{lb.key}#{lb.call_id}" for lb in labels}
    assert relevance.verdicts and relevance.repeated
    named = {label for _lesson, label in relevance.verdicts}
    named |= set(relevance.repeated) | {e for e in relevance.repeated.values() if e}
    assert named <= events


def test_a_replay_that_cannot_run_exits_non_zero_and_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert value.main(["--corpora", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert "cannot run" in err and "--corpora" in err


@pytest.mark.parametrize(("rule", "docker"), [("own", 2), ("shared", 1)])  # docker deliveries
def test_a_subagent_gets_its_parents_lessons_again_only_with_a_record_of_its_own(
    tmp_path: Path, rule: str, docker: int
) -> None:
    """The sub-agent's docker call brings the docker lesson once more when it keeps its own
    dedup record (as the hooks do), never when it shares its parent's; either way the count
    says how many deliveries went to a sub-agent's calls."""
    corpora, _labels, by_file = _project(tmp_path)
    sub = Transcript(corpora / "real", LATER, day=2, agent="a1b2c3")
    sub.prompt("List the running containers.")
    sub.run("toolu_s1", "docker ps -a", "CONTAINER ID   IMAGE")
    env, _agents, sessions = _home(tmp_path, f"home-{rule}", CATALOGUE, corpora)
    assert [len(s.files) for s in sessions] == [1, 2]
    scratch = tmp_path / f"replay-{rule}"
    figures = _eager(env, sessions, len(CATALOGUE), by_file, corpora, scratch, 20, rule)
    assert figures.subagent_calls == 1
    assert figures.calls == 8
    lessons = figures.deliveries - 2  # pytest and npm, once each, in the parent
    assert lessons == docker
    # The parent's file is replayed first: its `docker ps` had the lesson already.
    assert [f.name for f in sessions[1].files] == [f"{LATER}.jsonl", "agent-a1b2c3.jsonl"]
    assert figures.in_subagents == docker - 1


#: Claude Code 2.1.197's result for a call whose input failed the tool's schema: refused before
#: it ran, and no hook heard of it (``tests/e2e/test_claude_refusals_e2e.py``).
REFUSED = (
    "<tool_use_error>InputValidationError: Bash failed due to the following issue:\n"
    "The parameter `timeout` type is expected as `number` but provided as `string`"
    "</tool_use_error>"
)


def test_a_call_claude_code_refused_before_any_hook_gets_no_delivery(tmp_path: Path) -> None:
    """The later session's first pytest call is refused by Claude Code's input checks, which
    fire no hook; the pytest hint comes with the next pytest call, the labelled failure, so it
    is caught at that call and not before it (the replay of every call would give it to the
    refused one, once a session, and count a catch before)."""
    corpora = tmp_path / "corpora"
    corpus = corpora / "real"
    earlier, later = Transcript(corpus, EARLIER, day=1), Transcript(corpus, LATER, day=2)
    failed = earlier.run("toolu_e1", "pytest", "E   No module named 'x'", failed=True)
    labels = [earlier.label(corpus, "toolu_e1", failed, VENV)]
    later.run("toolu_l0", "pytest -x", REFUSED, failed=True, timeout="long")
    again = later.run("toolu_l1", "pytest -x", "E   No module named 'x'", failed=True)
    labels.append(later.label(corpus, "toolu_l1", again, VENV))
    env, _agents, sessions = _home(tmp_path, "home", CATALOGUE, corpora)
    by_file = value.reusable(labels)
    figures = _eager(env, sessions, len(CATALOGUE), by_file, corpora, tmp_path / "replay")

    assert figures.calls == 2  # the refused call is still one of the session's calls
    assert figures.deliveries == 1
    assert (figures.before, figures.at_before_it_ran) == (0, 1)
    assert [name.split("#", 1)[1].split(":")[0] for name in figures.caught] == [
        "toolu_l1 (at, before it ran)"
    ]


def _opencode_export(path: Path, session: str, day: int, calls: list[tuple[str, str, int]]) -> None:
    """An OpenCode session as ``opencode export`` writes it: one typed prompt, then shell calls
    (id, command, exit code)."""
    parts = [
        {
            "id": f"prt_{call_id}",
            "type": "tool",
            "tool": "bash",
            "callID": call_id,
            "state": {
                "status": "completed",
                "input": {"command": command},
                "output": "failed" if code else "ok",
                "metadata": {"exit": code},
            },
        }
        for call_id, command, code in calls
    ]
    created = 1_780_000_000_000 + day * 86_400_000
    doc = {
        "info": {"id": session, "projectID": "prj", "directory": "/srv/dev/widgets"},
        "messages": [
            {
                "info": {"id": "msg_u", "role": "user", "time": {"created": created}},
                "parts": [{"id": "prt_u", "type": "text", "text": "Ship it."}],
            },
            {
                "info": {
                    "id": "msg_a",
                    "role": "assistant",
                    "time": {"created": created + 1, "completed": created + 2},
                },
                "parts": parts,
            },
        ],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2))


def test_an_opencode_session_is_replayed_through_its_plugins_payloads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The prompt, then the session block (asked for at the first model request), then each
    call before and after it, through OpenCode's hot adapter: the docker hint comes before its
    call ran, and the calls are found by their ids for the labels."""
    corpus = tmp_path / "corpora" / "real2"
    project = corpus / "opencode" / "acme__widgets"
    _opencode_export(project / "a" / "full.jsonl", "ses_earlier", 1, [("c0", "ls", 0)])
    calls = [("c1", "docker compose up", 1), ("c2", "npm ci", 0)]
    _opencode_export(project / "b" / "full.jsonl", "ses_later", 2, calls)
    env, agents, sessions = _home(tmp_path, "home", CATALOGUE, tmp_path / "corpora", "real2")
    assert [s.key for s in sessions] == ["ses_earlier", "ses_later"]
    sent: list[tuple[str, str]] = []
    adapter = value.noise().adapter

    def recording(agent: str, event: str) -> Any:
        sent.append((agent, event))
        return adapter(agent, event)

    monkeypatch.setattr(value.noise(), "adapter", recording)
    replayed = value.replay_session(sessions[1], env, agents, tmp_path / "corpora", tmp_path, "t")

    assert sent == [
        ("opencode", "chat.message"),
        ("opencode", "session.start"),
        ("opencode", "tool.execute.before"),
        ("opencode", "tool.execute.after"),  # exit 1: the plugin's after, read as a failure
        ("opencode", "tool.execute.before"),
        ("opencode", "tool.execute.after"),
    ]
    assert (replayed.calls, replayed.prompts) == (2, 1)
    assert replayed.index == {
        ("opencode/acme__widgets/b/full.jsonl", "c1"): 0,
        ("opencode/acme__widgets/b/full.jsonl", "c2"): 1,
    }
    assert [(d.lesson, d.index, d.phase) for d in replayed.deliveries] == [
        (CATALOGUE[0].id, 0, "before"),  # docker
        (CATALOGUE[2].id, 1, "before"),  # npm
    ]


TIMEOUT = {
    "mistake": "The Bash timeout was given as a string, so Claude Code refused the call.",
    "fix": "Pass the timeout as a number of milliseconds.",
    "trigger": "A Bash call whose timeout parameter is a string.",
}


def test_a_refusals_lesson_caught_up_with_the_next_call_counts_at_the_refused_call(
    tmp_path: Path,
) -> None:
    """No hook fires for the refused call; the hook of the next call reads the refusal back from
    the transcript and recalls its lesson. The benchmark counts that lesson on the refused call,
    after it failed (caught up), not on the call it came with."""
    corpora = tmp_path / "corpora"
    corpus = corpora / "real"
    earlier, later = Transcript(corpus, EARLIER, day=1), Transcript(corpus, LATER, day=2)
    first = earlier.run("toolu_e1", "sleep 1", REFUSED, failed=True, timeout="long")
    labels = [earlier.label(corpus, "toolu_e1", first, TIMEOUT)]
    refused = later.run("toolu_l0", "sleep 2", REFUSED, failed=True, timeout="long")
    later.run("toolu_l1", "sleep 2", "")
    labels.append(later.label(corpus, "toolu_l1", refused, TIMEOUT))
    labels[-1] = value.capture_eval().Label(**{**vars(labels[-1]), "call_id": "toolu_l0"})
    recalled = Lesson(
        id="01VALUETEST000000000000000009",
        slug="value-test-timeout",
        type=LessonType.HINT,
        priority=6,
        summary="Bash: the timeout parameter is a number",
        mistake="The Bash timeout was given as a string and the call was refused.",
        remediation="Pass the timeout as a number of milliseconds.",
        error_lines=(
            "inputvalidationerror: bash failed due to the following issue:",
            "the parameter `timeout` type is expected as `number` but provided as `string`",
        ),
    )
    env, _agents, sessions = _home(tmp_path, "home", [recalled], corpora)
    by_file = value.reusable(labels)
    figures = _eager(env, sessions, 1, by_file, corpora, tmp_path / "replay")

    assert figures.calls == 2
    assert figures.deliveries == 1
    assert figures.relevant == 1
    assert (figures.before, figures.at_before_it_ran, figures.at_after_it_failed) == (0, 0, 1)
    assert [name.split("#", 1)[1].split(":")[0] for name in figures.caught] == [
        "toolu_l0 (at, after it failed (caught up))"
    ]
