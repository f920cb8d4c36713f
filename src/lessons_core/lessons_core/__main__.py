"""``python -m lessons_core``: the ``lessons`` command where its console script is not on PATH."""

from lessons_core.cli.main import main

main()
