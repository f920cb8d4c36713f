"""Noisy hints rest: they ride only with the result of a call that failed."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from outcome_support import MODULE_ERROR, SESSION

from lessons_claude import hot_claude
from lessons_core import outcomes, services
from lessons_core.hot import manifest as manifest_mod
from lessons_core.hot import recall, runner
from lessons_gemini import hot_gemini

LESSON = "oc-venv-pytest"


def run(adapter: Any, payload: dict[str, Any], session: str = SESSION) -> dict[str, Any] | None:
    manifest_mod.clear_cache()
    out = io.StringIO()
    data = json.dumps({"session_id": session, "cwd": "/srv/dev/acme", **payload}).encode()
    runner.run(adapter, stdin=io.BytesIO(data), stdout=out)
    return json.loads(out.getvalue()) if out.getvalue() else None


def context(answer: dict[str, Any] | None) -> str:
    return str(((answer or {}).get("hookSpecificOutput") or {}).get("additionalContext") or "")


def judge(n: int, outcome: str, event: str = "pre_tool:hint") -> None:
    with services.open_store() as store:
        for i in range(n):
            store.record_delivery(
                LESSON,
                f"past-{event}-{outcome}-{i}",
                "claude",
                event,
                outcome=outcome,
                delivered_at=f"2026-06-{i + 1:02d}T00:00:00Z",
            )
        services.rebuild_manifest(store)
    manifest_mod.clear_cache()


CALL = {"tool_name": "Bash", "tool_input": {"command": "pytest -q"}, "tool_use_id": "toolu_9"}


def test_a_quiet_hint_is_compiled_for_failures_only(lesson_home: Path) -> None:
    assert "when" not in manifest_mod.load()["lessons"][LESSON]
    judge(outcomes.NOISY_MIN_JUDGED, "quiet")
    manifest = manifest_mod.load()
    assert manifest["lessons"][LESSON]["when"] == "failure"
    assert manifest["failureHints"] == 1
    assert recall.load_index()["failureHints"] == 1


def test_claude_resting_hint_skips_the_call_and_answers_its_failure(lesson_home: Path) -> None:
    judge(outcomes.NOISY_MIN_JUDGED, "quiet")
    assert run(hot_claude, {"hook_event_name": "PreToolUse", **CALL}) is None
    failed = run(
        hot_claude, {"hook_event_name": "PostToolUseFailure", **CALL, "error": MODULE_ERROR}
    )
    assert "virtualenv" in context(failed)
    # The same failure again: not heeded, so once more, said to be a repeat; then never.
    again = run(
        hot_claude, {"hook_event_name": "PostToolUseFailure", **CALL, "error": MODULE_ERROR}
    )
    assert "virtualenv" in context(again)
    assert "(given earlier in this session)" in context(again)
    third = run(
        hot_claude, {"hook_event_name": "PostToolUseFailure", **CALL, "error": MODULE_ERROR}
    )
    assert "virtualenv" not in context(third)


def test_gemini_resting_hint_waits_for_a_failed_result(lesson_home: Path) -> None:
    judge(outcomes.NOISY_MIN_JUDGED, "quiet")
    call = {"tool_name": "run_shell_command", "tool_input": {"command": "pytest -q"}}
    ok = {"llmContent": "Output: 3 passed\nExit Code: 0", "returnDisplay": ""}
    assert (
        context(run(hot_gemini, {"hook_event_name": "AfterTool", **call, "tool_response": ok}))
        == ""
    )
    bad = {"llmContent": f"Output: {MODULE_ERROR}\nExit Code: 2", "returnDisplay": ""}
    answer = run(hot_gemini, {"hook_event_name": "AfterTool", **call, "tool_response": bad})
    assert "virtualenv" in context(answer)


def test_a_relevant_hint_keeps_riding_with_the_call(lesson_home: Path) -> None:
    judge(2, "quiet")
    judge(2, "prevented")
    assert "when" not in manifest_mod.load()["lessons"][LESSON]
    assert "virtualenv" in context(run(hot_claude, {"hook_event_name": "PreToolUse", **CALL}))


def test_deliveries_at_failures_do_not_wake_a_resting_hint(lesson_home: Path) -> None:
    """A resting hint is delivered only with failing calls; those would always look relevant."""
    judge(outcomes.NOISY_MIN_JUDGED, "quiet")
    judge(5, "prevented", event="post_failure:hint")
    assert manifest_mod.load()["lessons"][LESSON]["when"] == "failure"


@pytest.mark.parametrize("kind", ["guard", "nudge"])
def test_only_hints_rest(home: Path, kind: str) -> None:
    from lessons_core import serde

    with services.open_store() as store:
        store.add_lessons(
            [
                serde.lesson_from_json(
                    {
                        "id": "oc-deny",
                        "type": kind,
                        "summary": "Never force-push main",
                        "mistake": "m",
                        "remediation": "r",
                        "triggers": {"commandPatterns": ["^git push --force"]},
                    }
                )
            ]
        )
        for i in range(5):
            store.record_delivery(
                "oc-deny",
                f"s{i}",
                "claude",
                f"pre_tool:{kind}",
                outcome="quiet",
                delivered_at=f"2026-06-0{i + 1}T00:00:00Z",
            )
        services.rebuild_manifest(store)
    manifest_mod.clear_cache()
    assert "when" not in manifest_mod.load()["lessons"]["oc-deny"]
