"""The starter lessons: the catalogue the demo adds, for a new store (``lessons add --starter``).

A new store delivers nothing until it holds lessons, and mining transcripts takes sessions; the
starter catalogue (common agent mistakes: pytest without a terminal, ``git stash`` leaving
untracked files, force-pushing to main, ...) gives a first week something to deliver. Adding it
is idempotent: a starter lesson already stored (same content, or same summary once edited) is
left as it is, so running it twice adds nothing and never undoes an edit.
"""

from __future__ import annotations

from importlib import resources

#: The packaged catalogue, one lesson per line (the demo adds the same file).
CATALOGUE = "starter-lessons.jsonl"
#: How the command and the messages name it.
SOURCE = "starter lessons"


def text() -> str:
    """The catalogue as JSON Lines."""
    return resources.files("lessons_core").joinpath("data", CATALOGUE).read_text(encoding="utf-8")
