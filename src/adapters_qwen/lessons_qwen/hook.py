"""`lessons-qwen-hook`: the Qwen Code hook command (hot path, standard library only).

Qwen Code pipes one JSON payload per hook event to stdin and reads JSON (or nothing) from
stdout. The work is in :mod:`lessons_core.hot.runner`; this module only hands it the Qwen Code
adapter (:mod:`lessons_qwen.hot_qwen`). Anything that goes wrong, including an import error from
a half-installed package, ends in exit 0 with no output: a broken hook must never stop the agent
(Qwen Code reads exit status 2 as a deny, and any other failure as no answer).
"""

import sys


def main() -> int:
    try:
        from lessons_core.hot import runner
        from lessons_qwen import hot_qwen

        status: int = runner.run(hot_qwen)
        return status
    except BaseException:  # fail open, whatever happened
        return 0


if __name__ == "__main__":
    # Run as a file (``python -I -S …/lessons_qwen/hook.py DIR …``, the registered form):
    # ``-S`` skips the site-packages scan, so the installer passes the directories that hold
    # lessons_qwen and lessons_core.
    sys.path[:0] = sys.argv[1:]
    sys.exit(main())
