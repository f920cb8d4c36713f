"""The error normalizer: placeholders, informative lines, fingerprints and bounded work."""

from __future__ import annotations

import time

from lessons_core.hot import errnorm


def test_volatile_parts_become_placeholders() -> None:
    """Paths, numbers, hex, UUIDs, timestamps and addresses do not survive normalization."""
    line = (
        "2024-05-01T10:11:12.345Z ERROR worker 4242 at 0x7ffde3a0 job "
        "3f2a1b4c-1111-2222-3333-444455556666 failed reading /tmp/pytest-of-dev/x/data.csv "
        "from 10.0.0.7:5432 after 12:01:02"
    )
    norm = errnorm.normalize_line(line)
    assert norm == (
        "<ts> error worker <n> at <hex> job <uuid> failed reading <path> from <addr> after <time>"
    )


def test_same_error_from_two_runs_has_one_fingerprint() -> None:
    """Two runs that differ only in volatile details share their fingerprints."""
    first = "Traceback\n  File \"/home/a/proj/app.py\", line 12\nKeyError: 'user_id' in 0x1f"
    second = "Traceback\n  File \"/srv/b/app.py\", line 98\nKeyError: 'user_id' in 0xdead"
    a = errnorm.fingerprints(errnorm.key_lines(first))
    b = errnorm.fingerprints(errnorm.key_lines(second))
    assert a and a == b


def test_different_errors_have_different_fingerprints() -> None:
    """A change in the words of the error changes the fingerprint."""
    a = errnorm.fingerprints(errnorm.key_lines("KeyError: 'user_id' not found in mapping"))
    b = errnorm.fingerprints(errnorm.key_lines("KeyError: 'order_id' not found in mapping"))
    assert a and b and a != b


def test_informative_lines_come_first_and_noise_is_dropped() -> None:
    """Error lines are kept in order, rulers and bare exit-code lines are not."""
    text = (
        "Exit code 1\n======== test session starts ========\ncollected 3 items\n"
        "E   ModuleNotFoundError: No module named 'requests'\n"
        "FAILED tests/test_api.py::test_get - ModuleNotFoundError\n===== 1 failed in 0.12s ====="
    )
    lines = errnorm.key_lines(text)
    assert lines[0] == "e modulenotfounderror: no module named 'requests'"
    assert lines[1].startswith("failed <path>::test_get")
    assert not any(line.startswith("exit code") for line in lines)
    assert not any("=" in line[:2] for line in lines)


def test_output_without_error_words_falls_back_to_its_last_lines() -> None:
    """A failure that never says "error" is still summarised by how it ended."""
    lines = errnorm.key_lines("step one\nstep two\nsegment misaligned at 0x10")
    assert lines == ["step one", "step two", "segment misaligned at <hex>"]


def test_short_or_placeholder_only_lines_are_not_fingerprinted() -> None:
    """``error: <n>`` says too little to identify a lesson."""
    assert errnorm.fingerprints(["error: <n>", "<path>: <n>"]) == []
    assert errnorm.fingerprints(["modulenotfounderror: no module named 'x'"])


def test_huge_input_is_bounded() -> None:
    """Megabytes of output are cut to the head and the tail, quickly."""
    text = "progress line 1234\n" * 400_000 + "RuntimeError: the real reason\n"
    started = time.perf_counter()
    lines = errnorm.key_lines(text)
    elapsed = time.perf_counter() - started
    assert lines == ["runtimeerror: the real reason"]
    assert len(errnorm.prepare(text)) <= errnorm.MAX_CHARS + 1
    assert elapsed < 1.0  # generous: the bound keeps it in the milliseconds


def test_binary_input_loses_its_control_bytes() -> None:
    """NULs, control bytes and ANSI colours are stripped; bytes are decoded leniently."""
    raw = b"\x00\x01\x02\xff\xfe\x1b[31mfatal: bad object HEAD\x1b[0m\x00"
    lines = errnorm.key_lines(raw)
    assert lines == ["\ufffd\ufffdfatal: bad object head"]
    assert errnorm.key_lines(None) == []
    assert errnorm.key_lines({"shape": "unknown"}) == []


def test_words_skip_placeholders_stopwords_and_repeats() -> None:
    """Search words are distinctive: no placeholders, no stop words, no duplicates."""
    words = errnorm.words("e modulenotfounderror: no module named 'requests' <path> <n> module")
    assert words == ["modulenotfounderror", "module", "named", "requests"]


def test_decisions_are_not_mistakes() -> None:
    """User rejections, interrupts and permission denials are recognised."""
    assert errnorm.not_a_mistake("The user doesn't want to proceed with this tool use.")
    assert errnorm.not_a_mistake("Permission to use Bash has been denied.")
    assert errnorm.not_a_mistake("[Request interrupted by user]")
    assert not errnorm.not_a_mistake("Exit code 1\nAssertionError")
