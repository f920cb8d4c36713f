"""`lessons-copilot-hook`: the GitHub Copilot CLI hook command (hot path, standard library only).

Copilot pipes one JSON payload per hook event to stdin and reads JSON (or nothing) from stdout.
In the camelCase dialect the payload does not say which event it is, so the installer names the
event on the command line (``lessons-copilot-hook preToolUse``); a payload of the PascalCase
dialect names its own. The work is in :mod:`lessons_core.hot.runner`; this module only hands it
the Copilot adapter (:mod:`lessons_copilot.hot_copilot`) with that event bound.

Copilot **denies** a tool call whose ``preToolUse`` hook exits non-zero, so anything that goes
wrong here, an import error from a half-installed package included, ends in exit 0 with no
output: the call goes ahead.
"""

import sys


def event_argument(words):
    """The event named among ``words`` (the command line after the program), or ``None``.

    A word that holds a path separator is a directory the file form puts on ``sys.path``.
    """
    for word in words:
        if word and "/" not in word and "\\" not in word:
            return word
    return None


def main(argv=None) -> int:
    try:
        from lessons_copilot import hot_copilot
        from lessons_core.hot import runner

        words = sys.argv[1:] if argv is None else argv
        status: int = runner.run(hot_copilot.Bound(event_argument(words)))
        return status
    except BaseException:  # fail open, whatever happened
        return 0


if __name__ == "__main__":
    # Run as a file (``python -I -S …/lessons_copilot/hook.py DIR … EVENT``, the registered
    # form): ``-S`` skips the site-packages scan, so the installer passes the directories that
    # hold lessons_copilot and lessons_core.
    sys.path[:0] = [w for w in sys.argv[1:] if "/" in w or "\\" in w]
    sys.exit(main())
