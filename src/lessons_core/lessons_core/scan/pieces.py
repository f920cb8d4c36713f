"""Cut one large read of a transcript into line ranges that several processes can read at once.

The usual incremental scan finds one or two long sessions grown by megabytes; shared by whole
files, that work cannot be spread over the CPUs at all. A JSONL transcript whose every line
carries its own session and project (Claude Code's) can instead be read from any line on, so a
large read is cut into pieces of about equal bytes, each starting and ending at a line boundary.

A detector's finding spans events (a failure, then the fix up to a window later), so a finding
near a cut must still be seen whole by exactly one piece. Pieces therefore overlap: each reads
:data:`OVERLAP_LINES` lines before its cut (the context a correction looks back into) and the
same number after the next cut (the window a failure looks ahead into), and each *keeps* only
the findings that start in its own range. Put back together, the pieces report what one
sequential read would have.

Only the positions are worked out here, by reading bytes and counting newlines; the engine
builds and merges the jobs.
"""

from __future__ import annotations

import os
from typing import NamedTuple

#: Lines each piece reads beyond its own range on either side (the Tier 2 window is 30 events;
#: a line yields at most a few, often none).
OVERLAP_LINES = 64
#: Bytes read at a time while looking for line boundaries. Small on purpose: a fresh buffer
#: costs a page fault per 4 KB, which at a megabyte is more than the search itself.
_BLOCK = 64 << 10


class Cut:
    """Where one piece begins: its range starts at ``offset`` (line ``line + 1``), it reads from
    ``back_offset`` (``back_line`` lines before), and the piece before it reads up to
    ``ahead_offset`` (``None``: to the end of the file)."""

    __slots__ = ("ahead_offset", "back_line", "back_offset", "line", "offset")

    def __init__(
        self, offset: int, line: int, back_offset: int, back_line: int, ahead_offset: int | None
    ) -> None:
        self.offset = offset
        self.line = line
        self.back_offset = back_offset
        self.back_line = back_line
        self.ahead_offset = ahead_offset

    def __repr__(self) -> str:
        return (
            f"Cut(offset={self.offset}, line={self.line}, back={self.back_offset}/"
            f"{self.back_line}, ahead={self.ahead_offset})"
        )


class _Span(NamedTuple):
    start: int  # a line start
    line: int  # complete lines before ``start``
    end: int  # just past the last complete line


def cuts(path: str, start: int, start_line: int, count: int) -> list[Cut]:
    """Up to ``count - 1`` cuts splitting the complete lines from ``start`` into ``count``
    ranges of about equal bytes (fewer when lines are too long to cut that finely)."""
    if count < 2:
        return []
    fd = os.open(path, os.O_RDONLY)
    try:
        end = _last_line_end(fd, start)
        if end <= start:
            return []
        span = _Span(start, start_line, end)
        out: list[Cut] = []
        cursor, line = start, start_line
        for k in range(1, count):
            target = start + (end - start) * k // count
            offset = _line_start_at_or_after(fd, max(target, cursor + 1), end)
            if offset is None or offset >= end:
                break
            line += _newlines(fd, cursor, offset)
            cursor = offset
            back_offset, back_line = _lines_back(fd, offset, line, span)
            ahead = _lines_ahead(fd, offset, end)
            if out and back_offset < out[-1].offset:
                back_offset, back_line = out[-1].offset, out[-1].line  # never before the last cut
            out.append(Cut(offset, line, back_offset, back_line, ahead))
        return out
    finally:
        os.close(fd)


def _last_line_end(fd: int, start: int) -> int:
    """The offset just past the last newline at or after ``start`` (``start`` when none)."""
    size = os.fstat(fd).st_size
    pos = size
    while pos > start:
        lo = max(start, pos - _BLOCK)
        block = os.pread(fd, pos - lo, lo)
        i = block.rfind(b"\n")
        if i >= 0:
            return lo + i + 1
        pos = lo
    return start


def _line_start_at_or_after(fd: int, pos: int, end: int) -> int | None:
    """The first line start at or after ``pos`` (before ``end``), or ``None``."""
    if os.pread(fd, 1, pos - 1) == b"\n":
        return pos
    while pos < end:
        block = os.pread(fd, min(_BLOCK, end - pos), pos)
        if not block:
            return None
        i = block.find(b"\n")
        if i >= 0:
            return pos + i + 1
        pos += len(block)
    return None


def _newlines(fd: int, lo: int, hi: int) -> int:
    """Newlines in ``[lo, hi)``, counted through one reused buffer."""
    buffer = bytearray(min(4 * _BLOCK, max(0, hi - lo)))
    view = memoryview(buffer)
    total = 0
    while lo < hi:
        want = min(len(buffer), hi - lo)
        got = os.preadv(fd, [view[:want]], lo)
        if got <= 0:
            break
        total += buffer.count(b"\n", 0, got)
        lo += got
    return total


def _lines_back(fd: int, offset: int, line: int, span: _Span) -> tuple[int, int]:
    """The line start :data:`OVERLAP_LINES` lines before ``offset`` (or the span's start)."""
    want = OVERLAP_LINES + 1  # the newline ending the line before ``offset`` is the first seen
    pos = offset
    while pos > span.start:
        lo = max(span.start, pos - _BLOCK)
        block = os.pread(fd, pos - lo, lo)
        i = len(block)
        while want:
            i = block.rfind(b"\n", 0, i)
            if i < 0:
                break
            want -= 1
            if not want:
                return lo + i + 1, line - OVERLAP_LINES
        pos = lo
    return span.start, span.line


def _lines_ahead(fd: int, offset: int, end: int) -> int | None:
    """The line start :data:`OVERLAP_LINES` lines after ``offset``; ``None`` past the end."""
    want = OVERLAP_LINES
    pos = offset
    while pos < end:
        block = os.pread(fd, min(_BLOCK, end - pos), pos)
        if not block:
            break
        i = -1
        while want:
            i = block.find(b"\n", i + 1)
            if i < 0:
                break
            want -= 1
            if not want:
                ahead = pos + i + 1
                return ahead if ahead < end else None
        pos += len(block)
    return None
