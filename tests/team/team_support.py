"""Helpers for the team-store tests: a "machine" is a LESSONS_HOME with a team configured."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from lessons_core import services, team
from lessons_core.team import SyncReport


class Machine:
    """One machine's home, configured to sync with ``url``, opened through the services layer
    exactly as the CLI opens it."""

    def __init__(self, root: Path, name: str, url: str, *, in_config: bool = True):
        self.name = name
        self.home = root / name
        self.home.mkdir(parents=True)
        team_cfg: dict[str, Any] = {"store": "postgres", "machine": name, "author": name}
        if in_config:
            team_cfg["url"] = url
        (self.home / "config.json").write_text(json.dumps({"team": team_cfg}))
        self.environ = {**os.environ, "LESSONS_HOME": str(self.home)}

    def sync(self) -> SyncReport:
        with services.session(self.environ) as sess:
            report = team.run_sync(sess)
        assert report is not None
        return report

    def store(self) -> Any:
        return services.open_store(self.environ)

    def manifest_ids(self) -> set[str]:
        data = json.loads((self.home / "lesson-manifest.json").read_text())
        return set(data["lessons"])
