"""Tier 2 capture from the transcript each real agent writes: a mistake, then its correction.

The heuristics were tuned on transcripts that agents wrote in the past. The sessions they will
be asked to read next come from the releases installed now, and a release that logs an exit
code, a tool name or a refusal another way would leave the pairing with nothing to pair,
quietly. So every agent CLI we support, driven by a scripted model, makes the same mistakes
and corrects them:

* a command given an option its program does not have, then the command with the right one;
* an edit whose text to replace is not in the file (typed from memory), then the edit with the
  text as the file has it, each agent with its own read and edit tools (Codex with a patch);
* a file read where it is not (``src/util.py``), then where it is (``lib/util.py``), which
  waits, scoped to the project, for the same guess to come back;
* a tool run by its name though only the project's virtualenv has it, then by its path there;
* a grep pattern that starts with ``--`` taken for an option, then marked with ``-e``;
* a ``cd sub`` made again where the shell keeps its folder (Claude Code's), then the command
  without it; where each command starts afresh, the same calls make no mistake and no lesson;
* a file read whole though it is over the read tool's size limit (Claude Code's), then read in
  parts; where the tool cuts a large file short instead, no mistake and no lesson;
* a URL with a ``?`` left unquoted for a user whose shell is zsh, then quoted; where the agent
  runs bash whatever the user's shell, no mistake and no lesson.
* a command that never ends, killed at the timeout the model set, then told to finish; where
  the shell tool backgrounds it, leaves it running or waits for it, no mistake and no lesson.
* a command holding ``$(…)`` that the shell tool refuses (Gemini CLI's), then the value
  written in; where the shell runs it, no mistake and no lesson.

And the agent's own ``#lesson`` block, written in its last answer, must come out as one
lesson, promoted at once.

``lessons scan`` must make one candidate of each from that agent's own log, with the project
folder, the failing call as evidence, the refusal as its error line and the same lesson for
every agent: this is the parity the capture promises, checked on the formats as they are today.
"""

from __future__ import annotations

import http.server
import json
import re
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
from agent_harness import FakeModelServer, Scratch, run_lessons, system_program
from fake_anthropic import ScriptedCalls
from fake_gemini import FakeGemini
from fake_openai import FakeOpenAI
from fake_openai_chat import FakeChatCompletions
from test_claude_e2e import run_claude
from test_codex_e2e import exec_call, run_codex
from test_copilot_e2e import FakeCopilotModel, run_copilot
from test_copilot_e2e import bash as copilot_bash
from test_gemini_e2e import run_gemini
from test_gemini_e2e import shell as gemini_shell
from test_kilo_e2e import bash as kilo_bash
from test_kilo_e2e import run_kilo
from test_opencode_e2e import bash as opencode_bash
from test_opencode_e2e import run_opencode
from test_qwen_e2e import run_qwen
from test_qwen_e2e import shell as qwen_shell

from lessons_core import installing

pytestmark = pytest.mark.e2e

#: Every agent CLI we support, by its adapter's name.
AGENTS = ("claude", "codex", "copilot", "gemini", "kilo", "opencode", "qwen")
PROMPT = "tidy up the project"


def _shell(agent: str, command: str) -> tuple[str, dict[str, Any]]:
    """One shell call in each agent's own words."""
    return {
        "claude": ("Bash", {"command": command, "description": "Run it"}),
        "codex": exec_call(command),
        "gemini": gemini_shell(command),
        "qwen": qwen_shell(command),
        "opencode": opencode_bash(command),
        "kilo": kilo_bash(command),
        "copilot": copilot_bash(command),
    }[agent]


def _run_script(
    agent: str,
    scratch: Scratch,
    calls: list[tuple[str, dict[str, Any]]],
    *,
    prompt: str = PROMPT,
    install: bool = False,
    final: str = "done",
) -> FakeModelServer:
    """One run of the agent's real CLI in the scratch project, its scripted model making
    ``calls`` one after the other and then answering ``final``; the model server, for what
    reached it. Our hooks are
    installed when ``install`` says so, and always for Codex and Gemini (their runners do, as a
    user's would be): capture reads the log alone."""
    first, rest = calls[0], calls[1:]
    server: FakeModelServer
    if agent == "claude":
        script = [(f"toolu_fake_{n:02d}", tool, args) for n, (tool, args) in enumerate(calls, 1)]
        if install:
            run_lessons(scratch, "install", "claude")
        with ScriptedCalls(script, final=final) as server:
            run_claude(scratch, server, prompt, ("--allowedTools", "Read,Edit,Bash"))
    elif agent == "codex":
        with FakeOpenAI(*first, then=rest, final=final) as server:
            run_codex(scratch, server, prompt)
    elif agent == "gemini":
        with FakeGemini(*first, then=rest, final=final) as server:
            run_gemini(scratch, server, prompt)
    elif agent == "copilot":
        with FakeCopilotModel(*first, then=rest, final=final) as server:
            run_copilot(scratch, server, prompt, install=install)
    else:
        runner = {"opencode": run_opencode, "kilo": run_kilo, "qwen": run_qwen}[agent]
        with FakeChatCompletions(*first, then=rest, final=final) as server:
            runner(scratch, server, prompt, install=install)
    return server


def scanned(scratch: Scratch, agent: str) -> list[dict[str, Any]]:
    out = run_lessons(scratch, "scan", "--json", "--agent", agent, timeout=120)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def the_lesson(scratch: Scratch, agent: str, makers: tuple[str, ...]) -> dict[str, Any] | None:
    """The one heuristic candidate scanned from the agent's log where its CLI makes the
    mistake (``agent`` in ``makers``); elsewhere the same calls made no mistake, and the scan
    must find none (``None``)."""
    found = [c for c in scanned(scratch, agent) if c.get("tier") == 2]
    if agent not in makers:
        assert found == [], found
        return None
    assert len(found) == 1, found
    return found[0]


def test_every_supported_agent_is_driven() -> None:
    """An adapter added without a run here would go unchecked: the list is every adapter's."""
    assert set(installing.agents()) == set(AGENTS)


# -- an option the program does not have -----------------------------------------------------------

#: ``json.tool`` has ``--indent N``; ``--pretty`` is what one might guess. The standard
#: library's argparse refuses it ("unrecognized arguments") with exit 2 wherever the suite runs.
WRONG = "python3 -m json.tool --pretty data.json"
RIGHT = "python3 -m json.tool --indent 2 data.json"


@pytest.mark.parametrize("agent", AGENTS)
def test_a_failed_command_and_its_fix_become_one_lesson(scratch: Scratch, agent: str) -> None:
    (scratch.project / "data.json").write_text('{"b": 1, "a": [1, 2]}\n', encoding="utf-8")
    _run_script(agent, scratch, [_shell(agent, WRONG), _shell(agent, RIGHT)])

    found = scanned(scratch, agent)
    heuristic = [c for c in found if c.get("tier") == 2]
    assert len(heuristic) == 1, json.dumps(found, indent=1)[:4000]
    (candidate,) = heuristic
    assert candidate["agent"] == agent, candidate
    assert candidate["project"] == str(scratch.project), candidate
    # the failing call, read back from the agent's own log, is the evidence
    (evidence,) = candidate["evidence"]
    assert evidence["call_id"] and evidence["file"] and evidence["line"] > 0, evidence
    assert "--pretty" in candidate["mistake"]
    assert any("unrecognized arguments: --pretty" in line for line in candidate["errorLines"])
    assert "--indent 2" in candidate["fix"] and "--pretty" not in candidate["fix"]
    # the trigger fires on the wrong form, never on the fix nor the plain command
    trigger = re.compile(candidate["trigger"])
    assert trigger.search(WRONG)
    assert not trigger.search(RIGHT)
    assert not trigger.search("python3 -m json.tool data.json")
    # read once: a second scan of the same log adds nothing
    assert [c for c in scanned(scratch, agent) if c.get("tier") == 2] == []


# -- an edit whose text to replace is not in the file ----------------------------------------------

FILE = "settings.py"
BEFORE = "alpha = 1\nbeta = 2\n"
GUESSED = ("beta = 3", "beta = 4")  # typed from memory: not in the file
COPIED = ("beta = 2", "beta = 4")


def _edits(agent: str, path: str) -> list[tuple[str, dict[str, Any]]]:
    """Each agent's own calls: read the file, the refused edit, the edit that worked."""
    if agent == "codex":

        def patch(old: str, new: str) -> tuple[str, dict[str, Any]]:
            body = f"*** Begin Patch\n*** Update File: {FILE}\n@@\n-{old}\n+{new}\n*** End Patch\n"
            return "apply_patch", {"input": body}

        return [exec_call(f"cat {FILE}"), patch(*GUESSED), patch(*COPIED)]
    read, edit, keys = {
        "claude": ("Read", "Edit", ("file_path", "old_string", "new_string")),
        "gemini": ("read_file", "replace", ("file_path", "old_string", "new_string")),
        "qwen": ("read_file", "edit", ("file_path", "old_string", "new_string")),
        "opencode": ("read", "edit", ("filePath", "oldString", "newString")),
        "kilo": ("read", "edit", ("filePath", "oldString", "newString")),
        "copilot": ("view", "edit", ("path", "old_str", "new_str")),
    }[agent]
    # Gemini's replace also asks what the change is for
    extra = {"instruction": "Set beta to 4."} if agent == "gemini" else {}
    return [
        (read, {keys[0]: path}),
        (edit, {keys[0]: path, keys[1]: GUESSED[0], keys[2]: GUESSED[1], **extra}),
        (edit, {keys[0]: path, keys[1]: COPIED[0], keys[2]: COPIED[1], **extra}),
    ]


@pytest.mark.parametrize("agent", AGENTS)
def test_a_refused_edit_and_the_edit_that_worked_become_one_lesson(
    scratch: Scratch, agent: str
) -> None:
    target = scratch.project / FILE
    target.write_text(BEFORE, encoding="utf-8")
    _run_script(agent, scratch, _edits(agent, str(target)))
    assert target.read_text(encoding="utf-8") == "alpha = 1\nbeta = 4\n"

    found = scanned(scratch, agent)
    heuristic = [c for c in found if c.get("tier") == 2]
    assert len(heuristic) == 1, json.dumps(found, indent=1)[:4000]
    (candidate,) = heuristic
    assert candidate["agent"] == agent and candidate["project"] == str(scratch.project)
    # the refused edit, whatever the agent calls its tool, is an Edit refused for stale text
    assert candidate["tool"] == "Edit", candidate
    assert candidate["summary"] == "Edit: copy the text to replace from the file as it is now"
    assert FILE in candidate["mistake"] and FILE in candidate["fix"]
    # the evidence is the refused call: its refusal is the error line the lesson is recalled by
    (evidence,) = candidate["evidence"]
    assert evidence["call_id"] and candidate["errorLines"], candidate
    assert candidate["errorLines"][0].split()[0] in candidate["mistake"], candidate
    assert [c for c in scanned(scratch, agent) if c.get("tier") == 2] == []


# -- a file looked for where it is not, then found where it is -------------------------------------


#: Each agent's read tool and the name of its path parameter (Codex reads with commands).
READ_TOOLS = {
    "claude": ("Read", "file_path"),
    "gemini": ("read_file", "file_path"),
    "qwen": ("read_file", "file_path"),
    "opencode": ("read", "filePath"),
    "kilo": ("read", "filePath"),
    "copilot": ("view", "path"),
}


def _reads(agent: str, project: Path) -> list[tuple[str, dict[str, Any]]]:
    """Each agent's own read of the guessed path, then of the right one."""
    guessed, right = project / "src" / "util.py", project / "lib" / "util.py"
    if agent == "codex":
        return [exec_call("cat src/util.py"), exec_call("cat lib/util.py")]
    tool, key = READ_TOOLS[agent]
    return [(tool, {key: str(guessed)}), (tool, {key: str(right)})]


@pytest.mark.parametrize("agent", AGENTS)
def test_a_guessed_path_and_the_right_one_wait_to_come_back(scratch: Scratch, agent: str) -> None:
    (scratch.project / "lib").mkdir()
    (scratch.project / "lib" / "util.py").write_text("def helper():\n    return 1\n")
    _run_script(agent, scratch, _reads(agent, scratch.project))

    scan = run_lessons(scratch, "scan", "--agent", agent, timeout=120)
    assert "1 guessed path(s) kept" in scan.stdout, scan.stdout
    out = run_lessons(scratch, "candidates", "--json", "--status", "all")
    found = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    assert len(found) == 1, json.dumps(found, indent=1)[:4000]
    (candidate,) = found
    # a fact of this project, kept out of review until the same guess comes back
    assert candidate["status"] == "waiting" and candidate["tier"] == 2
    assert candidate["agent"] == agent and candidate["project"] == str(scratch.project)
    assert candidate["summary"].endswith("`util.py` is at `lib/util.py`"), candidate
    assert any(tag.startswith("scope:project-") for tag in candidate["tags"]), candidate
    # the trigger is the wrong path alone: a glob for a file tool, a whole word in a command
    trigger = candidate["trigger"]
    if candidate["tool"] == "Read":
        assert trigger == "**/src/util.py", candidate
    else:
        assert re.search(trigger, "cat src/util.py") and not re.search(trigger, "cat lib/util.py")
    assert candidate["errorLines"], candidate


# -- a tool that is only in the project's virtualenv -----------------------------------------------

TOOL = "fmtcheck"


@pytest.mark.parametrize("agent", AGENTS)
def test_a_tool_not_on_path_and_its_path_in_the_virtualenv(scratch: Scratch, agent: str) -> None:
    bin_dir = scratch.project / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    tool = bin_dir / TOOL
    tool.write_text('#!/bin/sh\necho checked "$@"\n')
    tool.chmod(0o755)
    calls = [_shell(agent, f"{TOOL} src"), _shell(agent, f".venv/bin/{TOOL} src")]
    _run_script(agent, scratch, calls)

    found = scanned(scratch, agent)
    heuristic = [c for c in found if c.get("tier") == 2]
    assert len(heuristic) == 1, json.dumps(found, indent=1)[:4000]
    (candidate,) = heuristic
    assert candidate["agent"] == agent and candidate["project"] == str(scratch.project)
    assert candidate["summary"] == f"{TOOL}: the command is not on PATH", candidate
    assert f"`.venv/bin/{TOOL} src`" in candidate["fix"], candidate
    assert any("command not found" in line for line in candidate["errorLines"]), candidate
    # named where it starts a command: never the path that works, nor a word in another
    trigger = re.compile(candidate["trigger"])
    assert trigger.search(f"{TOOL} src")
    assert not trigger.search(f".venv/bin/{TOOL} src")
    assert not trigger.search(f"grep -r {TOOL} docs")


# -- a pattern that starts with a dash ---------------------------------------------------------

#: grep takes a pattern that starts with ``--`` for an option of its own and refuses it; ``-e``
#: says the next word is the pattern.
DASHED = 'grep -rn "--no-cache" docs'
MARKED = 'grep -rn -e "--no-cache" docs'


@pytest.mark.parametrize("agent", AGENTS)
def test_a_pattern_taken_for_an_option_and_the_pattern_marked(scratch: Scratch, agent: str) -> None:
    (scratch.project / "docs").mkdir()
    (scratch.project / "docs" / "build.md").write_text("Run `npm ci --no-cache` first.\n")
    _run_script(agent, scratch, [_shell(agent, DASHED), _shell(agent, MARKED)])

    found = scanned(scratch, agent)
    heuristic = [c for c in found if c.get("tier") == 2]
    assert len(heuristic) == 1, json.dumps(found, indent=1)[:4000]
    (candidate,) = heuristic
    assert candidate["agent"] == agent and candidate["project"] == str(scratch.project)
    # the lesson is the pattern's dash, not an option to drop (Claude Code's grep is ugrep,
    # which words the refusal its own way: the same lesson)
    assert candidate["summary"] == "grep: a pattern starting with `-` is read as an option"
    assert MARKED in candidate["fix"], candidate
    trigger = re.compile(candidate["trigger"])
    assert trigger.search(DASHED) and not trigger.search(MARKED)
    assert not trigger.search('grep -rn "cache" docs')


# -- a folder left by an earlier cd ------------------------------------------------------------

#: The agents whose shell keeps its working directory from one call to the next.
PERSISTENT_SHELL = ("claude",)


@pytest.mark.parametrize("agent", AGENTS)
def test_a_cd_into_the_folder_the_shell_is_already_in(scratch: Scratch, agent: str) -> None:
    """Claude Code's shell stays where a ``cd`` left it, so a second ``cd sub`` fails; the
    lesson's project is the repository's root, never the folder the shell drifted into. The
    other agents start each command afresh: the same calls make no mistake and no lesson."""
    (scratch.project / "sub").mkdir()
    (scratch.project / "sub" / "notes.txt").write_text("x\n")
    calls = ["cd sub && pwd", "cd sub && ls", "ls"]
    _run_script(agent, scratch, [_shell(agent, c) for c in calls])

    candidate = the_lesson(scratch, agent, PERSISTENT_SHELL)
    if candidate is None:
        return
    assert candidate["project"] == str(scratch.project), candidate
    assert candidate["summary"].endswith("the working directory stayed where an earlier cd left it")
    assert "`ls` worked" in candidate["fix"], candidate
    trigger = re.compile(candidate["trigger"])
    assert trigger.search("cd sub && ls") and not trigger.search("ls")


# -- a file larger than the read tool takes ------------------------------------------------

#: About 3 MB of log: over Claude Code's Read limit (256 KB), under every other agent's.
BIG_LOG = "".join(f"line {n} of the build log, with words to fill it\n" for n in range(60000))


def _big_reads(agent: str, path: str) -> list[tuple[str, dict[str, Any]]]:
    """Each agent's own read of the whole file, then of its first hundred lines."""
    if agent == "codex":
        return [exec_call(f"cat {path}"), exec_call(f"sed -n 1,100p {path}")]
    tool, key = READ_TOOLS[agent]
    part: dict[str, Any] = {
        "claude": {"offset": 1, "limit": 100},
        "copilot": {"view_range": [1, 100]},
    }.get(agent, {"offset": 0, "limit": 100})
    return [(tool, {key: path}), (tool, {key: path, **part})]


#: The agents whose read tool refuses a file of that size rather than cut what it returns.
SIZE_LIMITED_READ = ("claude",)


@pytest.mark.parametrize("agent", AGENTS)
def test_a_file_too_large_to_read_whole_then_read_in_parts(scratch: Scratch, agent: str) -> None:
    """Claude Code's Read refuses a file over its size limit in a calm sentence ("exceeds
    maximum allowed size … use offset and limit"), a result that ran and failed. The lesson is
    to read such a file in parts, recalled by that sentence; it has no trigger, since the path
    alone cannot tell a large file from a small one. The other agents cut a large file short
    instead of refusing it: no mistake, no lesson."""
    (scratch.project / "build.log").write_text(BIG_LOG, encoding="utf-8")
    path = str(scratch.project / "build.log")
    _run_script(agent, scratch, _big_reads(agent, path))

    candidate = the_lesson(scratch, agent, SIZE_LIMITED_READ)
    if candidate is None:
        return
    # the tool's refusal, never "the user wanted another way"
    assert candidate["summary"] == "Read: read a large file in parts", candidate
    assert candidate["trigger"] is None and "offset and limit" in candidate["fix"], candidate
    assert "exceeds maximum allowed" in candidate["errorLines"][0], candidate
    assert candidate["project"] == str(scratch.project), candidate


# -- a word zsh took for a glob ----------------------------------------------------------------


class _Items(http.server.BaseHTTPRequestHandler):
    """A local API the commands fetch from: one page of items for any path."""

    def do_GET(self) -> None:
        body = b'[{"id": 1}]'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def items_url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Items)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/items?page=2"
    finally:
        server.shutdown()
        server.server_close()


#: The agents whose shell calls run in the user's shell, as ``$SHELL`` names it, and Codex, whose
#: model names the shell of each command (as it does on a Mac, where the login shell is zsh).
USERS_SHELL = ("claude", "codex", "kilo", "opencode")


@pytest.mark.parametrize("agent", AGENTS)
def test_a_url_zsh_took_for_a_glob_then_quoted(
    scratch: Scratch, agent: str, items_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user whose shell is zsh: an unquoted ``?`` in a URL is a glob that matches nothing,
    and zsh refuses to run the command ("no matches found"); quoted, it runs. The lesson is the
    quoting, and its trigger fires on the unquoted word alone. Where the agent runs commands in
    bash whatever the user's shell (Gemini CLI, Qwen Code, Copilot), bash passes the word on as
    it is: no mistake, no lesson."""
    zsh = system_program("zsh")
    monkeypatch.setenv("SHELL", zsh)
    wrong, right = f"curl -s {items_url}", f"curl -s '{items_url}'"
    if agent == "codex":
        calls = [("exec_command", {"cmd": c, "shell": zsh, "login": False}) for c in (wrong, right)]
    else:
        calls = [_shell(agent, wrong), _shell(agent, right)]
    _run_script(agent, scratch, calls)

    candidate = the_lesson(scratch, agent, USERS_SHELL)
    if candidate is None:
        return
    assert candidate["summary"] == "curl: quote words the shell would read as syntax", candidate
    assert any("no matches found" in line for line in candidate["errorLines"]), candidate
    assert f"`{right}` worked" in candidate["fix"], candidate
    trigger = re.compile(candidate["trigger"])
    assert trigger.search(wrong) and not trigger.search(right)
    assert not trigger.search("curl -s http://127.0.0.1:8000/items")


# -- a command that waits for ever -------------------------------------------------------------

#: A checker that watches for changes until it is stopped, unless told to check once: the shape
#: of a test runner in watch mode, or one waiting on a terminal it does not have.
WATCHER = (
    "#!/bin/sh\n"
    'if [ "$1" = "--once" ]; then echo "checked 3 files"; exit 0; fi\n'
    'echo "watching for changes"\nsleep 5\n'
)


def _with_timeout(agent: str, call: tuple[str, dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """The call with the shortest wait each agent's shell tool takes (two seconds)."""
    tool, args = call
    if agent == "codex":
        return tool, {**args, "yield_time_ms": 2000}
    if agent == "copilot":
        return tool, {**args, "initial_wait": 2}
    return tool, {**args, "timeout": 2000}


#: The agents whose shell tool kills a command that outlives the timeout the model gave it.
KILLS_ON_TIMEOUT = ("kilo", "opencode", "qwen")


@pytest.mark.parametrize("agent", AGENTS)
def test_a_command_killed_for_hanging_then_told_to_finish(scratch: Scratch, agent: str) -> None:
    """A command that never ends on its own is killed at the timeout the model set; then the
    command with the option that makes it finish. The lesson is that it hangs without that
    option, its trigger the command without it. Claude Code moves such a command to the
    background, Codex leaves it running and answers with its session, Gemini CLI and Copilot
    wait for it: none of them fails the call, so none makes a lesson."""
    watcher = scratch.project / "watch.sh"
    watcher.write_text(WATCHER, encoding="utf-8")
    watcher.chmod(0o755)
    calls = [_with_timeout(agent, _shell(agent, "./watch.sh")), _shell(agent, "./watch.sh --once")]
    _run_script(agent, scratch, calls)

    candidate = the_lesson(scratch, agent, KILLS_ON_TIMEOUT)
    if candidate is None:
        return
    assert candidate["summary"] == "watch.sh: it hung; it ended with `--once`", candidate
    assert "`./watch.sh --once`" in candidate["fix"], candidate
    assert any("timeout" in line or "timed out" in line for line in candidate["errorLines"])
    trigger = re.compile(candidate["trigger"])
    assert trigger.search("./watch.sh") and not trigger.search("./watch.sh --once")


# -- command substitution, where the agent's shell refuses it -------------------------------

#: The agents whose shell tool refuses a command holding command substitution.
REFUSES_SUBSTITUTION = ("gemini",)
SUBSTITUTED = 'echo "release $(cat VERSION)"'
LITERAL = 'echo "release 1.2.3"'


@pytest.mark.parametrize("agent", AGENTS)
def test_a_command_substitution_the_shell_tool_refused_then_written_out(
    scratch: Scratch, agent: str
) -> None:
    """Gemini CLI's shell tool refuses a command holding ``$(…)`` ("Command injection
    detected") and logs the call as a success; the agent then reads the value and writes it
    in. The lesson is recalled at that refusal, with no trigger: the other agents run such
    commands, and a pattern on ``$(`` would come with every one of them. For those agents the
    same calls make no mistake and no lesson."""
    (scratch.project / "VERSION").write_text("1.2.3\n", encoding="utf-8")
    calls = [_shell(agent, c) for c in (SUBSTITUTED, "cat VERSION", LITERAL)]
    _run_script(agent, scratch, calls)

    candidate = the_lesson(scratch, agent, REFUSES_SUBSTITUTION)
    if candidate is None:
        return
    assert candidate["summary"] == "Bash: this agent's shell refuses command substitution"
    assert candidate["trigger"] is None and f"`{LITERAL}` worked" in candidate["fix"]
    assert candidate["errorLines"][0].startswith("Command injection detected"), candidate


# -- a call our own guard stopped -------------------------------------------------------------


@pytest.mark.parametrize("agent", AGENTS)
def test_a_call_our_guard_stopped_is_no_mistake_to_learn(scratch: Scratch, agent: str) -> None:
    """A guard's deny is a lesson already kept, doing its work: the call never ran, and the
    agent followed the fix. However each agent records the deny (an error result, a refusal in
    the hook's words), the scan must not read it as a mistake, nor as the user declining the
    call, and learn the same lesson again."""
    (scratch.project / "data.json").write_text('{"b": 1}\n', encoding="utf-8")
    guard = {
        "summary": "json.tool has no --pretty",
        "mistake": 'json.tool fails with "error: unrecognized arguments: --pretty"',
        "remediation": "Use --indent 2 (GUARD-4M7).",
        "type": "guard",
        "triggers": {"toolNames": ["Bash"], "commandPatterns": [r"json\.tool\s+--pretty\b"]},
        "priority": 8,
    }
    run_lessons(scratch, "add", "-", "--json", input=json.dumps(guard))
    server = _run_script(agent, scratch, [_shell(agent, WRONG), _shell(agent, RIGHT)], install=True)
    assert "GUARD-4M7" in json.dumps([r.body for r in server.requests])  # the deny reached it

    assert scanned(scratch, agent) == []


# -- a #lesson block the agent wrote -----------------------------------------------------------

BLOCK = (
    "The lint run passed once I used the project's script.\n\n#lesson\ntool: Bash\n"
    "trigger: \\bnpx\\s+eslint\\b\n"
    "mistake: npx eslint here picks the global eslint 8, which cannot read the flat config"
    " (BLOCK-{agent})\n"
    "fix: run npm run lint, which uses the project's eslint 9\n#/lesson"
)


@pytest.mark.parametrize("agent", AGENTS)
def test_a_lesson_block_the_agent_wrote_becomes_a_lesson(scratch: Scratch, agent: str) -> None:
    """The agent's own ``#lesson`` block, in its last answer, is read from the log its CLI
    wrote and promoted at once; a second scan of the same log adds nothing."""
    marker = f"BLOCK-{agent}"
    _run_script(agent, scratch, [_shell(agent, "echo linted")], final=BLOCK.format(agent=agent))

    found = scanned(scratch, agent)
    blocks = [c for c in found if c.get("tier") == 1]
    assert len(blocks) == 1, json.dumps(found, indent=1)[:4000]
    (block,) = blocks
    assert marker in block["mistake"] and block["agent"] == agent, block
    assert block["project"] == str(scratch.project), block
    assert re.search(block["trigger"], "npx eslint src") and block["fix"].startswith("run npm")
    listed = run_lessons(scratch, "list", "--json").stdout
    assert marker in listed  # promoted without review: the agent wrote it on purpose
    assert [c for c in scanned(scratch, agent) if c.get("tier") == 1] == []


def _in_two_projects(scratch: Scratch) -> tuple[Scratch, Scratch]:
    """The scratch project and a second repository beside it, sharing home and store."""
    second = attrs.evolve(scratch, project=scratch.root / "second")
    for where in (scratch, second):
        where.project.mkdir(exist_ok=True)
        subprocess.run(["git", "init", "-q"], cwd=where.project, check=True)
    return scratch, second


def _lessons(scratch: Scratch) -> list[dict[str, Any]]:
    out = run_lessons(scratch, "list", "--json").stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


@pytest.mark.parametrize("agent", AGENTS)
def test_a_project_lesson_met_in_another_project_is_offered_for_every_project(
    scratch: Scratch, agent: str
) -> None:
    """A lesson promoted for the project it was learned in (review's default), then the same
    mistake and fix in a second repository: the scan folds the repeat into the lesson, which
    stays scoped to the first project, and offers it for every project with the command that
    does it. Whether it reaches every project is the user's call, never the scan's."""
    first, second = _in_two_projects(scratch)
    for where in (first, second):
        (where.project / "data.json").write_text('{"b": 1}\n', encoding="utf-8")
    _run_script(agent, first, [_shell(agent, WRONG), _shell(agent, RIGHT)])
    (candidate,) = [c for c in scanned(first, agent) if c.get("tier") == 2]
    run_lessons(first, "promote", candidate["id"])
    (promoted,) = _lessons(scratch)
    assert promoted["scope"], promoted

    _run_script(agent, second, [_shell(agent, WRONG), _shell(agent, RIGHT)])
    scan = run_lessons(second, "scan", "--agent", agent, timeout=120)
    (lesson,) = _lessons(scratch)
    assert lesson["id"] == promoted["id"] and lesson["scope"] == promoted["scope"], lesson
    assert run_lessons(scratch, "candidates", "--json").stdout.strip() == ""  # folded
    offer = f"lessons rescope {lesson['id']} --global"
    assert offer in scan.stdout + scan.stderr, scan.stdout
    assert offer in run_lessons(scratch, "candidates").stdout
