"""`lessons-kilo-hook`: the Kilo CLI hook command (hot path, standard library only).

Kilo CLI, like OpenCode, has no hook commands of its own: the plugin file ``lessons install
kilo`` writes starts this command with one JSON payload per plugin hook on stdin and reads JSON
(or nothing) from stdout. The work is in :mod:`lessons_core.hot.runner`; this module only hands
it the Kilo CLI adapter (:mod:`lessons_kilo.hot_kilo`). Anything that goes wrong, including an
import error from a half-installed package, ends in exit 0 with no output: a broken hook must
never stop the agent.
"""

import sys


def main():
    try:
        from lessons_core.hot import runner
        from lessons_kilo import hot_kilo

        return runner.run(hot_kilo)
    except BaseException:  # fail open, whatever happened
        return 0


if __name__ == "__main__":
    # Run as a file (``python -I -S …/lessons_kilo/hook.py DIR …``, the registered form):
    # ``-S`` skips the site-packages scan, so the installer passes the directories that hold
    # lessons_kilo, lessons_core and lessons_opencode (whose hook code this one runs).
    sys.path[:0] = sys.argv[1:]
    sys.exit(main())
