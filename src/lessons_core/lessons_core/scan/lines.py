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

from orjson import loads as _orjson_loads

from lessons_core.scan.events import Progress

CHUNK = 1 << 20  # must stay below MAX_LINE
#: Lines above this size are skipped (a tool result this large holds no lesson worth the memory).
MAX_LINE = 16 << 20


def iter_spans(
    path: str | Path, progress: Progress, *, chunk_size: int = CHUNK
) -> Iterator[tuple[int, int, bytes, int, int]]:
    """Yield ``(line_number, start_offset, buffer, start, end)`` for each complete line.

    The line is ``buffer[start:end]`` (its newline, and a ``\\r`` before it, left out). Lines
    inside one chunk are not copied out of it: most of a transcript's bytes sit in lines a
    reader decides to skip from a few searches (``buffer.find(needle, start, end)``), and
    slicing each of them would copy them all once more. A line that spans chunks is joined and
    handed out as a buffer of its own.

    Starts at ``progress.offset`` (line numbers continue from ``progress.line``) and leaves
    ``progress`` pointing just past the last complete line handed out; stops before a line that
    starts at or after ``progress.end`` when that is set.
    """
    offset = progress.offset
    line_no = progress.line
    stop = sys.maxsize if progress.end is None else progress.end
    with open(path, "rb") as fh:
        if offset:
            fh.seek(offset)
        parts: list[bytes] = []
        pending = 0  # bytes held in ``parts``
        skipping = False  # inside an oversized line, dropping bytes until its newline
        while True:
            chunk = fh.read(chunk_size)
            if not chunk:
                return
            start = 0
            nl = chunk.find(b"\n")
            if nl < 0:
                if skipping:
                    pending += len(chunk)
                    continue
                parts.append(chunk)
                pending += len(chunk)
                if pending > MAX_LINE:
                    parts.clear()
                    skipping = True
                continue
            # Finish the line carried over from earlier chunks.
            if parts or skipping:
                if offset >= stop:
                    return
                length = pending + nl
                line_no += 1
                line_start = offset
                offset += length + 1
                if skipping:
                    progress.bad_lines += 1
                    skipping = False
                    progress.offset, progress.line = offset, line_no
                else:
                    parts.append(chunk[:nl])
                    line = b"".join(parts)
                    cut = len(line) - 1 if line.endswith(b"\r") else len(line)
                    progress.offset, progress.line = offset, line_no
                    yield line_no, line_start, line, 0, cut
                parts.clear()
                pending = 0
                start = nl + 1
            # Whole lines inside this chunk (each smaller than the chunk, so below MAX_LINE as
            # long as chunks are); progress moves once per chunk, so the hot loop stays small.
            last = chunk.rfind(b"\n")
            if last >= start:
                crlf = chunk.find(b"\r", start, last) >= 0
                find = chunk.find
                while start <= last:
                    if offset >= stop:
                        progress.offset, progress.line = offset, line_no
                        return
                    end = find(b"\n", start, last + 1)
                    line_no += 1
                    cut = end - 1 if crlf and end > start and chunk[end - 1] == 13 else end
                    yield line_no, offset, chunk, start, cut
                    offset += end + 1 - start
                    start = end + 1
                progress.offset, progress.line = offset, line_no
            tail = chunk[start:]
            if tail:
                parts.append(tail)
                pending = len(tail)


def iter_lines(
    path: str | Path, progress: Progress, *, chunk_size: int = CHUNK
) -> Iterator[tuple[int, int, bytes]]:
    """Yield ``(line_number, start_offset, line_bytes)`` for each complete line, as
    :func:`iter_spans` finds them (for readers that look at every line whole)."""
    for line_no, offset, buf, start, end in iter_spans(path, progress, chunk_size=chunk_size):
        yield line_no, offset, buf[start:end]  # (a whole buffer's slice is the buffer itself)


def loads(raw: bytes, progress: Progress) -> Any:
    """Parse one line; a malformed line is counted and yields ``None``.

    orjson parses a transcript line two to three times faster than the standard library (it
    reads the UTF-8 bytes as they are, where ``json`` decodes them to ``str`` first), and the
    lines a reader parses are most of a scan's cost. It is stricter than ``json``: it refuses
    ``NaN``, numbers out of a float's range, lone surrogates and invalid UTF-8, and whatever it
    refuses goes through the standard library's parser, so a line is bad only when
    ``json.loads`` says so. The one value that differs: an integer beyond 64 bits comes back as
    a float (no reader looks at such a number).
    """
    try:
        return _orjson_loads(raw)
    except ValueError:  # orjson.JSONDecodeError is a ValueError
        pass
    try:
        return json.loads(raw)
    except ValueError:
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
