"""The counting of ``benchmarks/noise.py`` on small transcripts written here, with known answers.

The replay is the real one (the hook runner, a SQLite store, the outcome loop); only the
catalogue, the transcripts, their labels and their split are made up, so each figure can be
worked out by hand: what the loop learns from never shows in a reported figure, a lesson that
rides along with a labelled failure is not counted as reaching it, and a lesson that stops
reaching a failure while still firing elsewhere is silent by the strict count only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmark_scripts import load
from lessons_core import services
from lessons_core.models import Lesson, LessonType, Triggers

REPO = Path(__file__).resolve().parents[2]


noise = load("noise_benchmark", REPO / "benchmarks" / "noise.py")

#: Sessions of the made-up corpus, each in its own file under ``claude/acme/``.
LEARNING = "11111111-0000-4000-8000-00000000aaaa"
REPORTED = "22222222-0000-4000-8000-00000000bbbb"

VENV_FIX = {
    "mistake": "Bare pytest ran the system interpreter, which lacks the project's packages.",
    "fix": "Run the suite as .venv/bin/python -m pytest.",
    "trigger": "A bare pytest command in a project with a virtualenv.",
}
MODULE_ERROR = "Exit code 2\nE   ModuleNotFoundError: No module named 'requests'"
UNIT_FAILED = "Exit code 1\nFAILED tests/unit/test_totals.py::test_rounding - assert 3 == 4"


def _lesson(n: int, kind: LessonType, pattern: str, **words: str) -> Lesson:
    return Lesson(
        id=f"01NOISETEST{n:015d}",
        slug=f"noise-test-{n}",
        type=kind,
        triggers=Triggers(tool_names=("Bash",), command_patterns=(pattern,)),
        priority=6,
        **words,
    )


#: About the labelled failure: it says what the label says (pytest, the virtualenv).
VENV = {
    "summary": "Run the tests with the project's virtualenv",
    "mistake": "Bare pytest runs the system interpreter, which lacks the project's packages.",
    "remediation": "Use .venv/bin/python -m pytest.",
}
#: Fires on the same call, about something else altogether.
DOCKER = {
    "summary": "Start docker compose detached",
    "mistake": "docker compose up blocks the terminal until it is stopped.",
    "remediation": "Use docker compose up -d and read the logs with docker compose logs.",
}


class Transcript:
    """A Claude Code session written line by line, as Claude Code records one."""

    def __init__(self, corpus: Path, session: str) -> None:
        self.path = corpus / "claude" / "acme" / f"{session}.jsonl"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.session = session
        self.n = 0
        self.lines: list[str] = []

    def _line(self, kind: str, message: dict[str, Any]) -> None:
        self.n += 1
        record = {
            "parentUuid": None,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/srv/dev/acme",
            "sessionId": self.session,
            "version": "2.1.33",
            "type": kind,
            "uuid": f"{self.session[:8]}-{self.n:04d}",
            "timestamp": f"2026-03-01T10:{self.n:02d}:00.000Z",
            "message": message,
        }
        self.lines.append(json.dumps(record))
        self.path.write_text("\n".join(self.lines) + "\n", encoding="utf-8")

    def run(self, call_id: str, command: str, output: str, *, failed: bool = False) -> None:
        self.call(call_id, "Bash", {"command": command}, output, failed=failed)

    def call(
        self, call_id: str, name: str, tool_input: dict[str, Any], output: str, *, failed: bool
    ) -> None:
        use = {"type": "tool_use", "id": call_id, "name": name, "input": tool_input}
        self._line("assistant", {"id": f"msg_{call_id}", "role": "assistant", "content": [use]})
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": output}
        if failed:
            result["is_error"] = True
        self._line("user", {"role": "user", "content": [result]})

    def key(self, corpus: Path, call_id: str) -> tuple[str, str]:
        return (self.path.relative_to(corpus).as_posix(), call_id)


def _catalogue(tmp_path: Path, lessons: list[Lesson]) -> dict[str, str]:
    env = noise.make_home(tmp_path, "home")
    with services.session(env) as sess:
        sess.store.add_lessons(lessons)
        sess.rebuild_manifest()
    return env


def _label(lesson: dict[str, str] = VENV_FIX) -> dict[str, Any]:
    return {"tool": "Bash", "kind": "error", "reusable": True, "lesson": lesson}


def _sides(corpus: Path, *pairs: tuple[Transcript, str]) -> dict[str, str]:
    return {t.path.relative_to(corpus).as_posix(): side for t, side in pairs}


def test_a_delivery_on_the_learning_half_is_not_counted_nor_the_reported_half_learned_from(
    tmp_path: Path,
) -> None:
    corpus = tmp_path / "corpus"
    learning, reported = Transcript(corpus, LEARNING), Transcript(corpus, REPORTED)
    learning.run("toolu_l1", "pytest -q", MODULE_ERROR, failed=True)
    learning.run("toolu_l2", "ls", "setup.py")
    reported.run("toolu_r1", "pytest -x", MODULE_ERROR, failed=True)
    labels = {
        learning.key(corpus, "toolu_l1"): _label(),
        reported.key(corpus, "toolu_r1"): _label(),
    }
    env = _catalogue(tmp_path, [_lesson(1, LessonType.HINT, r"^pytest\b", **VENV)])
    sides = _sides(corpus, (learning, noise.LEARN), (reported, noise.REPORT))

    result = noise.run_catalogue("made", env, corpus, 1, labels, sides)

    for figures in result["rounds"]:
        assert figures["calls"] == 1  # the reported session's one call
        assert figures["failingCalls"] == 1
        assert figures["labelledReusableFailures"] == 1
        assert figures["labelledFailuresReached"] == 1
    assert result["split"] == {
        noise.LEARN: {"transcripts": 1, "calls": 2},
        noise.REPORT: {"transcripts": 1, "calls": 1},
    }
    assert result["reportedTranscripts"] == [reported.path.relative_to(corpus).as_posix()]
    # The loop judged the learning half's deliveries and none of the reported half's.
    assert sum(result["rounds"][0]["learned"]["judged"].values()) >= 1
    with services.session(env) as sess:
        judged = {str(d["session_id"]) for d in sess.store.list_deliveries()}
    assert judged
    assert all(LEARNING in session for session in judged), judged


def test_a_lesson_about_another_failure_does_not_reach_it(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    reported = Transcript(corpus, REPORTED)
    reported.run("toolu_r1", "pytest -x", MODULE_ERROR, failed=True)
    labels = {reported.key(corpus, "toolu_r1"): _label()}
    sides = _sides(corpus, (reported, noise.REPORT))
    about = _lesson(1, LessonType.HINT, r"^pytest\b", **VENV)
    other = _lesson(2, LessonType.HINT, r"^py", **DOCKER)

    alone = noise.run_catalogue(
        "other", _catalogue(tmp_path / "a", [other]), corpus, 0, labels, sides
    )
    both = noise.run_catalogue(
        "both", _catalogue(tmp_path / "b", [about, other]), corpus, 0, labels, sides
    )

    (figures,) = alone["rounds"]
    assert figures["distinctLessons"] == 1  # it was delivered on the labelled failure ...
    assert figures["labelledFailuresWithAnyLesson"] == 1
    assert figures["labelledFailuresReached"] == 0  # ... and it is not about it
    assert alone["labelledPairsFirst"] == 0
    (figures,) = both["rounds"]
    assert figures["distinctLessons"] == 2
    assert figures["labelledFailuresReached"] == 1
    assert both["labelledPairsFirst"] == 1  # the venv lesson's pair only


def test_strict_and_lenient_silence_differ_when_a_lesson_still_fires_elsewhere(
    tmp_path: Path,
) -> None:
    """A pytest guard denies every bare pytest run. On the learning half each denied run in fact
    worked, so the loop compiles it as a hint and lets it rest (it rides only with a failing
    run, once a session): on the reported half it now comes with the first run, which failed
    for a reason of its own, and no longer with the second, labelled, one."""
    corpus = tmp_path / "corpus"
    learning, reported = Transcript(corpus, LEARNING), Transcript(corpus, REPORTED)
    for n in range(4):
        learning.run(f"toolu_l{n}", "pytest -q", "4 passed in 0.2s")
    reported.run("toolu_r1", "pytest -q tests/unit", UNIT_FAILED, failed=True)
    reported.run("toolu_r2", "pytest -q tests/api", MODULE_ERROR, failed=True)
    labels = {reported.key(corpus, "toolu_r2"): _label()}
    sides = _sides(corpus, (learning, noise.LEARN), (reported, noise.REPORT))
    guard = _lesson(1, LessonType.GUARD, r"^pytest\b", **VENV)
    env = _catalogue(tmp_path, [guard])

    result = noise.run_catalogue("guard", env, corpus, 1, labels, sides)

    first, last = result["rounds"]
    assert first["denials"] == 2 and last["denials"] == 0
    assert last["distinctLessons"] == 1 and last["injectionsOnFailingCalls"] == 1
    assert first["labelledFailuresReached"] == 1 and last["labelledFailuresReached"] == 0
    assert result["labelledPairsFirst"] == 1
    assert result["silencedStrict"] == [f"{guard.id} @ {'#'.join(labels.popitem()[0])}"]
    assert result["silencedLenient"] == []  # it still fires, on the first run


def test_the_report_defines_both_silence_counts_and_the_split(tmp_path: Path, capsys: Any) -> None:
    corpus = tmp_path / "corpus"
    reported = Transcript(corpus, REPORTED)
    reported.run("toolu_r1", "pytest -x", MODULE_ERROR, failed=True)
    sides = _sides(corpus, (reported, noise.REPORT))
    env = _catalogue(tmp_path, [_lesson(1, LessonType.HINT, r"^pytest\b", **VENV)])
    result = noise.run_catalogue("made", env, corpus, 0, {}, sides)

    noise.print_report([result])

    out = capsys.readouterr().out
    assert "went silent: strict 0, lenient 0" in out
    assert "went silent, strict = " in out and "went silent, lenient = " in out
    assert "learns on the dev side of the locked split" in out


#: Claude Code's results for calls its input checks refused, worded as Claude Code 2.1.197
#: words them (``tests/e2e/test_claude_refusals_e2e.py``): no hook heard of any of them.
REFUSED_SCHEMA = (
    "<tool_use_error>InputValidationError: Bash failed due to the following issue:\n"
    "The parameter `timeout` type is expected as `number` but provided as `string`"
    "</tool_use_error>"
)
REFUSED_NOT_FOUND = (
    "<tool_use_error>String to replace not found in file.\nString: x</tool_use_error>"
)
#: A Read of a missing file runs and fails: its words are a refusal's, its hooks fire.
MISSING = "File does not exist. Note: your current working directory is /srv/dev/acme."
#: Wrapped, but no refusal of the call's input: another call of the turn failed.
SIBLING = "<tool_use_error>Sibling tool call errored</tool_use_error>"


def _refusals(tmp_path: Path) -> dict[str, Any]:
    """A Claude Code session of refused calls, calls that ran and failed, and a cancelled one:
    call id -> the call as the corpus loader reads it (its result kept on it)."""
    corpus = tmp_path / "corpus"
    session = Transcript(corpus, REPORTED)
    edit = {"file_path": "/srv/dev/acme/app.py", "old_string": "x", "new_string": "y"}
    session.call("toolu_schema", "Bash", {"command": "pytest -x", "timeout": "long"},
                 REFUSED_SCHEMA, failed=True)  # fmt: skip
    session.call("toolu_not_found", "Edit", edit, REFUSED_NOT_FOUND, failed=True)
    session.call("toolu_missing", "Read", {"file_path": "/srv/dev/acme/gone.txt"}, MISSING,
                 failed=True)  # fmt: skip
    session.run("toolu_exit", "pytest -x", MODULE_ERROR, failed=True)
    session.run("toolu_sibling", "pytest -q", SIBLING, failed=True)
    env = noise.make_home(tmp_path, "home")
    with services.session(env) as sess:
        ((_path, calls),) = noise.load_corpus(corpus, sess.plugins.agents())
    return {call.call_id: call for call in calls}


def test_a_claude_call_refused_by_its_input_checks_gets_no_hook(tmp_path: Path) -> None:
    """Claude Code fires no hook for a call its input checks refused (the result is wrapped in
    ``<tool_use_error>``): the replay sends nothing for it. A call that ran and failed gets its
    ``PreToolUse`` and ``PostToolUseFailure``, however its result is worded; a call cancelled
    because another failed is no refusal of its input and keeps its ``PreToolUse``."""
    calls = _refusals(tmp_path)

    def events(call_id: str) -> list[str]:
        return [event for _, event, _ in noise.payloads(calls[call_id], tmp_path / "t.jsonl")]

    assert events("toolu_schema") == []
    assert events("toolu_not_found") == []
    assert events("toolu_missing") == ["PreToolUse", "PostToolUseFailure"]
    assert events("toolu_exit") == ["PreToolUse", "PostToolUseFailure"]
    assert events("toolu_sibling") == ["PreToolUse"]
    # The refusals are still failed calls of the session: only the hooks never heard of them.
    assert calls["toolu_schema"].failed and calls["toolu_not_found"].failed


def test_a_refused_call_is_counted_but_nothing_is_delivered_on_it(tmp_path: Path) -> None:
    """A pytest hint would match the refused pytest call; Claude Code never asked the hook, so
    the replay delivers nothing there, and the hint comes with the next pytest run instead."""
    corpus = tmp_path / "corpus"
    reported = Transcript(corpus, REPORTED)
    reported.call("toolu_r1", "Bash", {"command": "pytest -x", "timeout": "long"},
                  REFUSED_SCHEMA, failed=True)  # fmt: skip
    reported.run("toolu_r2", "pytest -x", MODULE_ERROR, failed=True)
    labels = {reported.key(corpus, "toolu_r2"): _label()}
    sides = _sides(corpus, (reported, noise.REPORT))
    env = _catalogue(tmp_path, [_lesson(1, LessonType.HINT, r"^pytest\b", **VENV)])

    (figures,) = noise.run_catalogue("made", env, corpus, 0, labels, sides)["rounds"]

    assert figures["calls"] == 2 and figures["failingCalls"] == 2
    assert figures["injections"] == 1
    assert figures["labelledFailuresReached"] == 1  # once a session: on the call that ran


def _codex_line(kind: str, **payload: Any) -> str:
    return json.dumps({"timestamp": "2026-07-12T06:26:03.329Z", "type": kind, "payload": payload})


def _script(cmd: str) -> str:
    args = json.dumps({"cmd": cmd, "workdir": "/srv/dev/acme", "yield_time_ms": 1000})
    return f"const r = await tools.exec_command({args});\ntext(JSON.stringify(r));\n"


def _script_output(result: dict[str, Any]) -> list[dict[str, str]]:
    head = {"type": "input_text", "text": "Script completed\nWall time 0.2 seconds\nOutput:\n"}
    return [head, {"type": "input_text", "text": json.dumps(result)}]


def test_a_codex_code_mode_script_of_one_call_is_replayed_as_that_call(tmp_path: Path) -> None:
    """Codex dispatches a code-mode script's tool calls as direct ones, hooks and all: the hook
    sees the command (Bash) and its failure, never the script (an ``apply_patch`` before)."""
    from lessons_codex import hot_codex

    failing = {"chunk_id": "82611a", "exit_code": 1, "output": "ERR_PNPM_UNSUPPORTED_ENGINE\n"}
    lines = [
        _codex_line("session_meta", id="s-1", cwd="/srv/dev/acme"),
        _codex_line(
            "response_item",
            type="custom_tool_call",
            call_id="c1",
            name="exec",
            input=_script("corepack pnpm run check"),
        ),
        _codex_line(
            "response_item",
            type="custom_tool_call_output",
            call_id="c1",
            output=_script_output(failing),
        ),
        _codex_line(
            "response_item",
            type="custom_tool_call",
            call_id="c2",
            name="exec",
            input=_script("ls") + _script("pwd"),
        ),
        _codex_line(
            "response_item",
            type="custom_tool_call",
            call_id="c3",
            name="apply_patch",
            input="*** Begin Patch\n*** End Patch\n",
        ),
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    one, two, patch = noise.codex_calls(path)
    assert (one.name, one.tool_input) == ("Bash", {"command": "corepack pnpm run check"})
    assert one.raw_output == "Process exited with code 1\nOutput:\nERR_PNPM_UNSUPPORTED_ENGINE\n"
    before, after = (hot_codex.normalize(p) for _, _, p in noise.payloads(one, path))
    assert (before["tool"], before["command"]) == ("Bash", "corepack pnpm run check")
    assert after["event"] == "post_failure" and "ERR_PNPM_UNSUPPORTED_ENGINE" in after["error"]
    # A script doing more stays the script; another custom tool is the patch it always was.
    assert (two.name, two.scripted) == ("exec", False)
    assert patch.name == "apply_patch" and not patch.scripted
