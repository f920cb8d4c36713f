"""The real Claude Code, our real hooks, a fake Anthropic API: what reaches the model.

Each test installs the hooks with ``lessons install claude`` into a scratch HOME, adds lessons
with ``lessons add`` into a scratch LESSONS_HOME, runs ``claude -p`` against the fake server
(which asks for one ``Bash`` call), and checks the requests Claude Code sent afterwards, and
whether the command really ran (the project's test writes a marker file).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from agent_harness import PY_BIN, Scratch, agent_binary, run_lessons, write_marker_test
from fake_anthropic import FakeAnthropic, result_text

pytestmark = pytest.mark.e2e

#: One agent run takes about a second; this only bounds a wedged one.
RUN_TIMEOUT = 40


def run_claude(
    scratch: Scratch,
    server: FakeAnthropic,
    prompt: str = "run the tests",
    extra: tuple[str, ...] = (),
    env_extra: dict[str, str] | None = None,
    drop: tuple[str, ...] = (),
) -> str:
    """``claude -p`` in the scratch project against ``server``; returns its stream-json stdout.

    ``drop`` names variables of the scratch environment to leave out (a user's first day).
    """
    claude = agent_binary("claude")
    env = scratch.env(
        {
            "ANTHROPIC_BASE_URL": server.base_url,
            "ANTHROPIC_API_KEY": "sk-ant-fake-key",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            **(env_extra or {}),
        }
    )
    for var in drop:
        env.pop(var, None)
    args = [str(claude), "-p", prompt, "--output-format", "stream-json", "--verbose"]
    args += ["--allowedTools", "Bash", "--include-hook-events", *extra]
    try:
        proc = subprocess.run(
            args,
            cwd=scratch.project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        server.dump(scratch.root / "requests.jsonl")
        pytest.fail(f"claude did not finish in {RUN_TIMEOUT} s; requests in {scratch.root}: {exc}")
    if proc.returncode != 0:
        server.dump(scratch.root / "requests.jsonl")
        pytest.fail(
            f"claude exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
    return proc.stdout


def add_lesson(scratch: Scratch, lesson: dict[str, Any]) -> str:
    """Store one lesson through the real CLI; returns its id."""
    out = run_lessons(scratch, "add", "-", "--json", input=json.dumps(lesson))
    return str(json.loads(out.stdout.strip().splitlines()[-1])["id"])


def setup(scratch: Scratch) -> Path:
    """Hooks installed the way a user installs them; a project whose test leaves a marker."""
    run_lessons(scratch, "install", "claude")
    settings = json.loads((scratch.home / ".claude" / "settings.json").read_text())
    assert "PreToolUse" in settings["hooks"]
    return write_marker_test(scratch.project)


def hook_events(stdout: str) -> list[dict[str, Any]]:
    """The hook_response lines of ``--include-hook-events`` output."""
    events = []
    for line in stdout.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if item.get("type") == "system" and item.get("subtype") == "hook_response":
            events.append(item)
    return events


def tool_results(body: dict[str, Any]) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """(tool_result block, sibling blocks of the same user message) for every result."""
    found = []
    for message in body.get("messages", []):
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                found.append((block, [b for b in content if b is not block]))
    return found


def test_hooks_fire_and_stay_silent_without_lessons(scratch):
    """With an empty store the hooks run, answer nothing, and pytest runs normally."""
    marker = setup(scratch)
    with FakeAnthropic("python -m pytest -q tests") as server:
        out = run_claude(scratch, server)
    fired = {e.get("hook_event") for e in hook_events(out)}
    assert {"SessionStart", "PreToolUse"} <= fired, out[-2000:]
    assert all(e.get("exit_code") in (0, None) for e in hook_events(out))
    assert marker.exists()
    second = server.main_requests()[-1]
    ((result, _),) = tool_results(second)
    assert not result.get("is_error")


PYTEST = "python -m pytest -q tests"


def _main(server: FakeAnthropic) -> list[dict[str, Any]]:
    requests = server.main_requests()
    assert requests, "claude never asked the model"
    return requests


def test_hint_arrives_with_the_tool_result(scratch):
    """A hint on pytest: the call runs, and the lesson reaches the model next to its result."""
    marker = setup(scratch)
    add_lesson(
        scratch,
        {
            "summary": "pytest here needs the cache plugin off",
            "mistake": "pytest writes .pytest_cache into a read-only checkout",
            "remediation": "Pass -p no:cacheprovider (HINT-7Q4).",
            "type": "hint",
            "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"\bpytest\b"]},
            "priority": 8,
        },
    )
    with FakeAnthropic(PYTEST) as server:
        run_claude(scratch, server)
    assert marker.exists(), "a hint must not stop the call"
    first, *_, last = _main(server)
    assert "HINT-7Q4" not in json.dumps(first)
    ((result, siblings),) = tool_results(last)
    assert not result.get("is_error")
    context = "\n".join(str(b.get("text", "")) for b in siblings)
    assert "HINT-7Q4" in context, json.dumps(last["messages"][-1])[:2000]
    assert "PreToolUse" in context


def test_guard_blocks_the_call(scratch):
    """A guard denies the call: pytest never runs and the model reads the reason."""
    marker = setup(scratch)
    add_lesson(
        scratch,
        {
            "summary": "never run the suite against production",
            "mistake": "the suite was run with the production settings",
            "remediation": "Run it with --settings=test instead (GUARD-3Z8).",
            "type": "guard",
            "triggers": {
                "toolNames": ["Bash"],
                "commandPatterns": [r"\bpytest\b(?!.*--settings=test)"],
            },
            "priority": 9,
        },
    )
    with FakeAnthropic(PYTEST) as server:
        run_claude(scratch, server)
    assert not marker.exists(), "the guard did not stop the call"
    ((result, _),) = tool_results(_main(server)[-1])
    assert result.get("is_error") is True
    assert "GUARD-3Z8" in result_text(result)


def test_nudge_blocks_once_then_the_retry_runs(scratch):
    """A nudge denies the first matching call only; the same call made again runs."""
    marker = setup(scratch)
    add_lesson(
        scratch,
        {
            "summary": "the test suite is slow with coverage",
            "mistake": "coverage made a quick check take minutes",
            "remediation": "For a quick check, add --no-cov (NUDGE-5K1).",
            "type": "nudge",
            "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"\bpytest\b"]},
            "priority": 7,
        },
    )
    with FakeAnthropic(PYTEST, retry_after_deny=True) as server:
        run_claude(scratch, server)
    assert marker.exists(), "the retry should have run"
    results = tool_results(_main(server)[-1])
    assert len(results) == 2
    (denied, _), (ran, _) = results
    assert denied.get("is_error") is True
    assert "NUDGE-5K1" in result_text(denied)
    assert "same call again" in result_text(denied)
    assert not ran.get("is_error")
    assert "NUDGE-5K1" not in result_text(ran)


def test_protocol_is_in_the_first_request(scratch):
    """The #lesson protocol reaches the model with the very first request (SessionStart)."""
    setup(scratch)
    add_lesson(
        scratch,
        {
            "summary": "a lesson so that the manifest exists",
            "mistake": "m",
            "remediation": "r",
            "type": "hint",
            "triggers": {"toolNames": ["Read"], "pathPatterns": ["**/never-read.txt"]},
        },
    )
    with FakeAnthropic(PYTEST) as server:
        run_claude(scratch, server)
    first = json.dumps(_main(server)[0])
    assert "SessionStart hook additional context" in first
    assert "#lesson" in first and "#/lesson" in first


FIRST_DAY = ("LESSONS_HOME", "LESSONS_STATE_DIR", "LESSONS_HOOK_LOG")


def test_first_day_install_alone_gives_the_first_session_the_protocol(scratch):
    """An empty HOME, ``lessons install claude`` and nothing else: no ``lessons add``, no
    build, no LESSONS_* variables. The very first session's first request holds the protocol."""
    runtime = scratch.root / "run"
    runtime.mkdir(mode=0o700)
    env = scratch.env({"XDG_RUNTIME_DIR": str(runtime), "LESSONS_AUTO_SCAN": "0"})
    for var in FIRST_DAY:
        env.pop(var)
    proc = subprocess.run(
        [str(PY_BIN / "lessons"), "install", "claude"], env=env, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (scratch.home / ".local" / "share" / "lessons" / "lesson-manifest.json").is_file()
    with FakeAnthropic(PYTEST) as server:
        run_claude(
            scratch, server, drop=FIRST_DAY,
            env_extra={"XDG_RUNTIME_DIR": str(runtime), "LESSONS_AUTO_SCAN": "0"},
        )  # fmt: skip
    first = json.dumps(_main(server)[0])
    assert "SessionStart hook additional context" in first
    assert "#lesson" in first and "#/lesson" in first


PLUGIN_DIR = Path(__file__).resolve().parents[2] / "claude-plugin"


def test_plugin_folder_hooks_work_without_install(scratch):
    """Loaded as a plugin (no settings hooks), the hooks find lessons-claude-hook on PATH."""
    marker = write_marker_test(scratch.project)
    add_lesson(
        scratch,
        {
            "summary": "the suite needs the test settings",
            "mistake": "ran the suite with the default settings",
            "remediation": "Add --settings=test (PLUGIN-G2).",
            "type": "guard",
            "triggers": {
                "toolNames": ["Bash"],
                "commandPatterns": [r"\bpytest\b(?!.*--settings=test)"],
            },
        },
    )
    assert not (scratch.home / ".claude" / "settings.json").exists()
    with FakeAnthropic(PYTEST) as server:
        run_claude(scratch, server, extra=("--plugin-dir", str(PLUGIN_DIR)))
    requests = _main(server)
    assert "#lesson" in json.dumps(requests[0]), "SessionStart from the plugin did not deliver"
    assert not marker.exists()
    ((result, _),) = tool_results(requests[-1])
    assert result.get("is_error") is True
    assert "PLUGIN-G2" in result_text(result)


def test_failure_recalls_the_lesson_with_that_error(scratch):
    """A failing call brings back the lesson whose error lines match (PostToolUseFailure)."""
    setup(scratch)
    add_lesson(
        scratch,
        {
            "summary": "the YAML parser is not installed here",
            "mistake": "imported yaml without the project's extra installed",
            "remediation": "Install the dev extra first: pip install -e .[dev] (RECALL-M9).",
            "type": "hint",
            "errorLines": ["ModuleNotFoundError: No module named 'yamlish_parser_xyz'"],
            "triggers": {"toolNames": ["Read"], "pathPatterns": ["**/never-read.txt"]},
        },
    )
    with FakeAnthropic("python -c 'import yamlish_parser_xyz'") as server:
        run_claude(scratch, server)
    ((result, siblings),) = tool_results(_main(server)[-1])
    assert result.get("is_error") is True
    assert "yamlish_parser_xyz" in result_text(result)
    context = "\n".join(str(b.get("text", "")) for b in siblings)
    assert "RECALL-M9" in context, json.dumps(_main(server)[-1]["messages"][-1])[:2000]
    assert "PostToolUseFailure" in context


def test_prompt_recalls_a_related_lesson(scratch):
    """A prompt about a lesson's subject brings it into the first request (UserPromptSubmit)."""
    setup(scratch)
    add_lesson(
        scratch,
        {
            "summary": "staging cluster deploys need the vpn tunnel",
            "mistake": "deployed to the staging cluster without the vpn tunnel and it timed out",
            "remediation": "Open the tunnel with make vpn before deploying (PROMPT-R4).",
            "type": "hint",
            "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"\bkubectl\b"]},
        },
    )
    with FakeAnthropic(PYTEST) as server:
        run_claude(scratch, server, prompt="deploy the staging cluster, the vpn tunnel is up")
    first = json.dumps(_main(server)[0])
    assert "UserPromptSubmit hook additional context" in first
    assert "PROMPT-R4" in first


def test_install_honours_claude_config_dir(scratch):
    """With CLAUDE_CONFIG_DIR set, install writes there and Claude Code runs the hooks from it."""
    config_dir = scratch.root / "claude-config"
    extra = {"CLAUDE_CONFIG_DIR": str(config_dir)}
    run_lessons(scratch, "install", "claude", env=extra)
    assert (config_dir / "settings.json").exists()
    assert not (scratch.home / ".claude" / "settings.json").exists()
    marker = write_marker_test(scratch.project)
    add_lesson(
        scratch,
        {
            "summary": "the suite needs the test settings",
            "mistake": "ran the suite with the default settings",
            "remediation": "Add --settings=test (CONFIG-DIR-G7).",
            "type": "guard",
            "triggers": {
                "toolNames": ["Bash"],
                "commandPatterns": [r"\bpytest\b(?!.*--settings=test)"],
            },
        },
    )
    with FakeAnthropic(PYTEST) as server:
        run_claude(scratch, server, env_extra=extra)
    assert not marker.exists()
    ((result, _),) = tool_results(_main(server)[-1])
    assert "CONFIG-DIR-G7" in result_text(result)
