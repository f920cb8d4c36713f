"""Helpers for driving the real agent CLIs against a fake model server on 127.0.0.1.

Imported by the e2e modules and fakes as a plain module (``from agent_harness import …``),
which stays unambiguous however many ``conftest.py`` files the suite has; ``conftest.py`` turns
the scratch directories into a fixture.

Kept agent-neutral so each agent's e2e module only adds its wire format:

* :class:`FakeModelServer` — a threaded HTTP server that records every request (method, path,
  headers, JSON body) and asks a subclass's ``answer(request)`` what to send back;
* :func:`agent_binary` — the pinned CLI from ``tests/e2e/node_modules/.bin`` (``npm install``
  there), or a clean skip when it is absent;
* :class:`Scratch` (fixture ``scratch`` in conftest.py, or :func:`make_scratch`) — a scratch
  HOME, project, LESSONS_HOME and state dir, and a clean environment for the agent:
  inherited agent/proxy variables are dropped, so a developer's real keys or settings never
  leak into a run;
* :func:`run_lessons` — our real ``lessons`` console script, as a user would call it.

The agents decide nothing by call count: fakes answer by request *content* (see each fake).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, NoReturn

import attrs
import pytest

E2E_DIR = Path(__file__).resolve().parent
BIN_DIR = E2E_DIR / "node_modules" / ".bin"
#: Console scripts of the interpreter running the tests (venv or tox env).
PY_BIN = Path(sys.executable).parent

#: Variables never passed to an agent under test.
_DROPPED_PREFIXES = (
    "ANTHROPIC_",
    "CLAUDE",
    "OPENAI_",
    "CODEX_",
    "GEMINI_",
    "GOOGLE_",
    "OPENCODE",
    "QWEN_",
    "KILO",
    "COPILOT_",
    "LESSONS_",
)
_DROPPED_SUFFIXES = ("_PROXY", "_proxy")


def agent_binary(name: str) -> Path:
    """The pinned agent CLI ``name``; skips the test when it is not installed.

    CI sets ``LESSONS_REQUIRE_E2E=1``: there a missing binary is a failure, not a skip, so a
    broken install step cannot turn the end-to-end tests into silent skips.
    """
    path = BIN_DIR / name
    if not path.exists() or (shutil.which("node") is None and not _is_native(path)):
        _missing(f"{name} is not installed (run `npm ci` in tests/e2e)")
    return path


def system_program(name: str) -> str:
    """The path of a program a scenario needs from the system (``zsh``); skips the test when
    there is none, and fails it where CI requires the end-to-end tests to run (``.ci/run``
    installs it)."""
    path = shutil.which(name)
    if path is None:
        _missing(f"{name} is not installed (`.ci/run` installs it)")
    return str(path)


def _missing(message: str) -> NoReturn:
    if os.environ.get("LESSONS_REQUIRE_E2E"):
        pytest.fail(message + "; LESSONS_REQUIRE_E2E is set", pytrace=False)
    pytest.skip(message)


def _is_native(path: Path) -> bool:
    try:
        with path.resolve().open("rb") as handle:
            return handle.read(4) == b"\x7fELF"
    except OSError:
        return False


# -- fake model server -----------------------------------------------------------------------


@attrs.frozen
class Recorded:
    """One request the agent made."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Any  # parsed JSON, or the raw text when it is not JSON

    def text(self) -> str:
        """The body as JSON text (for "does this string reach the model" checks)."""
        return self.body if isinstance(self.body, str) else json.dumps(self.body)


@attrs.frozen
class Reply:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"

    @classmethod
    def json(cls, data: Any, status: int = 200) -> Reply:
        return cls(status, json.dumps(data).encode(), "application/json")

    @classmethod
    def sse(cls, events: list[tuple[str | None, Any]]) -> Reply:
        """A whole SSE stream in one body; ``None`` as event name omits the ``event:`` line."""
        chunks = []
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            chunks.append(f"{head}data: {json.dumps(data)}\n\n")
        return cls(200, "".join(chunks).encode(), "text/event-stream")


class FakeModelServer:
    """A scripted model API on 127.0.0.1 that records every request body as JSON.

    Subclasses implement :meth:`answer`. Use as a context manager; ``base_url`` is the address
    to hand to the agent, ``requests`` what it sent (in order).
    """

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _handle(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body: Any = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode(errors="replace")
                request = Recorded(self.command, self.path, dict(self.headers.items()), body)
                with server._lock:
                    server.requests.append(request)
                try:
                    reply = server.answer(request)
                except Exception as exc:
                    reply = Reply.json({"error": {"type": "fake_error", "message": repr(exc)}}, 500)
                self.send_response(reply.status)
                self.send_header("content-type", reply.content_type)
                self.send_header("content-length", str(len(reply.body)))
                self.end_headers()
                self.wfile.write(reply.body)

            do_GET = do_POST = do_PUT = _handle  # noqa: N815

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def answer(self, request: Recorded) -> Reply:
        return Reply.json({"error": "not found"}, 404)

    def __enter__(self) -> FakeModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def dump(self, path: Path) -> None:
        """Write the recorded requests as JSONL (kept next to a failing test's scratch dir)."""
        with path.open("w", encoding="utf-8") as handle:
            for r in self.requests:
                handle.write(
                    json.dumps({"method": r.method, "path": r.path, "body": r.body}) + "\n"
                )


# -- scratch homes ---------------------------------------------------------------------------


@attrs.frozen
class Scratch:
    """Fresh directories for one agent run."""

    root: Path
    home: Path
    project: Path
    lessons_home: Path
    state_dir: Path

    def env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """A clean environment: no inherited agent, proxy or lessons variables."""
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(_DROPPED_PREFIXES) and not k.endswith(_DROPPED_SUFFIXES)
        }
        path = os.pathsep.join([str(PY_BIN), env.get("PATH", "/usr/bin:/bin")])
        env.update(
            {
                "HOME": str(self.home),
                "PATH": path,
                "LESSONS_HOME": str(self.lessons_home),
                "LESSONS_STATE_DIR": str(self.state_dir),
                "LESSONS_HOOK_LOG": str(self.root / "hook.log"),
                "NO_PROXY": "127.0.0.1,localhost",
                "no_proxy": "127.0.0.1,localhost",
            }
        )
        for var in (
            "XDG_CONFIG_HOME",
            "XDG_DATA_HOME",
            "XDG_STATE_HOME",
            "XDG_CACHE_HOME",
            "XDG_RUNTIME_DIR",
            "VIRTUAL_ENV",
            "PYTHONPATH",
        ):
            env.pop(var, None)
        env.update(extra or {})
        return env


def make_scratch(root: Path) -> Scratch:
    """Create the scratch directories under ``root`` (the state dir private, as hooks want)."""
    made = Scratch(
        root=root,
        home=root / "home",
        project=root / "project",
        lessons_home=root / "lessons-home",
        state_dir=root / "state",
    )
    for directory in (made.home, made.project, made.lessons_home):
        directory.mkdir(parents=True)
    made.state_dir.mkdir(mode=0o700)
    return made


def run_lessons(
    scratch: Scratch,
    *args: str,
    input: str | None = None,
    timeout: float = 60,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run our ``lessons`` console script in the scratch environment; fail on a non-zero exit.

    ``env`` adds variables to the scratch environment (e.g. an agent's config directory).
    """
    proc = subprocess.run(
        [str(PY_BIN / "lessons"), *args],
        input=input,
        capture_output=True,
        text=True,
        env=scratch.env(env),
        cwd=scratch.project,
        timeout=timeout,
        check=False,
    )
    if proc.returncode != 0:
        pytest.fail(f"lessons {' '.join(args)} failed ({proc.returncode}):\n{proc.stderr}")
    return proc


def write_marker_test(project: Path, name: str = "ran.marker") -> Path:
    """A tiny pytest suite in ``project`` that creates ``name`` when it runs; returns that path."""
    tests = project / "tests"
    tests.mkdir(exist_ok=True)
    marker = project / name
    (tests / "test_sample.py").write_text(
        "from pathlib import Path\n\n\n"
        "def test_sample():\n"
        f"    (Path(__file__).resolve().parents[1] / {name!r}).write_text('ran')\n",
        encoding="utf-8",
    )
    return marker


def add_lessons(scratch: Scratch, *lessons: dict[str, Any]) -> None:
    """``lessons add -`` with the lessons as a JSON array (rebuilds the manifest)."""
    run_lessons(scratch, "add", "-", input=json.dumps(list(lessons)))


def hook_log(scratch: Scratch) -> list[dict[str, Any]]:
    """The lines our hook logged during the run (``LESSONS_HOOK_LOG`` of the scratch env)."""
    path = scratch.root / "hook.log"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def delivery_lessons(
    *, hint: str, guard: str, nudge: str, protocol: str
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
    """One lesson of each delivery (hint, guard, nudge, protocol), each carrying its marker.

    Every agent's e2e module checks the same four deliveries; the markers are the module's own
    (so a stray answer from another test cannot pass for this one) and stand at the start of the
    lesson's ``mistake``, where the assertions look for them.
    """
    return (
        {
            "summary": "Run pytest quietly in this repo",
            "mistake": f"{hint}: verbose pytest floods the context",
            "remediation": "Use pytest -q and read only the failures.",
            "type": "hint",
            "triggers": {"toolNames": ["Bash"], "commandPatterns": ["\\bpytest\\b"]},
        },
        {
            "summary": "Never delete the data directory",
            "mistake": f"{guard}: rm -rf data wiped the fixtures",
            "remediation": "Move it aside instead: mv data data.old",
            "type": "guard",
            "triggers": {"toolNames": ["Bash"], "commandPatterns": ["\\brm\\s+-rf\\s+data\\b"]},
        },
        {
            "summary": "Think before running the whole suite",
            "mistake": f"{nudge}: the full suite takes minutes",
            "remediation": "Run only the tests you touched first.",
            "type": "nudge",
            "triggers": {"toolNames": ["Bash"], "commandPatterns": ["\\bpytest\\b"]},
        },
        {
            "summary": "Session protocol for this repo",
            "mistake": f"{protocol}: state the plan before editing",
            "remediation": "Write a one-line plan first.",
            "type": "protocol",
            "triggers": {},
        },
    )


def run_agent(
    argv: list[str], scratch: Scratch, env: Mapping[str, str], *, timeout: float = 90
) -> subprocess.CompletedProcess[str]:
    """One headless agent run in the scratch project: no stdin, output captured as text.

    The exit status is the caller's to check (each agent's test says what it expects).
    """
    return subprocess.run(
        argv,
        cwd=scratch.project,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
