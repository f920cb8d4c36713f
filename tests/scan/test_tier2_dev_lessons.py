"""The lesson must be right: Tier 2's cause, fix and trigger on real transcripts of the dev side
of the capture split (``benchmarks/labels/split.json``), the side rules may be tuned on.

Each test reads one transcript of the shared corpus (skipped when the corpus is absent), checks
that it is on the dev side, and holds the candidate drawn from one of its failures to what the
calls show: the failing segment of a pipeline is the one the error names, the fix is a call
that worked and is told from the calls, not from the agent's prose.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lessons_core.models import Candidate
from lessons_core.plugins.manager import Plugins
from lessons_core.scan import discovery
from lessons_core.scan import events as ev
from lessons_core.scan.detectors import tier2, triggers

SPLIT = Path(__file__).resolve().parents[2] / "benchmarks" / "labels" / "split.json"

pytestmark = pytest.mark.corpus


def _dev_events(shared_dir: Path, rel: str) -> list[ev.Event]:
    """The events of ``corpus/<rel>``, a transcript whose session is on the dev side."""
    split = json.loads(SPLIT.read_text(encoding="utf-8"))
    assert split["sessions"][split["files"][rel]] == "dev", rel
    path = shared_dir / "corpus" / rel
    if not path.is_file():
        pytest.skip(f"{rel} is not in the shared corpus")
    agents = Plugins.load().agents()
    agent = discovery.sniff(path, agents)
    assert agent is not None, rel
    reader = agents[agent].reader
    assert reader is not None
    return list(reader(path, progress=ev.Progress()))


def _at(shared_dir: Path, rel: str, line: int) -> list[Candidate]:
    """The Tier 2 candidates whose evidence cites ``line`` of the transcript."""
    found = tier2.detect(_dev_events(shared_dir, rel))
    return [c for c in found if any(e.line == line for e in c.evidence)]


# -- the fix is told from the calls --------------------------------------------------------------


def test_the_agents_narration_stays_out_of_the_fix(shared_dir):
    """Codex's ``gh run view`` could not reach the network inside its sandbox; the escalated
    ``gh run view`` worked. In between the agent narrated its next steps ("the root cause is
    tied to the exact code that ran"): the fix says what the calls did, not what the agent
    said it was doing."""
    rel = "real2/codex/chikachow__cyspbot/entire-checkpoints/01/0a8005d4ec01/0/full.jsonl"
    (candidate,) = _at(shared_dir, rel, 28)
    assert candidate.summary == "gh run: ask for escalated permissions"
    assert candidate.fix.startswith("Run it with escalated sandbox permissions"), candidate.fix
    assert "root cause" not in candidate.fix
    assert triggers.matches(candidate.trigger or "", "gh run view 1 --repo o/r --json jobs")


# -- the failing segment of a pipeline is the one the error names --------------------------------


def test_a_pipeline_is_not_blamed_on_its_first_command(shared_dir):
    """``cd … && curl -sSL … | jq -r '"comments="+.comments'`` failed with ``jq: error …
    string and number cannot be added``; the next call fetched the issue with ``curl -s … |
    sed``. The error names ``jq``: no lesson may blame ``curl`` (nor fire on every ``curl
    -sSL``), and the fix, which dropped ``jq``, tells nothing about it."""
    rel = "real2/codex/EntityProcess__agentv/entire-checkpoints-v1/00/34f597b72d/1/full.jsonl"
    for candidate in _at(shared_dir, rel, 255):
        assert not candidate.summary.startswith("curl"), candidate
        if candidate.trigger is not None:  # none: recalled at its error, never before a call
            assert not triggers.matches(candidate.trigger, "curl -sSL https://example.org/a")


# -- the fix is a call that worked, or says how far it got ---------------------------------------


def test_a_fix_that_failed_next_is_not_said_to_have_worked(shared_dir):
    """Codex's ``sed -n … apps/…/(protected)/…`` stopped at bash's ``syntax error near
    unexpected token `('``; the next call escaped the parentheses and got past it, and then
    ``sed`` found no such file. Quoting was the lesson, but the escaped call did not work: the
    fix says it got past the error and what failed then."""
    rel = (
        "real/codex/jnarowski__agentcmd/"
        "rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl"
    )
    (candidate,) = _at(shared_dir, rel, 10)
    assert candidate.summary == "sed: quote words the shell would read as syntax"
    assert "` worked" not in candidate.fix, candidate.fix
    assert "got past it" in candidate.fix
    assert "No such file or directory" in candidate.fix


# -- the fix is a corrected form of what failed ---------------------------------------------------


def test_a_look_at_the_help_is_no_fix(shared_dir):
    """``bun agentv eval … --filter strict-or-local`` was refused (no such option); the next
    call read ``bun agentv eval run --help``, and the one after ran the evaluation with
    ``--test-id strict-or-local``. The help page is how the agent found the fix, not the fix:
    the lesson's fix is the call that ran, and its trigger still needs ``--filter``."""
    rel = "real2/codex/EntityProcess__agentv/entire-checkpoints-v1/00/34f597b72d/1/full.jsonl"
    (candidate,) = _at(shared_dir, rel, 747)
    assert "--help" not in candidate.fix, candidate.fix
    assert "--test-id strict-or-local" in candidate.fix
    assert candidate.trigger is not None and "--filter" in candidate.trigger


def test_getopts_own_spelling_of_a_missing_option_is_read(shared_dir):
    """macOS ``/bin/cat -A …`` answered ``/bin/cat: illegal option -- A``: getopt spells the
    option after `` -- ``, and the program with the path it was called by. The option is read
    as ``-A`` (the trigger's flag), and in a pipeline whose later command is that program, the
    blame goes to it."""
    rel = (
        "real2/claude/PackmindHub__context-evaluator/entire-checkpoints-v1/"
        "18/8f64dd752f/0/full.jsonl"
    )
    _dev_events(shared_dir, rel)  # (on the dev side; the pipeline's last command exited 0,
    # so the reader keeps no text of this result: the record is read as written)
    blocks = [
        block
        for line in (shared_dir / "corpus" / rel).read_text(encoding="utf-8").splitlines()
        for block in (json.loads(line).get("message") or {}).get("content") or ()
        if isinstance(block, dict)
    ]
    error = next(
        b["content"]
        for b in blocks
        if b.get("type") == "tool_result" and "illegal option" in str(b.get("content"))
    )
    command = next(
        b["input"]["command"] for b in blocks if b.get("type") == "tool_use" and "cat -A" in str(b)
    )
    assert triggers.option_named(error, command) == "-A"
    piped = "sed -n '733p' notes.txt | /bin/cat -A"
    named = triggers.named_segment(piped, error)
    assert named is not None and named[1].exe == "cat"


# -- failures the pairing could not see before ----------------------------------------------------


def test_stale_generated_types_in_a_session_that_reuses_call_ids(shared_dir):
    """An OpenCode session numbers its calls per answer (``functions.bash:0`` again and again).
    ``bun tsc -b`` failed in ``.next/dev/types/`` three ways and once more; ``rm -rf .next``
    ran and the checks passed. One candidate, on the first failure with its repeats, names the
    folder and is recalled at the failure (no trigger)."""
    rel = (
        "real2/opencode/The-Best-Codes__bestcodes.dev/entire-checkpoints-v1/0c/360aa9943d/0/"
        "full.jsonl"
    )
    (candidate,) = _at(shared_dir, rel, 418)
    assert candidate.summary == "bun tsc: delete the stale generated folder and run it again"
    assert candidate.trigger is None
    assert "`.next`" in candidate.fix
    assert {e.line for e in candidate.evidence} >= {418, 445, 472, 666}


def test_a_bash_call_without_its_required_description(shared_dir):
    """OpenCode's bash tool refused ``ls -la …`` sent without ``description``; the same command
    with one ran. The lesson is the tool's, recalled at the refusal, naming the missing key."""
    rel = "real2/opencode/eitatech__gatomia-vscode/entire-checkpoints-v1/cd/5076cd9951/0/full.jsonl"
    (candidate,) = _at(shared_dir, rel, 554)
    assert candidate.summary == "Bash: call the tool with its own parameter names"
    assert candidate.trigger is None
    assert any("description" in line for line in candidate.error_lines)


def test_a_code_mode_command_is_a_command(shared_dir):
    """Codex in code mode ran ``corepack pnpm node --run check`` from an ``exec`` script; it
    failed on the engine check (exit code in the printed result), and the same check through
    ``fnm exec --using=24`` (escalated, after a sandbox denial) worked. The failing call is read
    as the command it ran, and the fix as the command that worked."""
    rel = "real2/codex/chikachow__cyspbot/entire-checkpoints/4d/22222ed5984d/0/full.jsonl"
    (candidate,) = _at(shared_dir, rel, 61)
    assert "`corepack pnpm node --run check`" in candidate.mistake
    assert "`fnm exec --using=24 corepack pnpm node --run check` worked" in candidate.fix
    assert triggers.matches(candidate.trigger or "", "corepack pnpm node --run check")


def test_a_script_run_in_a_package_without_it(shared_dir):
    """``npm --prefix ui test -- run``: the ``ui`` package has no ``test`` script; ``npm test --
    ui/tests/…`` from the root ran the tests. The trigger is ``--prefix ui`` with ``test``."""
    rel = "real2/opencode/eitatech__gatomia-vscode/entire-checkpoints-v1/ac/9c215b6cd4/1/full.jsonl"
    (candidate,) = _at(shared_dir, rel, 2264)
    assert candidate.trigger is not None
    assert triggers.matches(candidate.trigger, "npm --prefix ui test -- run")
    assert not triggers.matches(candidate.trigger, "npm test -- ui/tests/unit/")


# -- a trigger never fires on the plain form of the command ---------------------------------------


def test_a_flag_the_error_does_not_name_is_no_trigger(shared_dir):
    """``git checkout -b feat/phase-12-multi-factor`` failed: the branch already existed; the
    plain checkout of it worked. ``-b`` is how every branch is made, and git's error names the
    branch, not the flag: the lesson comes back when git says the branch exists."""
    rel = "real2/claude/FSM1__cipher-box/entire-checkpoints-v1/e8/9fb6a2d646/0/full.jsonl"
    (candidate,) = _at(shared_dir, rel, 43)
    assert candidate.trigger is None
    assert candidate.error_lines == (
        "fatal: a branch named 'feat/phase-12-multi-factor' already exists",
    )


def test_a_listing_of_one_folder_after_two_is_no_lesson(shared_dir):
    """``ls -R a/ b/ 2>/dev/null`` listed ``a/`` and hid that ``b/`` was not there; the next
    call listed ``a/`` alone. Nothing was misused: no trigger on every ``ls -R``, and nothing
    to recall at an error either."""
    rel = "real2/opencode/eitatech__gatomia-vscode/entire-checkpoints-v1/07/810ebb88e2/0/full.jsonl"
    assert _at(shared_dir, rel, 246) == []


def test_a_focused_test_run_that_timed_out_is_a_flake(shared_dir):
    """``pnpm test -- --grep "Checkpoint UI"`` failed on a 2000 ms timeout in another suite;
    with nothing edited, ``pnpm test`` passed, in two sessions, three times. The lesson says
    the failure was flaky and to rerun the suite, and comes back at the timeout, not on every
    ``pnpm test --grep``."""
    rel = "real2/codex/savekirk__session-bridge/entire-checkpoints-v1/64/b5e5660349/1/full.jsonl"
    (candidate,) = _at(shared_dir, rel, 532)
    assert candidate.summary == "pnpm test: a failure the wider run did not repeat"
    assert candidate.trigger is None
    assert candidate.error_lines[0].startswith("Error: Timeout of 2000ms exceeded.")
    assert candidate.fix == "Rerun `pnpm test` before looking for a cause: it passed."
