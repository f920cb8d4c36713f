"""Start a background transcript scan from a hook, at most once per interval. Stdlib only.

Called at session start. It must never delay the hook: it only looks at one timestamp file and,
when the interval (``autoScanIntervalHours`` in ``config.json``, default 1 h) has passed, starts
``lessons scan --background`` as a detached process (new session, no stdin/stdout/stderr) and
returns at once. The timestamp is claimed before spawning, with an ``O_EXCL`` claim file so two
hooks starting together spawn one scan; the scan itself also takes the scan lock and leaves at
once if another scan is running. Any error means "no scan this time", never a failed hook.

``LESSONS_AUTO_SCAN=0`` in the environment turns it off without touching ``config.json`` (CI
jobs, test suites, a one-off session).
"""

# os.path keeps the hook free of pathlib's import cost.
# ruff: noqa: PTH108, PTH110, PTH112, PTH118, SIM105

from __future__ import annotations

import os
import sys
import time

from lessons_core.hot import fastjson, paths, safefile

# ``subprocess`` costs the hook ~10 ms to import; it is imported only when a scan is due.
MYPY = False
if MYPY:  # type checkers only
    import subprocess

STAMP_NAME = "autoscan.stamp"
CLAIM_NAME = "autoscan.claim"
#: A claim older than this is left over from a crash and may be taken over.
CLAIM_STALE_SECONDS = 60.0
#: ``config.json`` is a few lines; more than this is not ours.
MAX_CONFIG_BYTES = 1024 * 1024

_COMMAND = "from lessons_core.cli.main import main; main()"
_SH = "/bin/sh"


def _settings(home: str) -> tuple[bool, float]:
    """``(enabled, interval in seconds)`` from ``config.json``, defaults when unreadable."""
    enabled, hours = True, 1.0
    try:
        # The user's own file, maybe a link into their dotfiles: any regular file is read (the
        # CLI reads it the same way), never a FIFO, never more than MAX_CONFIG_BYTES.
        path = os.path.join(home, paths.CONFIG_NAME)
        doc = fastjson.loads(safefile.read(path, MAX_CONFIG_BYTES, trusted=False, follow=True))
    except (OSError, ValueError):
        return enabled, hours * 3600.0
    if isinstance(doc, dict):
        if isinstance(doc.get("autoScan"), bool):
            enabled = doc["autoScan"]
        value = doc.get("autoScanIntervalHours")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
            hours = float(value)
    return enabled, hours * 3600.0


def _due(stamp: str, interval: float, now: float) -> bool:
    try:
        return now - os.lstat(stamp).st_mtime >= interval
    except OSError:
        return True


def _claim(claim: str, now: float) -> bool:
    """Take the claim file with O_EXCL; a stale one (crashed starter) is replaced."""
    try:
        fd = safefile.create(claim)
    except FileExistsError:
        try:
            if now - os.lstat(claim).st_mtime < CLAIM_STALE_SECONDS:
                return False
            os.unlink(claim)  # the name only: a link there is removed, not followed
            fd = safefile.create(claim)
        except OSError:
            return False
    except OSError:
        return False
    os.close(fd)
    return True


def _touch(stamp: str, now: float) -> None:
    """Set the stamp's time, creating it 0600; never through a link, never a FIFO's."""
    flags = os.O_WRONLY | os.O_CREAT | safefile.NOFOLLOW | safefile.NONBLOCK
    try:
        fd = os.open(stamp, flags, 0o600)
    except OSError:
        # A link or a FIFO under the stamp's name: the name goes (never its target), then retry.
        import stat

        if stat.S_ISREG(os.lstat(stamp).st_mode):
            raise
        os.unlink(stamp)
        fd = os.open(stamp, flags, 0o600)
    try:
        safefile.check(os.fstat(fd), stamp, single=True)
        if os.utime in os.supports_fd:
            os.utime(fd, (now, now))
        else:
            os.utime(stamp, (now, now))
    finally:
        os.close(fd)


def maybe_start(
    environ: dict[str, str] | None = None,
    now: float | None = None,
    popen: type[subprocess.Popen[bytes]] | None = None,
) -> bool:
    """Start ``lessons scan --background`` if auto-scan is on and the interval has passed.

    Returns True when a scan process was started. ``now`` and ``popen`` exist for tests.
    """
    env: dict[str, str] = dict(os.environ) if environ is None else environ
    if env.get("LESSONS_AUTO_SCAN", "").lower() in ("0", "false", "no", "off"):
        return False
    try:
        home: str = paths.lessons_home(env)
        if not os.path.isdir(home):
            return False
        enabled, interval = _settings(home)
        if not enabled:
            return False
        current = time.time() if now is None else now
        stamp = os.path.join(home, STAMP_NAME)
        if not _due(stamp, interval, current):
            return False
        claim = os.path.join(home, CLAIM_NAME)
        if not _claim(claim, current):
            return False
        try:
            if not _due(stamp, interval, current):  # another hook won the race just now
                return False
            _touch(stamp, current)
            import subprocess

            command = [sys.executable, "-c", _COMMAND, "scan", "--background"]
            if popen is None and os.path.exists(_SH):
                # Daemonise through a shell that starts the scan in the background and exits at
                # once: the hook waits a millisecond for the shell, never for the scan, and no
                # child of the hook is left behind (the scan is adopted by init).
                command = [_SH, "-c", '"$@" &', "sh", *command]
                waiting = True
            else:
                waiting = False
            child = (popen or subprocess.Popen)(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
                env=env,
            )
            if waiting:
                child.wait(timeout=5)
            return True
        finally:
            try:
                os.unlink(claim)
            except OSError:
                pass
    except Exception:
        return False
