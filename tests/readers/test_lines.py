"""The chunked line reader under every reader: offsets, partial lines, oversized lines."""

from __future__ import annotations

import pytest

from lessons_core.scan import events as ev
from lessons_core.scan import lines


@pytest.mark.parametrize("chunk", [1, 3, 7, 64, 1 << 20])
def test_lines_offsets_and_numbers_whatever_the_chunk_size(tmp_path, chunk):
    """Every complete line comes out once with its 1-based number and start offset."""
    data = b'{"a":1}\n\n{"b":"x\\ny"}\r\n{"c":3}\n{"partial":'
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    prog = ev.Progress()
    got = list(lines.iter_lines(path, prog, chunk_size=chunk))
    assert got == [
        (1, 0, b'{"a":1}'),
        (2, 8, b""),
        (3, 9, b'{"b":"x\\ny"}'),
        (4, 23, b'{"c":3}'),
    ]
    assert prog.offset == data.index(b'{"partial":')
    assert prog.line == 4


def test_resume_from_an_offset_continues_the_numbering(tmp_path):
    """Starting at a saved offset and line count yields the rest with the right numbers."""
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"one\ntwo\nthree\n")
    prog = ev.Progress(4, 1)
    assert list(lines.iter_lines(path, prog)) == [(2, 4, b"two"), (3, 8, b"three")]
    assert prog.offset == 14


def test_oversized_line_is_skipped_and_counted(tmp_path, monkeypatch):
    """A line above MAX_LINE is never held whole: it is dropped, counted, and reading goes on."""
    monkeypatch.setattr(lines, "MAX_LINE", 100)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"short\n" + b"x" * 1000 + b"\nafter\n")
    prog = ev.Progress()
    got = [raw for _, _, raw in lines.iter_lines(path, prog, chunk_size=64)]
    assert got == [b"short", b"after"]
    assert prog.bad_lines == 1
    assert prog.offset == path.stat().st_size


def test_malformed_json_counts_as_a_bad_line():
    """``loads`` turns a broken line into None and counts it."""
    prog = ev.Progress()
    assert lines.loads(b'{"a":', prog) is None
    assert lines.loads(b'{"a":1}', prog) == {"a": 1}
    assert prog.bad_lines == 1


def test_as_text_flattens_every_content_shape():
    """Strings, part lists and part dicts become plain text."""
    assert lines.as_text("x") == "x"
    assert lines.as_text([{"type": "text", "text": "a"}, "b", {"content": "c"}]) == "a\nb\nc"
    assert lines.as_text({"text": "t"}) == "t"
    assert lines.as_text(None) == ""
