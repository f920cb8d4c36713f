"""Running a command as a process that file permissions bind, even when the suite runs as root.

Root ignores a file's mode through two capabilities (``CAP_DAC_OVERRIDE`` and
``CAP_DAC_READ_SEARCH``, plus ``CAP_FOWNER`` for changing modes). A child started with those
removed from its bounding set stays uid 0, so it can still reach the interpreter and the tox
environment under a private home, but a read-only folder is read-only to it. That lets the
permission tests run in CI (as root) instead of skipping there.
"""

from __future__ import annotations

import os
import shutil

#: The capabilities that let root ignore permission bits.
_OVERRIDES = "-dac_override,-dac_read_search,-fowner"


def bound_by_permissions() -> tuple[str, ...]:
    """The prefix that makes a child process subject to file permissions (empty when not root)."""
    if os.name != "posix" or os.geteuid() != 0:
        return ()
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise RuntimeError("running as root needs setpriv (util-linux) to drop the overrides")
    return (setpriv, f"--bounding-set={_OVERRIDES}")
