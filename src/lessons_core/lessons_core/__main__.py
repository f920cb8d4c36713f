"""``python -m lessons_core``: the ``lessons`` command, for when the console script is not on PATH."""

from lessons_core.cli.main import main

main()
