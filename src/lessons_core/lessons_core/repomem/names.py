"""Names in a repository's ``.lessons`` folder (no third-party import: the build checks the
folder on every run, and only reads files, with PyYAML, when there are some)."""

from __future__ import annotations

import re

#: The folder, at the root of the repository, that holds one file per lesson.
FOLDER = ".lessons"
SUFFIX = ".md"
#: Slugs as file names: what :func:`lessons_core.ids.make_slug` makes, and nothing that could
#: step out of the folder or hide (no ``/``, ``\\``, ``..``, leading dot or upper case).
SLUG = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,118}[a-z0-9])?$")
#: Files larger than this are refused before they are parsed (a lesson holds at most 64 KiB
#: of text; front matter and headings come on top).
MAX_FILE_BYTES = 256 * 1024


def is_slug(name: str) -> bool:
    return bool(SLUG.match(name))
