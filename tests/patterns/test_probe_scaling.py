"""A pattern the structural rules prove linear is timed on the 1 KB subjects only; one whose
1 KB times do not bound its 32 KB ones is still timed, and refused, on 32 KB.

Timing every pattern on 32 KB subjects made a machine pulling ten thousand lessons from its team
spend over a minute on its first build. A linear search on 32 KB takes at most about 32 times
what it takes on the same shape cut to 1 KB, so that figure, with a margin, is the bound the
probe uses, but only where it is one.
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
from lessons_core.patterns.regex_safety import hot_source, judge

pytestmark = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM")


@pytest.fixture(name="searched")
def fixture_searched(monkeypatch: pytest.MonkeyPatch, fresh_probe: None) -> Iterator[list[str]]:
    """Every subject the probe really searches, in order; nothing is remembered beforehand."""
    seen: list[str] = []
    real = probe._time

    def recording(rx: re.Pattern[str], subject: str) -> float:
        seen.append(subject)
        return real(rx, subject)

    monkeypatch.setattr(probe, "_time", recording)
    yield seen


def test_a_pattern_proven_linear_is_timed_on_the_short_subjects_only(searched):
    """``kubectl\\s+apply\\b`` is linear by the rules, reaches 14 characters from a start, and
    takes microseconds on 1 KB: judged, it is accepted without a single 4 or 32 KB search.
    Asked of the probe without the proof, the same pattern is timed on every size."""
    source = r"kubectl\s+apply\b"
    verdict = judge(source)
    assert verdict.reason is None and verdict.degree == 1
    assert verdict.limit == probe.SUBJECT_LIMIT
    assert searched and max(len(s) for s in searched) == 1024

    searched.clear()
    probe._measure.cache_clear()
    probe.forget()
    assert probe.probe(hot_source(source)) is None
    assert {1024, 4096, probe.SUBJECT_LIMIT} <= {len(s) for s in searched}


def test_a_linear_pattern_slow_only_on_32_kb_is_still_refused(searched):
    """``[a-z]{4100,5000}!`` is linear by the rules (one bounded repeat), and the engine gives up
    at once on any subject shorter than its least match: its 1 KB and 4 KB times are nothing,
    and scaled they would pass. On 32 KB each start scans 5,000 letters. It reaches further than
    a 1 KB subject, so it is not scaled: it is timed on 32 KB and refused there."""
    source = r"[a-z]{4100,5000}!"
    structural = judge(source, measure=False)
    assert structural.reason is None and structural.degree == 1
    hot = hot_source(source)
    units = sorted(set(probe._units(hot)), key=lambda u: (-len(u), u))[: probe._MAX_UNITS]
    prefixes, ordered = probe.pumps(hot), list(probe._units(hot))
    scaled, _subject = probe.worst_case(
        re.compile(hot), units, prefixes=prefixes, ordered=ordered, scale=True
    )
    assert scaled * probe.LINEAR_MARGIN <= probe.BUDGET_MS  # what the short path would say
    assert not probe.scalable(hot, units, prefixes, ordered)

    reason = probe.probe(hot, linear=True)
    assert reason is not None and "32768-character subject" in reason
    assert probe.SUBJECT_LIMIT in {len(s) for s in searched}
    assert judge(source).limit < probe.SUBJECT_LIMIT  # the hook never runs it on 32 KB


@pytest.mark.parametrize(
    ("source", "span"),
    [
        (r"\btool7\s+run\b", 9),
        (r"(?:[a-z]-){2500,3400}!", None),
        (r"(?:[a-z]-){2500,}!", None),  # an unbounded repeat counts at its least
        (r"[a-z]{0,200}!", 201),
        (r"(a)\1", None),  # a back-reference: unknown
        (r"(?=[^\n]{300})x", None),  # a look-ahead reads ahead
    ],
)
def test_the_reach_of_one_start(source, span):
    reach = probe.reach(list(probe.syntax.parse(source)))
    if span is None:
        assert reach > probe.SCALABLE_SPAN
    else:
        assert reach == span


def test_a_subject_made_twice_is_searched_once(searched):
    """``\\btool7\\s+run\\b``'s alphabet makes three of its 1 KB subjects alike."""
    assert probe.probe(r"\btool7\s+run\b") is None
    assert len(searched) == len(set(searched))


@pytest.fixture(name="alarm_everywhere")
def fixture_alarm_everywhere() -> Iterator[list[int]]:
    """Deliver ``SIGALRM`` at each line of the probe's loop over subjects and of the block that
    holds its handler (``probe._time`` has its own test); yields the count of deliveries."""
    delivered = [0]
    codes = {probe._worst_case.__code__, probe._alarm_handled.__wrapped__.__code__}

    def trace(frame: FrameType, event: str, _arg: Any) -> Any:
        if frame.f_code not in codes:
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


def test_a_late_signal_between_searches_does_nothing(alarm_everywhere: list[int]) -> None:
    """The handler stays installed over a pattern's searches; a signal landing between two of
    them, or while it is put in place and taken back, changes no verdict."""
    probe._measure.cache_clear()
    probe.forget()
    assert probe.probe(r"\bhelm\s+install\b") is None
    assert alarm_everywhere[0] > 20


def test_the_handler_is_installed_once_per_pattern_and_put_back(monkeypatch) -> None:
    installed: list[object] = []
    real = signal.signal

    def counting(signum: int, handler: Any) -> Any:
        installed.append(handler)
        return real(signum, handler)

    def mine(*_: object) -> None:
        return None

    previous = real(signal.SIGALRM, mine)
    monkeypatch.setattr(probe.signal, "signal", counting)
    try:
        probe._measure.cache_clear()
        probe.forget()
        assert probe.probe(r"\bterraform\s+apply\b") is None
        assert installed == [probe._raise_timeout, mine]
        assert real(signal.SIGALRM, mine) is mine
    finally:
        real(signal.SIGALRM, previous)
