"""The deep detector (``lessons-llm``) end to end: the real ``lessons scan --deep`` process, the
real ``llm`` library, and a scripted OpenAI-compatible server on 127.0.0.1 that ``llm`` is
pointed at through ``extra-openai-models.yaml`` in a scratch ``LLM_USER_PATH``.

The fake answers by what it is asked, never by call count, and records every request, so the
tests can say what left the machine, what the scan made of the answers, and when no request
was made at all.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("lessons_llm", reason="the lessons-llm distribution is not installed")
pytest.importorskip("llm", reason="the llm library is not installed")

LESSONS = str(Path(sys.executable).parent / "lessons")
#: A planted secret (the shape of an OpenAI project key) that must never reach the model.
SECRET = "sk-proj-Zq8Xc4Vb7Nm2Lk9Jh6Gf3Ds1Aa0Pp5Oo"
OTHER_HOME = "/home/alice"
SESSION = "9a1e0c55-2222-4d4d-8e8e-000000000001"
#: What the scripted model answers about the pytest finding.
PYTEST_LESSON = {
    "reusable": True,
    "mistake": "pytest was run with --timeout, but the pytest-timeout plugin is not "
    "installed in this environment, so pytest refused the unknown option.",
    "fix": "Check that pytest-timeout is installed (pip show pytest-timeout) before passing "
    "--timeout; otherwise run pytest without the flag.",
    "trigger": {"executable": "pytest", "pattern": r"\bpytest\b.*\s--timeout\b"},
    "confidence": 0.8,
}
NOT_REUSABLE = {
    "reusable": False,
    "mistake": "",
    "fix": "",
    "trigger": {"executable": "black"},
    "confidence": 0.9,
}


# -- the fake model server ----------------------------------------------------------------------


class FakeChat:
    """``POST /v1/chat/completions`` answered by ``script(user_text) -> answer text``."""

    def __init__(self, script: Callable[[str], str]) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if not self.path.endswith("/chat/completions"):
                    self.send_error(404)
                    return
                fake.requests.append(body)
                fake.headers.append({k.lower(): v for k, v in self.headers.items()})
                user = "\n".join(
                    str(m.get("content")) for m in body.get("messages", []) if m["role"] == "user"
                )
                content = fake.script(user)
                reply = {
                    "id": f"chatcmpl-{len(fake.requests)}",
                    "object": "chat.completion",
                    "created": 1767225600,
                    "model": body.get("model", "fake"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": content},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 300, "completion_tokens": 80, "total_tokens": 380},
                }
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def user_texts(self) -> list[str]:
        return [
            "\n".join(str(m.get("content")) for m in body["messages"] if m["role"] == "user")
            for body in self.requests
        ]


def by_content(user: str) -> str:
    """The scripted model: a lesson for the pytest finding, "not reusable" for the other."""
    if "--timeout" in user:
        return json.dumps(PYTEST_LESSON)
    if "black: command not found" in user:
        return json.dumps(NOT_REUSABLE)
    return json.dumps({"reusable": False})


@pytest.fixture(name="model")
def fixture_model() -> Iterator[FakeChat]:
    fake = FakeChat(by_content)
    fake.thread.start()
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


# -- the scratch setup --------------------------------------------------------------------------


def transcript(home: Path, session: str = SESSION, test_file: str = "test_api.py") -> str:
    """One Claude Code session: a failing pytest call (with a planted key and home paths), the
    user's correction and the working call; then a typo in a file name and its fix."""
    lines: list[str] = []

    def add(kind: str, message: dict[str, Any]) -> None:
        n = len(lines) + 1
        record = {
            "parentUuid": None,
            "isSidechain": False,
            "userType": "external",
            "cwd": f"{home}/app",
            "sessionId": session,
            "version": "2.1.33",
            "type": kind,
            "uuid": f"u-{n:04d}",
            "timestamp": f"2026-02-01T10:00:{n:02d}.000Z",
            "message": message,
        }
        lines.append(json.dumps(record))

    def call(cid: str, command: str) -> None:
        use = {"type": "tool_use", "id": cid, "name": "Bash", "input": {"command": command}}
        add("assistant", {"id": f"m-{cid}", "role": "assistant", "content": [use]})

    def result(cid: str, text: str, error: bool = False) -> None:
        out = {"type": "tool_result", "tool_use_id": cid, "content": text, "is_error": error}
        add("user", {"role": "user", "content": [out]})

    add("user", {"role": "user", "content": "Run the API tests"})
    call("t1", f"OPENAI_API_KEY={SECRET} pytest --timeout=30 {home}/app/tests/{test_file}")
    result(
        "t1",
        "Exit code 4\nERROR: usage: pytest [options] [file_or_dir]\n"
        f"pytest: error: unrecognized arguments: --timeout=30 {OTHER_HOME}/app/tests\n",
        error=True,
    )
    add("user", {"role": "user", "content": "no, pytest-timeout is not installed, drop the flag"})
    call("t2", f"OPENAI_API_KEY={SECRET} pytest {home}/app/tests/{test_file}")
    result("t2", "5 passed in 0.31s")
    call("t3", "black --check src")
    result("t3", "Exit code 127\n/bin/bash: line 1: black: command not found", error=True)
    call("t4", ".venv/bin/black --check src")
    result("t4", "All done! 3 files would be left unchanged.")
    return "\n".join(lines) + "\n"


@pytest.fixture(name="setup")
def fixture_setup(tmp_path: Path, model: FakeChat) -> dict[str, Any]:
    home = Path(os.environ["HOME"])
    folder = home / ".claude" / "projects" / "-app"
    folder.mkdir(parents=True)
    (folder / f"{SESSION}.jsonl").write_text(transcript(home), encoding="utf-8")
    llm_dir = tmp_path / "llm-user"
    llm_dir.mkdir()
    (llm_dir / "extra-openai-models.yaml").write_text(
        f"- model_id: fake-distiller\n"
        f"  model_name: fake-distiller-1\n"
        f"  api_base: {model.url}\n"
        f"  api_key_name: fake\n"
        f"  supports_schema: true\n"
        f"- model_id: fake-plain\n"
        f"  model_name: fake-plain-1\n"
        f"  api_base: {model.url}\n",
        encoding="utf-8",
    )
    (llm_dir / "keys.json").write_text(json.dumps({"fake": "dummy-key"}), encoding="utf-8")
    lessons_home = Path(os.environ["LESSONS_HOME"])
    return {"home": home, "llm": llm_dir, "lessons_home": lessons_home}


def configure(setup: dict[str, Any], **deep: Any) -> None:
    home: Path = setup["lessons_home"]
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.json").write_text(json.dumps({"deep": deep}), encoding="utf-8")


def lessons(setup: dict[str, Any], *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "LLM_USER_PATH": str(setup["llm"]), **env}
    for var in ("OPENAI_API_KEY", "LLM_OPENAI_SHOW_RESPONSES", "XDG_CONFIG_HOME"):
        environ.pop(var, None)
    return subprocess.run(
        [LESSONS, *args], capture_output=True, text=True, env=environ, timeout=120, check=False
    )


def candidates(setup: dict[str, Any]) -> list[dict[str, Any]]:
    out = lessons(setup, "candidates", "--status", "all", "--json")
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


# -- the tests ----------------------------------------------------------------------------------


def test_deep_scan_sends_a_redacted_excerpt_and_proposes_the_models_lesson(setup, model):
    configure(setup, model="fake-distiller", maxCalls=10)
    out = lessons(setup, "scan", "--deep")
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert (
        "Deep scan (fake-distiller): 2 model call(s), 760 token(s), 0 answer(s) from the cache."
        in out.stdout
    )

    # What left the machine: one request per finding, each a short excerpt, redacted.
    assert len(model.requests) == 2
    sent = model.user_texts()
    pytest_excerpt = next(text for text in sent if "--timeout" in text)
    assert "pytest --timeout=30" in pytest_excerpt  # the failing call
    assert "unrecognized arguments: --timeout=30" in pytest_excerpt  # its error
    assert "pytest-timeout is not installed, drop the flag" in pytest_excerpt  # the user
    assert "Fixing call (it worked): Bash `OPENAI_API_KEY=" in pytest_excerpt  # the fix
    everything = json.dumps(model.requests)
    assert SECRET not in everything
    assert "[REDACTED:openai-key]" in pytest_excerpt
    assert str(setup["home"]) not in everything and OTHER_HOME not in everything
    assert "~/app/tests/test_api.py" in pytest_excerpt
    assert "Run the API tests" not in everything  # only the finding, not the conversation
    # The key from llm's keys.json, and structured output for a model that supports it.
    assert model.headers[0]["authorization"] == "Bearer dummy-key"
    assert model.requests[0]["model"] == "fake-distiller-1"
    assert model.requests[0]["response_format"]["type"] == "json_schema"

    # What became of the answers: the lesson as a pending Tier 4 candidate; the "not reusable"
    # other finding left nothing (neither a Tier 4 nor the heuristic's Tier 2 candidate).
    found = candidates(setup)
    assert len(found) == 1, found
    (made,) = found
    assert made["tier"] == 4
    assert made["status"] == "pending"
    assert made["mistake"] == PYTEST_LESSON["mistake"]
    assert made["fix"] == PYTEST_LESSON["fix"]
    assert made["trigger"] == PYTEST_LESSON["trigger"]["pattern"]
    assert made["confidence"] == 0.8
    assert "source:llm" in made["tags"]
    assert made["evidence"][0]["line"] == 3  # the failing result
    listed = lessons(setup, "list", "--json")
    assert listed.stdout.strip() == ""  # never an active lesson before review

    promoted = lessons(setup, "promote", made["id"], "--json")
    assert promoted.returncode == 0, promoted.stderr
    shown = lessons(setup, "show", json.loads(promoted.stdout)["slug"], "--json")
    assert json.loads(shown.stdout)["provenance"]["source"] == "plugin:llm"


def test_a_rescan_is_answered_from_the_cache(setup, model):
    configure(setup, model="fake-distiller")
    assert lessons(setup, "scan", "--deep").returncode == 0
    assert len(model.requests) == 2
    first = [(c["tier"], c["trigger"], c["mistake"]) for c in candidates(setup)]
    # A store rebuilt from scratch reads everything again: the same excerpts, no request.
    home: Path = setup["lessons_home"]
    for item in home.iterdir():
        if item.name not in ("config.json", "llm-cache"):
            shutil.rmtree(item) if item.is_dir() else item.unlink()
    again = lessons(setup, "scan", "--deep")
    assert again.returncode == 0, again.stderr
    assert "0 model call(s), 0 token(s), 2 answer(s) from the cache." in again.stdout
    assert len(model.requests) == 2
    assert [(c["tier"], c["trigger"], c["mistake"]) for c in candidates(setup)] == first
    assert len(list((home / "llm-cache").rglob("*.json"))) == 2


def test_the_budget_stops_calls_and_the_heuristic_stands(setup, model):
    configure(setup, model="fake-plain", maxCalls=1)
    out = lessons(setup, "scan", "--deep")
    assert out.returncode == 0, out.stderr
    assert len(model.requests) == 1
    assert "1 finding(s) over budget kept their heuristic lesson" in out.stdout
    # A model without structured output gets the instructions alone, and its JSON is parsed.
    assert "response_format" not in model.requests[0]
    found = sorted(candidates(setup), key=lambda c: c["tier"])
    assert [c["tier"] for c in found] == [2, 4]
    assert found[0]["trigger"] == r"^\s*\bblack\b"  # the finding over budget keeps its Tier 2 form
    assert SECRET not in json.dumps(found)


def test_the_processes_of_one_scan_share_its_budget(setup, model):
    """Two transcripts read side by side (the scan forks a helper): one budget, not one each."""
    other = "9a1e0c55-2222-4d4d-8e8e-000000000002"
    folder = setup["home"] / ".claude" / "projects" / "-app"
    text = transcript(setup["home"], session=other, test_file="test_db.py")
    (folder / f"{other}.jsonl").write_text(text, encoding="utf-8")
    configure(setup, model="fake-distiller", maxCalls=1)
    out = lessons(setup, "scan", "--deep", LESSONS_SCAN_WORKERS="2")
    assert out.returncode == 0, out.stderr
    assert len(model.requests) == 1
    tiers = sorted(c["tier"] for c in candidates(setup))
    assert tiers == [2, 2, 4]  # the two typos, alike, fold into one candidate


def test_a_token_budget_smaller_than_one_call_makes_no_request(setup, model):
    configure(setup, model="fake-distiller", maxTokens=100)
    out = lessons(setup, "scan", "--deep")
    assert out.returncode == 0, out.stderr
    assert model.requests == []
    assert sorted(c["tier"] for c in candidates(setup)) == [2, 2]


def test_without_deep_no_request_is_made(setup, model):
    configure(setup, model="fake-distiller")
    out = lessons(setup, "scan")
    assert out.returncode == 0, out.stderr
    assert model.requests == []
    assert sorted(c["tier"] for c in candidates(setup)) == [2, 2]


def test_deep_enabled_in_config_is_a_deep_scan(setup, model):
    configure(setup, model="fake-distiller", enabled=True)
    assert lessons(setup, "scan").returncode == 0
    assert len(model.requests) == 2


@pytest.mark.parametrize(
    "pattern",
    [
        # Names pytest and fits the failing call, but nested repeats: the safety check refuses it.
        pytest.param(r"\bpytest\b(?:[^\n]+)+$", id="unsafe"),
        # Names pytest and is safe, but the failing call has no --maxfail: it does not fit.
        pytest.param(r"\bpytest\b.*\s--maxfail\b", id="unfitting"),
    ],
)
def test_an_unsafe_or_unfitting_trigger_from_the_model_is_not_used(setup, model, pattern):
    """Each pattern fails one check only, so each check is needed to keep it out."""

    def answer(user: str) -> str:
        if "--timeout" not in user:
            return json.dumps(NOT_REUSABLE)
        lesson = dict(PYTEST_LESSON, trigger={"executable": "pytest", "pattern": pattern})
        return json.dumps(lesson)

    model.script = answer
    configure(setup, model="fake-distiller")
    assert lessons(setup, "scan", "--deep").returncode == 0
    assert sum("--timeout" in text for text in model.user_texts()) == 1  # the answer was asked
    (made,) = candidates(setup)
    assert made["mistake"] == PYTEST_LESSON["mistake"]  # the model's lesson, its trigger refused
    assert made["tier"] == 4
    assert made["trigger"] == r"\bpytest\b(?=[^|;&\n]*?\s--timeout(?:[\s=]|$))"  # the heuristic's


def test_an_answer_that_is_no_json_keeps_the_heuristic_and_is_not_cached(setup, model):
    model.script = lambda _user: "I think this is a lesson about pytest."
    configure(setup, model="fake-distiller")
    assert lessons(setup, "scan", "--deep").returncode == 0
    assert sorted(c["tier"] for c in candidates(setup)) == [2, 2]
    assert not list((setup["lessons_home"] / "llm-cache").rglob("*.json"))


@pytest.mark.parametrize(
    ("deep", "env", "message"),
    [
        ({"model": "no-such-model"}, {}, "'no-such-model') is not one llm knows"),
        ({}, {}, "has no key: run `llm keys set openai`"),
        (
            {"model": "fake-distiller"},
            {"LESSONS_DISABLED_PLUGINS": "llm-distiller"},
            "needs the lessons-llm plugin, which is not installed",
        ),
    ],
)
def test_a_deep_scan_that_cannot_run_says_why(setup, model, deep, env, message):
    configure(setup, **deep)
    out = lessons(setup, "scan", "--deep", **env)
    assert out.returncode == 1
    assert out.stderr.startswith("Error: "), out.stderr
    assert message in out.stderr
    assert "Traceback" not in out.stderr
    assert model.requests == []
    assert candidates(setup) == []  # refused before anything was read


def test_a_background_scan_runs_plain_when_the_deep_scan_cannot_run(setup, model):
    """deep.enabled with a model llm does not know: the hourly scan still scans."""
    configure(setup, model="no-such-model", enabled=True)
    out = lessons(setup, "scan", "--background")
    assert out.returncode == 0, out.stderr
    assert model.requests == []
    assert sorted(c["tier"] for c in candidates(setup)) == [2, 2]


def test_a_background_scan_is_deep_when_config_says_so(setup, model):
    configure(setup, model="fake-distiller", enabled=True)
    assert lessons(setup, "scan", "--background").returncode == 0
    assert len(model.requests) == 2
    assert [c["tier"] for c in candidates(setup)] == [4]


def test_deep_and_background_do_not_go_together(setup):
    out = lessons(setup, "scan", "--deep", "--background")
    assert out.returncode == 1
    assert out.stderr.startswith("Error: --deep does not run in the background")
