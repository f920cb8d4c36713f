"""The failure classes' prefilter: a text the substring test turns away matches no class."""

from __future__ import annotations

import re

import pytest

from lessons_core.compiler.linearize import top_level_split
from lessons_core.scan import events as ev
from lessons_core.scan import failures


@pytest.mark.parametrize("kind,source", failures._CLASSES)
def test_every_alternative_holds_a_prefilter_literal(kind, source):
    """Each alternative of each class, with its escapes undone, contains one of the literals
    outside any group: otherwise a text matching it could be turned away unread."""
    for branch in top_level_split(source, "|"):
        plain = re.sub(r"\\(.)", r"\1", re.sub(r"\((?:[^()\\]|\\.)*\)[?*]?", "\0", branch))
        assert any(lit in plain.lower() for lit in failures._LITERALS), (kind, branch)


@pytest.mark.parametrize(
    "text,kind",
    [
        ("The user doesn't want to proceed with this tool use.", ev.REJECTED),
        ("Permission to use Bash has been denied.", ev.DENIED),
        ("[Request interrupted by user]", ev.INTERRUPTED),
        ("Command timed out after 2m 0s", ev.TIMEOUT),
        ("<tool_use_error>File has not been read yet.</tool_use_error>", ev.VALIDATION),
        ("FOUND 2 MATCHES OF THE STRING TO REPLACE", ev.VALIDATION),
        ("Fichier → Path does not exist: /tmp/é", ev.VALIDATION),
        ("Exit code 1\nModuleNotFoundError: No module named 'x'", None),
        ("Erreur — rien trouvé", None),
    ],
)
def test_class_of_with_and_without_the_prefilter(text, kind):
    """The fast path gives what the caseless alternation gives, ASCII or not."""
    assert failures.class_of(text) == kind
    slow = {m.lastgroup for m in failures._any_class().finditer(text)}
    assert next((k for k in failures._PRIORITY if k in slow), None) == kind


def test_a_caseless_fold_outside_ascii_takes_the_slow_path():
    """The long s matches ``s`` caselessly but ``str.lower`` keeps it: such a text is searched
    caselessly, so it is still classified."""
    text = "\u017fandbox denied this write"
    assert failures.class_of(text) == ev.DENIED
