"""What every hot adapter reads from a payload through ``lessons_core.hot.payload``.

Each adapter's contract tests feed whole payloads; these pin the shared pieces themselves, so a
slip in one (a path left relative, an error cut at the wrong place, a number taken for a path)
shows here once instead of as a missing lesson in every agent.
"""

from __future__ import annotations

import pytest

from lessons_core.hot import payload


def test_first_text_skips_empty_and_non_string_values() -> None:
    """Only a non-empty string counts; keys are tried in order."""
    tool_input = {"file_path": "", "path": 7, "paths": ["a.py"], "target": "b.py", "last": "c.py"}
    keys = ("file_path", "path", "paths", "target", "last")
    assert payload.first_text(tool_input, keys) == "b.py"
    assert payload.first_text({"path": 0, "file": None, "name": ""}, ("path", "file")) is None


def test_paths_of_keeps_only_non_empty_strings_made_absolute(tmp_path) -> None:
    tool_input = {"a": "src/x.py", "b": "", "c": ["y.py"], "d": 3, "e": "/etc/../etc/hosts"}
    paths = payload.paths_of(tool_input, ("a", "b", "c", "d", "e", "missing"), str(tmp_path))
    assert paths == [str(tmp_path / "src" / "x.py"), "/etc/hosts"]


def test_absolute_takes_relative_paths_against_the_cwd_and_expands_the_home(monkeypatch) -> None:
    monkeypatch.setenv("HOME", "/home/dev")
    assert payload.absolute("a/../b.py", "/repo") == "/repo/b.py"
    assert payload.absolute("/abs/./c.py", "/repo") == "/abs/c.py"
    assert payload.absolute("~/notes.md", "/repo") == "/home/dev/notes.md"
    assert payload.absolute("rel.py", "") == "rel.py"


def test_clip_keeps_short_texts_whole() -> None:
    assert payload.clip("short") == "short"
    exact = "x" * payload.ERROR_LIMIT
    assert payload.clip(exact) is exact
    assert payload.clip("abcd", limit=4) == "abcd"


def test_an_error_text_of_8000_characters_reaches_the_core_whole() -> None:
    """The limit, to the character: 8000 kept whole, 8001 cut to 4000 + 4000."""
    assert payload.clip("e" * 8000) == "e" * 8000
    cut = payload.clip("s" * 4000 + "m" + "e" * 4000)
    assert cut == "s" * 4000 + "\n…\n" + "e" * 4000


def test_clip_keeps_the_start_and_the_end_of_a_long_text() -> None:
    assert payload.clip("abcdefghij", limit=4) == "ab\n…\nij"
    assert payload.clip("abcde", limit=4) == "ab\n…\nde"
    text = "head " + "m" * 20_000 + " tail"
    cut = payload.clip(text)
    assert cut.startswith("head ") and cut.endswith(" tail")
    assert len(cut) == payload.ERROR_LIMIT + len("\n…\n")


def test_event_of_answers_only_objects_naming_a_known_event() -> None:
    events = {"PreToolUse": "pre_tool", "SessionStart": "session_start"}
    assert payload.event_of({"hook_event_name": "PreToolUse"}, events) == (
        "PreToolUse",
        "pre_tool",
    )
    assert payload.event_of({"hook_event_name": "Stop"}, events) is None
    assert payload.event_of({"hook_event_name": ["PreToolUse"]}, events) is None
    assert payload.event_of({}, events) is None
    assert payload.event_of(["PreToolUse"], events) is None


def test_tool_call_gives_empty_defaults_for_odd_fields() -> None:
    assert payload.tool_call({"tool_name": "Bash", "tool_input": {"command": "ls"}}) == (
        "Bash",
        {"command": "ls"},
    )
    assert payload.tool_call({"tool_name": 3, "tool_input": ["ls"]}) == ("", {})
    assert payload.tool_call({}) == ("", {})


def test_new_event_has_every_common_field() -> None:
    event = payload.new_event("codex", "pre_tool", "PreToolUse", "s-1", "/repo", "gpt", "c-1")
    assert event == {
        "agent": "codex",
        "event": "pre_tool",
        "native_event": "PreToolUse",
        "session_id": "s-1",
        "cwd": "/repo",
        "model": "gpt",
        "tool": None,
        "command": None,
        "paths": [],
        "content": None,
        "source": None,
        "prompt": None,
        "error": None,
        "call_id": "c-1",
    }
    bare = payload.new_event("gemini", "stop", None, None, None)
    assert "native_event" not in bare
    assert bare["model"] is None and bare["call_id"] is None


def test_with_trailer_and_context_answer() -> None:
    assert payload.with_trailer("Use pytest -q.", "[lessons: injected=L1]") == (
        "Use pytest -q.\n[lessons: injected=L1]"
    )
    assert payload.with_trailer("Use pytest -q.", "") == "Use pytest -q."
    assert payload.with_trailer("", "[lessons: injected=L1]") is None
    assert payload.with_trailer(None, "t") is None
    assert payload.context_answer("PostToolUse", "ctx") == {
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "ctx"}
    }


def test_lazy_pattern_compiles_once_with_inline_flags() -> None:
    pattern = payload.LazyPattern(r"(?m)^exit code: (\d+)$")
    assert pattern.match("exit code: 2").group(1) == "2"
    found = pattern.search("ran\nexit code: 17\nmore")
    assert found is not None and found.group(1) == "17"
    compiled = pattern._get()
    assert pattern._get() is compiled
    assert pattern.match("no") is None


@pytest.mark.parametrize(
    ("report", "printed"),
    [
        # Gemini CLI's and Qwen Code's older report, every part there
        ("Command: ls x\nDirectory: (root)\nOutput: ls: x: No such file\nError: (none)\n"
         "Exit Code: 1\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 41",
         "ls: x: No such file"),
        # the newer one: the parts that say something
        ("Output: bash: python: command not found\nExit Code: 127\nProcess Group PGID: 7",
         "bash: python: command not found"),
        # lines of the command's own that read like headings stay
        ("Output: Hint: run `npm i`\nError: Cannot find x\n    at a.js:1\nExit Code: 1",
         "Hint: run `npm i`\nError: Cannot find x\n    at a.js:1"),
        ("Command: x\nDirectory: (root)\nOutput: one\ntwo\nError: bad\nExit Code: 1",
         "one\ntwo\nbad"),
        # nothing printed: the report is all there is to say
        ("Output: (empty)\nExit Code: 1", "Output: (empty)\nExit Code: 1"),
        # not a report
        ("File not found: a.txt", "File not found: a.txt"),
        ("Error: spawn failed", "Error: spawn failed"),
    ],
)  # fmt: skip
def test_a_shell_report_is_cut_to_what_the_command_printed(report, printed):
    assert payload.shell_report_output(report) == printed


def test_blocks_text_reads_a_string_or_the_text_blocks_of_a_list() -> None:
    assert payload.blocks_text("plain output") == "plain output"
    blocks = [{"type": "text", "text": "a"}, {"type": "image"}, {"text": 7}, "x", {"text": "b"}]
    assert payload.blocks_text(blocks) == "a\nb"
    assert payload.blocks_text(None) == ""
