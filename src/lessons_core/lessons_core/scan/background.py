"""The background scan: what ``lessons scan --background`` runs, started by the auto-scan hook.

It is quiet (nothing on stdout, which nobody reads), leaves at once when another scan holds the
lock, and records the time it finished so the next session start knows the interval restarted.
Failures are logged to stderr (detached, so normally discarded) and never raised: a background
job has nobody to show a traceback to.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lessons_core.errors import LessonsError
from lessons_core.logs import get_logger

if TYPE_CHECKING:
    from lessons_core.services import Session

log = get_logger()


def run_background(paths: Sequence[Path] = (), agent: str | None = None) -> bool:
    """Run one scan without waiting for the lock; True when it ran."""
    from lessons_core import services
    from lessons_core.hot.autoscan import STAMP_NAME
    from lessons_core.scan import engine, lock

    try:
        with services.session() as sess:
            try:
                report = engine.run_scan(sess, paths=list(paths), agent=agent, wait=False)
            except lock.ScanBusy:
                log.info("scan.background_busy")
                return False
            except LessonsError as exc:
                if not sess.config.deep.enabled:
                    raise
                # A deep scan that cannot run (no model, no key, no plugin) must not stop the
                # hourly scans: this one runs plain, and says why in the log.
                log.warning("scan.background_deep_unavailable", error=str(exc))
                import attrs

                sess.config = attrs.evolve(
                    sess.config, deep=attrs.evolve(sess.config.deep, enabled=False)
                )
                report = engine.run_scan(sess, paths=list(paths), agent=agent, wait=False)
            stamp = sess.home / STAMP_NAME
            now = time.time()
            stamp.touch()
            os.utime(stamp, (now, now))
            log.info(
                "scan.background_done",
                files=report.files_read,
                new=len(report.new),
                promoted=report.promoted,
            )
            _sync_team(sess)
            return True
    except LessonsError as exc:
        log.warning("scan.background_failed", error=str(exc))
        return False


def _sync_team(sess: Session) -> None:
    """Sync with the team store after the scan, when one is configured; never raises."""
    from lessons_core import team

    try:
        report = team.run_sync(sess)
    except Exception as exc:  # a plugin's bug or a row it did not foresee: never the scan's end
        log.warning("team.sync_failed", error=team.mask_url(f"{type(exc).__name__}: {exc}"))
        return
    if report is not None:
        log.info("team.synced", **report.as_json())
