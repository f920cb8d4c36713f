"""A measured acceptance is given again in the same process, while the probe still holds it.

A sync checks every team lesson as ``lessons add`` does, and the build that follows judged the
same ten thousand patterns again. The rules never change their answer for a source, and the
probe's memory stays the judge of the timing: an acceptance is kept only on the full limit of
its degree, and given again only while the probe still holds its form fast.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

from lessons_core.patterns import probe, regex_safety
from lessons_core.patterns.regex_safety import judge

pytestmark = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs SIGALRM")


@pytest.fixture(name="judged")
def fixture_judged(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every source the rules really judge, in order; nothing is remembered beforehand."""
    regex_safety.forget()
    seen: list[str] = []
    real = regex_safety._judge

    def counting(source: str, *, measure: bool) -> regex_safety.Verdict:
        seen.append(source)
        return real(source, measure=measure)

    monkeypatch.setattr(regex_safety, "_judge", counting)
    yield seen
    regex_safety.forget()


def test_an_acceptance_is_given_again_without_judging(judged: list[str]) -> None:
    source = r"\bkubectl\s+apply\b"
    first = judge(source)
    assert first.reason is None
    assert judge(source) == first
    assert judged == [source]


def test_it_is_judged_again_once_the_probe_no_longer_holds_it(
    judged: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new process's probe knows nothing: the kept verdict then has the probe time the
    pattern again rather than answer for it."""
    source = r"\bkubectl\s+apply\b"
    judge(source)
    probe.forget()
    measured: list[str] = []
    real = probe._measure.__wrapped__

    def counting(hot: str, *args: object) -> str | None:
        measured.append(hot)
        return real(hot, *args)

    with monkeypatch.context() as patched:
        patched.setattr(probe, "_measure", counting)
        assert judge(source).reason is None
    assert measured == [regex_safety.hot_source(source)]
    assert judged == [source]


def test_a_limit_the_probe_lowered_is_judged_anew(judged: list[str]) -> None:
    """Its refusal on the longer limit is never kept, so each judgement measures it again."""
    source = r"[a-z]{0,49}a[a-z]{0,19}!"
    first = judge(source)
    assert first.reason is None and first.limit < probe.SUBJECT_LIMIT
    judge(source)
    assert judged == [source, source]


def test_neither_a_refusal_nor_an_unmeasured_verdict_is_kept(judged: list[str]) -> None:
    judge(r"(a+)+$")
    judge(r"(a+)+$")
    judge(r"\bnpm\s+test\b", measure=False)
    judge(r"\bnpm\s+test\b", measure=False)
    # (a refusal's suggested rewrite is judged too, each time)
    assert judged.count(r"(a+)+$") == 2
    assert judged.count(r"\bnpm\s+test\b") == 2
