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


@pytest.mark.parametrize("chunk", [1, 5, 1 << 20])
def test_spans_give_the_lines_without_their_line_ends(tmp_path, chunk):
    """A span is the line inside its buffer, without ``\\n`` or the ``\\r`` before it, whether
    the line sits inside one chunk or was joined from several."""
    data = b'{"a":1}\r\n{"b":"xx"}\n\r\n{"c":3}\n'
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    prog = ev.Progress()
    spans = lines.iter_spans(path, prog, chunk_size=chunk)
    got = [(n, off, buf[s:e]) for n, off, buf, s, e in spans]
    assert got == [(1, 0, b'{"a":1}'), (2, 9, b'{"b":"xx"}'), (3, 20, b""), (4, 22, b'{"c":3}')]
    assert prog.offset == len(data) and prog.line == 4


def test_spans_stop_before_the_end_of_a_piece(tmp_path):
    """With ``progress.end`` set, no line starting at or after it is handed out."""
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"one\ntwo\nthree\n")
    prog = ev.Progress()
    prog.end = 8
    assert [buf[s:e] for _, _, buf, s, e in lines.iter_spans(path, prog)] == [b"one", b"two"]
    assert prog.offset == 8 and prog.line == 2


@pytest.mark.parametrize(
    "raw",
    [
        b'{"a":1,"a":2}',
        b"[NaN, Infinity]",
        b"[1e400]",
        b'["\\ud800"]',
        b'\xef\xbb\xbf{"bom":1}',
        b' {"padded":true} ',
        b'{"nested":{"x":[1,2.5,null,false]}}',
    ],
)
def test_loads_gives_what_the_standard_library_gives(raw):
    """msgspec parses first; whatever it refuses goes through ``json``, so the value is the
    standard library's (NaN compares unequal to itself, hence the repr)."""
    import json

    expected = json.loads(raw)
    assert repr(lines.loads(raw, ev.Progress())) == repr(expected)


def test_loads_counts_what_neither_parser_takes():
    """Bad UTF-8 and trailing data are bad lines, as for ``json.loads``."""
    prog = ev.Progress()
    assert lines.loads(b'{"a":"\xff"}', prog) is None
    assert lines.loads(b'{"a":1} x', prog) is None
    assert prog.bad_lines == 2


def _copied(runs):
    """Each run copied out as it comes: the read buffer is reused, so a run is valid only
    until the next one is asked for."""
    return [(offset, bytes(buf[s:e]), 0, e - s) for offset, buf, s, e in runs]


@pytest.mark.parametrize("chunk", [1, 5, 1 << 20])
def test_runs_hold_every_whole_line_once(tmp_path, chunk):
    """Runs are whole lines with their newlines, in order, nothing twice and nothing of the
    partial last line; the line count is left to the caller, except for an oversized line."""
    data = b'{"a":1}\n\n{"b":2}\r\n' + b"x" * 40 + b'\n{"c":3}\n{"partial":'
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    prog = ev.Progress()
    original = lines.MAX_LINE
    lines.MAX_LINE = 30
    try:
        runs = _copied(lines.iter_runs(path, prog, chunk_size=chunk))
    finally:
        lines.MAX_LINE = original
    joined = b"".join(buf[s:e] for _, buf, s, e in runs)
    big = b"x" * 40 + b"\n"
    if chunk > 40:
        assert joined == data[: data.rindex(b"\n") + 1]  # the chunk holds the long line whole
        assert prog.line == 0
    else:
        assert joined == data[: data.rindex(b"\n") + 1].replace(big, b"")
        assert (prog.line, prog.bad_lines) == (1, 1)  # the skipped line, counted
    assert [offset for offset, *_ in runs] == sorted({offset for offset, *_ in runs})
    assert all(buf[e - 1 : e] == b"\n" for _, buf, s, e in runs)
    assert prog.offset == data.index(b'{"partial":')


def test_a_run_stops_before_the_end_of_a_piece(tmp_path):
    """With ``progress.end`` set, a run keeps the lines starting before it, the one it falls
    inside included."""
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"one\ntwo\nthree\nfour\n")
    for end, kept in [(1, b"one\n"), (4, b"one\n"), (5, b"one\ntwo\n"), (8, b"one\ntwo\n")]:
        prog = ev.Progress()
        prog.end = end
        runs = _copied(lines.iter_runs(path, prog))
        assert b"".join(buf[s:e] for _, buf, s, e in runs) == kept, end
        assert prog.offset == len(kept)


def test_runs_of_a_bounded_size_are_cut_at_newlines(tmp_path):
    """With ``run_bytes``, a chunk's lines come in runs each cut at the first newline past that
    size; together they are the same lines, and a piece's end still stops them."""
    data = b"".join(b"%d:" % i + b"x" * (i % 7) + b"\n" for i in range(200))
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    runs = _copied(lines.iter_runs(path, ev.Progress(), run_bytes=50))
    assert b"".join(buf[s:e] for _, buf, s, e in runs) == data
    assert len(runs) > 20
    for offset, buf, s, e in runs:
        assert buf[e - 1 : e] == b"\n" and data[offset : offset + e - s] == buf[s:e]
        assert buf.count(b"\n", s, e - 1) == 0 or buf.rfind(b"\n", s, e - 1) - s < 50
    prog = ev.Progress()
    prog.end = 500
    kept = b"".join(buf[s:e] for _, buf, s, e in lines.iter_runs(path, prog, run_bytes=50))
    assert kept == data[: data.index(b"\n", 499) + 1] and prog.offset == len(kept)


def test_files_read_at_once_or_in_turn_keep_their_own_bytes(tmp_path):
    """The read buffer is reused from file to file, never shared by two files being read at
    the same time: runs of two files taken in turn, and of a third read after them, are each
    their own file's bytes."""

    def data(tag: bytes) -> bytes:
        return b"".join(
            b'{"%s":%d,"pad":"%s"}\n' % (tag, i, b"y" * (i % 300)) for i in range(15000)
        )

    paths = {}
    for tag in (b"a", b"b", b"c"):
        paths[tag] = tmp_path / f"{tag.decode()}.jsonl"
        paths[tag].write_bytes(data(tag))
    assert paths[b"a"].stat().st_size > 2 * lines.CHUNK
    got: dict[bytes, list[bytes]] = {b"a": [], b"b": []}
    runs = {tag: lines.iter_runs(paths[tag], ev.Progress()) for tag in (b"a", b"b")}
    while runs:
        for tag in list(runs):
            item = next(runs[tag], None)
            if item is None:
                del runs[tag]
                continue
            _, buf, s, e = item
            got[tag].append(bytes(buf[s:e]))
    assert b"".join(got[b"a"]) == data(b"a")
    assert b"".join(got[b"b"]) == data(b"b")
    third = b"".join(run[1] for run in _copied(lines.iter_runs(paths[b"c"], ev.Progress())))
    assert third == data(b"c")
