"""Path globs compiled to regexes at build time."""

from __future__ import annotations

import re

import pytest

from lessons_core.patterns.globs import GlobError, glob_to_regex


@pytest.mark.parametrize(
    ("glob", "path", "hit"),
    [
        ("*.py", "/home/me/app/x.py", True),
        ("*.py", "/home/me/app/x.pyc", False),
        ("*.py", "/home/me/app.py/x", False),
        ("src/**/*.py", "/h/app/src/a/b/c.py", True),
        ("src/**/*.py", "/h/app/src/c.py", True),
        ("src/**/*.py", "/h/app/mysrc/c.py", False),
        ("src/*.py", "/h/app/src/a/c.py", False),
        ("**/alembic/versions/*.py", "/r/db/alembic/versions/0001.py", True),
        ("**/alembic/versions/*.py", "/r/alembic/versions/sub/0001.py", False),
        ("**", "/anything/at/all", True),
        ("a?c.txt", "/x/abc.txt", True),
        ("a?c.txt", "/x/a/c.txt", False),
        ("[!a]*.md", "/x/b.md", True),
        ("[!a]*.md", "/x/a.md", False),
        ("[a-c]x", "/x/bx", True),
        ("*.{js,ts}", "/p/index.ts", True),
        ("*.{js,ts}", "/p/index.tsx", False),
        ("{src,lib}/**/*.{c,h}", "/p/lib/x/y.h", True),
        ("/etc/*", "/etc/hosts", True),
        ("/etc/*", "/home/etc/hosts", False),
        ("Dockerfile", "/p/Dockerfile", True),
        ("Dockerfile", "/p/Dockerfile.dev", False),
        ("file.name+1", "/p/file.name+1", True),
        ("file.name+1", "/p/fileXname+1", False),
    ],
)
def test_glob_semantics(glob, path, hit):
    """`**` crosses directories, `*` and `?` do not, classes and braces work, basenames anywhere."""
    assert bool(re.search(glob_to_regex(glob), path)) is hit


@pytest.mark.parametrize("glob", ["", "src/[abc", "*.{js,ts"])
def test_bad_globs_are_errors(glob):
    """Unclosed brackets or braces, or an empty glob, raise a clear error."""
    with pytest.raises(GlobError):
        glob_to_regex(glob)


@pytest.mark.parametrize(
    ("glob", "path", "hit"),
    [
        # a leading `**/` and another one: each piece between them keeps its place
        ("**/src/**/*.py", "/r/app/src/pkg/mod.py", True),
        ("**/src/**/*.py", "/r/app/src/pkg/mod.txt", False),
        # a run of stars before a slash is one `**/`
        ("***/a.py", "/r/x/a.py", True),
        ("***/a.py", "/r/x/ba.py", False),
        # every branch of braces whole, from its first character
        ("*.{py,md}", "/p/x.py", True),
        ("*.{py,md}", "/p/x.md", True),
        ("*.{py,md}", "/p/x.y", False),
        # a `]` first in a class is one of its members
        ("[]x]y", "/p/]y", True),
        ("[]x]y", "/p/xy", True),
        ("[]x]y", "/p/zy", False),
    ],
)
def test_globstar_pieces_star_runs_and_brace_branches(glob, path, hit):
    """The parts of a glob that used to be checked only in simpler shapes."""
    assert bool(re.search(glob_to_regex(glob), path)) is hit


@pytest.mark.parametrize("glob", ["x[", "{a,[", "[!"])
def test_a_glob_ending_in_an_open_class_is_an_error(glob):
    """A `[` (or `[!`) with nothing after it is the same clear error as any unclosed class."""
    with pytest.raises(GlobError, match="unclosed"):
        glob_to_regex(glob)
