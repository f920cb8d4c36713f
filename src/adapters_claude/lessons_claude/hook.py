"""`lessons-claude-hook`: the Claude Code hook command (hot path, standard library only).

Placeholder until the adapter lands: reads stdin and answers nothing, which every agent reads
as "no opinion". It must never fail.
"""

import sys


def main():
    try:
        sys.stdin.read()
    except Exception:  # noqa: BLE001, S110 - the hook fails open, always
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
