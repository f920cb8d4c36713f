"""Run the hook runner with the echo adapter, as a hook process would.

With ``--modules FILE`` the names in ``sys.modules`` after the run are written to FILE (one a
line), so a test can check that the hot path imported nothing but the standard library.
"""

import sys


def main():
    modules_out = None
    if len(sys.argv) > 2 and sys.argv[1] == "--modules":
        modules_out = sys.argv[2]
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    import echo_adapter

    from lessons_core.hot import runner

    status = runner.run(echo_adapter)
    if modules_out:
        with open(modules_out, "w", encoding="utf-8") as fh:
            fh.write("\n".join(sorted(sys.modules)))
    return status


if __name__ == "__main__":
    sys.exit(main())
