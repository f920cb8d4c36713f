"""Read JSONL transcripts line by line, in binary chunks, from a byte offset.

Transcripts grow to hundreds of megabytes and are appended to while we read them, so this never
loads a whole file: it reads fixed-size chunks, hands out complete lines as ``bytes`` (callers
decide with a cheap substring test whether a line is worth ``json.loads``), and stops before a
partial last line so that the next incremental scan starts exactly at its beginning. A single
line larger than :data:`MAX_LINE` is skipped and counted as bad rather than held in memory.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from lessons_core.scan.events import Progress

CHUNK = 256 << 10  # must stay below MAX_LINE
#: Lines above this size are skipped (a tool result this large holds no lesson worth the memory).
MAX_LINE = 16 << 20


def iter_lines(
    path: str | Path, progress: Progress, *, chunk_size: int = CHUNK
) -> Iterator[tuple[int, int, bytes]]:
    """Yield ``(line_number, start_offset, line_bytes)`` for each complete line.

    Starts at ``progress.offset`` (line numbers continue from ``progress.line``) and keeps
    ``progress`` pointing just past the last complete line handed out; stops before a line that
    starts at or after ``progress.end`` when that is set. The trailing newline is stripped (and
    a ``\\r`` before it).
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
                head = chunk[:nl]
                length = pending + len(head)
                line_no += 1
                line_start = offset
                offset += length + 1
                if skipping:
                    progress.bad_lines += 1
                    skipping = False
                    progress.offset, progress.line = offset, line_no
                else:
                    parts.append(head)
                    line = b"".join(parts)
                    progress.offset, progress.line = offset, line_no
                    yield line_no, line_start, line.rstrip(b"\r")
                parts.clear()
                pending = 0
                start = nl + 1
            # Whole lines inside this chunk.
            end = chunk.rfind(b"\n")
            if end >= start:
                # Lines inside one chunk are smaller than the chunk, so below MAX_LINE as long
                # as chunks are; progress moves once per chunk (the hot loop stays small).
                crlf = b"\r" in chunk
                for raw in chunk[start:end].split(b"\n"):
                    if offset >= stop:
                        progress.offset, progress.line = offset, line_no
                        return
                    line_no += 1
                    yield line_no, offset, raw.rstrip(b"\r") if crlf else raw
                    offset += len(raw) + 1
                progress.offset, progress.line = offset, line_no
                start = end + 1
            tail = chunk[start:]
            if tail:
                parts.append(tail)
                pending = len(tail)


#: The C scanner behind ``json.loads``, called directly: ``json.loads`` on bytes first sniffs
#: the encoding and checks its arguments, a sizeable share of the cost of a short line.
#: (Not in the type stubs, hence ``getattr``.)
_scan_once: Callable[[str, int], tuple[Any, int]] = getattr(  # noqa: B009
    json.JSONDecoder(), "scan_once"
)
_JSON_SPACE = " \t\n\r"


def loads(raw: bytes, progress: Progress) -> Any:
    """Parse one line; a malformed line is counted and yields ``None``.

    The common case (UTF-8, one JSON value, nothing but JSON whitespace after it) takes the
    direct path; anything else (a BOM, leading blanks, another encoding, trailing data, bad
    JSON) goes through ``json.loads`` itself, so the result is always exactly its result.
    """
    try:
        text = raw.decode()
        value, end = _scan_once(text, 0)
    except (ValueError, StopIteration):
        pass
    else:
        if end == len(text) or not text[end:].strip(_JSON_SPACE):
            return value
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
