"""`lessons-claude-hook`: the Claude Code hook command (hot path, standard library only).

Claude Code pipes one JSON payload per hook event to stdin and reads JSON (or nothing) from
stdout. The work is in :mod:`lessons_core.hot.runner`; this module only hands it the Claude
adapter. Anything that goes wrong, including an import error from a half-installed package,
ends in exit 0 with no output: a broken hook must never stop the agent.
"""

import sys


def main() -> int:
    try:
        from lessons_claude import hot_claude
        from lessons_core.hot import runner

        status: int = runner.run(hot_claude)
        return status
    except BaseException:  # fail open, whatever happened
        return 0


if __name__ == "__main__":
    # Run as a file (``python -I -S …/lessons_claude/hook.py DIR …``, the registered form):
    # ``-S`` skips the site-packages scan, so the installer passes the directories that hold
    # lessons_claude and lessons_core.
    sys.path[:0] = sys.argv[1:]
    sys.exit(main())
