"""Redact, then cut: no cut point may split a secret out of the rule that would find it.

The deep scan's excerpt (what a language model is sent) cuts each part of a finding short. It
used to cut first and redact the excerpt after, so a token straddling the cut lost the end its
rule needs and went out nearly whole (39 of a GitHub token's 40 characters). These tests put
every kind of secret the privacy rules know (the corpus of ``test_secrets``) at every position
across each cut of the excerpt, and check that no prefix of five characters or more of its
secret part reaches the excerpt, nor any eight-character fragment of it (the test fails on the
old order for most kinds).
"""

from __future__ import annotations

import pytest
from tests.security.test_secrets import FAKES, Fake, fragments

from lessons_core import privacy
from lessons_core.scan import events as ev
from lessons_core.scan.detectors.tier2 import Finding

excerpt = pytest.importorskip("lessons_llm.excerpt", reason="lessons-llm is not installed")

#: The shortest prefix of a secret that must not get out.
PREFIX = 5


def finding(part: str, text: str) -> Finding:
    """A failing call whose ``part`` (the command, the error, the user's words) is ``text``."""
    call = ev.Event(
        kind="tool_call", agent="claude", tool="Bash", command="make deploy", call_id="c1"
    )
    result = ev.Event(kind="tool_result", agent="claude", failure="failed", text="(failed)")
    if part == "command":
        call = ev.Event(kind="tool_call", agent="claude", tool="Bash", command=text, call_id="c1")
    elif part == "error":
        result = ev.Event(kind="tool_result", agent="claude", failure="failed", text=text)
    found = Finding(call, result)
    if part == "words":
        found.user_text = text
    return found


LIMITS = {
    "command": excerpt.COMMAND_CHARS,
    "error": excerpt.ERROR_CHARS,
    "words": excerpt.WORDS_CHARS,
}


def secret_prefixes(fake: Fake) -> list[str]:
    """Prefixes of the generated part of ``fake`` (its fixed public prefix is no secret)."""
    body = fake.body.replace("\\n", "\n")
    return [body[:n] for n in range(PREFIX, len(body) + 1)]


def sweep(fake: Fake, part: str) -> list[tuple[int, str]]:
    """Each cut position inside the secret whose excerpt still holds part of it."""
    limit = LIMITS[part]
    keep = limit - 12  # what ``_cut`` keeps of a longer text before its marker
    where = fake.text.find(fake.secret)
    start = where + fake.secret.find(fake.body) if fake.body in fake.secret else where
    bad = []
    for inside in range(1, len(fake.body)):
        pad = keep - start - inside  # the cut then falls ``inside`` characters into the body
        if pad < 2:
            continue
        text = "a" * (pad - 1) + " " + fake.text + " and more words after it" * 30
        out = excerpt.build(finding(part, text))
        found = [p for p in secret_prefixes(fake) if p in out]
        found += [f for f in fragments(fake) if f in out]
        if found:
            bad.append((inside, max(found, key=len)))
    return bad


@pytest.mark.parametrize("part", sorted(LIMITS))
@pytest.mark.parametrize("fake", FAKES, ids=[f.kind for f in FAKES])
def test_no_cut_point_leaks_a_secret(fake: Fake, part: str) -> None:
    """Every kind, every cut position inside it, every cut part of the excerpt."""
    assert sweep(fake, part) == []


def test_the_old_order_leaked() -> None:
    """Cutting first, as the excerpt did, let most of a GitHub token through."""
    token = "ghp_" + "FAKE" + "x7Qz" * 8
    text = "a" * 560 + " " + token
    cut_first = privacy.scrub(text[: excerpt.COMMAND_CHARS - 12])
    assert token[:24] in cut_first
    assert token[:8] not in excerpt.build(finding("command", text))
