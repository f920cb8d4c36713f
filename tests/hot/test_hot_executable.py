"""Blanking quoted data so `executable` command patterns see only what the shell runs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lessons_core.hot.executable import blank_quotes


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ('git commit -m "rm -rf /"', 'git commit -m ""'),
        ("echo 'rm -rf /' && ls", "echo '' && ls"),
        ("printf $'rm \\'-rf\\' /'", "printf $''"),
        ('echo "a \\" rm -rf" done', 'echo "" done'),
        ('echo "$(rm -rf /tmp/x)"', 'echo " rm -rf /tmp/x "'),
        ('echo "`rm -rf /`"', 'echo " rm -rf / "'),
        ("cat <<EOF > f\nrm -rf /\nEOF\nls", "cat <<EOF > f\nls"),
        ("cat <<'END'\nrm -rf /\nEND\nrm -rf x", "cat <<'END'\nrm -rf x"),
        ("cat <<-EOF\n\trm -rf /\n\tEOF\nok", "cat <<-EOF\nok"),
        ("grep -q x <<< 'rm -rf'", "grep -q x <<< ''"),
        ("rm -rf /tmp/x", "rm -rf /tmp/x"),
        ("", ""),
    ],
)
def test_blank_quotes(command, expected):
    """Quoted strings and heredoc bodies are emptied; substitutions in double quotes are kept."""
    assert blank_quotes(command) == expected


@given(st.text(alphabet="ab'\"$`()<\\\n -EOF", max_size=60))
def test_never_raises_and_never_grows_much(command):
    """Any input, however unbalanced, yields a string in linear time."""
    out = blank_quotes(command)
    assert isinstance(out, str)
    assert len(out) <= 2 * len(command) + 4
