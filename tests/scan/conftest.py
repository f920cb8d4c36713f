"""Helpers for the scanner tests: event builders and a store in the isolated LESSONS_HOME."""

from __future__ import annotations

from pathlib import Path

import pytest

from lessons_core.scan import events as ev

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "transcripts"
CORPUS = REPO / ".." / "shared" / "corpus" / "real"


class Script:
    """Builds a session's events in order, like a reader would."""

    def __init__(self, agent: str = "claude", session: str = "s1", project: str = "/p") -> None:
        self.agent = agent
        self.session = session
        self.project = project
        self.events: list[ev.Event] = []
        self.n = 0

    def _add(self, kind: str, **kw) -> ev.Event:
        self.n += 1
        kw.setdefault("project", self.project)
        event = ev.Event(
            kind,
            self.agent,
            session_id=self.session,
            file="/t/session.jsonl",
            line=self.n,
            offset=self.n * 100,
            **kw,
        )
        self.events.append(event)
        return event

    def say(self, text: str) -> None:
        self._add(ev.ASSISTANT_TEXT, text=text)

    def user(self, text: str) -> None:
        self._add(ev.USER_TEXT, text=text)

    def run(
        self,
        command: str,
        output: str = "",
        *,
        failure=None,
        code=None,
        tool="Bash",
        cid: str | None = None,
        **call,
    ):
        """A call and its result; ``cid`` is the call id (one of its own by default), ``call``
        sets more fields of the call (``cwd``, ``escalated``, ``persistent_shell``,
        ``project``)."""
        cid = cid or f"c{self.n + 1}"
        self._add(ev.TOOL_CALL, tool=tool, command=command, call_id=cid, **call)
        self._add(
            ev.TOOL_RESULT, tool=tool, call_id=cid, failure=failure, exit_code=code, text=output
        )

    def call(self, tool: str, output: str = "", *, failure=None, command: str | None = None):
        """A call of a tool that names no file (a Glob by its pattern alone, a Skill) and its
        result; ``command`` is what the reader took for its command, if anything."""
        cid = f"c{self.n + 1}"
        self._add(ev.TOOL_CALL, tool=tool, command=command, call_id=cid)
        self._add(ev.TOOL_RESULT, tool=tool, call_id=cid, failure=failure, text=output)

    def file(self, tool: str, path: str, output: str = "", *, failure=None, edit=None):
        """A call on one file and its result; ``edit`` is an edit's (text to replace,
        replacement)."""
        cid = f"c{self.n + 1}"
        self._add(ev.TOOL_CALL, tool=tool, paths=(path,), call_id=cid, edit=edit)
        self._add(ev.TOOL_RESULT, tool=tool, call_id=cid, failure=failure, text=output)


@pytest.fixture(autouse=True)
def _no_xdg_config(monkeypatch):
    """Claude Code also keeps transcripts under $XDG_CONFIG_HOME/claude: never the real one."""
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("LESSONS_SCAN_WORKERS", raising=False)


@pytest.fixture(name="script")
def fixture_script() -> Script:
    return Script()


@pytest.fixture(name="fixtures")
def fixture_fixtures() -> Path:
    return FIXTURES
