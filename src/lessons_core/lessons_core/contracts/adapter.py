"""The contract every agent adapter keeps, as a test class to subclass.

An adapter for a new agent gets the checks the three built-in adapters pass by subclassing
:class:`AdapterContract` and providing three fixtures::

    from lessons_core.testing import AdapterContract

    class TestMyAgent(AdapterContract):
        @pytest.fixture
        def agent_spec(self):
            return my_plugin.agent_spec()

        @pytest.fixture
        def payloads(self):
            return MyPayloads()  # pre_tool(...) and session_start(...), see HookPayloads

        @pytest.fixture
        def sample_transcript(self, tmp_path):
            return path_to_a_small_real_transcript_with_a_tool_call

The hook checks run the adapter's hook module as the agent does: a fresh interpreter process
fed one payload on stdin, against a scratch ``LESSONS_HOME`` whose lessons the real
``lessons add`` stored.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Protocol

import pytest

from lessons_core.plugins.specs import AgentSpec

#: The lessons the hook checks deliver: a guard (denied on a matching call) and a protocol.
GUARD_MARK = "GUARD-CONTRACT-7c1e"
LESSONS = [
    {
        "summary": "Keep the fixtures directory",
        "mistake": f"{GUARD_MARK}: rm -rf fixtures wiped the test data",
        "remediation": "Move it aside instead of deleting it.",
        "type": "guard",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": ["\\brm\\s+-rf\\s+fixtures\\b"]},
    },
    {
        "summary": "Say the plan",
        "mistake": "PROTOCOL-CONTRACT: started without a plan",
        "remediation": "Say the plan in one line first.",
        "type": "protocol",
        "triggers": {},
    },
]
#: The most a hook may add at once (the default budget, with room for its JSON wrapping).
MAX_OUTPUT_BYTES = 16 * 1024


class HookPayloads(Protocol):
    """What the agent sends its hook, built by the adapter's test suite."""

    def pre_tool(self, session: str, cwd: Path, command: str) -> dict[str, Any]:
        """The payload of the event before a shell call (the one a guard denies)."""

    def session_start(self, session: str, cwd: Path) -> dict[str, Any]:
        """The payload of the event at the start of a session."""


class AdapterContract:
    """Behaviour every agent adapter must show. Subclass it in a test; see the module."""

    @pytest.fixture
    def contract_home(self, tmp_path: Path) -> Path:
        """A scratch ``LESSONS_HOME`` holding :data:`LESSONS`, stored by the real CLI."""
        home = tmp_path / "lessons-home"
        done = subprocess.run(
            [sys.executable, "-m", "lessons_core", "add", "-"],
            input=json.dumps(LESSONS),
            capture_output=True,
            text=True,
            env={**os.environ, "LESSONS_HOME": str(home), "LESSONS_AUTO_SCAN": "0"},
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return home

    def run_hook(
        self, spec: AgentSpec, home: Path, tmp_path: Path, payload: Any
    ) -> subprocess.CompletedProcess[str]:
        """One payload (a string as is, anything else as JSON) through the hook process."""
        state = tmp_path / "state"
        state.mkdir(mode=0o700, exist_ok=True)
        env = {
            **os.environ,
            "LESSONS_HOME": str(home),
            "LESSONS_STATE_DIR": str(state),
            "LESSONS_AUTO_SCAN": "0",
        }
        return subprocess.run(
            [sys.executable, "-m", spec.hook_module],
            input=payload if isinstance(payload, str) else json.dumps(payload),
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )

    # -- the spec -------------------------------------------------------------------------

    def test_spec_names_its_hook(self, agent_spec: AgentSpec) -> None:
        """The spec is an AgentSpec whose hook command and module follow the convention."""
        assert isinstance(agent_spec, AgentSpec)
        assert agent_spec.name and agent_spec.name == agent_spec.name.lower()
        assert agent_spec.hook_command == f"lessons-{agent_spec.name}-hook"
        assert callable(getattr(importlib.import_module(agent_spec.hook_module), "main", None))
        assert agent_spec.title

    def test_tool_names_map_to_canonical_ones(self, agent_spec: AgentSpec) -> None:
        """Every native tool name maps onto a canonical tool the lessons' triggers use."""
        from lessons_core.validate import is_canonical_tool

        assert agent_spec.tool_names, "an adapter maps at least its shell tool"
        unknown = {k: v for k, v in agent_spec.tool_names.items() if not is_canonical_tool(v)}
        assert unknown == {}

    def test_transcript_roots_follow_the_environment(
        self, agent_spec: AgentSpec, tmp_path: Path
    ) -> None:
        """The roots are paths, and a different home gives different roots."""
        if agent_spec.transcript_roots is None:
            pytest.skip("this adapter reads no transcripts")
        roots = agent_spec.transcript_roots({"HOME": str(tmp_path)})
        assert roots and all(isinstance(root, Path) for root in roots)
        assert roots != agent_spec.transcript_roots({"HOME": str(tmp_path / "other")})

    # -- the hook process -----------------------------------------------------------------

    @pytest.mark.parametrize("payload", ["", "not json", "[]", '{"hook_event_name": 7}'])
    def test_hook_fails_open_on_bad_input(
        self, agent_spec: AgentSpec, contract_home: Path, tmp_path: Path, payload: str
    ) -> None:
        """Whatever arrives on stdin, the hook exits 0 and says nothing: the agent goes on."""
        done = self.run_hook(agent_spec, contract_home, tmp_path, payload)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == ""
        assert "Traceback" not in done.stderr

    def test_hook_guards_a_matching_call(
        self, agent_spec: AgentSpec, payloads: HookPayloads, contract_home: Path, tmp_path: Path
    ) -> None:
        """A call a guard lesson matches gets an answer naming that lesson."""
        payload = payloads.pre_tool("contract-session", tmp_path, "rm -rf fixtures")
        done = self.run_hook(agent_spec, contract_home, tmp_path, payload)
        assert done.returncode in (0, 2), done.stderr
        said = done.stdout + done.stderr
        assert "Keep the fixtures directory" in said or GUARD_MARK in said
        assert len(done.stdout.encode()) <= MAX_OUTPUT_BYTES

    def test_hook_stays_silent_on_an_unrelated_call(
        self, agent_spec: AgentSpec, payloads: HookPayloads, contract_home: Path, tmp_path: Path
    ) -> None:
        """A call no lesson is about passes without a word."""
        payload = payloads.pre_tool("contract-session", tmp_path, "ls -la")
        done = self.run_hook(agent_spec, contract_home, tmp_path, payload)
        assert done.returncode == 0, done.stderr
        assert GUARD_MARK not in done.stdout

    def test_session_start_gives_the_protocol(
        self, agent_spec: AgentSpec, payloads: HookPayloads, contract_home: Path, tmp_path: Path
    ) -> None:
        """A new session is told how to write ``#lesson`` blocks, within budget."""
        done = self.run_hook(
            agent_spec, contract_home, tmp_path, payloads.session_start("contract-start", tmp_path)
        )
        assert done.returncode == 0, done.stderr
        assert "#lesson" in done.stdout
        assert len(done.stdout.encode()) <= MAX_OUTPUT_BYTES

    # -- the transcript reader ------------------------------------------------------------

    def test_reader_yields_normalized_events(
        self, agent_spec: AgentSpec, sample_transcript: Path
    ) -> None:
        """The reader turns the sample into events of this agent, a tool call among them."""
        from lessons_core.scan import events as ev

        if agent_spec.reader is None:
            pytest.skip("this adapter reads no transcripts")
        events = list(
            agent_spec.reader(sample_transcript, 0, progress=ev.Progress(0, 0), start_message=0)
        )
        assert events and all(isinstance(e, ev.Event) for e in events)
        assert {e.agent for e in events} == {agent_spec.name}
        assert any(e.kind == ev.TOOL_CALL for e in events)

    def test_sample_is_recognised_as_this_agents(
        self, agent_spec: AgentSpec, sample_transcript: Path
    ) -> None:
        """``lessons scan FILE`` would read the sample with this adapter."""
        from lessons_core.scan import discovery

        if agent_spec.recognize is None:
            pytest.skip("this adapter recognises no named file")
        assert discovery.sniff(sample_transcript, {agent_spec.name: agent_spec}) == agent_spec.name
