"""The Codex reader: call/output linking, the three output formats, unified exec, layouts."""

from __future__ import annotations

import json

from lessons_codex import reader
from lessons_core.scan import events as ev

SESSION = "019b0000-aaaa-7bbb-8ccc-000000000002"


def _rollout(fixtures):
    day = fixtures / "codex" / "sessions" / "2026" / "01" / "02"
    return day / f"rollout-2026-01-02T18-00-00-{SESSION}.jsonl"


def _read(path):
    prog = ev.Progress()
    return list(reader.read(path, progress=prog)), prog


def _results(events):
    return {e.call_id: e for e in events if e.kind == ev.TOOL_RESULT}


def test_exit_codes_in_all_three_output_formats(fixtures):
    """JSON ``metadata.exit_code``, freeform ``Exit code: N`` and unified exec all give codes."""
    results = _results(_read(_rollout(fixtures))[0])
    assert (results["call_a1"].failure, results["call_a1"].exit_code) == (ev.ERROR, 1)
    assert "undefined: regexp" in results["call_a1"].text
    assert (results["call_a2"].failure, results["call_a2"].exit_code) == (None, 0)
    assert (results["call_b1"].failure, results["call_b1"].exit_code) == (ev.ERROR, 1)
    assert results["call_b2"].failure is None
    assert results["call_c3"].exit_code == 0


def test_running_process_finishes_on_the_original_call(fixtures):
    """A write_stdin poll's exit code belongs to the exec_command that started the process."""
    events, _ = _read(_rollout(fixtures))
    results = _results(events)
    assert results["call_c1"].failure == ev.ERROR
    assert results["call_c1"].exit_code == 1
    assert "call_c2" not in results
    assert not any(e.kind == ev.TOOL_CALL and e.native_tool == "write_stdin" for e in events)


def test_exec_command_end_counts_once(fixtures):
    """``exec_command_end`` completes a pending call; no second result follows."""
    events, _ = _read(_rollout(fixtures))
    done = [e for e in events if e.kind == ev.TOOL_RESULT and e.call_id == "call_d1"]
    assert len(done) == 1
    assert done[0].exit_code == 0


def test_commands_tools_and_patch_paths(fixtures):
    """argv and string commands become one command line; apply_patch lists its files."""
    calls = {e.call_id: e for e in _read(_rollout(fixtures))[0] if e.kind == ev.TOOL_CALL}
    assert calls["call_a1"].command == "go test ./..."
    assert calls["call_a1"].tool == "Bash"
    assert calls["call_c1"].command == "docker compose up --build"
    assert calls["call_f1"].tool == "Edit"
    assert calls["call_f1"].paths == ("internal/x.go",)


def test_rejections_and_timeouts_are_classified(fixtures):
    """A patch the user rejected and a harness timeout are told apart from errors."""
    results = _results(_read(_rollout(fixtures))[0])
    assert results["call_f2"].failure == ev.REJECTED
    assert results["call_g1"].failure == ev.TIMEOUT


def test_assistant_text_once_user_text_from_prompts(fixtures):
    """Assistant prose comes from response items only (not the event duplicate); the typed
    prompt is user text and injected context is not."""
    events, _ = _read(_rollout(fixtures))
    assistant = [e.text for e in events if e.kind == ev.ASSISTANT_TEXT]
    assert sum("#lesson" in t for t in assistant) == 1
    user = [e.text for e in events if e.kind == ev.USER_TEXT]
    assert user == ["make the build pass"]


def test_session_meta_and_compaction(fixtures):
    """Session and cwd come from session_meta / turn_context; compaction is one event."""
    events, prog = _read(_rollout(fixtures))
    assert prog.session_id == SESSION
    assert all(e.session_id == SESSION for e in events)
    assert {e.project for e in events} == {"/home/dev/svc"}
    assert [e.kind for e in events].count(ev.COMPACTION) == 1
    assert prog.bad_lines == 1


def test_session_id_from_file_name_when_resuming_mid_file(fixtures):
    """An incremental read that starts after session_meta still knows the session."""
    path = _rollout(fixtures)
    size = path.stat().st_size
    raw = path.read_bytes()
    cut = raw.index(b"\n", size // 2) + 1
    events = list(reader.read(path, cut, progress=ev.Progress(cut, 0)))
    assert events and all(e.session_id == SESSION for e in events)


def test_pre_envelope_rollout_is_read(fixtures):
    """Bare items without ``payload`` (mid-2025 rollouts) still yield calls and results."""
    path = next((fixtures / "codex" / "archived_sessions").glob("rollout-*.jsonl"))
    events, prog = _read(path)
    results = _results(events)
    assert results["call_x1"].failure == ev.ERROR
    assert results["call_x2"].failure is None
    assert prog.session_id == "019a0000-0000-7000-8000-00000000000b"


def test_transcript_roots_honour_codex_home(tmp_path):
    """``CODEX_HOME`` replaces ``~/.codex``; archived sessions are included."""
    roots = reader.transcript_roots({"CODEX_HOME": str(tmp_path / "cx"), "HOME": "/nowhere"})
    assert roots == [tmp_path / "cx" / "sessions", tmp_path / "cx" / "archived_sessions"]


def test_patch_paths_are_read_like_the_hook_reads_them(tmp_path):
    """The reader lists a patch's files with the hook's own header parser, moves included."""
    patch = (
        "*** Begin Patch\n*** Update File: old/name.py\n*** Move to: new/name.py\n@@\n-a\n+b\n"
        "*** Add File: docs/new.md\n+hello\n*** End Patch"
    )
    call = _patch_call(tmp_path, patch)
    assert call.paths == ("old/name.py", "new/name.py", "docs/new.md")


def _subagent_rollout(tmp_path, subagent: bool):
    meta = {
        "timestamp": "2026-01-02T18:00:00.000Z",
        "type": "session_meta",
        "payload": {
            "id": SESSION,
            "cwd": "/home/dev/app",
            "source": {"subagent": {"other": "review"}} if subagent else "cli",
            "base_instructions": {"text": "x" * 20000},
        },
    }

    def call(n: int) -> list[dict]:
        return [
            {
                "timestamp": "2026-01-02T18:00:01.000Z",
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "shell",
                    "arguments": json.dumps({"command": ["bash", "-lc", f"make t{n}"]}),
                    "call_id": f"call_{n}",
                },
            },
            {
                "timestamp": "2026-01-02T18:00:02.000Z",
                "type": "response_item",
                "payload": {
                    "type": "function_call_output",
                    "call_id": f"call_{n}",
                    "output": "Exit code: 2\nmake: *** No rule to make target",
                },
            },
        ]

    path = tmp_path / f"rollout-2026-01-02T18-00-00-{SESSION}.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [meta, *call(1), *call(2)]) + "\n")
    return path


def test_a_later_read_of_a_subagent_rollout_still_knows_it_is_one(tmp_path):
    """The sub-agent flag comes from the first line; a read that starts past it looks it up."""
    for subagent in (True, False):
        path = _subagent_rollout(tmp_path, subagent)
        first, _prog = _read(path)
        assert {e.sidechain for e in first if e.call_id} == {subagent}
        halfway = next(e.offset for e in first if e.call_id == "call_2")
        later = list(reader.read(path, halfway, progress=ev.Progress(halfway, 3)))
        assert [e.call_id for e in later if e.kind == ev.TOOL_CALL] == ["call_2"]
        assert {e.sidechain for e in later if e.call_id} == {subagent}


def _script(call_id: str, script: str) -> dict[str, object]:
    return {
        "type": "response_item",
        "payload": {
            "type": "custom_tool_call",
            "call_id": call_id,
            "name": "exec",
            "input": script,
        },
    }


def _printed(call_id: str, printed: str) -> dict[str, object]:
    head = "Script completed\nWall time 0.3 seconds\nOutput:\n"
    parts = [{"type": "input_text", "text": head}, {"type": "input_text", "text": printed}]
    return {
        "type": "response_item",
        "payload": {"type": "custom_tool_call_output", "call_id": call_id, "output": parts},
    }


def test_code_mode_scripts_making_one_call_are_that_call(tmp_path):
    """In code mode every call is a script run by ``exec``: one that calls ``exec_command``
    once is that command (bare keys of the object literal read too), its printed result gives
    the exit code, and a ``write_stdin`` poll of a process still running finishes it."""
    run = 'const r = await tools.exec_command({cmd: "make lint", "workdir": "/w/app"});\n'
    poll = 'const r = await tools.write_stdin({session_id: 812, chars: ""});\n'
    show = "text(JSON.stringify(r));\n"
    running = {"chunk_id": "a1", "session_id": 812, "output": "linting…\n"}
    ended = {"chunk_id": "a2", "exit_code": 2, "output": "src/x.c:3: unknown flag -Q\n"}
    records = [
        {"type": "session_meta", "payload": {"id": SESSION, "cwd": "/w/app"}},
        _script("call_s1", 'const r = await tools.exec_command({cmd: "ls"});\ntext(r.output);\n'),
        _printed("call_s1", "Makefile\n"),
        _script("call_s2", run + show),
        _printed("call_s2", json.dumps(running)),
        _script("call_s3", poll + show),
        _printed("call_s3", json.dumps(ended)),
        _script("call_s4", "for (const c of ['a', 'b']) { await tools.exec_command({cmd: c}); }"),
    ]
    path = tmp_path / f"rollout-2026-01-02T18-00-00-{SESSION}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    events = _read(path)[0]
    calls = {e.call_id: e for e in events if e.kind == ev.TOOL_CALL}
    assert (calls["call_s1"].tool, calls["call_s1"].command) == ("Bash", "ls")
    assert (calls["call_s2"].command, calls["call_s2"].cwd) == ("make lint", "/w/app")
    assert "call_s3" not in calls  # the poll is no call of its own
    assert (calls["call_s4"].native_tool, calls["call_s4"].command) == ("exec", None)
    results = _results(events)
    assert results["call_s1"].failure is None and results["call_s1"].exit_code is None
    assert (results["call_s2"].failure, results["call_s2"].exit_code) == (ev.ERROR, 2)
    assert results["call_s2"].text == "src/x.c:3: unknown flag -Q\n"
    assert "call_s3" not in results


def _patch_call(tmp_path, patch: str) -> ev.Event:
    """The call event of a rollout holding one ``apply_patch`` call."""
    records = [
        {"type": "session_meta", "payload": {"id": SESSION, "cwd": "/home/dev/svc"}},
        {
            "type": "response_item",
            "payload": {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": "call_p",
                "name": "apply_patch",
                "input": patch,
            },
        },
    ]
    path = tmp_path / f"rollout-2026-01-02T18-00-00-{SESSION}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    (call,) = [e for e in _read(path)[0] if e.kind == ev.TOOL_CALL]
    return call


def test_a_one_file_patch_keeps_its_expected_and_written_lines(tmp_path):
    """Context and removed lines are what the patch expects in the file; context and added
    lines what it writes (a patch adding a file expects nothing)."""
    patch = (
        "*** Begin Patch\n*** Update File: app/main.py\n@@ def main():\n"
        "     setup()\n-    run(fast=True)\n+    run(fast=False)\n     report()\n*** End Patch"
    )
    assert _patch_call(tmp_path, patch).edit == (
        "    setup()\n    run(fast=True)\n    report()",
        "    setup()\n    run(fast=False)\n    report()",
    )
    added = "*** Begin Patch\n*** Add File: x.md\n+hello\n*** End Patch"
    assert _patch_call(tmp_path, added).edit is None
