"""Read JSONL transcripts line by line, in binary chunks, from a byte offset.

Transcripts grow to hundreds of megabytes and are appended to while we read them, so this never
loads a whole file: it reads fixed-size chunks, hands out complete lines as spans of a chunk
(callers decide with a cheap substring test whether a line is worth parsing), and stops before a
partial last line so that the next incremental scan starts exactly at its beginning. A single
line larger than :data:`MAX_LINE` is skipped and counted as bad rather than held in memory.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from msgspec import DecodeError as _DecodeError
from msgspec.json import Decoder as _Decoder

from lessons_core.scan.events import Progress

#: What a run's bytes are handed out in: the reused read buffer, or a line joined from chunks.
Buffer = bytes | bytearray

CHUNK = 1 << 20  # must stay below MAX_LINE
#: Lines above this size are skipped (a tool result this large holds no lesson worth the memory).
MAX_LINE = 16 << 20


def iter_runs(
    path: str | Path,
    progress: Progress,
    *,
    chunk_size: int = CHUNK,
    run_bytes: int | None = None,
) -> Iterator[tuple[int, Buffer, int, int]]:
    """Yield ``(start_offset, buffer, start, end)`` for each run of complete lines.

    ``buffer[start:end]`` holds whole lines, each ending in its newline: all the complete lines
    of one chunk, or a single line that spanned chunks (joined into a buffer of its own). A
    reader that can take a run at once (msgspec decodes a run of JSON lines in one call) pays
    no Python per skipped line; one that cannot walks it (:func:`iter_spans`). With
    ``run_bytes``, a chunk's lines come in runs of about that size instead (each cut at the
    first newline past it), for a reader whose cost per run grows with its number of lines.

    Starts at ``progress.offset``. When a run is handed out, ``progress.offset`` already points
    past it, while ``progress.line`` still counts the lines before it: the caller numbers the
    run's lines from ``progress.line + 1`` and adds them to it. A line longer than
    :data:`MAX_LINE` is never handed out: it is counted in ``progress.line`` and
    ``progress.bad_lines``. A run stops before the first line starting at or after
    ``progress.end`` when that is set.

    The buffer is reused: a run's bytes are valid until the next run is asked for, so a caller
    copies out what it keeps (a slice is a copy).
    """
    offset = progress.offset
    stop = sys.maxsize if progress.end is None else progress.end
    # Unbuffered, read into a buffer reused from file to file: a new 1 MiB object per chunk
    # was fresh memory every time, which the kernel had to fault in page by page (a sixth of
    # a full scan's CPU time went to the system).
    with open(path, "rb", buffering=0) as fh:
        if offset:
            fh.seek(offset)
        chunk = _take_buffer(chunk_size)
        try:
            yield from _runs(fh, chunk, progress, offset, stop, run_bytes)
        finally:
            _give_buffer(chunk)


def _runs(
    fh: Any, chunk: bytearray, progress: Progress, offset: int, stop: int, run_bytes: int | None
) -> Iterator[tuple[int, Buffer, int, int]]:
    parts: list[Buffer] = []
    pending = 0  # bytes held in ``parts``
    skipping = False  # inside an oversized line, dropping bytes until its newline
    while True:
        size = fh.readinto(chunk)
        if not size:
            return
        start = 0
        nl = chunk.find(b"\n", 0, size)
        if nl < 0:
            if skipping:
                pending += size
                continue
            parts.append(chunk[:size])
            pending += size
            if pending > MAX_LINE:
                parts.clear()
                skipping = True
            continue
        # Finish the line carried over from earlier chunks.
        if parts or skipping:
            if offset >= stop:
                return
            line_start = offset
            offset += pending + nl + 1
            progress.offset = offset
            if skipping:
                progress.line += 1
                progress.bad_lines += 1
                skipping = False
            else:
                parts.append(chunk[: nl + 1])
                line = b"".join(parts)
                yield line_start, line, 0, len(line)
            parts.clear()
            pending = 0
            start = nl + 1
        # The whole lines inside this chunk, as one run (each line is smaller than the
        # chunk, so below MAX_LINE as long as chunks are).
        last = chunk.rfind(b"\n", 0, size)
        if last >= start:
            if offset >= stop:
                return
            end = last + 1
            if stop - offset < end - start:
                # The piece ends inside the run: keep the lines that start before it.
                end = chunk.find(b"\n", start + (stop - offset) - 1, end) + 1
            while start < end:
                cut = end
                if run_bytes is not None and end - start > run_bytes:
                    cut = chunk.find(b"\n", start + run_bytes - 1, end) + 1
                run_start = offset
                offset += cut - start
                progress.offset = offset
                yield run_start, chunk, start, cut
                start = cut
            if offset >= stop:
                return
            start = last + 1
        if start < size:
            parts.append(chunk[start:size])
            pending = size - start


#: Read buffers of :data:`CHUNK` bytes no run is using, kept for the next file (a few at most:
#: one per file being read at once).
_free: list[bytearray] = []
_FREE_MAX = 2


def _take_buffer(size: int) -> bytearray:
    if size == CHUNK and _free:
        return _free.pop()
    return bytearray(size)


def _give_buffer(buffer: bytearray) -> None:
    if len(buffer) == CHUNK and len(_free) < _FREE_MAX:
        _free.append(buffer)


def iter_spans(
    path: str | Path, progress: Progress, *, chunk_size: int = CHUNK
) -> Iterator[tuple[int, int, Buffer, int, int]]:
    """Yield ``(line_number, start_offset, buffer, start, end)`` for each complete line.

    The line is ``buffer[start:end]`` (its newline, and a ``\\r`` before it, left out), valid
    until the next line is asked for. Lines
    are not copied out of the chunk they were read in: most of a transcript's bytes sit in
    lines a reader decides to skip from a few searches (``buffer.find(needle, start, end)``),
    and slicing each of them would copy them all once more.

    Starts at ``progress.offset`` (line numbers continue from ``progress.line``) and leaves
    ``progress`` pointing just past the last complete line handed out; stops before a line that
    starts at or after ``progress.end`` when that is set.
    """
    for offset, buf, start, end in iter_runs(path, progress, chunk_size=chunk_size):
        line_no = progress.line
        crlf = buf.find(b"\r", start, end) >= 0
        find = buf.find
        while start < end:
            nl = find(b"\n", start, end)
            line_no += 1
            cut = nl - 1 if crlf and nl > start and buf[nl - 1] == 13 else nl
            yield line_no, offset, buf, start, cut
            offset += nl + 1 - start
            start = nl + 1
        progress.line = line_no


def iter_lines(
    path: str | Path, progress: Progress, *, chunk_size: int = CHUNK
) -> Iterator[tuple[int, int, bytes]]:
    """Yield ``(line_number, start_offset, line_bytes)`` for each complete line, as
    :func:`iter_spans` finds them (for readers that look at every line whole)."""
    for line_no, offset, buf, start, end in iter_spans(path, progress, chunk_size=chunk_size):
        yield line_no, offset, bytes(memoryview(buf)[start:end])  # (the buffer is reused)


_FAST = _Decoder().decode


def loads(raw: Buffer, progress: Progress) -> Any:
    """Parse one line; a malformed line is counted and yields ``None``.

    msgspec parses a transcript line two to three times faster than the standard library (it
    reads the UTF-8 bytes as they are, where ``json`` decodes them to ``str`` first), and the
    lines a reader parses are much of a scan's cost. It is stricter than ``json``: it refuses
    ``NaN``, numbers out of a float's range, lone surrogates, a byte-order mark and invalid
    UTF-8, and whatever it refuses goes through the standard library's parser, so a line is
    bad only when ``json.loads`` says so, and its value is the one ``json.loads`` gives. A line
    nested deeper than the parsers recurse (an array inside an array, thousands deep) is a bad
    line too, not an error that would stop the reading of its file.
    """
    try:
        return _FAST(raw)
    except _DecodeError:  # (a ValidationError is one too)
        pass
    except RecursionError:  # nested deeper than either parser goes: json would refuse it too
        progress.bad_lines += 1
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        progress.bad_lines += 1
        return None


def as_text(value: Any) -> str:
    """Flatten a ``content`` that may be a string, a list of parts or a part dict into text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        out = []
        for item in value:
            if isinstance(item, str):
                out.append(item)
            elif isinstance(item, dict):
                text = item.get("text")
                if isinstance(text, str):
                    out.append(text)
                elif "content" in item:
                    out.append(as_text(item.get("content")))
        return "\n".join(p for p in out if p)
    if isinstance(value, dict):
        text = value.get("text")
        if isinstance(text, str):
            return text
        return as_text(value.get("content"))
    return str(value)
