"""Repository memory: a project's lessons as Markdown files in the project's own repository.

A team keeps ``.lessons/<slug>.md`` files (YAML front matter, then the mistake and the
remediation as Markdown sections) next to its code, reviews them in pull requests, and every
member's manifest carries them, scoped to that project. See ``docs/repo-memory.md``.

``fileformat`` reads and writes one file; ``folder`` does every file-system access of the
``.lessons`` folder (no link followed, nothing overwritten that we did not write); ``registry``
remembers which repositories a user includes and what we wrote there; ``source`` is the lesson
source the compiler reads through the ``lessons_register_lesson_sources`` hook.
"""
