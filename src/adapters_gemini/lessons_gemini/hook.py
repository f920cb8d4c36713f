"""`lessons-gemini-hook`: the Gemini CLI hook command (hot path, standard library only).

Gemini CLI pipes one JSON payload per hook event to stdin and reads JSON (or nothing) from stdout.
The work is in :mod:`lessons_core.hot.runner`; this module only hands it the Gemini CLI adapter
(:mod:`lessons_gemini.hot_gemini`). Anything that goes wrong, including an import error from a
half-installed package, ends in exit 0 with no output: a broken hook must never stop the agent.
"""

import sys


def main():
    try:
        from lessons_core.hot import runner
        from lessons_gemini import hot_gemini

        return runner.run(hot_gemini)
    except BaseException:  # fail open, whatever happened
        return 0


if __name__ == "__main__":
    # Run as a file (``python -I -S …/lessons_gemini/hook.py DIR …``, the registered form):
    # ``-S`` skips the site-packages scan, so the installer passes the directories that hold
    # lessons_gemini and lessons_core.
    sys.path[:0] = sys.argv[1:]
    sys.exit(main())
