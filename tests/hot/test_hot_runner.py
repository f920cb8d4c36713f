"""The hook runner: decisions for each event, and failing open on any input."""

from __future__ import annotations

import io
import json

import echo_adapter
import pytest
from hot_support import install_manifest, make_lesson, manifest_for, pre_tool
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lessons_core.hot import manifest as manifest_mod
from lessons_core.hot import runner
from lessons_core.models import LessonType


def _run(payload, environ=None) -> tuple[int, str]:
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    out = io.StringIO()
    status = runner.run(echo_adapter, stdin=io.BytesIO(raw), stdout=out, environ=environ)
    return status, out.getvalue()


def _decision(payload) -> dict | None:
    status, out = _run(payload)
    assert status == 0
    return json.loads(out)["decision"] if out else None


GUARD = {
    "type": LessonType.GUARD,
    "injection": "Do not force-push: `{command}` rewrites shared history.",
    "triggers": {"tool_names": ["Bash"], "command_patterns": [r"git\s+push\s+(-f|--force)\b"]},
}


def test_guard_denies_every_matching_call_with_the_command(home):
    """Guards deny each time, with {command} replaced (truncated to ~200 characters)."""
    guard = make_lesson(**GUARD)
    install_manifest(home, guard)
    for _ in range(2):
        decision = _decision(pre_tool(tool="Bash", command="git push --force origin main"))
        assert decision["deny"] == (
            "Do not force-push: `git push --force origin main` rewrites shared history."
        )
        assert decision["delivered"] == [guard.id]
    long_command = "git push -f " + "x" * 500
    decision = _decision(pre_tool(tool="Bash", command=long_command))
    assert "x" * 150 in decision["deny"]
    assert "x" * 300 not in decision["deny"]
    assert _decision(pre_tool(tool="Bash", command="git push origin main")) is None


def test_nudge_denies_once_then_lets_the_retry_through(home):
    """The first matching call is denied with the retry note; the retry gets nothing."""
    nudge = make_lesson(
        type=LessonType.NUDGE,
        triggers={"tool_names": ["Bash"], "command_patterns": ["npm publish"]},
    )
    install_manifest(home, nudge)
    first = _decision(pre_tool(tool="Bash", command="npm publish"))
    assert first["deny"].endswith(runner.RETRY_NOTE)
    assert first["delivered"] == [nudge.id]
    assert _decision(pre_tool(tool="Bash", command="npm publish")) is None
    other_session = _decision(pre_tool(tool="Bash", command="npm publish", session_id="s-2"))
    assert other_session["deny"]


def test_hint_is_delivered_once_per_session(home):
    """A hint becomes context once per session, with a trailer naming it."""
    hint = make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": ["pytest"]})
    install_manifest(home, hint)
    decision = _decision(pre_tool(tool="Bash", command="pytest -q"))
    assert decision["context"].startswith("## Lesson:")
    assert decision["deny"] is None
    assert decision["trailer"] == f"<!-- lessons: injected={hint.id} -->"
    assert _decision(pre_tool(tool="Bash", command="pytest -q")) is None
    assert _decision(pre_tool(tool="Bash", command="pytest", session_id="s-9"))["context"]


def test_budget_drops_are_in_the_decision_and_trailer(home):
    """Over budget: later hints shrink to their summary or are dropped; the trailer says so."""
    summaries = ["short one", "z" * 190, "short two", "short three"]
    hints = [
        make_lesson(
            priority=9 - n,
            mistake=str(n) * 400,
            summary=summary,
            triggers={"tool_names": ["Bash"], "command_patterns": ["make"]},
        )
        for n, summary in enumerate(["first", *summaries])
    ]
    install_manifest(home, *hints, injection_budget_bytes=600, max_lessons_per_injection=3)
    decision = _decision(pre_tool(tool="Bash", command="make all"))
    assert decision["delivered"] == [hints[0].id, hints[1].id, hints[3].id]
    assert "Lesson: short one" in decision["context"]
    assert len(decision["context"].encode()) <= 600
    assert decision["dropped"] == [
        {"id": hints[2].id, "why": "budget"},
        {"id": hints[4].id, "why": "limit"},
    ]
    assert decision["trailer"] == (
        f"<!-- lessons: injected={hints[0].id},{hints[1].id},{hints[3].id} "
        "dropped=budget:1,limit:1 -->"
    )


def test_guard_wins_over_hints(home):
    """When a guard matches the call is denied; hints wait for a call that goes through."""
    guard = make_lesson(**GUARD)
    hint = make_lesson(priority=10, triggers={"tool_names": ["Bash"], "command_patterns": ["git"]})
    install_manifest(home, guard, hint)
    decision = _decision(pre_tool(tool="Bash", command="git push -f"))
    assert decision["delivered"] == [guard.id]
    assert _decision(pre_tool(tool="Bash", command="git status"))["delivered"] == [hint.id]


def test_session_start_protocol_and_directives_within_budget(home):
    """Protocol text plus ranked directives, never over sessionStartBudgetBytes."""
    directives = [
        make_lesson(type=LessonType.DIRECTIVE, priority=9 - n // 5, mistake="d" * 900)
        for n in range(30)
    ]
    install_manifest(home, *directives, session_start_budget_bytes=4096)
    decision = _decision({"event": "session_start", "source": "startup", "session_id": "s"})
    context = decision["context"]
    assert context.startswith("## Lessons from earlier sessions")
    assert len(context.encode()) <= 4096
    assert decision["delivered"][0] == directives[0].id
    assert decision["dropped"]


@pytest.mark.parametrize("size", [60, 150, 333, 500, 777, 1200, 2000])
def test_session_start_stays_in_budget_with_its_trailer(home, size):
    """What the agent receives (context and trailer, as every adapter joins them) fits the
    budget; each lesson is whole or its summary, and the dropped ones are only counted."""
    from lessons_core.hot.payload import with_trailer

    directives = [
        make_lesson(
            type=LessonType.DIRECTIVE,
            priority=9 - n // 10,
            summary=f"directive number {n}",
            mistake=" ".join(["word"] * (size // 5 + n)),
        )
        for n in range(40)
    ]
    manifest = install_manifest(home, *directives, session_start_budget_bytes=4096)
    decision = _decision({"event": "session_start", "source": "startup", "session_id": "s"})
    received = with_trailer(decision["context"], decision["trailer"])
    assert len(received.encode("utf-8")) <= 4096
    lessons = manifest["lessons"]
    assert decision["delivered"]
    for lesson_id in decision["delivered"]:
        entry = lessons[lesson_id]
        assert entry["text"] in received or entry["short"] in received, lesson_id
    dropped = decision["dropped"]
    assert dropped
    assert decision["trailer"].endswith(f" dropped=budget:{len(dropped)} -->")
    assert not any(item["id"] in received for item in dropped)


def test_session_start_counts_the_handoff_separator(home):
    """The handoff after the protocol is joined by a separator, and that counts too."""
    from lessons_core.hot.payload import with_trailer

    directives = [
        make_lesson(type=LessonType.DIRECTIVE, priority=9, mistake="m" * n) for n in range(1, 400)
    ]
    manifest = install_manifest(home, *directives, session_start_budget_bytes=4096)
    protocol = manifest.get("protocol") or ""
    for carried_size in range(0, 60, 7):
        carried = "h" * (carried_size + 1)
        stats: dict = {}
        decision = runner.session_block({"cwd": "/nowhere"}, manifest, {}, stats, carried)
        received = with_trailer(decision["context"], decision["trailer"])
        assert received.startswith(protocol + "\n\n" + carried)
        assert len(received.encode("utf-8")) <= 4096, carried_size


def test_resume_does_not_repeat_the_block_but_clear_does(home):
    """`resume` skips a block the session already has; `clear` wipes and sends it again."""
    hint = make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": ["ls"]})
    install_manifest(home, hint)
    start = {"event": "session_start", "session_id": "s-1"}
    assert _decision({**start, "source": "startup"})["context"]
    assert _decision({**start, "source": "resume"}) is None
    assert _decision(pre_tool(tool="Bash", command="ls"))["delivered"] == [hint.id]
    assert _decision(pre_tool(tool="Bash", command="ls")) is None
    assert _decision({**start, "source": "clear"})["context"]
    assert _decision(pre_tool(tool="Bash", command="ls"))["delivered"] == [hint.id]


@pytest.mark.parametrize("how", ["session_start", "pre_compact"])
def test_compaction_rearms_only_important_lessons(home, how):
    """After compaction lessons at or above the threshold (7) can be delivered again."""
    important = make_lesson(
        priority=8, triggers={"tool_names": ["Bash"], "command_patterns": ["go"]}
    )
    minor = make_lesson(priority=3, triggers={"tool_names": ["Bash"], "command_patterns": ["go"]})
    install_manifest(home, important, minor)
    assert set(_decision(pre_tool(tool="Bash", command="go test"))["delivered"]) == {
        important.id,
        minor.id,
    }
    event = {"event": how, "session_id": "s-1"}
    if how == "session_start":
        event["source"] = "compact"
    _run(event)
    assert _decision(pre_tool(tool="Bash", command="go test"))["delivered"] == [important.id]


def test_subagent_start_gets_the_block_without_touching_state(home, state_dir):
    """A subagent starts empty: same block, no state written."""
    install_manifest(home, make_lesson(type=LessonType.PROTOCOL))
    decision = _decision({"event": "subagent_start", "session_id": "s"})
    assert decision["context"].startswith("## Lessons")
    assert not state_dir.exists()


def test_untrusted_state_dir_delivers_no_hints_but_guards_still_deny(home, tmp_path, monkeypatch):
    """World-writable state: nothing that needs dedup is delivered; guards need none."""
    guard = make_lesson(**GUARD)
    hint = make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": ["ls"]})
    install_manifest(home, guard, hint)
    bad = tmp_path / "open-state"
    bad.mkdir()
    bad.chmod(0o777)
    monkeypatch.setenv("LESSONS_STATE_DIR", str(bad))
    log = tmp_path / "hook.log"
    monkeypatch.setenv("LESSONS_HOOK_LOG", str(log))
    assert _decision(pre_tool(tool="Bash", command="ls")) is None
    assert _decision(pre_tool(tool="Bash", command="git push -f"))["deny"]
    record = json.loads(log.read_text().splitlines()[0])
    assert "writable" in record["state_error"]


def test_evaluate_touches_no_state(home, state_dir):
    """`evaluate` with state=None decides in-process and writes nothing."""
    hint = make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": ["ls"]})
    manifest = manifest_for(hint)
    for _ in range(2):
        decision = runner.evaluate(pre_tool(tool="Bash", command="ls"), manifest)
        assert decision["delivered"] == [hint.id]
    assert not state_dir.exists()


def test_log_line_fields(home, tmp_path, monkeypatch):
    """LESSONS_HOOK_LOG gets one JSON line per call with the documented fields."""
    hint = make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": ["ls"]})
    install_manifest(home, hint)
    log = tmp_path / "hook.log"
    monkeypatch.setenv("LESSONS_HOOK_LOG", str(log))
    _run({**pre_tool(tool="Bash", command="ls"), "hook_event_name": "PreToolUse"})
    _run(b"{not json")
    first, second = (json.loads(line) for line in log.read_text().splitlines())
    assert first["event"] == "pre_tool"
    assert first["agent"] == "test"
    assert first["hook_event"] == "PreToolUse"
    assert first["candidates"] == 1
    assert first["injected"] == [hint.id]
    assert first["dropped"] == []
    assert first["duration_ms"] >= 0
    assert first["stale"] is False
    assert "JSONDecodeError" in second["error"]


def test_stale_manifest_is_detected(home):
    """A stamp naming another store revision marks the manifest stale."""
    install_manifest(home, make_lesson())
    manifest = manifest_mod.load()
    assert manifest_mod.is_stale(manifest) is False
    (home / manifest_mod.STAMP_NAME).write_text("99\n")
    assert manifest_mod.is_stale(manifest) is True


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"   ",
        b"{",
        b'{"event": "pre_tool", "tool": "Bash", "command": "ls"',
        b"[1, 2, 3]",
        b"null",
        b"\xff\xfe\x00garbage",
        b'{"event": "stop", "session_id": "s"}',
        b'{"event": "no_such_event"}',
        b'{"event": "pre_tool", "tool": 5, "command": ["x"], "paths": "nope", "cwd": 3}',
        b'{"event": "session_start", "source": 12, "session_id": null}',
    ],
)
def test_fail_open_on_bad_input(home, raw):
    """Empty, malformed, truncated or odd payloads: exit 0, stdout empty or valid JSON."""
    install_manifest(home, make_lesson(**GUARD))
    status, out = _run(raw)
    assert status == 0
    if out:
        json.loads(out)


def test_huge_stdin_fails_open(home, tmp_path, monkeypatch):
    """More than 4 MiB on stdin: nothing is parsed, nothing printed, the log says why."""
    install_manifest(home, make_lesson(**GUARD))
    log = tmp_path / "hook.log"
    monkeypatch.setenv("LESSONS_HOOK_LOG", str(log))
    payload = json.dumps(pre_tool(tool="Bash", command="git push -f " + "x" * (5 << 20)))
    status, out = _run(payload.encode())
    assert (status, out) == (0, "")
    assert "larger than" in json.loads(log.read_text())["error"]


def test_missing_or_corrupt_manifest_fails_open(home):
    """No manifest, or garbage in it: no lessons, no output, exit 0."""
    assert _run(pre_tool(tool="Bash", command="git push -f")) == (0, "")
    (home / "lesson-manifest.json").write_text("{ not json")
    manifest_mod.clear_cache()
    assert _run(pre_tool(tool="Bash", command="git push -f")) == (0, "")


class _BrokenAdapter:
    AGENT = "broken"

    @staticmethod
    def normalize(payload):
        raise RuntimeError("adapter bug")

    @staticmethod
    def render(event, decision):  # pragma: no cover - never reached
        return {}


def test_adapter_errors_fail_open(home):
    """An exception inside the adapter ends in exit 0 and no output."""
    out = io.StringIO()
    assert runner.run(_BrokenAdapter, stdin=io.BytesIO(b"{}"), stdout=out) == 0
    assert out.getvalue() == ""


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
_events = st.fixed_dictionaries(
    {
        "event": st.sampled_from(
            ["pre_tool", "session_start", "pre_compact", "subagent_start", "post_tool", "stop", "x"]
        )
    },
    optional={
        "tool": st.sampled_from(["Bash", "Edit", "Write", "Read"]) | _json_values,
        "command": st.text(max_size=80) | _json_values,
        "paths": st.lists(st.text(max_size=30), max_size=3) | _json_values,
        "content": st.text(max_size=80) | _json_values,
        "session_id": st.text(max_size=10) | _json_values,
        "source": st.sampled_from(["startup", "resume", "clear", "compact"]) | _json_values,
        "cwd": st.text(max_size=20) | _json_values,
        "model": _json_values,
    },
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(payload=_events | _json_values)
def test_fuzzed_payloads_never_break_the_hook(home, payload):
    """Whatever the payload, run() returns 0 and prints nothing or one valid JSON document."""
    if not (home / "lesson-manifest.json").exists():
        install_manifest(
            home,
            make_lesson(**GUARD),
            make_lesson(triggers={"tool_names": ["Bash"], "command_patterns": [r"\bls\b"]}),
            make_lesson(triggers={"tool_names": ["Edit"], "path_patterns": ["**/*.py"]}),
            make_lesson(type=LessonType.DIRECTIVE),
        )
    status, out = _run(json.dumps(payload).encode())
    assert status == 0
    if out:
        assert isinstance(json.loads(out), dict)


def test_handlers_table_is_extensible(home, monkeypatch):
    """A new event is one entry in HANDLERS pointing at "module:function"."""
    install_manifest(home, make_lesson())
    monkeypatch.setitem(runner.HANDLERS, "stop", "hot_support:stop_handler")
    import hot_support

    def stop_handler(event, manifest, state, environ, stats):
        decision = runner.new_decision()
        decision["context"] = "bye " + str(len(manifest["lessons"]))
        return decision

    monkeypatch.setattr(hot_support, "stop_handler", stop_handler, raising=False)
    assert _decision({"event": "stop", "session_id": "s"})["context"] == "bye 1"
