"""The progress line of a long ``lessons scan`` on a terminal, with an honest estimate.

Transcripts differ in size by orders of magnitude (a one-line sub-agent file beside a 50 MB
session), and most files of a repeated scan are unchanged: counting files would promise "half
done" after the small ones. The estimate therefore comes from bytes: the scanner says how many
new bytes it will read once it has planned the files, each file done adds what was read, and the
time left is the time so far scaled by the bytes still to read. It is shown only after enough
work for the rate to mean something (:data:`MIN_SECONDS` and :data:`MIN_FRACTION`), never below
zero, and not at all when nothing is known.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

#: No estimate before this many seconds (the first files include start-up costs) ...
MIN_SECONDS = 2.0
#: ... nor before this share of the bytes is read.
MIN_FRACTION = 0.05
#: Redraw at most this often (seconds).
REDRAW = 0.2
WIDTH = 79


def estimate(elapsed: float, done: int, total: int) -> float | None:
    """Seconds left, or ``None`` while there is too little to go on."""
    if total <= 0 or done <= 0 or elapsed < MIN_SECONDS or done < total * MIN_FRACTION:
        return None
    left = max(0, total - done)
    return max(0.0, elapsed * left / done)


def duration(seconds: float) -> str:
    """``45 s``, ``3 min 20 s``, ``1 h 05 min``: rounded, as an estimate should be."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        minutes, secs = divmod(whole, 60)
        secs = secs // 10 * 10  # to ten seconds: more would be false precision
        return f"{minutes} min {secs:02d} s" if secs else f"{minutes} min"
    hours, rest = divmod(whole, 3600)
    return f"{hours} h {rest // 60:02d} min"


class ScanProgress:
    """Draw ``files n/N  x/y MB  about T left`` on one terminal line, updated in place."""

    def __init__(
        self,
        files: int,
        stream: TextIO,
        *,
        clock: Callable[[], float] = time.monotonic,
        label: str = "Scanning transcripts",
    ) -> None:
        self.files = files
        self.stream = stream
        self.clock = clock
        self.label = label
        self.started = clock()
        self.files_done = 0
        self.bytes_done = 0
        self.bytes_total: int | None = None
        self._drawn = 0.0
        self._shown = False

    def plan(self, total_bytes: int) -> None:
        self.bytes_total = total_bytes
        self.draw(force=True)

    def advance(self, _path: str, read: int) -> None:
        self.files_done += 1
        self.bytes_done += max(0, read)
        self.draw()

    def line(self) -> str:
        parts = [f"{self.label}: {self.files_done}/{self.files} files"]
        if self.bytes_total is not None:
            total = max(self.bytes_total, self.bytes_done)
            parts.append(f"{self.bytes_done / 1e6:.1f}/{total / 1e6:.1f} MB new")
            left = estimate(self.clock() - self.started, self.bytes_done, total)
            if left is not None:
                parts.append(f"about {duration(left)} left")
        return "  ".join(parts)[:WIDTH]

    def draw(self, *, force: bool = False) -> None:
        now = self.clock()
        if not force and now - self._drawn < REDRAW and self.files_done < self.files:
            return
        self._drawn = now
        self.stream.write("\r" + self.line().ljust(WIDTH))
        self.stream.flush()
        self._shown = True

    def finish(self) -> None:
        """Clear the line, so the summary that follows starts clean."""
        if self._shown:
            self.stream.write("\r" + " " * WIDTH + "\r")
            self.stream.flush()
