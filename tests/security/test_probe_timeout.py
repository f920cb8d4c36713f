"""The pattern probe's timer cannot interrupt anything but the search it times.

The probe arms a timer (``SIGALRM``) around each timed search. Under load the signal can be
delivered late: once it landed after the search, outside the ``try`` that expects it, and the
build lost a repository's lessons without a word. Here the signal is delivered on purpose at
every line the timing function runs (a trace function raises it), which covers every place a
late signal could land, deterministically.
"""

from __future__ import annotations

import re
import signal
import sys
from collections.abc import Iterator
from types import FrameType
from typing import Any

import pytest

from lessons_core.patterns import probe

pytestmark = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM")


@pytest.fixture(name="alarm_everywhere")
def fixture_alarm_everywhere() -> Iterator[list[int]]:
    """Deliver ``SIGALRM`` at each line of ``probe._time``; yields the count of deliveries.

    A harmless handler stands in around it, so a signal delivered while the probe's own is not
    installed does what a late signal does to a process that handles it: nothing.
    """
    delivered = [0]
    code = probe._time.__code__

    def trace(frame: FrameType, event: str, _arg: Any) -> Any:
        if frame.f_code is not code:
            return None
        if event == "line":
            delivered[0] += 1
            signal.raise_signal(signal.SIGALRM)
        return trace

    previous = signal.signal(signal.SIGALRM, lambda *_: None)
    sys.settrace(trace)
    try:
        yield delivered
    finally:
        sys.settrace(None)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_a_signal_at_any_line_never_escapes(alarm_everywhere: list[int]) -> None:
    """Every line of the timing raises the alarm; the timing still returns a duration."""
    rx = re.compile(r"\bpytest\b")
    took = probe._time(rx, "pytest -q " * 100)
    assert isinstance(took, float)
    assert alarm_everywhere[0] > 5  # the alarm really went off all along the way


def test_a_signal_at_any_line_leaves_the_verdict_alone(alarm_everywhere: list[int]) -> None:
    """The verdict of a fast pattern stays "fast" whatever the alarm does."""
    probe._measure.cache_clear()
    probe.forget()
    assert probe.probe(r"\bmake\s+deploy\b") is None
    assert alarm_everywhere[0] > 0


def test_the_handler_is_put_back() -> None:
    """After timing, whatever handled ``SIGALRM`` before handles it again."""

    def mine(*_: object) -> None:
        return None

    previous = signal.signal(signal.SIGALRM, mine)
    try:
        probe._time(re.compile("a+"), "a" * 1000)
        assert signal.getsignal(signal.SIGALRM) is mine
    finally:
        signal.signal(signal.SIGALRM, previous)


def test_a_slow_search_is_still_stopped() -> None:
    """The timer still interrupts a search that runs away (and is then refused)."""
    rx = re.compile(r"(a+)+$")
    took = probe._time(rx, "a" * 40 + "!")
    assert took < 5000
