"""Path globs compiled to regexes at build time."""

from __future__ import annotations

import re

import pytest

from lessons_core.compiler.globs import GlobError, glob_to_regex


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
