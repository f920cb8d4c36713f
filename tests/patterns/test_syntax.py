"""One parse of a pattern serves every question the compiler asks about it."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pytest

from lessons_core.patterns import probe, regex_safety, syntax


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Each source the standard library's parser is handed (by anyone, ``re.compile`` too),
    counted, with nothing kept."""
    seen: Counter[str] = Counter()
    real = syntax.sre_parse.parse

    def counting(source: str, flags: int = 0, *rest: Any) -> Any:
        seen[source] += 1
        return real(source, flags, *rest)

    syntax.parse.cache_clear()
    probe.forget()
    probe._measure.cache_clear()
    monkeypatch.setattr(syntax.sre_parse, "parse", counting)
    yield seen
    syntax.parse.cache_clear()


def test_judging_and_probing_parse_the_source_once(parses: Counter[str]) -> None:
    # Judged, rewritten, scaled and probed: each walks the same tree.
    source = r"\bparsed-once-(?:alpha|beta)\s+--flag\b"
    re.compile(source)  # re's own cache holds it now: what is counted below is ours alone
    parses.clear()
    verdict = regex_safety.judge(source)
    assert verdict.reason is None
    assert parses[source] == 1


def test_a_refused_source_is_parsed_again_each_time(parses: Counter[str]) -> None:
    # A failure is not kept: the caller sees the same error however often it asks.
    for _ in range(2):
        with pytest.raises(re.error):
            syntax.parse("(unclosed")
    assert parses["(unclosed"] == 2


def test_flags_are_part_of_what_is_parsed() -> None:
    # The same text under IGNORECASE is another tree (its literals fold), not the cached one.
    plain = syntax.parse("[a-z]x")
    folded = syntax.parse("[a-z]x", 2)
    assert plain is syntax.parse("[a-z]x")
    assert folded is not plain
    assert folded.state.flags != plain.state.flags
